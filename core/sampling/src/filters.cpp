#include "sampling_lab/filters.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"
#include "chain.hpp"
#include "fast_input.hpp"
#include "power.hpp"
#include "prefix_select.hpp"
#include "selection.hpp"

namespace sampling_lab {

std::span<const std::int32_t> penalty_window(std::span<const std::int32_t> ids, std::int64_t last_n) {
  return last_n >= 0 && std::size_t(last_n) < ids.size() ? ids.last(std::size_t(last_n)) : ids;
}

double penalised_logit(double logit, std::size_t count, const SamplingOptions& options) {
  if (options.repetition_penalty != 1.0) {
    logit = logit > 0.0 ? logit / options.repetition_penalty : logit * options.repetition_penalty;
  }
  if (count == 0) return logit;  // a prompt token: the repetition penalty alone (vLLM's scopes)
  return logit - (options.presence_penalty + options.frequency_penalty * double(count));
}

std::span<const TokenCount> penalty_counts(const SamplingOptions& options, PenaltyScratch& scratch) {
  const bool prompt = !options.prompt_ids.empty() && options.repetition_penalty != 1.0;
  if (options.generated_counts && !prompt) return *options.generated_counts;
  auto& counts = scratch.counts;
  counts.clear();
  if (options.generated_counts) {
    counts.assign(options.generated_counts->begin(), options.generated_counts->end());
  } else {
    auto& ids = scratch.sorted_ids;
    const auto window = penalty_window(options.generated_ids, options.penalty_last_n);
    ids.assign(window.begin(), window.end());
    std::sort(ids.begin(), ids.end());
    for (std::size_t start = 0; start < ids.size();) {
      std::size_t end = start;
      while (end < ids.size() && ids[end] == ids[start]) ++end;
      counts.push_back({ids[start], std::uint32_t(end - start)});
      start = end;
    }
  }
  if (!prompt) return counts;
  // The prompt's tokens that the window does not hold, with count 0: repetition only. The window's
  // tokens are sorted as plain ids (a sort of the counts themselves would add a std::sort).
  auto& held = scratch.held_ids;
  held.resize(counts.size());
  std::transform(counts.begin(), counts.end(), held.begin(), [](TokenCount entry) { return entry.token; });
  std::sort(held.begin(), held.end());
  auto& ids = scratch.sorted_ids;
  ids.assign(options.prompt_ids.begin(), options.prompt_ids.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (const std::int32_t id : ids) {
    if (!std::binary_search(held.begin(), held.end(), id)) counts.push_back({id, 0});
  }
  return counts;
}

// DRY as llama.cpp's llama_sampler_dry_apply: the window read newest first, its Z-array gives
// for each earlier position the length of the repeat of the window's end that ends there; the
// token after that position would extend the repeat.
std::span<const TokenPenalty> dry_penalties(const SamplingOptions& options, std::size_t vocabulary, PenaltyScratch& scratch) {
  auto& penalties = scratch.dry;
  penalties.clear();
  if (!stage_on(Stage::kDry, options)) return penalties;
  const auto window = penalty_window(options.generated_ids, options.dry_penalty_last_n);
  const std::size_t n = window.size();
  const auto allowed = std::size_t(options.dry_allowed_length);
  if (n <= allowed) return penalties;
  auto& reversed = scratch.reversed;
  reversed.assign(window.rbegin(), window.rend());
  // Sorted once, so that a history of n tokens costs O(n log b) with b breakers, not O(n b).
  auto& breakers = scratch.breakers;
  breakers.assign(options.dry_sequence_breakers.begin(), options.dry_sequence_breakers.end());
  std::sort(breakers.begin(), breakers.end());
  const auto is_breaker = [&](std::int32_t id) { return std::binary_search(breakers.begin(), breakers.end(), id); };
  // No repeat reaches back across the newest sequence breaker.
  std::size_t limit = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (is_breaker(reversed[i])) {
      limit = i;
      break;
    }
  }
  if (limit < allowed) return penalties;
  // Z-algorithm (Gusfield 1997): z[k] = the longest common prefix of reversed and reversed[k…].
  auto& z = scratch.match_length;
  z.assign(n, 0);
  for (std::size_t k = 1, left = 0, right = 0; k < n; ++k) {
    std::size_t length = k < right ? std::min(right - k, std::size_t(z[k - left])) : 0;
    while (k + length < n && reversed[length] == reversed[k + length]) ++length;
    z[k] = std::int32_t(length);
    if (k + length > right) {
      left = k;
      right = k + length;
    }
  }
  // Each token's longest repeat, by id (the ids were checked against the vocabulary): one pass,
  // however repetitive the window; the entries touched are set back to 0 after.
  auto& longest = scratch.longest_repeat;
  auto& tokens = scratch.repeated_tokens;
  if (longest.size() < vocabulary) longest.resize(vocabulary, 0);
  tokens.clear();
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t length = std::min(std::size_t(z[k]), limit);
    // Position n − 1 − k ends a repeat of `length`; window[n − k] follows it.
    if (length < allowed) continue;
    auto& best = longest[std::size_t(window[n - k])];
    if (best == 0) tokens.push_back(window[n - k]);
    best = std::max(best, std::int32_t(length) + 1);  // + 1: 0 marks a token not seen
  }
  const double base = options.dry_base;
  // llama.cpp caps the exponent where base^exponent would overflow a float.
  const int max_exponent = base > 1.000001 ? int(88.7228391 / std::log(base)) : 0;
  for (const std::int32_t token : tokens) {
    const std::int32_t length = longest[std::size_t(token)] - 1;
    longest[std::size_t(token)] = 0;
    if (is_breaker(token)) continue;
    int exponent = length - int(allowed);
    if (max_exponent > 0) exponent = std::min(exponent, max_exponent);
    penalties.push_back({token, options.dry_multiplier * detail::power(base, exponent)});
  }
  return penalties;
}

