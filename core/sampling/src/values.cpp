#include "sampling_lab/values.hpp"

#include <cmath>
#include <cstdint>

namespace sampling_lab {

namespace {

// The exact decimal expansion of a finite x: the digits of |x| · 10^decimals, an integer, and
// `decimals`. x = m · 2^e with m < 2^53 an integer, so the digits are m · 2^e or m · 5^−e.
struct Decimal {
  std::string digits;
  int decimals = 0;
  bool negative = false;
};

void multiply(std::string& digits, int factor) {
  int carry = 0;
  for (auto digit = digits.rbegin(); digit != digits.rend(); ++digit) {
    const int product = (*digit - '0') * factor + carry;
    *digit = char('0' + product % 10);
    carry = product / 10;
  }
  for (; carry > 0; carry /= 10) digits.insert(digits.begin(), char('0' + carry % 10));
}

Decimal exact_decimal(double x) {
  int exponent = 0;
  const double fraction = std::frexp(std::abs(x), &exponent);
  Decimal decimal{std::to_string(std::uint64_t(std::ldexp(fraction, 53))), 0, std::signbit(x)};
  exponent -= 53;
  for (; exponent > 0; --exponent) multiply(decimal.digits, 2);
  for (; exponent < 0; ++exponent, ++decimal.decimals) multiply(decimal.digits, 5);
  return decimal;
}

// Keeps the first `keep` digits, rounded half to even (the value keeps its magnitude: decimals
// drops by the digits cut); a carry out of the first digit adds a digit.
void round_to(Decimal& decimal, std::size_t keep) {
  std::string& digits = decimal.digits;
  if (keep >= digits.size()) return;
  const bool tie = digits[keep] == '5' && digits.find_first_not_of('0', keep + 1) == std::string::npos;
  const bool odd = keep > 0 && (digits[keep - 1] - '0') % 2 == 1;
  const bool up = digits[keep] > '5' || (digits[keep] == '5' && (!tie || odd));
  decimal.decimals -= int(digits.size() - keep);
  digits.resize(keep);
  if (!up) return;
  std::size_t i = keep;
  while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
  if (i == 0) {
    digits.insert(digits.begin(), '1');
  } else {
    ++digits[i - 1];
  }
}

std::string without_trailing_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string number_text(double x) {
  if (std::isinf(x)) return x > 0 ? "∞" : "-∞";
  return general_text(x);
}

// Infinities and NaNs as printf writes them.
std::string non_finite_text(double x) { return std::string(std::signbit(x) ? "-" : "") + (std::isnan(x) ? "nan" : "inf"); }

}  // namespace

std::string general_text(double x) {
  if (!std::isfinite(x)) return non_finite_text(x);
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  Decimal decimal = exact_decimal(x);
  std::string& digits = decimal.digits;
  const std::string sign = decimal.negative ? "-" : "";
  digits.erase(0, digits.find_first_not_of('0'));
  round_to(decimal, 15);
  // x = d.ddd… · 10^exponent.
  const int exponent = int(digits.size()) - 1 - decimal.decimals;
  if (exponent < -4 || exponent >= 15) {
    const int magnitude = std::abs(exponent);
    return sign + without_trailing_zeros(digits.substr(0, 1) + "." + digits.substr(1)) + (exponent < 0 ? "e-" : "e+") +
           (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
  }
  if (decimal.decimals <= 0) return sign + digits + std::string(std::size_t(-decimal.decimals), '0');
  if (int(digits.size()) <= decimal.decimals) digits.insert(0, std::size_t(decimal.decimals - int(digits.size()) + 1), '0');
  const std::size_t point = digits.size() - std::size_t(decimal.decimals);
  return sign + without_trailing_zeros(digits.substr(0, point) + "." + digits.substr(point));
}

std::string fixed_text(double x) {
  if (!std::isfinite(x)) return non_finite_text(x);
  Decimal decimal = exact_decimal(x);
  std::string& digits = decimal.digits;
  if (const int keep = int(digits.size()) - (decimal.decimals - 6); keep < 0) {
    decimal = {"0", 6, decimal.negative};  // below 10^−7
  } else if (decimal.decimals > 6) {
    round_to(decimal, std::size_t(keep));
  }
  digits.append(std::size_t(6 - decimal.decimals), '0');
  if (digits.size() < 7) digits.insert(0, 7 - digits.size(), '0');
  const std::size_t point = digits.size() - 6;
  return (decimal.negative ? "-" : "") + digits.substr(0, point) + "." + digits.substr(point);
}

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
    default: return (std::isfinite(value) && range.contains(value)) || (range.masked && value == -kInfinity);
  }
}

Check check_scalar(double value, Kind kind, const Range& range, std::string_view name) {
  if (accepts(value, kind, range)) return std::nullopt;
  const std::string argument(name);
  switch (kind) {
    case Kind::kSeed: return ArgumentError{argument, argument + " must be an integer in [0, 2^53 − 1]"};
    case Kind::kInteger: return ArgumentError{argument, argument + " must be an integer in " + range.text()};
    case Kind::kProbability: return ArgumentError{argument, argument + " must be a probability in " + range.text()};
    default:
      return ArgumentError{argument, argument + " must be a finite number in " + range.text() + (range.masked ? " or −∞ (masked)" : "")};
  }
}

}  // namespace sampling_lab
