#include "chain.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>

#include "fast_input.hpp"
#include "power.hpp"
#include "prefix_select.hpp"
#include "ranking.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/samplers.hpp"

namespace sampling_lab::detail {

namespace {

constexpr double kFloatMax = std::numeric_limits<float>::max();
// Below this a kept maximum weight loses float precision: the weights are computed again.
constexpr float kStaleWeight = 1e-30f;
// llama.cpp's m: mirostat 1 estimates the Zipf exponent from the 100 most probable tokens.
constexpr std::size_t kMirostatTokens = 100;

float saturated(double logit) { return float(std::clamp(logit, -kFloatMax, kFloatMax)); }

// The tokens still in the chain, ids ascending, with their current logits, and their weights
// w = exp((z − max) / T) at the temperature applied so far (1 before the temperature stage),
// computed when a stage first needs them. Ids and logits are views of the input until a stage
// changes or cuts them.
class Candidates {
 public:
  Candidates(std::span<const float> logits, FilterWorkspace& workspace, ChainTrace* trace)
      : scratch_(workspace.candidates), chain_(workspace.chain), ids_(identity_ids(logits.size(), workspace)),
        keys_(logits), trace_(trace) {}

  std::size_t size() const { return ids_.size(); }
  std::span<const std::uint32_t> ids() const { return ids_; }
  std::span<const float> keys() const { return keys_; }
  double temperature() const { return temperature_; }

  void set_temperature(double temperature) {
    temperature_ = temperature;
    fresh_ = false;
  }

  // Logits to change in place: owned from here on.
  std::span<float> mutable_keys() {
    if (keys_.data() != scratch_.keys.data()) {
      scratch_.ids.assign(ids_.begin(), ids_.end());
      scratch_.keys.assign(keys_.begin(), keys_.end());
      ids_ = scratch_.ids;
      keys_ = scratch_.keys;
    }
    fresh_ = false;
    return scratch_.keys;
  }

  // Position of a token among the candidates, or size() when it is gone.
  std::size_t find(std::uint32_t id) const {
    if (id < ids_.size() && ids_[id] == id) return id;  // nothing before it was cut: ids are unique and ascending
    const auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
    return at != ids_.end() && *at == id ? std::size_t(at - ids_.begin()) : size();
  }

  // The best candidate: the largest logit, ties to the lowest id.
  std::size_t top() const { return kernels::argmax(keys_); }

  float max_key() {
    weigh();
    return max_key_;
  }
  std::span<const float> weights() {
    weigh();
    return scratch_.weights;
  }
  double total_weight() {
    weigh();
    return total_;
  }
  // The largest weight: 1 unless a stage cut the tokens at the maximum.
  double top_weight() {
    weigh();
    return top_weight_;
  }
  std::span<const double> block_sums() {
    weigh();
    return scratch_.block_sums;
  }

  // H = ln W − Σ w ln w / W in nats, with ln w = (z − max) / T: no log per token.
  double entropy_nats() {
    weigh();
    const double weighted_log_weight =
        kernels::weighted_exponent_sum(keys_, scratch_.weights, max_key_, inverse_temperature(temperature_));
    return std::max(0.0, std::log(total_) - weighted_log_weight / total_);  // rounding never makes it negative
  }

  // Keeps the tokens a packed bitmask allows, while the candidates are still the whole
  // vocabulary (after the bias): one SIMD gather into the spare buffers, which become theirs.
  void keep_allowed(std::span<const std::uint32_t> mask) {
    if (trace_ && !trace_->cut_by.empty()) {
      for (std::size_t i = 0; i < size(); ++i) {
        if (!(mask[i / 32] >> (i % 32) & 1u)) trace_->cut_by[i] = kMasksCode;
      }
    }
    kernels::gather_allowed(mask, keys_, chain_.spare_ids, chain_.spare_keys);
    scratch_.ids.swap(chain_.spare_ids);
    scratch_.keys.swap(chain_.spare_keys);
    ids_ = scratch_.ids;
    keys_ = scratch_.keys;
    fresh_ = false;
  }

  // The candidates as they are, which restore() brings back: minKeep's way back when a stage
  // cut too many.
  void save() {
    chain_.saved_ids.assign(ids_.begin(), ids_.end());
    chain_.saved_keys.assign(keys_.begin(), keys_.end());
  }
  void restore() {
    if (trace_ && !trace_->cut_by.empty()) {
      for (const std::uint32_t id : chain_.saved_ids) trace_->cut_by[id] = 0;
    }
    scratch_.ids.assign(chain_.saved_ids.begin(), chain_.saved_ids.end());
    scratch_.keys.assign(chain_.saved_keys.begin(), chain_.saved_keys.end());
    ids_ = scratch_.ids;
    keys_ = scratch_.keys;
    fresh_ = false;
  }