bool modifies_logits(const SamplingOptions& options) {
  return !options.logit_bias_ids.empty() || stage_on(Stage::kPenalties, options) || stage_on(Stage::kDry, options);
}

void apply_penalties(std::span<float> logits, const SamplingOptions& options, PenaltyScratch& scratch) {
  modify_logits(options, logits.size(), scratch, [&](std::int32_t token) { return &logits[std::size_t(token)]; });
}

std::span<const float> penalised(std::span<const float> logits, const SamplingOptions& options,
                                 PenaltyScratch& scratch) {
  if (!modifies_logits(options)) return logits;
  scratch.logits.assign(logits.begin(), logits.end());
  apply_penalties(scratch.logits, options, scratch);
  return scratch.logits;
}

TemperedResult tempered_distribution(std::span<const float> logits, const SamplingOptions& options, double mass,
                                     std::span<float> probs, PenaltyScratch& scratch, CoverWorkspace& cover) {
  const auto values = penalised(logits, options, scratch);
  if (options.temperature == 0.0) {
    softmax(values, 0.0, probs);
    return {0.0, 0.0, 1};
  }
  const auto range = kernels::min_max(values);
  const float inverse = inverse_temperature(options.temperature);
  // Unnormalised first: the weights rank the tokens for the mass as cover_count_logits does.
  const double total = kernels::exp_shifted(values, range.max, inverse, probs);
  const bool has_masked = !std::isfinite(range.min) || (values.data() != logits.data() && !std::isfinite(kernels::min_max(logits).min));
  std::size_t tokens_for_mass = 0;
  if (!has_masked) {
    tokens_for_mass = detail::prefix_reaching_fraction(values, probs, range.max, range.min, mass, total, cover.prefix).count;
  }
  // −ln p = ln W − y with y = (z − max) / T: the surprisal's mean and variance from two reads.
  const double mean_exponent = kernels::weighted_exponent_sum(values, probs, range.max, inverse) / total;
  const double variance_nats =
      kernels::weighted_squared_deviation(values, probs, range.max, inverse, float(mean_exponent)) / total;
  const float normaliser = float(1.0 / total);
  for (float& p : probs) p *= normaliser;
  if (has_masked) tokens_for_mass = cover_count(probs, mass, cover);
  const double entropy_nats = std::max(0.0, std::log(total) - mean_exponent);
  return {entropy_nats / std::numbers::ln2, variance_nats / (std::numbers::ln2 * std::numbers::ln2), tokens_for_mass};
}

namespace {

// The kept tokens written into `probs` as their renormalised weights, and the result's figures.
FilterResult write_kept(const detail::Selection& kept, double kept_mass, std::span<float> probs) {
  // −ln p = ln W − y with y = ln w = (z − max) / T: the entropy and the surprisal's variance
  // without a log per token. Normalised as softmax does, so an uncut distribution equals the
  // tempered one exactly.
  const float inverse_weight = float(1.0 / kept.kept_weight);
  for (std::size_t j = 0; j < kept.ids.size(); ++j) probs[kept.ids[j]] = kept.weights[j] * inverse_weight;
  const double mean_exponent =
      kernels::weighted_exponent_sum(kept.keys, kept.weights, kept.max_logit, kept.inverse_temperature) / kept.kept_weight;
  const double variance_nats = kernels::weighted_squared_deviation(kept.keys, kept.weights, kept.max_logit,
                                                                   kept.inverse_temperature, float(mean_exponent)) /
                               kept.kept_weight;
  // At least 0, which rounding can undercut when one token holds nearly all the weight.
  const double entropy_nats = std::max(0.0, std::log(kept.kept_weight) - mean_exponent);
  return {kept.ids.size(), kept_mass, entropy_nats / std::numbers::ln2, kept.top_weight / kept.kept_weight,
          variance_nats / (std::numbers::ln2 * std::numbers::ln2)};
}

ArgumentError ban_error(const SamplingOptions& options) {
  const std::string name = options.no_repeat_ngram_size > 0 ? "noRepeatNgramSize" : "badWords";
  return ArgumentError{name, "noRepeatNgramSize and badWords ban every token the masks leave for this step"};
}

}  // namespace

