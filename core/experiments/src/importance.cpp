#include "sampling_lab/importance.hpp"

#include <algorithm>

namespace sampling_lab {

ImportanceEstimates importance_estimates(std::span<const float> p, std::span<const float> q,
                                         std::span<const double> f,
                                         std::span<const std::int32_t> draws, double clip) {
  double weighted = 0.0, weights = 0.0, squared_weights = 0.0, truncated = 0.0, masked = 0.0;
  for (const auto x : draws) {
    const auto i = std::size_t(x);
    const double w = double(p[i]) / double(q[i]);
    weighted += w * f[i];
    weights += w;
    squared_weights += w * w;
    truncated += std::min(w, clip) * f[i];
    if (w <= clip) masked += w * f[i];
  }
  const double n = double(draws.size());
  return {weighted / n, weighted / weights, truncated / n, masked / n,
          weights * weights / squared_weights};
}

}  // namespace sampling_lab
