#include "sampling_lab/speculative_decoding.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "chain.hpp"

namespace sampling_lab {

namespace {

// Row `row` of rows of `vocabulary` logits.
std::span<const float> row_of(std::span<const float> rows, std::size_t row, std::size_t vocabulary) {
  return rows.subspan(row * vocabulary, vocabulary);
}

Check check_rows(std::span<const float> rows, std::size_t vocabulary, const std::string& argument) {
  for (std::size_t r = 0; r * vocabulary < rows.size(); ++r) {
    if (auto error = check_maskable_logits(row_of(rows, r, vocabulary), argument)) {
      return ArgumentError{argument, "row " + std::to_string(r) + ": " + error->message};
    }
  }
  return std::nullopt;
}

// The probability of `token` in the kept set (0 when it was cut).
double probability(const detail::Selection& kept, std::int32_t token) {
  const auto at = std::lower_bound(kept.ids.begin(), kept.ids.end(), std::uint32_t(token));
  if (at == kept.ids.end() || *at != std::uint32_t(token)) return 0.0;
  return double(kept.weights[std::size_t(at - kept.ids.begin())]) / kept.kept_weight;
}

// A selection's weights over the whole vocabulary: its own when it weighs every token (cut ones at
// 0), else scattered into `buffer`.
std::span<const float> vocabulary_weights(const detail::Selection& kept, std::size_t vocabulary, std::vector<float>& buffer) {
  if (kept.ids.size() == vocabulary) return kept.weights;  // ids ascending and distinct: every token
  buffer.assign(vocabulary, 0.0f);
  for (std::size_t j = 0; j < kept.ids.size(); ++j) buffer[kept.ids[j]] = kept.weights[j];
  return buffer;
}

// An inverse-CDF draw from norm(max(0, p − q)) on the uniform u, over the vocabulary in id order: q
// is `q_weights`·q_scale (q's distribution, or all on one point draft). The residual is one
// branch-free pass, summed per block, then scanned once. When rounding leaves no residual mass (p = q
// up to it), the draw is from p.
std::int32_t residual_draw(const detail::Selection& p, std::span<const float> q_weights, double q_scale, double u,
                           SpeculativeWorkspace& workspace) {
  const std::size_t vocabulary = q_weights.size();
  const auto p_weights = vocabulary_weights(p, vocabulary, workspace.p_weights);
  auto& residual = workspace.residual;
  auto& blocks = workspace.residual_blocks;
  residual.resize(vocabulary);
  blocks.resize(kernels::block_count(vocabulary));
  const auto p_scale = float(1.0 / p.kept_weight);
  for (std::size_t i = 0; i < vocabulary; ++i) residual[i] = std::max(0.0f, p_weights[i] * p_scale - q_weights[i] * float(q_scale));
  double total = kernels::block_sum(residual, blocks);
  if (total > 0.0) return std::int32_t(kernels::inverse_cdf(residual, blocks, u * total));
  total = kernels::block_sum(p_weights, blocks);
  return std::int32_t(kernels::inverse_cdf(p_weights, blocks, u * total));
}

}  // namespace

void prompt_lookup(std::span<const std::int32_t> context, std::size_t ngram_max, std::size_t ngram_min, std::size_t max_tokens,
                   PromptLookup& out) {
  out.from = out.count = out.ngram = out.at = 0;
  const std::size_t length = context.size();
  if (length < 2) return;
  // agree[j]: how many tokens ending j before the end agree with the context's last ones (the
  // Z-function of the reversed context, Gusfield 1997). The last n tokens recur at s = L − j − n
  // when agree[j] >= n, with a token after them when j >= 1.
  const auto back = [&](std::size_t i) { return context[length - 1 - i]; };
  auto& agree = out.agree;
  agree.assign(length, 0);
  std::size_t longest = 0;
  for (std::size_t j = 1, left = 0, right = 0; j < length; ++j) {
    std::size_t k = j < right ? std::min(right - j, std::size_t(agree[j - left])) : 0;
    while (j + k < length && back(k) == back(j + k)) ++k;
    agree[j] = std::uint32_t(k);
    if (j + k > right) left = j, right = j + k;
    longest = std::max(longest, std::min(k, ngram_max));
  }
  if (longest < ngram_min || longest == 0) return;
  // The longest n that recurs, at its earliest occurrence: the largest j.
  std::size_t j = length - longest;
  while (agree[j] < longest) --j;
  out.from = length - j;
  out.count = std::min(max_tokens, j);
  out.ngram = longest;
  out.at = out.from - longest;
}

double expected_tokens(double alpha, std::size_t gamma) {
  if (alpha >= 1.0) return double(gamma + 1);
  // α^(γ+1) by repeated products: std::pow would link libm's pow into the sampler module.
  double power = 1.0;
  for (std::size_t i = 0; i <= gamma; ++i) power *= alpha;
  return (1.0 - power) / (1.0 - alpha);
}

std::variant<std::size_t, ArgumentError> speculative_vocabulary(const SpeculativeInput& input) {
  const std::size_t gamma = input.draft_tokens.size();
  if (gamma > kMaxDraftTokens) {
    return ArgumentError{"draftTokens", "draftTokens has " + std::to_string(gamma) + " tokens; at most " +
                                            std::to_string(kMaxDraftTokens) + " are verified at once"};
  }
  if (auto error = check_length(double(input.target_rows.size()), "targetRows")) return *error;
  if (auto error = check_length(double(input.draft_rows.size()), "draftRows")) return *error;
  const std::size_t rows = gamma + 1;
  if (input.target_rows.empty() || input.target_rows.size() % rows != 0) {
    return ArgumentError{"targetRows", "targetRows must hold γ + 1 = " + std::to_string(rows) +
                                           " rows of equal length (one more than draftTokens), not " +
                                           std::to_string(input.target_rows.size()) + " logits"};
  }
  const std::size_t vocabulary = input.target_rows.size() / rows;
  if (input.point_drafts && !input.draft_rows.empty()) {
    return ArgumentError{"draftRows", "point drafts (prompt lookup) have no draft rows"};
  }
  if (!input.point_drafts && input.draft_rows.size() != gamma * vocabulary) {
    return ArgumentError{"draftRows", "draftRows must hold γ = " + std::to_string(gamma) + " rows of " +
                                          std::to_string(vocabulary) + " logits (as targetRows), not " +
                                          std::to_string(input.draft_rows.size()) + " logits"};
  }
  return vocabulary;
}

std::variant<SpeculativeResult, ArgumentError> speculative_verify(const SpeculativeInput& input,
                                                                  const SamplingOptions& options,
                                                                  SpeculativeWorkspace& workspace) {
  const auto sized = speculative_vocabulary(input);
  if (const auto* error = std::get_if<ArgumentError>(&sized)) return *error;
  const std::size_t vocabulary = std::get<std::size_t>(sized);
  if (options.mirostat_version != 0) {
    return ArgumentError{"mirostat", "mirostat cannot be verified speculatively: its μ moves with every emitted token"};
  }
  if (options.adaptive_p_target) {
    return ArgumentError{"adaptiveP", "adaptiveP cannot be verified speculatively: its average moves with every emitted token"};
  }
  if (auto error = check_rows(input.target_rows, vocabulary, "targetRows")) return *error;
  if (auto error = check_rows(input.draft_rows, vocabulary, "draftRows")) return *error;
  const auto drafts = input.draft_tokens;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    if (drafts[i] < 0 || std::size_t(drafts[i]) >= vocabulary) {
      return ArgumentError{"draftTokens", "draftTokens[" + std::to_string(i) + "] is " + std::to_string(drafts[i]) +
                                              ", not a token id in [0, " + std::to_string(vocabulary) + ")"};
    }
  }
  auto& context = workspace.context;
  context.assign(options.generated_ids.begin(), options.generated_ids.end());
  context.insert(context.end(), drafts.begin(), drafts.end());
  const std::size_t history = options.generated_ids.size();
  // The options of position i on one side.
  const auto at = [&](std::size_t i, std::uint64_t stream) {
    SamplingOptions position = options;
    position.stream = stream;
    position.step = options.step + i;
    position.generated_ids = std::span(context).first(history + i);
    position.generated_counts.reset();
    return position;
  };
  SpeculativeResult result{0, 0, {}, {}, false};
  const auto finish = [&](std::int32_t token) {
    result.token = token;
    result.tokens.assign(drafts.begin(), drafts.begin() + std::ptrdiff_t(result.accepted));
    result.tokens.push_back(token);
    return result;
  };
  // The bans of position i's history (with the drafts before it) may leave no token.
  const auto bans_leave_none = [&](std::size_t i, const SamplingOptions& position, const FilterWorkspace& side) -> Check {
    auto error = check_bans_left_a_token(position, side);
    if (error) error->message = "position " + std::to_string(i) + " (the history and the drafts before it): " + error->message;
    return error;
  };
  // Position i's row of one side with its −∞ logits masked (its values were checked).
  const auto masked_row = [&](std::span<const float> rows, std::size_t i, const SamplingOptions& position, FilterWorkspace& side,
                              const std::string& argument) -> std::variant<MaskedLogits, ArgumentError> {
    auto masked = mask_negative_infinity(row_of(rows, i, vocabulary), position, side.masked, argument);
    if (auto* error = std::get_if<ArgumentError>(&masked)) error->message = "row " + std::to_string(i) + ": " + error->message;
    return masked;
  };
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const auto target = masked_row(input.target_rows, i, at(i, options.stream), workspace.target, "targetRows");
    if (const auto* error = std::get_if<ArgumentError>(&target)) return *error;
    const auto target_row = std::get<MaskedLogits>(target).logits;
    const SamplingOptions& target_options = std::get<MaskedLogits>(target).options;
    if (options.temperature == 0.0) {
      const std::int32_t best = sample_token(target_row, target_options, workspace.target);
      if (auto error = bans_leave_none(i, target_options, workspace.target)) return *error;
      result.acceptance.push_back(drafts[i] == best ? 1.0 : 0.0);
      if (drafts[i] == best) {
        ++result.accepted;
        continue;
      }
      result.from_residual = true;
      return finish(best);
    }
    const auto p = detail::kept_tokens(target_row, target_options, workspace.target, true);
    if (auto error = bans_leave_none(i, target_options, workspace.target)) return *error;
    Philox verifier(options.seed, options.stream ^ kVerifierStreamBit);
    verifier.seek(options.step + i);
    if (input.point_drafts) {
      const double ratio = probability(p, drafts[i]);
      result.acceptance.push_back(ratio);
      if (verifier.uniform() < ratio) {
        ++result.accepted;
        continue;
      }
      // q all on x: norm(max(0, p − q)) is p without x, renormalised.
      auto& one_hot = workspace.q_weights;
      one_hot.assign(vocabulary, 0.0f);
      one_hot[std::size_t(drafts[i])] = 1.0f;
      result.from_residual = true;
      return finish(residual_draw(p, one_hot, 1.0, verifier.uniform(), workspace));
    }
    const auto draft = masked_row(input.draft_rows, i, at(i, input.draft_stream), workspace.draft, "draftRows");
    if (const auto* error = std::get_if<ArgumentError>(&draft)) return *error;
    const SamplingOptions& draft_options = std::get<MaskedLogits>(draft).options;
    const auto q = detail::kept_tokens(std::get<MaskedLogits>(draft).logits, draft_options, workspace.draft, true);
    if (auto error = bans_leave_none(i, draft_options, workspace.draft)) return *error;
    const double drafted = probability(q, drafts[i]);
    if (!(drafted > 0.0)) {
      return ArgumentError{"draftTokens", "draftTokens[" + std::to_string(i) + "] = " + std::to_string(drafts[i]) +
                                              " has probability 0 under draftRows[" + std::to_string(i) +
                                              "] with these options: draw each draft token with the same options on the draft stream"};
    }
    const double ratio = std::min(1.0, probability(p, drafts[i]) / drafted);
    result.acceptance.push_back(ratio);
    const double accept_uniform = verifier.uniform();
    if (accept_uniform < ratio) {
      ++result.accepted;
      continue;
    }
    result.from_residual = true;
    return finish(residual_draw(p, vocabulary_weights(q, vocabulary, workspace.q_weights), 1.0 / q.kept_weight, verifier.uniform(), workspace));
  }
  const auto last = masked_row(input.target_rows, drafts.size(), at(drafts.size(), options.stream), workspace.target, "targetRows");
  if (const auto* error = std::get_if<ArgumentError>(&last)) return *error;
  const SamplingOptions& bonus_options = std::get<MaskedLogits>(last).options;
  const std::int32_t bonus = sample_token(std::get<MaskedLogits>(last).logits, bonus_options, workspace.target);
  if (auto error = bans_leave_none(drafts.size(), bonus_options, workspace.target)) return *error;
  return finish(bonus);
}

}  // namespace sampling_lab