FilterResult filter_distribution(std::span<const float> input_logits, const SamplingOptions& options,
                                 std::span<float> probs, FilterWorkspace& workspace) {
  std::fill(probs.begin(), probs.end(), 0.0f);
  if (detail::needs_general_chain(options)) {
    detail::ChainTrace trace;
    const auto kept = detail::run_chain(input_logits, options, workspace, &trace);
    return write_kept(kept, trace.kept_mass, probs);
  }
  const auto logits = penalised(input_logits, options, workspace.penalties);
  if (options.temperature == 0.0) {
    probs[argmax(logits)] = 1.0f;
    return {1, 1.0, 0.0, 1.0, 0.0};
  }
  const auto kept = detail::select_kept(logits, options, workspace);
  const double total = kept.total_weight
      ? *kept.total_weight
      : kernels::exp_sum(logits, kept.max_logit, kept.inverse_temperature);
  return write_kept(kept, kept.ids.size() == logits.size() ? 1.0 : kept.kept_weight / total, probs);
}

namespace {

// The chain with every cut recorded in cut_by: its kept set, and the stages' counts.
detail::Selection traced_chain(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                               std::span<std::uint8_t> cut_by, StageTrace& stages, double& kept_mass) {
  std::memset(cut_by.data(), 0, cut_by.size());  // std::fill of bytes stays a loop at -Os
  detail::ChainTrace trace;
  trace.cut_by = cut_by;
  const auto kept = detail::run_chain(logits, options, workspace, &trace);
  stages.clear();
  for (std::size_t i = 0; i < trace.stages.size(); ++i) stages.push_back({trace.stages[i], trace.kept[i]});
  kept_mass = trace.kept_mass;
  return kept;
}

}  // namespace

StageTrace filter_stages(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                         std::span<std::uint8_t> cut_by) {
  StageTrace stages;
  double kept_mass = 0.0;
  traced_chain(logits, options, workspace, cut_by, stages, kept_mass);
  return stages;
}

FilterResult filter_distribution(std::span<const float> logits, const SamplingOptions& options, std::span<float> probs,
                                 FilterWorkspace& workspace, std::span<std::uint8_t> cut_by, StageTrace& stages) {
  std::memset(probs.data(), 0, probs.size_bytes());  // 0.0f is all zero bits
  double kept_mass = 0.0;
  const auto kept = traced_chain(logits, options, workspace, cut_by, stages, kept_mass);
  return write_kept(kept, kept_mass, probs);
}

Check check_bans_leave_a_token(const SamplingOptions& options, std::size_t vocabulary) {
  if (options.no_repeat_ngram_size == 0 && options.bad_words_ids.empty()) return std::nullopt;
  // Without an allowed set, fewer bans than tokens leave one: no mask to build on every call.
  const std::size_t ngram_bans = options.no_repeat_ngram_size == 0 ? 0
                                 : options.ngram_banned ? options.ngram_banned->size()
                                                        : options.generated_ids.size();
  const std::size_t most_bans = options.banned_tokens.size() + options.bad_words_lengths.size() + ngram_bans;
  if (options.allowed_mask.empty() && options.allowed_tokens.empty() && most_bans < vocabulary) return std::nullopt;
  ChainScratch scratch;
  const auto& bans = detail::history_bans(options, scratch);
  if (bans.empty()) return std::nullopt;
  Buffer<std::uint32_t> words;
  if (kernels::mask_count(detail::combined_mask(options, bans, vocabulary, words), vocabulary) > 0) return std::nullopt;
  return ban_error(options);
}

Check check_bans_left_a_token(const SamplingOptions& options, const FilterWorkspace& workspace) {
  // The flag is the last chain's: it speaks for these options only when they ban.
  const bool bans = options.no_repeat_ngram_size > 0 || !options.bad_words_ids.empty();
  if (!bans || !workspace.chain.banned_everything) return std::nullopt;
  return ban_error(options);
}

}  // namespace sampling_lab