  // Keeps the candidates at the positions where keep(position) holds, in order; the others are
  // cut by `stage`. A scalar pass: the hot stages gather with SIMD instead.
  template <typename Keep>
  void keep_if(Keep keep, std::uint8_t stage) {
    const std::span<std::uint8_t> cut_by = trace_ ? trace_->cut_by : std::span<std::uint8_t>();
    auto& positions = chain_.positions;
    positions.resize(size());
    std::size_t kept = 0;
    if (cut_by.empty()) {
      // Branchless: a kept set and its cut alternate unpredictably in id order.
      for (std::size_t i = 0; i < size(); ++i) {
        positions[kept] = std::uint32_t(i);
        kept += std::size_t(keep(i));
      }
    } else {
      for (std::size_t i = 0; i < size(); ++i) {
        if (keep(i)) {
          positions[kept++] = std::uint32_t(i);
        } else {
          cut_by[ids_[i]] = stage;
        }
      }
    }
    positions.resize(kept);
    if (positions.empty()) {
      // Every stage leaves at least the top token (a cut of everything can only come from a
      // threshold rounding past it).
      const std::size_t top = kernels::argmax(keys_);
      if (!cut_by.empty()) cut_by[ids_[top]] = 0;
      positions.push_back(std::uint32_t(top));
    }
    keep_positions(positions);
  }

  // Keeps the candidates `best` names (RankedToken::id holds the position), the first of the
  // ranking: their positions sorted, with no pass over the others (the trace, which must see
  // every cut, takes keep_if).
  void keep_ranked(std::span<const RankedToken> best, std::uint8_t stage) {
    auto& positions = chain_.positions;
    positions.clear();
    for (const RankedToken& token : best) positions.push_back(token.id);
    sort_ids(positions);
    trace_cuts(positions, stage);
    keep_positions(positions);
  }

  // Keeps the candidates whose logit is >= threshold, and the top one in any case: SIMD skips the
  // batches with none.
  void keep_keys_at_least(float threshold, std::uint8_t stage) {
    threshold = std::min(threshold, kernels::min_max(keys_).max);
    kernels::gather_at_least(keys_, threshold, chain_.positions, chain_.survivor_keys);
    trace_cuts(chain_.positions, stage);
    keep_positions(chain_.positions);
  }

  // Records in the trace that `stage` cut every candidate but those at `positions` (ascending):
  // candidates that are still the whole vocabulary take one fill.
  void trace_cuts(std::span<const std::uint32_t> positions, std::uint8_t stage) {
    if (!trace_ || trace_->cut_by.empty()) return;
    const auto cut_by = trace_->cut_by;
    if (size() == cut_by.size()) {
      std::memset(cut_by.data(), stage, cut_by.size());  // std::fill of bytes stays a loop at -Os
    } else {
      for (const std::uint32_t id : ids_) cut_by[id] = stage;
    }
    for (const std::uint32_t position : positions) cut_by[ids_[position]] = 0;
  }

  // Removes the candidates at `positions` (ascending, few): the runs between them are copied as
  // blocks into the spare buffers, which then become the candidates'. `heaviest` is the largest
  // weight left.
  void drop_positions(std::span<const std::uint32_t> positions, std::uint8_t stage, float heaviest) {
    if (trace_ && !trace_->cut_by.empty()) {
      for (const std::uint32_t position : positions) trace_->cut_by[ids_[position]] = stage;
    }
    const bool weighed = fresh_;
    const std::size_t kept = size() - positions.size();
    auto& ids = chain_.spare_ids;
    auto& keys = chain_.spare_keys;
    auto& weights = chain_.spare_weights;
    ids.resize(kept);
    keys.resize(kept);
    weights.resize(weighed ? kept : 0);
    std::size_t from = 0;
    std::size_t to = 0;
    const auto copy_run = [&](std::size_t end) {
      std::copy(ids_.begin() + std::ptrdiff_t(from), ids_.begin() + std::ptrdiff_t(end), ids.begin() + std::ptrdiff_t(to));
      std::copy(keys_.begin() + std::ptrdiff_t(from), keys_.begin() + std::ptrdiff_t(end), keys.begin() + std::ptrdiff_t(to));
      if (weighed) {
        std::copy(scratch_.weights.begin() + std::ptrdiff_t(from), scratch_.weights.begin() + std::ptrdiff_t(end),
                  weights.begin() + std::ptrdiff_t(to));
      }
      to += end - from;
    };
    for (const std::uint32_t position : positions) {
      copy_run(position);
      from = position + 1;
    }
    copy_run(size());
    scratch_.ids.swap(ids);
    scratch_.keys.swap(keys);
    ids_ = scratch_.ids;
    keys_ = scratch_.keys;
    fresh_ = false;
    if (!weighed) return;
    scratch_.weights.swap(weights);
    scratch_.block_sums.resize(kernels::block_count(kept));
    total_ = kernels::block_sum(scratch_.weights, scratch_.block_sums);
    top_weight_ = heaviest;
    fresh_ = top_weight_ > kStaleWeight;
  }

