#include "sampling_lab/values.hpp"

#include <cmath>
#include <cstdio>

namespace sampling_lab {

namespace {
std::string number_text(double x) {
  if (std::isinf(x)) return x > 0 ? "∞" : "-∞";
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", x);
  return text;
}
}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNumber: return "number";
    case Kind::kInteger: return "integer";
    case Kind::kSeed: return "seed";
    case Kind::kProbability: return "probability";
    case Kind::kChoice: return "choice";
    case Kind::kArray:
    case Kind::kNumberArray: return "array";
    case Kind::kOptional: return "optional";
    case Kind::kBitmask: return "bitmask";
  }
  return "";
}

bool Range::contains(double x) const {
  const bool above_min = min_open ? x > min : x >= min;
  const bool below_max = max_open ? x < max : x <= max;
  return above_min && below_max;
}

std::string Range::text() const {
  std::string text(min_open || std::isinf(min) ? "(" : "[");
  text += number_text(min);
  text += ", ";
  text += number_text(max);
  text += max_open || std::isinf(max) ? ")" : "]";
  return text;
}

bool accepts(double value, Kind kind, const Range& range) {
  switch (kind) {
    case Kind::kSeed: return value >= 0 && value <= kMaxSeed && value == std::floor(value);
    case Kind::kInteger: return std::isfinite(value) && value == std::floor(value) && range.contains(value);
    default: return std::isfinite(value) && range.contains(value);
  }
}

Check check_scalar(double value, Kind kind, const Range& range, std::string_view name) {
  if (accepts(value, kind, range)) return std::nullopt;
  const std::string argument(name);
  switch (kind) {
    case Kind::kSeed: return ArgumentError{argument, argument + " must be an integer in [0, 2^53 − 1]"};
    case Kind::kInteger: return ArgumentError{argument, argument + " must be an integer in " + range.text()};
    case Kind::kProbability: return ArgumentError{argument, argument + " must be a probability in " + range.text()};
    default: return ArgumentError{argument, argument + " must be a finite number in " + range.text()};
  }
}

}  // namespace sampling_lab
