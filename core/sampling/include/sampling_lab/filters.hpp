#pragma once
// The filter chain: logit bias and masks (with noRepeatNgramSize's and badWords' bans), then
// penalties -> DRY -> temperature -> top-k -> top-p -> min-p -> typical -> top-nσ -> ε -> η ->
// p-less -> XTC -> mirostat -> adaptive-p (the decoding chapter's order, or the one the options
// give), then renormalise.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

struct FilterResult {
  std::size_t kept;     // tokens left with non-zero probability
  double kept_mass;     // their mass under the tempered, untruncated distribution
  double entropy_bits;  // of the renormalised result: the mean surprisal −log2 p of a drawn token
  double top_prob;      // of the renormalised result
  double surprisal_variance_bits;  // the variance of that surprisal, in bits²
};

// The last `last_n` ids (all of them when last_n is 0): what the penalties and DRY see.
std::span<const std::int32_t> penalty_window(std::span<const std::int32_t> ids, std::int64_t last_n);

// A generated token's logit after the repetition, presence and frequency penalties, for a token
// that occurs `count` times in the window.
double penalised_logit(double logit, std::size_t count, const SamplingOptions& options);

// The distinct tokens of the penalties' window with their counts, in no particular order:
// options.generated_counts, or counted from options.generated_ids into the scratch; with a prompt
// and a repetition penalty, the prompt's other tokens follow with count 0.
std::span<const TokenCount> penalty_counts(const SamplingOptions& options, PenaltyScratch& scratch);

// DRY's penalty (llama.cpp's) on each token that would extend a repeat of the window's end, a
// sequence breaker never; none when DRY is off. Valid until the scratch's next use.
std::span<const TokenPenalty> dry_penalties(const SamplingOptions& options, std::size_t vocabulary, PenaltyScratch& scratch);

// Whether the logit bias, the penalties or DRY change the logits before the stages (the fast
// paths apply them, in the chain's order, to a copy).
bool modifies_logits(const SamplingOptions& options);

// Adds the logit bias, then the repetition, presence and frequency penalties, then DRY, to the
// logit `logit_of(token)` points at (nullptr: the token is not among these logits), each in double
// and saturated to float's range: a penalty can push a logit far down (or up), never to ±∞, where
// the softmax would turn to NaN.
template <class LogitOf>
void modify_logits(const SamplingOptions& options, std::size_t vocabulary, PenaltyScratch& scratch, LogitOf logit_of) {
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  const auto add = [&](std::int32_t token, auto change) {
    if (float* logit = logit_of(token)) *logit = float(std::clamp(change(double(*logit)), -kFloatMax, kFloatMax));
  };
  for (std::size_t i = 0; i < options.logit_bias_ids.size(); ++i) {
    add(options.logit_bias_ids[i], [&](double logit) { return logit + options.logit_bias_values[i]; });
  }
  if (stage_on(Stage::kPenalties, options)) {
    for (const TokenCount& entry : penalty_counts(options, scratch)) {
      add(entry.token, [&](double logit) { return penalised_logit(logit, entry.count, options); });
    }
  }
  for (const TokenPenalty& entry : dry_penalties(options, vocabulary, scratch)) {
    add(entry.token, [&](double logit) { return logit - entry.amount; });
  }
}

// modify_logits on the whole vocabulary's logits, in place.
void apply_penalties(std::span<float> logits, const SamplingOptions& options, PenaltyScratch& scratch);

// The logits with the bias, penalties and DRY applied: `logits` itself when none are active, else
// a copy held in the scratch.
std::span<const float> penalised(std::span<const float> logits, const SamplingOptions& options,
                                 PenaltyScratch& scratch);

// The tempered distribution's figures: the mean surprisal −log2 p of a drawn token (its entropy)
// and the variance of that surprisal, and the fewest tokens whose mass reaches `mass`.
struct TemperedResult {
  double entropy_bits;
  double surprisal_variance_bits;
  std::size_t tokens_for_mass;
};

// The distribution before truncation: softmax of the penalised logits at the temperature, from
// one exp pass (no log per token). The tokens for `mass` are ranked by the penalised logits, or by
// probability when a logit is −∞ (such a token weighs 0).
TemperedResult tempered_distribution(std::span<const float> logits, const SamplingOptions& options, double mass,
                                     std::span<float> probs, PenaltyScratch& scratch, CoverWorkspace& cover);

// Writes the filtered, renormalised distribution into `probs` (same length as logits): bias and
// masks, then the stages in the options' order (see options.hpp). Top-k, top-p and min-p keep a
// prefix of the tokens ranked by (logit desc, index asc); top-p keeps a token while the mass of
// the tokens before it is < p of the distribution left so far. XTC's draw comes from the options'
// random key, as in sample_token, so this is the distribution sample_token draws from.
// Expects checked inputs.
FilterResult filter_distribution(std::span<const float> logits, const SamplingOptions& options,
                                 std::span<float> probs, FilterWorkspace& workspace);

// The error when noRepeatNgramSize's and badWords' bans for options.generated_ids leave none of
// the tokens the masks allow (checked with the options).
Check check_bans_leave_a_token(const SamplingOptions& options, std::size_t vocabulary);

// After a chain ran with these options: the error when noRepeatNgramSize's and badWords' bans
// left no token (the chain then kept the top one), naming the one that is on.
Check check_bans_left_a_token(const SamplingOptions& options, const FilterWorkspace& workspace);

// One stage of the chain that was on and the tokens left once it and those before it had run.
struct FilterStage {
  std::string_view filter;  // the stage's name ("topP", "xtc", …; "masks" for allowed and banned tokens)
  std::size_t kept;
};
using StageTrace = std::vector<FilterStage>;

// filter_stages' code of a token cut by allowedTokens or bannedTokens; a stage's is 1 + its Stage.
inline constexpr std::uint8_t kMasksCode = kStageCount + 1;

// The stages that are on, in order, and which one cut each token: cut_by (empty, or as long as
// the logits) gets 0 for a kept token, else the code of what cut it. Expects checked inputs.
StageTrace filter_stages(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                         std::span<std::uint8_t> cut_by = {});

// filter_distribution and filter_stages from one run of the chain (the general one, which records
// every cut): the distribution into probs, the codes into cut_by (both as long as the logits).
FilterResult filter_distribution(std::span<const float> logits, const SamplingOptions& options, std::span<float> probs,
                                 FilterWorkspace& workspace, std::span<std::uint8_t> cut_by, StageTrace& stages);

}  // namespace sampling_lab
