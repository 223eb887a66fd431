// The surprisal's moments over a whole vocabulary, compiled for speed (the rest of the
// experiments for size): the shape widget asks for them at every slider move.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab {

// One SIMD logarithm per token, its products summed in double (kernels::surprisal_sums): the
// surprisal −log2 of p / Σ p has mean ln Σp + Σ p·ℓ / Σ p and the variance of ℓ = −ln p.
Moments surprisal_moments(std::span<const float> probs) {
  const auto sums = kernels::surprisal_sums(probs);
  if (!(sums.total > 0.0)) return {0.0, 0.0, 0.0, 0.0};
  const double mean_nats = sums.first / sums.total;
  const double variance_nats = std::max(0.0, sums.second / sums.total - mean_nats * mean_nats);
  const double mean = (std::log(sums.total) + mean_nats) / std::numbers::ln2;
  const double variance = variance_nats / (std::numbers::ln2 * std::numbers::ln2);
  return {mean, variance + mean * mean, variance, std::sqrt(variance)};
}

}  // namespace sampling_lab
