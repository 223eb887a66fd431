#pragma once
// The kept set of the filter chain, found without touching more of the vocabulary than needed:
// gather a candidate superset (a top-k heap or a logit threshold), find each filter's kept prefix
// of the candidates' ranking in chain order, and compact the candidates to the shortest (for a
// draw, zero the weights of the rest in place).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab::detail {

struct Selection {
  std::span<const std::uint32_t> ids;  // the kept tokens, ascending (for a draw, cut ones may stay at weight 0)
  std::span<const float> keys;         // their logits, as processed before the temperature
  std::span<const float> weights;      // exp((z − max) / T) of each
  std::span<const double> block_sums;  // of weights, per kernels::kBlock
  double kept_weight;                  // Σ weights
  std::optional<double> total_weight;  // the same over the vocabulary, where a filter needed it
  float max_logit;            // the weights' shift
  float inverse_temperature;
  double top_weight = 1.0;    // the largest weight: 1 unless the tokens at max_logit were cut
};

// The k (<= keys.size()) first positions in the ranking of `keys` (descending, ties to the lower
// position), best first; RankedToken::id holds the position.
void best_ranked(std::span<const float> keys, std::size_t k, std::vector<RankedToken>& out);

// Up to this many best tokens a heap can beat a histogram selection (radix select over 4,096
// buckets, then the boundary bucket), when few tokens enter it.
inline constexpr std::size_t kHeapTopKLimit = 4096;

// Ids and positions (below 2^31: a vocabulary holds at most 2^24) sorted as int32, so that every
// id list shares one std::sort instantiation (each is about 0.5 KB of gzipped WebAssembly).
inline void sort_ids(std::span<std::uint32_t> ids) {
  const auto as_signed = reinterpret_cast<std::int32_t*>(ids.data());
  std::sort(as_signed, as_signed + ids.size());
}

// How many logits, evenly spaced, a large top-k samples to place its bound (see selection.cpp).
inline constexpr std::size_t kTopKSample = 4096;

// A logit at or below the k-th largest of `logits` with at most 8k + 4,096 at or above it, placed
// from an evenly spaced sample and checked by one counting pass; none when ties, a flat tail or an
// order chosen against the sample's stride mislead it (see selection.cpp).
std::optional<float> sampled_top_k_bound(std::span<const float> logits, std::size_t k, PrefixScratch& scratch);

// best_ranked, or false (`out` then unusable) once the heap has taken more tokens than a random
// order sends it with room to spare, or than 1/64 of the keys: an order such as
// ascending makes every token enter, at log k each, and a random order at large k sends k ln(V/k);
// the caller's histogram selection is then the faster. Ties and flat tails send it almost none.
bool best_ranked_within_budget(std::span<const float> keys, std::size_t k, std::vector<RankedToken>& out);

// 0 … size − 1, kept in the workspace.
std::span<const std::uint32_t> identity_ids(std::size_t size, FilterWorkspace& workspace);

// Expects penalised, finite logits, T > 0 and checked options.
Selection select_kept(std::span<const float> logits, const SamplingOptions& options,
                      FilterWorkspace& workspace, bool draw_only = false);

// Whether the fast path's filters cut anything for a vocabulary of `vocabulary` tokens (the
// options as select_kept reads them).
bool cuts(const SamplingOptions& options, std::size_t vocabulary);

// One token of the untempered-by-filters distribution softmax(z / T), T > 0, without weighing the
// whole vocabulary when it need not: see selection.cpp. Its index, and whether every logit was
// finite (none is drawn when not). The same (seed, stream, step) gives the same token everywhere.
// Under a non-empty `mask` (a packed bitmask), only the tokens it allows are drawn.
kernels::CheckedIndex draw_untruncated(std::span<const float> logits, const SamplingOptions& options,
                                       FilterWorkspace& workspace, std::span<const std::uint32_t> mask = {});

// The largest logit a mask allows, ties to the lowest id, and whether every logit was finite.
kernels::CheckedIndex masked_argmax(std::span<const float> logits, std::span<const std::uint32_t> mask);

// Adaptive-p's token (llama.cpp PR 17927) from the kept set before its transform: its position in
// `kept` and its probability there. See selection.cpp.
struct AdaptiveDraw {
  std::size_t position;
  double probability;
};
AdaptiveDraw draw_adaptive_p(const Selection& kept, const SamplingOptions& options, ChainScratch& scratch);

// select_kept on logits not yet checked: none when one is NaN or ±∞, found in its first pass.
// `draw_only`: the caller draws from the selection and needs neither its total weight nor the
// tokens' weights beyond the kept set, which lets top-p alone skip weighing the tail; its ids may
// then hold cut tokens at weight 0, so ids.size() is not the kept count.
std::optional<Selection> checked_select_kept(std::span<const float> logits, const SamplingOptions& options,
                                             FilterWorkspace& workspace, bool draw_only = false);

}  // namespace sampling_lab::detail
