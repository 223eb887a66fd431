#pragma once
// A stateful sampler's history: the tokens accepted so far, the counts the penalties see in their
// window and noRepeatNgramSize's index of n-grams, kept as tokens arrive so that a step costs the
// same at any history length.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling_lab/options.hpp"

namespace sampling_lab {

// The longest history a sampler keeps (128 MB of ids); its `state` is a plain array of as many.
inline constexpr std::size_t kMaxHistory = std::size_t{1} << 25;

// A map from 64-bit keys to 32-bit values, open addressing with linear probing: the n-gram index's
// two lookups, without std::unordered_map's prime-sized buckets (1.6 KB of WebAssembly).
class FlatIndex {
 public:
  // Stores `value` under `key`; returns the value it replaced, or −1 when the key is new.
  std::int64_t exchange(std::uint64_t key, std::uint32_t value);
  // The value under `key`, or −1.
  std::int64_t find(std::uint64_t key) const;
  void clear();

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t slot_of(std::uint64_t key) const;
  std::vector<std::uint64_t> keys_;  // kEmpty where free; a power of two, at most half full
  std::vector<std::uint32_t> values_;
  std::size_t size_ = 0;
};

class TokenHistory {
 public:
  // `penalty_last_n` as the option: how many of the last tokens the penalties count, -1 = all;
  // `ngram_size` as noRepeatNgramSize: the n-grams to index, 0 = none.
  explicit TokenHistory(std::int64_t penalty_last_n = -1, std::int64_t ngram_size = 0);

  // Appends a token id (checked by the caller: in [0, kMaxVocabulary)); an error, and nothing
  // appended, when the history is full or the memory to grow it is not there.
  Check accept(std::int32_t token);
  // Starts again from these tokens.
  void assign(std::span<const std::int32_t> tokens);

  std::span<const std::int32_t> tokens() const { return tokens_; }
  // The distinct tokens of the penalties' window with their counts, in no particular order.
  std::span<const TokenCount> counts() const { return counts_; }

  // The largest token id accepted so far (−1 for none): a history belongs to one vocabulary.
  std::int32_t largest_token() const { return largest_; }

  // The tokens that would repeat an n-gram of the history (each once), with ngram_size > 0.
  std::span<const std::int32_t> ngram_banned() const;

  // The options for the next token: generated_ids = the history, generated_counts = counts(), and
  // ngram_banned when the options' noRepeatNgramSize is the one indexed.
  void apply_to(SamplingOptions& options) const;

 private:
  void add(std::int32_t token);
  void remove(std::int32_t token);
  void index_ngram();
  // The distinct (n − 1)-gram that starts at `start`, or −1 when it has not been seen.
  std::int64_t find_prefix(std::size_t start, std::uint64_t hash) const;
  std::uint64_t prefix_hash(std::size_t start) const;

  // One distinct (n − 1)-gram of the history: where it first occurs and the distinct tokens that followed it.
  struct Prefix {
    std::size_t start;
    std::vector<std::int32_t> followers;
    std::int64_t same_hash = -1;  // the previous prefix with this prefix's hash, −1 for none
  };
  std::size_t ngram_size_;
  std::vector<Prefix> prefixes_;
  FlatIndex newest_by_hash_;  // prefix hash → the newest prefix with it (older ones via same_hash)
  FlatIndex followed_;        // (prefix index << 32) | token → 0, for each token that followed a prefix
  std::int64_t tail_prefix_ = -1;               // the history's last n − 1 tokens among prefixes_

  std::size_t window_;  // SIZE_MAX = all
  std::int32_t largest_ = -1;
  std::vector<std::int32_t> tokens_;
  std::vector<TokenCount> counts_;
  // Where each token's entry sits in counts_ (−1: none), indexed by token id and grown on demand.
  std::vector<std::int32_t> slot_;
};

}  // namespace sampling_lab