  // Gives the candidates at `positions` weight 0 and leaves them in place: for a last stage whose
  // result is only drawn from (the draw never returns a zero-weight token), instead of copying
  // the rest.
  void zero_positions(std::span<const std::uint32_t> positions, float heaviest) {
    weigh();
    for (const std::uint32_t position : positions) scratch_.weights[position] = 0.0f;
    // The blocks that lost weight are summed again (not decremented, which could leave a
    // rounding residue in a block with nothing left to draw).
    for (std::size_t j = 0; j < positions.size(); ++j) {
      const std::size_t block = positions[j] / kernels::kBlock;
      if (j > 0 && positions[j - 1] / kernels::kBlock == block) continue;
      const std::size_t begin = block * kernels::kBlock;
      const auto weights = std::span<const float>(scratch_.weights).subspan(begin, std::min(kernels::kBlock, size() - begin));
      kernels::block_sum(weights, std::span(scratch_.block_sums).subspan(block, 1));
    }
    total_ = 0.0;
    for (const double block : scratch_.block_sums) total_ += block;
    top_weight_ = heaviest;
  }

  // Keeps the candidates at `positions` (ascending), moving their weights along.
  void keep_positions(std::span<const std::uint32_t> positions) {
    const std::size_t kept = positions.size();
    if (kept == size()) return;
    const bool weighed = fresh_;
    const auto source_ids = ids_;
    const auto source_keys = keys_;
    scratch_.ids.resize(std::max(scratch_.ids.size(), kept));
    scratch_.keys.resize(std::max(scratch_.keys.size(), kept));
    auto& weights = scratch_.weights;
    auto& block_sums = scratch_.block_sums;
    // Positions ascend and positions[j] >= j: in-place moves read before they write.
    for (std::size_t j = 0; j < kept; ++j) {
      scratch_.ids[j] = source_ids[positions[j]];
      scratch_.keys[j] = source_keys[positions[j]];
    }
    if (weighed) {
      for (std::size_t j = 0; j < kept; ++j) weights[j] = weights[positions[j]];
    }
    scratch_.ids.resize(kept);
    scratch_.keys.resize(kept);
    weights.resize(kept);
    // Summed per block by block_sum's lanes: adds into one block's slot would each wait on the last.
    block_sums.assign(kernels::block_count(kept), 0.0);
    const double total = weighed ? kernels::block_sum(weights, block_sums) : 0.0;
    const float heaviest = weighed && kept > 0 ? kernels::min_max(weights).max : 0.0f;
    ids_ = scratch_.ids;
    keys_ = scratch_.keys;
    total_ = total;
    top_weight_ = heaviest;
    fresh_ = weighed && heaviest > kStaleWeight;
  }

  // For the last stage of a draw (no trace, no minKeep): a prefix that keeps a quarter or more of
  // weighed candidates gives the rest weight 0 where they are, as XTC's and top-p's draws do,
  // instead of copying what it keeps. size() then still counts the cut ones.
  void zero_large_cuts() { zeroes_large_cuts_ = true; }
  bool zeroes_large_cuts() const { return zeroes_large_cuts_; }

  // Keeps the first prefix.count candidates of the ranking by `ranking_keys` (descending, ties
  // to the lower position).
  void keep_prefix(std::span<const float> ranking_keys, const Prefix& prefix, std::uint8_t stage) {
    std::size_t ties_left = prefix.ties_at_key;
    const auto in_prefix = [&](std::size_t i) {
      const float key = ranking_keys[i];
      if (key > prefix.last_key) return true;
      if (key == prefix.last_key && ties_left > 0) return --ties_left, true;
      return false;
    };
    if (zeroes_large_cuts_ && fresh_ && prefix.count * 4 >= size()) {
      const double total = zero_outside(prefix, ranking_keys, scratch_.weights, scratch_.block_sums);
      const float heaviest = kernels::min_max(scratch_.weights).max;
      if (heaviest > kStaleWeight) {
        total_ = total;
        top_weight_ = heaviest;
        return;
      }
      // The kept weights lost their precision: copied and weighed again below.
    }
    // SIMD finds the keys >= the boundary; of those equal to it, the first ties_at_key stay.
    auto& positions = chain_.positions;
    kernels::gather_at_least(ranking_keys, prefix.last_key, positions, chain_.survivor_keys);
    std::size_t kept = 0;
    for (const std::uint32_t position : positions) {
      if (in_prefix(position)) positions[kept++] = position;
    }
    positions.resize(kept);
    trace_cuts(positions, stage);
    keep_positions(positions);
  }

 private:
  void weigh() {
    if (fresh_) return;
    max_key_ = kernels::min_max(keys_).max;
    scratch_.weights.resize(size());
    scratch_.block_sums.resize(kernels::block_count(size()));
    total_ = kernels::exp_shifted(keys_, max_key_, inverse_temperature(temperature_), scratch_.weights,
                                  scratch_.block_sums);
    top_weight_ = 1.0;
    fresh_ = true;
  }

