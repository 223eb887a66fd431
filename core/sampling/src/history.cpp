#include "sampling_lab/history.hpp"

#include <algorithm>

namespace sampling_lab {

TokenHistory::TokenHistory(std::int64_t penalty_last_n) : window_(std::size_t(penalty_last_n)) {}

Check TokenHistory::accept(std::int32_t token) {
  if (tokens_.size() >= kMaxHistory) {
    return ArgumentError{"token", "the sampler's history holds its limit of " + std::to_string(kMaxHistory) + " tokens"};
  }
  if (tokens_.size() == tokens_.capacity()) {
    if (auto error = check_memory(2 * tokens_.capacity() * sizeof(std::int32_t) + 64, "token")) return error;
  }
  tokens_.push_back(token);
  largest_ = std::max(largest_, token);
  add(token);
  // The token that left the window is no longer counted.
  if (window_ > 0 && tokens_.size() > window_) remove(tokens_[tokens_.size() - 1 - window_]);
  return std::nullopt;
}

void TokenHistory::assign(std::span<const std::int32_t> tokens) {
  for (const auto& entry : counts_) slot_[std::size_t(entry.token)] = -1;
  counts_.clear();
  tokens_.assign(tokens.begin(), tokens.end());
  largest_ = tokens.empty() ? -1 : *std::max_element(tokens.begin(), tokens.end());
  const std::size_t start = window_ > 0 && tokens.size() > window_ ? tokens.size() - window_ : 0;
  for (std::size_t i = start; i < tokens.size(); ++i) add(tokens[i]);
}

void TokenHistory::apply_to(SamplingOptions& options) const {
  options.generated_ids = tokens_;
  options.generated_counts = std::span<const TokenCount>(counts_);
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
