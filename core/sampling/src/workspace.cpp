#include "sampling_lab/workspace.hpp"

#include <algorithm>

#include "sampling_lab/kernels.hpp"
#include "prefix_select.hpp"
#include "selection.hpp"

namespace sampling_lab {

namespace {
// The prefix histogram's buckets, in the interleaved copies a large one keeps.
constexpr std::size_t kHistogramEntries = detail::kPrefixBuckets * detail::kPrefixHistogramCopies;

void reserve(PrefixScratch& scratch, std::size_t vocabulary) {
  scratch.bucket_of.reserve(vocabulary);
  scratch.bucket_counts.reserve(kHistogramEntries);
  scratch.bucket_mass.reserve(kHistogramEntries);
  scratch.sample.reserve(detail::kTopKSample);
}
template <typename... Buffers>
void release(std::size_t elements, Buffers&... buffers) {
  ((buffers.capacity() > elements ? void(Buffers().swap(buffers)) : void()), ...);
}

void release(std::size_t elements, PrefixScratch& scratch) {
  release(elements, scratch.bucket_of, scratch.members, scratch.boundary, scratch.band_bits, scratch.band_ids, scratch.band_keys,
          scratch.band_weights);
}
}  // namespace

void FilterWorkspace::release_beyond(std::size_t elements) {
  release(elements, penalties.logits, penalties.sorted_ids, penalties.held_ids, penalties.reversed, penalties.match_length, penalties.longest_repeat,
          penalties.repeated_tokens, candidates.ids, candidates.keys, candidates.weights,
          candidates.block_sums, candidates.heap, identity);
  release(elements, chain.ranking_keys, chain.before_truncation, chain.positions, chain.survivor_keys, chain.spare_ids, chain.spare_keys, chain.spare_weights, chain.masked, chain.allowed_words, chain.ban_words, chain.allowed_ids, chain.allowed_logits, chain.adaptive_probs, chain.adaptive_cumulative, chain.saved_ids, chain.saved_keys);
  release(elements, masked.logits, masked.words, masked.bias_ids, masked.bias_values);
  release(elements, prefix);
}

void SamplerWorkspace::release_beyond(std::size_t elements) {
  release(elements, probs, scores, inverse_weights, cumulative, alias, coin_thresholds, small, large, words, noise,
          extend, candidates, gathered);
}

void CoverWorkspace::release_beyond(std::size_t elements) {
  release(elements, keys, weights);
  release(elements, prefix);
}

void FilterWorkspace::reserve(std::size_t vocabulary) {
  penalties.logits.reserve(vocabulary);
  penalties.sorted_ids.reserve(vocabulary);
  for (auto* buffer : {&candidates.keys, &candidates.weights}) buffer->reserve(vocabulary);
  candidates.ids.reserve(vocabulary + vocabulary / 32 + 1);  // a gather's marks follow the ids
  candidates.heap.reserve(std::min<std::size_t>(vocabulary, 4096));
  candidates.block_sums.reserve(kernels::block_count(vocabulary));
  sampling_lab::reserve(prefix, vocabulary);
  identity.reserve(vocabulary);
  chain.ranking_keys.reserve(vocabulary);
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