  CandidateScratch& scratch_;
  ChainScratch& chain_;
  std::span<const std::uint32_t> ids_;
  std::span<const float> keys_;
  ChainTrace* trace_;
  double temperature_ = 1.0;
  bool fresh_ = false;
  bool zeroes_large_cuts_ = false;
  float max_key_ = 0.0f;  // the weights' shift: the maximum when they were computed
  double total_ = 0.0;
  double top_weight_ = 1.0;
};

// The smallest float >= x, so that float z >= it <=> z >= x.
float float_at_least(double x) {
  if (!(x > -kFloatMax)) return -std::numeric_limits<float>::infinity();
  if (x > kFloatMax) return std::numeric_limits<float>::infinity();
  const float rounded = float(x);
  return double(rounded) < x ? std::nextafter(rounded, std::numeric_limits<float>::infinity()) : rounded;
}

std::uint8_t code(Stage stage) { return std::uint8_t(std::size_t(stage) + 1); }

// Whether a stage that is on can cut tokens (penalties and DRY only move logits).
bool truncates(Stage stage, const SamplingOptions& options) {
  return stage != Stage::kPenalties && stage != Stage::kDry && stage != Stage::kAdaptiveP &&
         (stage != Stage::kTemperature || options.temperature == 0.0 || options.dynatemp_range > 0.0);
}

// Whether a stage that is on changes the candidates' logits or temperature (the others only cut).
bool reweighs(Stage stage) {
  return stage == Stage::kPenalties || stage == Stage::kDry || stage == Stage::kTemperature || stage == Stage::kAdaptiveP;
}

// The candidates the first truncating stage saw, for the kept tokens' share of them: their
// weights' total and shift when only cuts follow, else a copy of their logits.
struct BeforeTruncation {
  std::optional<double> total;
  float shift = 0.0f;
};

BeforeTruncation before_truncation(Candidates& candidates, bool only_cuts_follow, ChainScratch& chain) {
  if (only_cuts_follow) return {candidates.total_weight(), candidates.max_key()};
  chain.before_truncation.assign(candidates.keys().begin(), candidates.keys().end());
  return {};
}

// The kept tokens' share of the tempered distribution the first truncating stage saw.
double kept_mass(Candidates& candidates, const BeforeTruncation& before, std::span<const float> before_logits) {
  const float inverse = inverse_temperature(candidates.temperature());
  if (before.total) {
    const double kept = candidates.max_key() == before.shift ? candidates.total_weight()
                                                              : kernels::exp_sum(candidates.keys(), before.shift, inverse);
    return kept / *before.total;
  }
  const float shift = std::max(kernels::min_max(before_logits).max, candidates.max_key());
  return kernels::exp_sum(candidates.keys(), shift, inverse) / kernels::exp_sum(before_logits, shift, inverse);
}

// The ranking's first `count` candidates (by logit). Weighed first: the later stages draw from
// these weights as they are carried, which fixes the tokens a key gives.
Prefix first_by_logit(Candidates& candidates, PrefixScratch& scratch, std::size_t count) {
  const auto range = kernels::min_max(candidates.keys());
  return PrefixSelector(candidates.keys(), candidates.weights(), range.max, range.min, scratch).first(count);
}

// The tokens noRepeatNgramSize bans (transformers' NoRepeatNGramLogitsProcessor): each token that
// followed an earlier occurrence of the history's last n − 1 tokens, found by Knuth–Morris–Pratt
// (1977) in one pass over the history; n = 1 bans every token seen.
void ngram_bans(std::span<const std::int32_t> ids, std::size_t n, ChainScratch& scratch) {
  auto& bans = scratch.bans;
  if (n == 0 || ids.size() + 1 < n) return;
  const std::size_t m = n - 1;
  if (m == 0) return bans.insert(bans.end(), ids.begin(), ids.end()), void();
  const auto pattern = ids.last(m);
  auto& failure = scratch.failure;
  failure.assign(m, 0);
  for (std::size_t i = 1, k = 0; i < m; ++i) {
    while (k > 0 && pattern[i] != pattern[k]) k = std::size_t(failure[k - 1]);
    if (pattern[i] == pattern[k]) ++k;
    failure[i] = std::int32_t(k);
  }
  // A match ending at j is followed by ids[j + 1]; the history's own end has no follower.
  for (std::size_t j = 0, k = 0; j + 1 < ids.size(); ++j) {
    while (k > 0 && ids[j] != pattern[k]) k = std::size_t(failure[k - 1]);
    if (ids[j] == pattern[k]) ++k;
    if (k == m) {
      bans.push_back(ids[j + 1]);
      k = std::size_t(failure[k - 1]);
    }
  }
}

}  // namespace

// noRepeatNgramSize's bans (indexed by the history, or searched for) and badWords' (transformers'
// NoBadWordsLogitsProcessor): a sequence's last id when the history ends with the rest of it.
const std::vector<std::int32_t>& history_bans(const SamplingOptions& options, ChainScratch& scratch) {
  auto& bans = scratch.bans;
  bans.clear();
  if (options.no_repeat_ngram_size > 0) {
    if (options.ngram_banned) {
      bans.assign(options.ngram_banned->begin(), options.ngram_banned->end());
    } else {
      ngram_bans(options.generated_ids, std::size_t(options.no_repeat_ngram_size), scratch);
    }
  }
  const auto history = options.generated_ids;
  std::size_t offset = 0;
  for (const std::int32_t length : options.bad_words_lengths) {
    const auto sequence = options.bad_words_ids.subspan(offset, std::size_t(length));
    offset += std::size_t(length);
    const auto prefix = sequence.first(sequence.size() - 1);
    if (prefix.size() <= history.size() && std::equal(prefix.begin(), prefix.end(), history.end() - std::ptrdiff_t(prefix.size()))) {
      bans.push_back(sequence.back());
    }
  }
  return bans;
}

namespace {

void logit_bias(Candidates& candidates, const SamplingOptions& options) {
  if (options.logit_bias_ids.empty()) return;
  auto keys = candidates.mutable_keys();
  for (std::size_t i = 0; i < options.logit_bias_ids.size(); ++i) {
    float& key = keys[std::size_t(options.logit_bias_ids[i])];  // still the whole vocabulary
    key = saturated(double(key) + options.logit_bias_values[i]);
  }
}

void token_masks(Candidates& candidates, const SamplingOptions& options, ChainScratch& scratch) {
  const std::size_t vocabulary = candidates.size();
  scratch.banned_everything = false;
  if (!options.allowed_mask.empty()) candidates.keep_allowed(options.allowed_mask);
  const auto& bans = history_bans(options, scratch);
  if (options.allowed_tokens.empty() && options.banned_tokens.empty() && bans.empty()) return;
  auto& masked = scratch.masked;
  masked.assign(vocabulary, options.allowed_tokens.empty() ? 0 : 1);
  for (const auto id : options.allowed_tokens) masked[std::size_t(id)] = 0;
  for (const auto id : options.banned_tokens) masked[std::size_t(id)] = 1;
  for (const auto id : bans) {
    if (std::size_t(id) < masked.size()) masked[std::size_t(id)] = 1;  // history ids are checked against the largest vocabulary only
  }
  // The mask may have gathered the candidates already: positions are not ids.
  const auto ids = candidates.ids();
  scratch.banned_everything =
      !bans.empty() && std::none_of(ids.begin(), ids.end(), [&](std::uint32_t id) { return masked[id] == 0; });
  candidates.keep_if([&](std::size_t i) { return masked[ids[i]] == 0; }, kMasksCode);
}

// The three penalties on each distinct token of the window that is still a candidate.
void penalties(Candidates& candidates, const SamplingOptions& options, PenaltyScratch& scratch) {
  std::span<float> keys;
  for (const auto [token, count] : penalty_counts(options, scratch)) {
    const std::size_t at = candidates.find(std::uint32_t(token));
    if (at == candidates.size()) continue;
    if (keys.empty()) keys = candidates.mutable_keys();
    keys[at] = saturated(penalised_logit(double(keys[at]), count, options));
  }
}

// DRY on the candidates (dry_penalties): a penalised token the stages before cut is left out.
void dry(Candidates& candidates, const SamplingOptions& options, std::size_t vocabulary, PenaltyScratch& scratch) {
  std::span<float> keys;
  for (const auto [token, amount] : dry_penalties(options, vocabulary, scratch)) {
    const std::size_t at = candidates.find(std::uint32_t(token));
    if (at == candidates.size()) continue;
    if (keys.empty()) keys = candidates.mutable_keys();
    keys[at] = saturated(double(keys[at]) - amount);
  }
}

// Temperature 0 keeps the argmax alone. Dynamic temperature as llama.cpp's
// llama_sampler_temp_ext_apply: from the entropy H of the n tokens left at T 1, T' = low +
// (high − low) (H / ln n)^exponent with low = max(0, T − range), high = T + range; one token is
// left as it is.
void temperature(Candidates& candidates, const SamplingOptions& options) {
  double t = options.temperature;
  if (options.dynatemp_range > 0.0) {
    if (candidates.size() <= 1) return;
    t = dynamic_temperature(candidates.keys(), options);
  }
  if (t == 0.0) {
    const std::size_t top = candidates.top();
    candidates.keep_if([&](std::size_t i) { return i == top; }, code(Stage::kTemperature));
    return;
  }
  candidates.set_temperature(t);
}

// Keeps the `count` best candidates by logit: a heap for small counts (unless the order makes it
// take too many tokens); else, when a sampled bound holds few more than `count`, the heap over the
// candidates at or above it (two reads: an ascending order sent the heap every token); else the
// histogram.
void keep_best(Candidates& candidates, std::size_t count, Stage stage, ChainScratch& chain, PrefixScratch& scratch) {
  if (count >= candidates.size()) return;
  const auto keys = candidates.keys();
  if (count <= kHeapTopKLimit && best_ranked_within_budget(keys, count, chain.top)) {
    candidates.keep_ranked(chain.top, code(stage));
    return;
  }
  if (const auto bound = sampled_top_k_bound(keys, count, scratch)) {
    // Every token of the top `count` lies at or above the bound; gathered in position order, ties
    // still rank by position.
    kernels::gather_at_least(keys, *bound, chain.positions, chain.survivor_keys);
    best_ranked(chain.survivor_keys, count, chain.top);
    for (RankedToken& token : chain.top) token.id = chain.positions[token.id];
    candidates.keep_ranked(chain.top, code(stage));
    return;
  }
  candidates.keep_prefix(keys, first_by_logit(candidates, scratch, count), code(stage));
}

void top_k(Candidates& candidates, const SamplingOptions& options, ChainScratch& chain, PrefixScratch& scratch) {
  keep_best(candidates, std::size_t(options.top_k), Stage::kTopK, chain, scratch);
}

void top_p(Candidates& candidates, const SamplingOptions& options, PrefixScratch& scratch) {
  const auto range = kernels::min_max(candidates.keys());
  const Prefix prefix = prefix_reaching_fraction(candidates.keys(), candidates.weights(), range.max, range.min, options.top_p,
                                                 candidates.total_weight(), scratch);
  if (prefix.count < candidates.size()) candidates.keep_prefix(candidates.keys(), prefix, code(Stage::kTopP));
}

// p_i >= min_p · p_max  <=>  z_i >= max + T ln(min_p).
void min_p(Candidates& candidates, const SamplingOptions& options) {
  const auto keys = candidates.keys();
  const float threshold = float(kernels::min_max(keys).max + candidates.temperature() * std::log(options.min_p));
  candidates.keep_keys_at_least(threshold, code(Stage::kMinP));
}

// Locally typical sampling (Meister et al. 2022): rank by |−ln p_i − H| ascending, keep the
// shortest prefix reaching typicalP. −ln p_i − H = (max − z_i) / T + ln W − H.
void typical_p(Candidates& candidates, const SamplingOptions& options, ChainScratch& chain, PrefixScratch& scratch) {
  const double total = candidates.total_weight();
  const double entropy = candidates.entropy_nats();
  const double offset = std::log(total) - entropy;
  // A token with p < q = min(e^(−2H), (1 − τ) / V) ranks after every token with p >= q (its
  // surprise −ln p exceeds −ln q >= 2H, so it lies further from H), and those have mass
  // > 1 − V q > τ: the kept set lies within p >= q. Half of q leaves room for rounding.
  // minKeep may reach past that set, so it skips the bound.
  if (options.min_keep == 1) {
    const double q = 0.5 * std::min(std::exp(-2.0 * entropy), (1.0 - options.typical_p) / double(candidates.size()));
    const double log_bound = std::log(q * total) / inverse_temperature(candidates.temperature());
    const float bound = float_at_least(candidates.max_key() + log_bound);
    // A cut made in place only pays for the bound when it leaves few (copying most costs more).
    if (!candidates.zeroes_large_cuts() || kernels::count_at_least(candidates.keys(), bound) * 4 < candidates.size()) {
      candidates.keep_keys_at_least(bound, code(Stage::kTypicalP));
    }
  }
  const auto keys = candidates.keys();
  auto& closeness = chain.ranking_keys;
  closeness.resize(keys.size());
  kernels::negative_distance(keys, candidates.max_key(), inverse_temperature(candidates.temperature()), float(offset),
                             closeness);
  const auto range = kernels::min_max(closeness);
  PrefixSelector selector(closeness, candidates.weights(), range.max, range.min, scratch);
  // HF's min_tokens_to_keep: the first minKeep of the closeness ranking stay.
  const auto min_keep = std::size_t(options.min_keep);
  Prefix prefix = selector.reaching_mass(options.typical_p * total);
  if (prefix.count < min_keep) prefix = selector.first(std::min(min_keep, candidates.size()));
  if (prefix.count < candidates.size()) candidates.keep_prefix(closeness, prefix, code(Stage::kTypicalP));
}

// Top-nσ (Tang et al. 2024): z_i >= max − n·σ over the logits themselves, so any temperature
// keeps the same set.
void top_n_sigma(Candidates& candidates, const SamplingOptions& options) {
  const auto keys = candidates.keys();
  // Two SIMD passes of compensated float lanes (one chain of double adds cost an exp pass in
  // WebAssembly): the mean, then the squares about it as a float, corrected for its rounding.
  const double mean = kernels::kahan_sum(keys) / double(keys.size());
  const auto centre = float(mean);
  const double variance = std::max(0.0, kernels::sum_of_squares(keys, centre) / double(keys.size()) -
                                            (mean - double(centre)) * (mean - double(centre)));
  const double threshold = kernels::min_max(keys).max - options.top_n_sigma * std::sqrt(variance);
  candidates.keep_keys_at_least(float_at_least(threshold), code(Stage::kTopNSigma));
}

// Keeps p_i >= bound, and the top token in any case: p_i = w_i / W >= bound <=> z_i >= shift +
// T ln(bound · W), a logit threshold (as select_kept's ε).
void keep_probable(Candidates& candidates, double bound, Stage stage) {
  const double weight_bound = bound * candidates.total_weight();
  const double threshold = candidates.max_key() + std::log(weight_bound) / inverse_temperature(candidates.temperature());
  candidates.keep_keys_at_least(float_at_least(threshold), code(stage));
}

// p-less sampling (Tan, Wu & Howard 2025, arXiv 2509.23234): keeps p_i >= Σ p_j², the
// collision probability, which never exceeds p_max.
void p_less(Candidates& candidates) {
  const double total = candidates.total_weight();
  keep_probable(candidates, kernels::sum_of_squares(candidates.weights()) / (total * total), Stage::kPLess);
}

// Adaptive-p (llama.cpp PR 17927, llama_sampler_adaptive_p_apply): the logits become 5 − 10 d²/(1 + d),
// d = |p_i − target'| / 0.3, target' = clamp(2·target − average, 0, 1); the draw comes from their
// softmax. The probabilities before the transform stay in the scratch for the average's update.
void adaptive_p(Candidates& candidates, const SamplingOptions& options, ChainScratch& chain) {
  const double target = *options.adaptive_p_target;
  const double adapted = std::clamp(2.0 * target - adaptive_p_average(options), 0.0, 1.0);
  const auto weights = candidates.weights();
  const double total = candidates.total_weight();
  auto& probs = chain.adaptive_probs;
  probs.resize(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) probs[i] = double(weights[i]) / total;
  const auto keys = candidates.mutable_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const double d = std::abs(probs[i] - adapted) / 0.3;
    keys[i] = float(5.0 - 10.0 * d * d / (1.0 + d));
  }
  candidates.set_temperature(1.0);
}

// XTC (Weidmann 2024; llama.cpp's llama_sampler_xtc_apply): when it acts, of the tokens with
// p_i >= threshold all but the least probable go, if there are at least two.
void xtc(Candidates& candidates, const SamplingOptions& options, double uniform, ChainScratch& chain, bool zero_only) {
  if (!(uniform < options.xtc_probability) || candidates.size() < 2) return;
  // p_i >= threshold <=> z_i >= shift + T ln(threshold · W): SIMD finds the few that qualify.
  const double log_bound = std::log(options.xtc_threshold * candidates.total_weight());
  const float bound = float_at_least(candidates.max_key() + log_bound / inverse_temperature(candidates.temperature()));
  auto& qualifying = chain.positions;
  kernels::gather_at_least(candidates.keys(), bound, qualifying, chain.survivor_keys);
  // llama.cpp's min_keep: XTC does not act when it would leave fewer tokens.
  if (qualifying.size() < 2 || candidates.size() - (qualifying.size() - 1) < std::size_t(options.min_keep)) return;
  // The least probable of them stays: lowest logit, ties to the highest position (last in ranking).
  std::size_t last = 0;
  for (std::size_t j = 1; j < qualifying.size(); ++j) {
    if (chain.survivor_keys[j] <= chain.survivor_keys[last]) last = j;
  }
  // It is also the heaviest token left: every other one is below the threshold.
  const float heaviest = candidates.weights()[qualifying[last]];
  qualifying.erase(qualifying.begin() + std::ptrdiff_t(last));
  // Zeroing needs the kept weights to be resolvable; an underflowed one needs reweighing.
  if (zero_only && heaviest > kStaleWeight) return candidates.zero_positions(qualifying, heaviest);
  candidates.drop_positions(qualifying, code(Stage::kXtc), heaviest);
}

// Mirostat (Basu et al. 2021) as llama.cpp's llama_sampler_mirostat(_v2)_apply. Version 2 keeps
// the tokens whose surprise −log2 p_i is at most μ; version 1 estimates the Zipf exponent s from
// the top 100 tokens and keeps the top k = (ε̂ 2^μ / (1 − V^−ε̂))^(1/s), ε̂ = s − 1.
void mirostat(Candidates& candidates, const SamplingOptions& options, std::size_t vocabulary, ChainScratch& chain,
              PrefixScratch& scratch) {
  const double mu = mirostat_mu(options);
  if (options.mirostat_version == 2) return keep_probable(candidates, std::exp2(-mu), Stage::kMirostat);
  auto& top = chain.top;
  best_ranked(candidates.keys(), std::min(kMirostatTokens, candidates.size()), top);
  const double inverse = inverse_temperature(candidates.temperature());  // as the weights have it
  double sum_tb = 0.0;
  double sum_tt = 0.0;
  for (std::size_t i = 0; i + 1 < top.size(); ++i) {
    const double t = std::log(double(i + 2) / double(i + 1));
    const double b = (double(top[i].key) - top[i + 1].key) * inverse;  // ln(p_i / p_{i+1})
    sum_tb += t * b;
    sum_tt += t * t;
  }
  const double s = sum_tb / sum_tt;
  const double e = s - 1.0;
  const double k = power(e * std::exp2(mu) / (1.0 - power(double(vocabulary), -e)), 1.0 / s);
  // Flat or degenerate tops give no finite k: keep everything left (llama.cpp leaves this undefined).
  const std::size_t keep = std::isfinite(k) ? std::size_t(std::clamp(k, 1.0, double(candidates.size()))) : candidates.size();
  keep_best(candidates, keep, Stage::kMirostat, chain, scratch);
}

}  // namespace

