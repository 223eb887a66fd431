#include "sampling_lab/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include "sampling_lab/rng.hpp"

namespace sampling_lab {

namespace {

// z with P(Z > z) = q for a standard normal Z, to 4.5e-4 (Abramowitz & Stegun 26.2.23).
double upper_normal_quantile(double q) {
  if (q > 0.5) return -upper_normal_quantile(1.0 - q);
  const double t = std::sqrt(-2.0 * std::log(q));
  return t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
}

}  // namespace

std::vector<float> synthetic_logits(std::size_t vocabulary, std::uint64_t seed) {
  constexpr double kBulkScale = 2.0;
  constexpr double kHeadLogit = 18.0;
  constexpr double kHeadNoise = 0.3;
  constexpr double kZipfRanks = 100.0;
  constexpr std::size_t kHeadStride = 1499;  // spreads the head over the vocabulary

  Philox rng(seed);
  std::vector<float> logits(vocabulary);
  for (float& logit : logits) logit = float(kBulkScale * rng.normal());
  for (std::size_t rank = 1; rank <= vocabulary; ++rank) {
    const double r = double(rank);
    const double bend = std::max(0.0, std::log(r / kZipfRanks));
    const double head = kHeadLogit - std::log(r) - bend * bend;
    // The head ends where it meets the bulk's expected order statistic: no gap between them.
    if (rank > kZipfRanks && head <= kBulkScale * upper_normal_quantile(r / double(vocabulary + 1))) break;
    const std::size_t token = (rank * kHeadStride) % vocabulary;
    logits[token] = float(head + kHeadNoise * rng.normal());
  }
  return logits;
}

}  // namespace sampling_lab
