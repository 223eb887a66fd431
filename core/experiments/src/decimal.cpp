#include "decimal.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace sampling_lab {

namespace {

// Enough digits to decide any rounding: a halfway point between two doubles has at most 768
// significant digits; the digits after these only say whether the rest is zero.
constexpr std::size_t kMaxDigits = 800;

// A non-negative integer in 32-bit limbs, least significant first.
class BigInteger {
 public:
  explicit BigInteger(std::uint32_t value = 0) {
    if (value) limbs_.push_back(value);
  }

  void multiply_add(std::uint32_t factor, std::uint32_t addend) {
    std::uint64_t carry = addend;
    for (auto& limb : limbs_) {
      const std::uint64_t product = std::uint64_t(limb) * factor + carry;
      limb = std::uint32_t(product);
      carry = product >> 32;
    }
    if (carry) limbs_.push_back(std::uint32_t(carry));
  }

  void multiply_by_power_of_ten(int power) {
    for (; power >= 9; power -= 9) multiply_add(1000000000, 0);
    static constexpr std::uint32_t kSmall[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (power > 0) multiply_add(kSmall[power], 0);
  }

  void shift_left(int bits) {
    if (limbs_.empty() || bits == 0) return;
    const int words = bits / 32;
    const int rest = bits % 32;
    if (rest) {
      std::uint32_t carry = 0;
      for (auto& limb : limbs_) {
        const std::uint32_t next = limb >> (32 - rest);
        limb = (limb << rest) | carry;
        carry = next;
      }
      if (carry) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), std::size_t(words), 0);
  }

  void shift_right_one() {
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      limbs_[i] = (limbs_[i] >> 1) | (i + 1 < limbs_.size() ? limbs_[i + 1] << 31 : 0);
    }
    trim();
  }

  int bit_length() const {
    if (limbs_.empty()) return 0;
    int bits = int(limbs_.size() - 1) * 32;
    for (std::uint32_t top = limbs_.back(); top; top >>= 1) ++bits;
    return bits;
  }

  bool is_zero() const { return limbs_.empty(); }

  friend bool operator<(const BigInteger& a, const BigInteger& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size();
    for (std::size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i];
    }
    return false;
  }

  // *this −= other, other ≤ *this.
  void subtract(const BigInteger& other) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      std::int64_t difference = std::int64_t(limbs_[i]) - borrow - (i < other.limbs_.size() ? std::int64_t(other.limbs_[i]) : 0);
      borrow = difference < 0;
      limbs_[i] = std::uint32_t(difference + (borrow << 32));
    }
    trim();
  }

 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<std::uint32_t> limbs_;
};

// m · 2^exponent rounded to the double nearest (ties to even), `sticky` if a nonzero part
// below m was dropped; m has its top bit at 63.
double round_to_double(std::uint64_t m, int exponent, bool sticky) {
  const int top = exponent + 63;  // the value is in [2^top, 2^(top + 1))
  if (top > 1023) return HUGE_VAL;
  // Bits kept: 53, fewer for a subnormal; at least one bit below the smallest subnormal's
  // place decides between 0 and 2^−1074.
  const int keep = top >= -1022 ? 53 : 53 - (-1022 - top);
  if (keep < 0) return 0;
  const int drop = 64 - keep;
  const std::uint64_t kept = drop == 64 ? 0 : m >> drop;
  const std::uint64_t rest = drop == 64 ? m : m & ((std::uint64_t(1) << drop) - 1);
  const std::uint64_t half = std::uint64_t(1) << (drop - 1);
  const bool up = rest > half || (rest == half && (sticky || (kept & 1)));
  // Exact: kept + up ≤ 2^53, and the power of two puts it on a double's grid.
  return std::ldexp(double(kept + (up ? 1 : 0)), exponent + drop);
}

}  // namespace

double decimal_to_double(std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  std::string digits;  // the significant digits, no leading zeros
  int exponent = 0;    // value = digits · 10^exponent
  bool sticky = false;
  std::size_t at = negative ? 1 : 0;
  bool fraction = false;
  for (; at < text.size() && text[at] != 'e' && text[at] != 'E'; ++at) {
    const char c = text[at];
    if (c == '.') {
      fraction = true;
      continue;
    }
    if (digits.empty() && c == '0') {
      if (fraction) --exponent;
      continue;
    }
    if (digits.size() < kMaxDigits) {
      digits += c;
      if (fraction) --exponent;
    } else {
      sticky |= c != '0';
      if (!fraction) ++exponent;
    }
  }
  if (at < text.size()) {
    ++at;
    const bool negative_power = at < text.size() && text[at] == '-';
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
    long long power = 0;
    for (; at < text.size(); ++at) power = std::min(power * 10 + (text[at] - '0'), 100000000LL);
    exponent = int(std::max(-200000000LL, std::min(200000000LL, exponent + (negative_power ? -power : power))));
  }
  const double sign = negative ? -1.0 : 1.0;
  if (digits.empty()) return sign * 0.0;
  // value is in [10^magnitude, 10^(magnitude + 1)).
  const long long magnitude = (long long)digits.size() - 1 + exponent;
  if (magnitude > 309) return sign * HUGE_VAL;
  if (magnitude < -325) return sign * 0.0;

  // Clinger's fast path: both factors are exact doubles, so one rounding is all there is.
  static constexpr double kExactPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (digits.size() <= 15 && !sticky && exponent >= -22 && exponent <= 22) {
    double value = 0;
    for (const char c : digits) value = value * 10 + (c - '0');
    return sign * (exponent >= 0 ? value * kExactPowers[exponent] : value / kExactPowers[-exponent]);
  }

  // value = numerator / denominator; q = ⌊numerator · 2^s / denominator⌋ with its top bit at 63.
  BigInteger numerator;
  for (const char c : digits) numerator.multiply_add(10, std::uint32_t(c - '0'));
  BigInteger denominator(1);
  if (exponent >= 0) numerator.multiply_by_power_of_ten(exponent);
  else denominator.multiply_by_power_of_ten(-exponent);
  int shift = 63 - (numerator.bit_length() - denominator.bit_length());
  if (shift > 0) numerator.shift_left(shift);
  else denominator.shift_left(-shift);
  // The quotient is in [2^62, 2^64): one more bit if it is below 2^63.
  BigInteger scaled = denominator;
  scaled.shift_left(63);
  if (numerator < scaled) {
    numerator.shift_left(1);
    ++shift;
  }
  std::uint64_t quotient = 0;
  for (int bit = 63; bit >= 0; --bit) {
    if (!(numerator < scaled)) {
      numerator.subtract(scaled);
      quotient |= std::uint64_t(1) << bit;
    }
    scaled.shift_right_one();
  }
  return sign * round_to_double(quotient, -shift, sticky || !numerator.is_zero());
}

}  // namespace sampling_lab
