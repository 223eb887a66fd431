#pragma once
// Scratch buffers reused across calls so that the per-token path does not allocate once warm.
#include <cstdint>
#include <vector>

namespace sampling_lab {

struct RankedToken {
  float key;
  std::uint32_t index;
  float weight;
};

struct Workspace {
  std::vector<float> keys;                   // penalised logits, or log-probabilities
  std::vector<float> weights;                // exp((key - max) / T)
  std::vector<std::uint32_t> bucket_counts;  // prefix-selection histogram
  std::vector<double> bucket_mass;
  std::vector<RankedToken> boundary;  // the one bucket that is sorted exactly
  std::vector<std::int32_t> ids;      // sorted copy of generated token ids
};

}  // namespace sampling_lab