bool needs_general_chain(const SamplingOptions& o, std::span<const StageSpec> stages) {
  // What is not a stage: an order, minKeep, the bias (unless a cut follows: the fast path adds it
  // with the penalties), the masks and the history's bans.
  if (!o.order.empty() || o.min_keep > 1 || (!o.logit_bias_ids.empty() && !a_cut_follows(o)) || !o.allowed_tokens.empty() || !o.allowed_mask.empty() ||
      !o.banned_tokens.empty() || o.no_repeat_ngram_size > 0 || !o.bad_words_ids.empty()) {
    return true;
  }
  return std::any_of(stages.begin(), stages.end(), [&](const StageSpec& stage) { return stage.on(o) && !stage.fast(o); });
}

Selection kept_tokens(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                      bool draw_only) {
  // A dynamic temperature of 0 leaves the argmax alone, which the chain keeps.
  if (const auto input = fast_input(logits, options, workspace); input && input->options.temperature > 0.0) {
    return with_token_ids(kept_tokens(input->logits, input->options, workspace, draw_only), *input, workspace);
  }
  if (needs_general_chain(options)) return run_chain(logits, options, workspace, nullptr, draw_only);
  return select_kept(penalised(logits, options, workspace.penalties), options, workspace, draw_only);
}

double mirostat_mu(const SamplingOptions& options) { return options.mirostat_mu.value_or(2.0 * options.mirostat_tau); }

