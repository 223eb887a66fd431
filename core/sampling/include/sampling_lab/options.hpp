#pragma once
// The per-token sampler's options, each written once in SAMPLING_LAB_OPTIONS. The struct
// SamplingOptions, the argument checks, the table the WebAssembly bindings publish (and the
// TypeScript types, CLI flags and widget sliders generated from it) all come from that list:
// a new option is one line here plus the code that uses it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <variant>

#include "sampling_lab/error.hpp"
#include "sampling_lab/values.hpp"

namespace sampling_lab {

// Which calls take an option: the filters (distribution and sampling), or only the draw.
enum class OptionGroup { kFilter, kPenalty, kRandomKey };

// X(field, public name, kind, group, default, range of the value or of each list entry,
//   widget slider, doc)
#define SAMPLING_LAB_OPTIONS(X)                                                                    \
  X(temperature, "temperature", kNumber, kFilter, 1.0, at_least(0), (SliderHint{0, 2, 0.05}),                               \
    "Divides the logits before the softmax; 0 = greedy (argmax, ties to the lowest id)")          \
  X(top_k, "topK", kInteger, kFilter, 0, closed(0, double(kMaxVocabulary)), (SliderHint{0, 200, 1}),                       \
    "Keeps the k most probable tokens; 0 = off")                                                   \
  X(top_p, "topP", kProbability, kFilter, 1.0, open_closed(0, 1), (SliderHint{0.1, 1, 0.01}),                                  \
    "Nucleus sampling (Holtzman et al. 2020): keeps a token while the mass ranked before it is < p; 1 = off") \
  X(min_p, "minP", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 0.5, 0.01}),                                       \
    "Keeps tokens with p_i >= minP * p_max (Nguyen et al. 2024); 0 = off")                        \
  X(epsilon_cutoff, "epsilonCutoff", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 0.02, 0.0005}),                 \
    "Epsilon sampling (Hewitt et al. 2022): keeps p_i >= epsilon in the distribution left so far, at least one token; 0 = off") \
  X(repetition_penalty, "repetitionPenalty", kNumber, kPenalty, 1.0, open_closed(0, 1e4), (SliderHint{1, 2, 0.05}),          \
    "CTRL (Keskar et al. 2019): divides positive, multiplies negative logits of generated tokens; 1 = off") \
  X(presence_penalty, "presencePenalty", kNumber, kPenalty, 0.0, closed(-1e4, 1e4), (SliderHint{-2, 2, 0.1}),                \
    "Subtracted once from the logit of every generated token (OpenAI)")                           \
  X(frequency_penalty, "frequencyPenalty", kNumber, kPenalty, 0.0, closed(-1e4, 1e4), (SliderHint{-2, 2, 0.1}),              \
    "Subtracted once per occurrence of a generated token (OpenAI)")                                \
  X(generated_ids, "generatedIds", kArray, kPenalty, kNoIds, closed(0, double(kMaxVocabulary - 1)), kNoSlider,    \
    "Token ids generated so far, which the penalties see")                                         \
  X(seed, "seed", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                                       \
    "Philox4x32-10 key: the same seed, stream, step and logits give the same token everywhere")   \
  X(stream, "stream", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                                   \
    "Independent stream under one seed, e.g. a request id")                                        \
  X(step, "step", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                                       \
    "Position in the sequence: the token's uniform is Philox block `step` of (seed, stream)")

inline constexpr std::span<const std::int32_t> kNoIds{};

template <Kind> struct OptionValue;
template <> struct OptionValue<Kind::kNumber> { using type = double; };
template <> struct OptionValue<Kind::kProbability> { using type = double; };
template <> struct OptionValue<Kind::kInteger> { using type = std::int64_t; };
template <> struct OptionValue<Kind::kSeed> { using type = std::uint64_t; };
template <> struct OptionValue<Kind::kArray> { using type = std::span<const std::int32_t>; };

struct SamplingOptions {
#define SAMPLING_LAB_FIELD(field, name, kind, group, default_value, range, slider, doc) \
  OptionValue<Kind::kind>::type field = default_value;
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_FIELD)
#undef SAMPLING_LAB_FIELD
};

struct OptionSpec {
  std::string_view name;  // public camelCase name, e.g. "topP"
  Kind kind;              // kArray options are lists of token ids
  OptionGroup group;
  double default_value;   // lists default to empty
  Range range;
  SliderHint slider;
  std::string_view doc;
};

constexpr double default_number(double value) { return value; }
constexpr double default_number(std::span<const std::int32_t>) { return 0.0; }

#define SAMPLING_LAB_SPEC(field, name, kind, group, default_value, range, slider, doc) \
  OptionSpec{name, Kind::kind, OptionGroup::group, default_number(default_value), range, slider, doc},
inline constexpr OptionSpec kOptionSpecs[] = {SAMPLING_LAB_OPTIONS(SAMPLING_LAB_SPEC)};
#undef SAMPLING_LAB_SPEC

constexpr std::size_t count_options(bool lists) {
  std::size_t count = 0;
  for (const auto& spec : kOptionSpecs) count += (spec.kind == Kind::kArray) == lists;
  return count;
}
// Scalars cross the boundary as one double each, lists as one span of ids each, in table order.
inline constexpr std::size_t kScalarOptions = count_options(false);
inline constexpr std::size_t kListOptions = count_options(true);

struct RawOptions {
  std::span<const double> scalars;                                    // kScalarOptions values
  std::span<const std::span<const std::int32_t>, kListOptions> lists;
};

// Options as they arrive from JavaScript: checks every value by its kind before narrowing it.
std::variant<SamplingOptions, ArgumentError> options_from_raw(RawOptions raw);

// Every option within its range, and every listed id inside a vocabulary of `vocabulary`.
Check check_options(const SamplingOptions& options, std::size_t vocabulary);

}  // namespace sampling_lab
