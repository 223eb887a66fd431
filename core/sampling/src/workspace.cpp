#include "sampling_lab/workspace.hpp"

#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

namespace {
constexpr std::size_t kPrefixBuckets = 4096;

void reserve(PrefixScratch& scratch, std::size_t vocabulary) {
  scratch.bucket_of.reserve(vocabulary);
  scratch.members.reserve(vocabulary);
  scratch.bucket_counts.reserve(kPrefixBuckets);
  scratch.bucket_mass.reserve(kPrefixBuckets);
  scratch.boundary.reserve(vocabulary);
}
}  // namespace

void FilterWorkspace::reserve(std::size_t vocabulary) {
  penalties.logits.reserve(vocabulary);
  penalties.sorted_ids.reserve(vocabulary);
  for (auto* buffer : {&candidates.keys, &candidates.weights}) buffer->reserve(vocabulary);
  candidates.ids.reserve(vocabulary);
  candidates.heap.reserve(vocabulary);
  candidates.block_sums.reserve(kernels::block_count(vocabulary));
  sampling_lab::reserve(prefix, vocabulary);
  identity.reserve(vocabulary);
}

void SamplerWorkspace::reserve(std::size_t vocabulary) {
  probs.reserve(vocabulary);
  scores.reserve(vocabulary);
  cumulative.reserve(vocabulary);
  for (auto* buffer : {&alias, &small, &large}) buffer->reserve(vocabulary);
}

void CoverWorkspace::reserve(std::size_t vocabulary) {
  keys.reserve(vocabulary);
  weights.reserve(vocabulary);
  sampling_lab::reserve(prefix, vocabulary);
}

}  // namespace sampling_lab