double adaptive_p_average(const SamplingOptions& options) {
  return options.adaptive_p_average.value_or(options.adaptive_p_target.value_or(0.0));
}

double dynamic_temperature(std::span<const float> logits, const SamplingOptions& options) {
  const double low = std::max(0.0, options.temperature - options.dynatemp_range);
  const double high = options.temperature + options.dynatemp_range;
  // H = ln W − Σ w ln w / W at T 1, both sums from one pass; rounding never makes it negative.
  const auto sums = kernels::entropy_sums(logits, kernels::min_max(logits).max);
  const double entropy = std::max(0.0, std::log(sums.total) - sums.weighted_exponent / sums.total);
  const double normalised = std::clamp(entropy / std::log(double(logits.size())), 0.0, 1.0);
  return low + (high - low) * power(normalised, options.dynatemp_exponent);
}

Selection run_chain(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                    ChainTrace* trace, bool draw_only) {
  Candidates candidates(logits, workspace, trace);
  auto& chain = workspace.chain;
  auto& prefix = workspace.prefix;
  const auto record = [&](std::string_view name) {
    if (!trace) return;
    trace->stages.push_back(name);
    trace->kept.push_back(candidates.size());
  };
  logit_bias(candidates, options);
  token_masks(candidates, options, chain);
  if (!options.allowed_tokens.empty() || !options.allowed_mask.empty() || !options.banned_tokens.empty() || !chain.bans.empty()) {
    record("masks");
  }
  bool truncated = false;
  BeforeTruncation before;
  const StageOrder order = stage_order(options);
  const auto active = order.view();
  const auto last_on = std::find_if(active.rbegin(), active.rend(), [&](Stage s) { return stage_on(s, options); });
  const auto min_keep = std::size_t(options.min_keep);
  for (auto at = active.begin(); at != active.end(); ++at) {
    const Stage stage = *at;
    if (!stage_on(stage, options)) continue;
    if (trace && !truncated && truncates(stage, options)) {
      const bool only_cuts_follow = std::none_of(at, active.end(), [&](Stage s) { return stage_on(s, options) && reweighs(s); });
      before = before_truncation(candidates, only_cuts_follow, chain);
      truncated = true;
    }
    // minKeep: a stage that cut below it is undone and the first minKeep of the ranking kept
    // instead (typical and XTC keep it themselves; greedy keeps one token).
    const bool guarded = min_keep > 1 && truncates(stage, options) && candidates.size() > 1 && stage != Stage::kTypicalP &&
                         stage != Stage::kXtc && stage != Stage::kTemperature;
    const std::size_t before = candidates.size();
    if (guarded) candidates.save();
    if (draw_only && !trace && min_keep == 1 && stage == *last_on) candidates.zero_large_cuts();
    switch (stage) {
      case Stage::kPenalties: penalties(candidates, options, workspace.penalties); break;
      case Stage::kDry: dry(candidates, options, logits.size(), workspace.penalties); break;
      case Stage::kTemperature: temperature(candidates, options); break;
      case Stage::kTopK: top_k(candidates, options, chain, prefix); break;
      case Stage::kTopP: top_p(candidates, options, prefix); break;
      case Stage::kMinP: min_p(candidates, options); break;
      case Stage::kTypicalP: typical_p(candidates, options, chain, prefix); break;
      case Stage::kTopNSigma: top_n_sigma(candidates, options); break;
      case Stage::kEpsilonCutoff: keep_probable(candidates, options.epsilon_cutoff, stage); break;
      case Stage::kEtaCutoff: {
        const double eta = options.eta_cutoff;
        keep_probable(candidates, std::min(eta, std::sqrt(eta) * std::exp(-candidates.entropy_nats())), stage);
        break;
      }
      case Stage::kXtc:
        xtc(candidates, options, token_uniforms(options).xtc, chain, draw_only && stage == *last_on);
        break;
      case Stage::kMirostat: mirostat(candidates, options, logits.size(), chain, prefix); break;
      case Stage::kPLess: p_less(candidates); break;
      case Stage::kAdaptiveP: adaptive_p(candidates, options, chain); break;
    }
    if (guarded && candidates.size() < std::min(min_keep, before)) {
      candidates.restore();
      keep_best(candidates, min_keep, stage, chain, prefix);
    }
    record(kStageNames[std::size_t(stage)]);
  }
  if (trace) trace->kept_mass = truncated ? kept_mass(candidates, before, chain.before_truncation) : 1.0;
  return {candidates.ids(), candidates.keys(), candidates.weights(), candidates.block_sums(), candidates.total_weight(),
          std::nullopt, candidates.max_key(), inverse_temperature(candidates.temperature()), candidates.top_weight()};
}

}  // namespace sampling_lab::detail
