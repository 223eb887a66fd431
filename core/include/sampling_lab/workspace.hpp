#pragma once
// Scratch buffers reused across calls so that the per-token path does not allocate once warm.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sampling_lab {

struct RankedToken {
  float key;
  std::uint32_t index;
  float weight;
};

struct Workspace {
  // Sizes every buffer for a vocabulary of `vocabulary` tokens, so that later calls on
  // vocabularies up to that size allocate nothing.
  void reserve(std::size_t vocabulary) {
    for (auto* buffer : {&keys, &weights, &candidate_keys, &candidate_weights}) buffer->reserve(vocabulary);
    for (auto* buffer : {&candidate_ids, &alias, &small, &large}) buffer->reserve(vocabulary);
    boundary.reserve(vocabulary);
    cdf.reserve(vocabulary);
    bucket_counts.reserve(4096);
    bucket_mass.reserve(4096);
  }

  std::vector<float> keys;                   // penalised logits, or log-probabilities
  std::vector<float> weights;                // exp((key - max) / T)
  std::vector<std::uint32_t> candidate_ids;  // tokens that may survive the filters, by id
  std::vector<float> candidate_keys;
  std::vector<float> candidate_weights;
  std::vector<std::uint32_t> bucket_counts;  // prefix-selection histogram
  std::vector<double> bucket_mass;
  std::vector<RankedToken> boundary;  // the one bucket that is sorted exactly
  std::vector<std::int32_t> ids;      // sorted copy of generated token ids
  std::vector<double> cdf;            // prefix sums, or alias thresholds
  std::vector<std::uint32_t> alias;   // alias table
  std::vector<std::uint32_t> small;   // alias construction work lists
  std::vector<std::uint32_t> large;
  std::vector<std::uint32_t> random_words;  // Philox output awaiting a SIMD transform
  std::vector<float> noise;                 // Gumbel or exponential variates
};

}  // namespace sampling_lab
