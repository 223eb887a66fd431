#pragma once

#include <cmath>
#include <limits>

namespace sampling_lab::detail {

// x^y for x >= 0 (NaN otherwise) as exp(y · ln x): the sampler calls it a few times per token, and
// std::pow would link musl's pow and its 4 KB of tables into the module for that alone.
inline double power(double x, double y) {
  if (x > 0.0) return std::exp(y * std::log(x));
  if (x == 0.0) return y == 0.0 ? 1.0 : y > 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace sampling_lab::detail
