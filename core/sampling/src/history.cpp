#include "sampling_lab/history.hpp"

#include <algorithm>
#include <cstdint>

namespace sampling_lab {

std::size_t FlatIndex::slot_of(std::uint64_t key) const {
  const std::size_t mask = keys_.size() - 1;
  std::size_t slot = std::size_t((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;  // Fibonacci hashing
  while (keys_[slot] != kEmpty && keys_[slot] != key) slot = (slot + 1) & mask;
  return slot;
}

std::int64_t FlatIndex::find(std::uint64_t key) const {
  if (key == kEmpty) key = kEmpty - 1;
  if (keys_.empty()) return -1;
  const std::size_t slot = slot_of(key);
  return keys_[slot] == key ? std::int64_t(values_[slot]) : -1;
}

std::int64_t FlatIndex::exchange(std::uint64_t key, std::uint32_t value) {
  if (key == kEmpty) key = kEmpty - 1;
  if (2 * (size_ + 1) > keys_.size()) {
    std::vector<std::uint64_t> keys(std::max<std::size_t>(16, 2 * keys_.size()), kEmpty);
    std::vector<std::uint32_t> values(keys.size());
    keys.swap(keys_);
    values.swap(values_);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == kEmpty) continue;
      const std::size_t slot = slot_of(keys[i]);
      keys_[slot] = keys[i];
      values_[slot] = values[i];
    }
  }
  const std::size_t slot = slot_of(key);
  const std::int64_t replaced = keys_[slot] == key ? std::int64_t(values_[slot]) : -1;
  if (replaced < 0) ++size_;
  keys_[slot] = key;
  values_[slot] = value;
  return replaced;
}

void FlatIndex::clear() {
  keys_.clear();
  values_.clear();
  size_ = 0;
}

TokenHistory::TokenHistory(std::int64_t penalty_last_n, std::int64_t ngram_size)
    : ngram_size_(std::size_t(ngram_size)), window_(penalty_last_n < 0 ? SIZE_MAX : std::size_t(penalty_last_n)) {}

Check TokenHistory::accept(std::int32_t token) {
  if (tokens_.size() >= kMaxHistory) {
    return ArgumentError{"token", "the sampler's history holds its limit of " + std::to_string(kMaxHistory) + " tokens"};
  }
  if (tokens_.size() == tokens_.capacity()) {
    // The n-gram index takes about a hash entry, a prefix and a follower per token.
    const std::size_t per_token = sizeof(std::int32_t) + (ngram_size_ > 0 ? 96 : 0);
    if (auto error = check_memory(2 * tokens_.capacity() * per_token + 64, "token")) return error;
  }
  tokens_.push_back(token);
  largest_ = std::max(largest_, token);
  add(token);
  index_ngram();
  // The token that left the window is no longer counted.
  if (tokens_.size() > window_) remove(tokens_[tokens_.size() - 1 - window_]);
  return std::nullopt;
}

void TokenHistory::assign(std::span<const std::int32_t> tokens) {
  for (const auto& entry : counts_) slot_[std::size_t(entry.token)] = -1;
  counts_.clear();
  tokens_.assign(tokens.begin(), tokens.end());
  largest_ = tokens.empty() ? -1 : *std::max_element(tokens.begin(), tokens.end());
  const std::size_t start = tokens.size() > window_ ? tokens.size() - window_ : 0;
  for (std::size_t i = start; i < tokens.size(); ++i) add(tokens[i]);
  prefixes_.clear();
  newest_by_hash_.clear();
  followed_.clear();
  tail_prefix_ = -1;
  if (ngram_size_ == 0) return;
  // Indexed as if the tokens arrived one by one.
  const std::vector<std::int32_t> all(tokens_.begin(), tokens_.end());
  tokens_.clear();
  for (const std::int32_t token : all) {
    tokens_.push_back(token);
    index_ngram();
  }
}

std::uint64_t TokenHistory::prefix_hash(std::size_t start) const {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the ids
  for (std::size_t i = start; i < start + ngram_size_ - 1; ++i) hash = (hash ^ std::uint32_t(tokens_[i])) * 1099511628211ull;
  return hash;
}

std::int64_t TokenHistory::find_prefix(std::size_t start, std::uint64_t hash) const {
  const auto length = std::ptrdiff_t(ngram_size_ - 1);
  for (std::int64_t index = newest_by_hash_.find(hash); index >= 0; index = prefixes_[std::size_t(index)].same_hash) {
    const auto seen = tokens_.begin() + std::ptrdiff_t(prefixes_[std::size_t(index)].start);
    if (std::equal(seen, seen + length, tokens_.begin() + std::ptrdiff_t(start))) return index;
  }
  return -1;
}

// The newest token completes the n-gram whose prefix was the tail before it: the prefix gets it
// as a follower, and the new tail's prefix is looked up for the next step. O(n) per token.
void TokenHistory::index_ngram() {
  const std::size_t n = ngram_size_;
  const std::size_t size = tokens_.size();
  if (n == 0 || size + 1 < n) return;
  if (size >= n) {
    if (tail_prefix_ < 0) {
      const std::size_t start = size - n;
      tail_prefix_ = std::int64_t(prefixes_.size());
      prefixes_.push_back({start, {}, newest_by_hash_.exchange(prefix_hash(start), std::uint32_t(tail_prefix_))});
    }
    const std::int32_t token = tokens_.back();
    if (followed_.exchange(std::uint64_t(tail_prefix_) << 32 | std::uint32_t(token), 0) < 0) {
      prefixes_[std::size_t(tail_prefix_)].followers.push_back(token);
    }
  }
  const std::size_t start = size - (n - 1);
  tail_prefix_ = find_prefix(start, prefix_hash(start));
}

std::span<const std::int32_t> TokenHistory::ngram_banned() const {
  if (tail_prefix_ < 0) return {};
  return prefixes_[std::size_t(tail_prefix_)].followers;
}

void TokenHistory::apply_to(SamplingOptions& options) const {
  options.generated_ids = tokens_;
  options.generated_counts = std::span<const TokenCount>(counts_);
  if (ngram_size_ > 0 && options.no_repeat_ngram_size == std::int64_t(ngram_size_)) options.ngram_banned = ngram_banned();
}

void TokenHistory::add(std::int32_t token) {
  const auto id = std::size_t(token);
  if (id >= slot_.size()) slot_.resize(id + 1, -1);
  if (slot_[id] < 0) {
    slot_[id] = std::int32_t(counts_.size());
    counts_.push_back({token, 0});
  }
  ++counts_[std::size_t(slot_[id])].count;
}

void TokenHistory::remove(std::int32_t token) {
  const auto at = std::size_t(slot_[std::size_t(token)]);
  if (--counts_[at].count > 0) return;
  // Swap-remove: the last entry takes the freed place.
  counts_[at] = counts_.back();
  slot_[std::size_t(counts_[at].token)] = std::int32_t(at);
  counts_.pop_back();
  slot_[std::size_t(token)] = -1;
}

}  // namespace sampling_lab
