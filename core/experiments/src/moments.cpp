// The surprisal's moments over a whole vocabulary, compiled for speed (the rest of the
// experiments for size): the shape widget asks for them at every slider move.
#include <cmath>
#include <numbers>

#include "sampling_lab/statistics.hpp"

namespace sampling_lab {

// One logarithm per token: the weighted mean and centred sum of squares updated as each token
// arrives (West 1979), as stable as two passes over centred terms.
Moments surprisal_moments(std::span<const float> probs) {
  double total = 0.0;
  for (const float p : probs) total += p;
  const double log_total = std::log(total);
  double weight = 0.0;
  double mean = 0.0;
  double centred_squares = 0.0;
  for (const float p : probs) {
    if (p <= 0.0f) continue;
    const double s = (log_total - double(std::log(p))) / std::numbers::ln2;
    weight += p;
    const double deviation = s - mean;
    mean += deviation * (p / weight);
    centred_squares += p * deviation * (s - mean);
  }
  const double variance = weight > 0.0 ? centred_squares / weight : 0.0;
  return {mean, variance + mean * mean, variance, std::sqrt(variance)};
}

}  // namespace sampling_lab
