#include "sampling_lab/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include "sampling_lab/rng.hpp"

namespace sampling_lab {

std::vector<float> synthetic_logits(std::size_t vocabulary, std::uint64_t seed) {
  constexpr double kBulkScale = 2.0;
  constexpr double kHeadLogit = 18.0;
  constexpr double kHeadNoise = 0.3;
  constexpr std::size_t kHeadTokens = 100;
  constexpr std::size_t kHeadStride = 1499;  // spreads the head over the vocabulary

  Philox rng(seed);
  std::vector<float> logits(vocabulary);
  for (float& logit : logits) logit = float(kBulkScale * rng.normal());
  const std::size_t head = std::min(kHeadTokens, vocabulary);
  for (std::size_t rank = 1; rank <= head; ++rank) {
    const std::size_t token = (rank * kHeadStride) % vocabulary;
    logits[token] = float(kHeadLogit - std::log(double(rank)) + kHeadNoise * rng.normal());
  }
  return logits;
}

}  // namespace sampling_lab
