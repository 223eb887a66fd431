#pragma once

#include <cstdint>

namespace sampling_lab::detail {

// x^n by repeated squaring: exact while the result is an integer below 2^53. Every power the
// experiments take has a whole exponent, and std::pow would link musl's pow and its 4 KB of
// tables into the module for them alone.
inline double integer_power(double x, std::uint64_t n) {
  double result = 1.0;
  for (; n != 0; n >>= 1, x *= x) {
    if (n & 1) result *= x;
  }
  return result;
}

}  // namespace sampling_lab::detail
