#pragma once
// The kinds of value a caller passes, each with one rule and one message. The sampler's options
// and the experiments' parameters are both described by them.
#include <limits>
#include <string>
#include <string_view>

#include "sampling_lab/error.hpp"

namespace sampling_lab {

enum class Kind {
  kNumber,       // a finite number in a range
  kInteger,      // a whole number in a range
  kSeed,         // a whole number in [0, 2^53 − 1], exact in a JavaScript number
  kProbability,  // a number in a sub-range of [0, 1]
  kChoice,       // one of a list of names
  kArray,        // a list of values of one kind
  kOptional,     // a value of one kind, or null for a documented built-in
  kNumberArray,  // a sampling option's list of numbers (published as an array of numbers)
  kBitmask,      // a packed token bitmask: 32-bit words, bit i of word i / 32 = token i (xgrammar's layout)
};

std::string_view kind_name(Kind kind);  // "number", "integer", …

// x as printf's "%.15g" and "%f" write it, from its exact decimal expansion rounded half
// to even, without printf (whose formatting code would otherwise ship with the sampler).
std::string general_text(double x);
std::string fixed_text(double x);

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 − 1

// An interval of allowed numbers; either end may be open or infinite. `masked`: −∞ is accepted
// too, as a masked token (a logit, or a logit bias).
struct Range {
  double min = -kInfinity;
  double max = kInfinity;
  bool min_open = false;
  bool max_open = false;
  bool masked = false;

  bool contains(double x) const;
  std::string text() const;  // "[0, 1]", "(0, 1]", "[1, ∞)"
};

constexpr Range closed(double min, double max) { return {min, max, false, false}; }
constexpr Range open_closed(double min, double max) { return {min, max, true, false}; }
constexpr Range open(double min, double max) { return {min, max, true, true}; }
constexpr Range at_least(double min) { return {min, kInfinity, false, false}; }
constexpr Range above(double min) { return {min, kInfinity, true, false}; }
constexpr Range any_finite() { return {}; }
constexpr Range closed_or_masked(double min, double max) { return {min, max, false, false, true}; }

// Where a widget's slider for a value goes: often a narrower span than the core accepts.
// step 0 = no slider.
struct SliderHint {
  double min = 0;
  double max = 0;
  double step = 0;
};
inline constexpr SliderHint kNoSlider{};

// Whether `value` is a number of this scalar kind inside `range` (check_scalar without the message,
// for checking long arrays).
bool accepts(double value, Kind kind, const Range& range);

// Checks one number of a scalar kind (number, integer, seed or probability): finite, whole where
// the kind says so, and inside `range`. Runs before any narrowing conversion.
Check check_scalar(double value, Kind kind, const Range& range, std::string_view name);

}  // namespace sampling_lab
