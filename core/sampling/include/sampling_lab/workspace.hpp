#pragma once
// Scratch buffers reused across calls, so that the per-token path does not allocate once warm.
// Each step owns its own struct, so no step can clobber another's buffers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sampling_lab/options.hpp"

namespace sampling_lab {

// An allocator whose resize leaves new elements uninitialised, for buffers that are written in
// full before they are read: growing one to the vocabulary costs no memset.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  template <typename U>
  void construct(U* place) noexcept {
    ::new (static_cast<void*>(place)) U;
  }
  template <typename U, typename... Args>
  void construct(U* place, Args&&... args) {
    ::new (static_cast<void*>(place)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using Buffer = std::vector<T, UninitialisedAllocator<T>>;

// A token with its ranking key (logit or log-probability) and its weight.
struct RankedToken {
  float key;
  std::uint32_t id;
  float weight;
};

// The penalised copy of the logits.
// A token's DRY penalty: the amount its logit loses.
struct TokenPenalty {
  std::int32_t token;
  double amount;
};

struct PenaltyScratch {
  std::vector<float> logits;
  std::vector<std::int32_t> sorted_ids;
  std::vector<std::int32_t> held_ids;  // the window's distinct tokens, sorted
  std::vector<TokenCount> counts;
  std::vector<std::int32_t> reversed;         // DRY's window, newest first
  std::vector<std::int32_t> breakers;         // DRY's sequence breakers, sorted
  std::vector<std::int32_t> match_length;     // Z-array of `reversed`
  std::vector<std::int32_t> longest_repeat;   // by token id: 1 + its longest repeat, 0 = none
  std::vector<std::int32_t> repeated_tokens;  // the tokens with a repeat
  std::vector<TokenPenalty> dry;
};

// Tokens that may survive the filters, in ascending id order, with their logits and weights.
struct CandidateScratch {
  Buffer<std::uint32_t> ids;
  Buffer<float> keys;
  Buffer<float> weights;
  std::vector<double> block_sums;  // of weights, per kernels::kBlock
  std::vector<RankedToken> heap;  // top-k selection
};

// The histogram of a prefix selection and the one bucket it sorts exactly.
struct PrefixScratch {
  Buffer<std::uint32_t> bucket_of;       // each key's bucket (written whole before it is read)
  std::vector<std::uint32_t> members;    // positions in the boundary bucket
  std::vector<std::uint32_t> bucket_counts;
  std::vector<double> bucket_mass;
  std::vector<RankedToken> boundary;
  std::vector<float> sample;             // a strided sample of the keys, for a top-k bound
  Buffer<std::uint32_t> band_bits;       // one bit per token: in the band around a mass cut placed
                                         // from a sample
  Buffer<std::uint32_t> band_ids;        // the band's tokens,
  Buffer<float> band_keys;               // their keys
  Buffer<float> band_weights;            // and weights
};

// The general chain's extra buffers: typical's ranking, the masks, DRY's repeat search, the
// token-wise trace of which stage cut each token.
struct ChainScratch {
  Buffer<float> ranking_keys;
  Buffer<float> before_truncation;         // the logits the first truncating stage saw
  Buffer<std::uint32_t> positions;         // a threshold's survivors, by position
  Buffer<float> survivor_keys;
  // Where dropping a few candidates copies the rest, then swaps with the candidates' buffers:
  // copies between distinct buffers are plain memcpy.
  Buffer<std::uint32_t> spare_ids;
  Buffer<float> spare_keys;
  Buffer<float> spare_weights;
  std::vector<std::uint8_t> masked;
  // The fast paths' input under the masks (fast_input.hpp): the masks as one, the tokens they allow.
  Buffer<std::uint32_t> allowed_words;
  // Bans alone (bannedTokens, the history's): all ones but the bits in `cleared`; each call sets the
  // last one's bits again, so that it costs O(bans).
  Buffer<std::uint32_t> ban_words;
  std::vector<std::int32_t> cleared;
  Buffer<std::uint32_t> allowed_ids;
  Buffer<float> allowed_logits;
  Buffer<std::uint32_t> saved_ids;         // the candidates before a truncating stage, under minKeep
  Buffer<float> saved_keys;
  std::vector<RankedToken> top;            // mirostat's and logprobs' best few
  std::vector<std::int32_t> bans;          // noRepeatNgramSize's and badWords' banned tokens
  std::vector<std::int32_t> failure;       // the n-gram search's KMP failure function
  std::vector<double> adaptive_probs;      // adaptive-p's candidates' probabilities before its transform
  std::vector<double> adaptive_cumulative;  // adaptive-p's rejection draw: its head's running weight
  bool banned_everything = false;          // the history's bans left no token (the top one was kept)
};

// −∞ logits as masked tokens (masked_logits.hpp): the row with them replaced, the tokens left, and
// logitBias without its −∞ entries.
struct MaskScratch {
  Buffer<float> logits;
  Buffer<std::uint32_t> words;
  std::vector<std::int32_t> bias_ids;
  std::vector<float> bias_values;
};

// filter_distribution and sample_token.
struct FilterWorkspace {
  PenaltyScratch penalties;
  CandidateScratch candidates;
  PrefixScratch prefix;
  ChainScratch chain;
  MaskScratch masked;
  Buffer<std::uint32_t> identity;  // 0 … V − 1: the kept ids when no filter cuts
  // Top-p calls left that sum the total at once: the bounds on the tail's mass straddled the last
  // bounded call's cut (a generation's rows are alike). Speed only: the cut is the same either way.
  unsigned top_p_unbounded_calls = 0;

  // Sizes every buffer for `vocabulary` tokens: later calls up to that size allocate nothing.
  void reserve(std::size_t vocabulary);
  // Frees every buffer that holds more than `elements`, after an unusually large call.
  void release_beyond(std::size_t elements);
};

// sample_probs and sample_logits.
struct SamplerWorkspace {
  std::vector<float> probs;                // softmax of the logits
  std::vector<double> cumulative;          // inverse CDF prefix sums, or alias thresholds
  std::vector<std::uint32_t> alias;        // alias table, or the inverse CDF's guide table
  std::vector<std::uint64_t> coin_thresholds;  // alias keep-column thresholds · 2^64
  std::vector<std::uint32_t> small, large;  // alias construction work lists
  std::vector<float> scores;               // race weights, largest 1
  std::vector<float> inverse_weights;      // 1 / w, repeated over a chunk of draws
  std::vector<std::uint32_t> words;        // Philox output awaiting a SIMD transform
  std::vector<float> noise;                // exponential variates
  std::vector<std::uint32_t> extend;       // variates that need a second word
  std::vector<std::uint32_t> candidates;   // tokens whose clock can still win
  std::vector<std::uint32_t> gathered;     // their words

  void reserve(std::size_t vocabulary);
  void release_beyond(std::size_t elements);
};

// cover_count.
struct CoverWorkspace {
  std::vector<float> keys;
  std::vector<float> weights;
  PrefixScratch prefix;

  void reserve(std::size_t vocabulary);
  void release_beyond(std::size_t elements);
};

}  // namespace sampling_lab
