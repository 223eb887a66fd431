#include "sampling_lab/speculative_decoding.hpp"

#include <algorithm>
#include <optional>
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

// The probability of `token` in the kept set (0 when it was cut).
double probability(const detail::Selection& kept, std::int32_t token) {
  const auto at = std::lower_bound(kept.ids.begin(), kept.ids.end(), std::uint32_t(token));
  if (at == kept.ids.end() || *at != std::uint32_t(token)) return 0.0;
  return double(kept.weights[std::size_t(at - kept.ids.begin())]) / kept.kept_weight;
}

// Recursive rejection sampling's residual r, unnormalised, over p's kept tokens in id order (r <=
// p, so it is 0 everywhere else; workspace.residual, summed per block into residual_blocks):
// start() makes it p, and reject() takes a rejected q off it, r = max(0, r/Σr − q). q is a draft's
// kept distribution, or all on one point draft. When rounding would leave no mass (r = q up to
// it), r stays as it was.
class Residual {
 public:
  explicit Residual(SpeculativeWorkspace& workspace) : workspace_(workspace) {}

  void start(const detail::Selection& p) {
    workspace_.residual_ids.assign(p.ids.begin(), p.ids.end());
    const auto p_scale = float(1.0 / p.kept_weight);
    workspace_.residual.resize(p.ids.size());
    std::transform(p.weights.begin(), p.weights.end(), workspace_.residual.begin(), [&](float w) { return w * p_scale; });
    total_ = 1.0;
  }

  double probability(std::int32_t token) const {
    const auto& ids = workspace_.residual_ids;
    const auto at = std::lower_bound(ids.begin(), ids.end(), std::uint32_t(token));
    if (at == ids.end() || *at != std::uint32_t(token)) return 0.0;
    return double(workspace_.residual[std::size_t(at - ids.begin())]) / total_;
  }

  // q: a draft's kept set (ids ascending), or none for a point draft on `point`.
  void reject(const detail::Selection* q, std::int32_t point) {
    const auto& ids = workspace_.residual_ids;
    const auto& residual = workspace_.residual;
    auto& next = workspace_.next_residual;
    next.resize(ids.size());
    const auto scale = float(1.0 / total_);
    const auto q_scale = q ? float(1.0 / q->kept_weight) : 1.0f;
    std::size_t k = 0;  // q's position, walked along with r's ids
    for (std::size_t j = 0; j < ids.size(); ++j) {
      float q_weight = 0.0f;
      if (!q) {
        q_weight = ids[j] == std::uint32_t(point) ? 1.0f : 0.0f;
      } else {
        while (k < q->ids.size() && q->ids[k] < ids[j]) ++k;
        if (k < q->ids.size() && q->ids[k] == ids[j]) q_weight = q->weights[k];
      }
      next[j] = std::max(0.0f, residual[j] * scale - q_weight * q_scale);
    }
    auto& blocks = workspace_.residual_blocks;
    blocks.resize(kernels::block_count(ids.size()));
    const double total = kernels::block_sum(next, blocks);
    if (total > 0.0) {
      next.swap(workspace_.residual);
      total_ = summed_ = total;
    } else {
      summed_ = kernels::block_sum(workspace_.residual, blocks);  // undone: the block sums are r's again
    }
  }

  // The draw on u, after a rejection (which left r's block sums).
  std::int32_t draw(double u) const {
    return std::int32_t(workspace_.residual_ids[kernels::inverse_cdf(workspace_.residual, workspace_.residual_blocks, u * summed_)]);
  }

 private:
  SpeculativeWorkspace& workspace_;
  double total_ = 0.0;   // r's normaliser for the next trial
  double summed_ = 0.0;  // the block sums' total
};

}  // namespace

void prompt_lookup(std::span<const std::int32_t> context, std::size_t ngram_max, std::size_t ngram_min, std::size_t max_tokens,
                   PromptLookup& out, std::size_t drafts) {
  out.matches.clear();
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
  // A continuation's polynomial hash from prefix hashes, so that telling it from the proposals
  // before it costs a comparison, not a scan, whatever the context repeats.
  auto& hashes = out.hashes;
  constexpr std::uint64_t kBase = 0x100000001b3ull;
  if (drafts > 1) {
    hashes.assign(length + 1, 0);
    for (std::size_t i = 0; i < length; ++i) hashes[i + 1] = hashes[i] * kBase + std::uint32_t(context[i]);
  }
  std::uint64_t power_of[kMaxDraftTokens + 1] = {1};
  for (std::size_t i = 1; i <= max_tokens; ++i) power_of[i] = power_of[i - 1] * kBase;
  const auto hash_of = [&](const LookupMatch& m) { return hashes[m.from + m.count] - hashes[m.from] * power_of[m.count]; };
  const auto tokens_of = [&](const LookupMatch& m) { return context.subspan(m.from, m.count); };
  // Occurrences with the longest n first, then the earliest (the largest j).
  for (std::size_t n = longest; n >= ngram_min && out.matches.size() < drafts; --n) {
    for (std::size_t j = length - n; j >= 1 && out.matches.size() < drafts; --j) {
      if (std::min<std::size_t>(agree[j], ngram_max) != n) continue;
      const LookupMatch match{length - j, std::min(max_tokens, j), n, length - j - n};
      const bool repeated = std::any_of(out.matches.begin(), out.matches.end(), [&](const LookupMatch& seen) {
        return seen.count == match.count && hash_of(seen) == hash_of(match) &&
               std::equal(tokens_of(seen).begin(), tokens_of(seen).end(), tokens_of(match).begin());
      });
      if (!repeated) out.matches.push_back(match);
    }
  }
}

double expected_tokens(double alpha, std::size_t gamma) {
  if (alpha >= 1.0) return double(gamma + 1);
  // α^(γ+1) by repeated products: std::pow would link libm's pow into the sampler module.
  double power = 1.0;
  for (std::size_t i = 0; i <= gamma; ++i) power *= alpha;
  return (1.0 - power) / (1.0 - alpha);
}

std::size_t best_gamma(double acceptance, double draft_cost, std::span<const float> passes, std::size_t max_gamma) {
  const std::size_t n = passes.size() / 2;
  if (n == 0) return max_gamma;
  double mean_x = 0.0, mean_y = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean_x += passes[2 * i] / double(n), mean_y += passes[2 * i + 1] / double(n);
  double covariance = 0.0, variance = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    covariance += (passes[2 * i] - mean_x) * (passes[2 * i + 1] - mean_y);
    variance += (passes[2 * i] - mean_x) * (passes[2 * i] - mean_x);
  }
  // A pass never gets cheaper with more positions.
  const double per_position = variance > 0.0 ? std::max(0.0, covariance / variance) : 0.0;
  std::size_t best = 1;
  double best_rate = -1.0;
  for (std::size_t gamma = 1; gamma <= max_gamma; ++gamma) {
    const double target_cost = std::max(mean_y + per_position * (double(gamma + 1) - mean_x), 1e-9);
    const double rate = expected_tokens(acceptance, gamma) / (double(gamma) * draft_cost + target_cost);
    if (rate > best_rate) best = gamma, best_rate = rate;
  }
  return best;
}

std::variant<std::size_t, ArgumentError> speculative_vocabulary(const SpeculativeInput& input) {
  const std::size_t drafts = input.drafts;
  if (drafts < 1 || drafts > kMaxDrafts) {
    return ArgumentError{"drafts", "drafts is " + std::to_string(drafts) + "; between 1 and " + std::to_string(kMaxDrafts) + " drafts are verified together"};
  }
  if (input.draft_tokens.size() % drafts != 0) {
    return ArgumentError{"draftTokens", "draftTokens has " + std::to_string(input.draft_tokens.size()) + " tokens, not " + std::to_string(drafts) +
                                            " drafts of equal length"};
  }
  const std::size_t gamma = input.draft_tokens.size() / drafts;
  if (gamma > kMaxDraftTokens) {
    return ArgumentError{"draftTokens", "draftTokens has " + std::to_string(gamma) + " tokens per draft; at most " +
                                            std::to_string(kMaxDraftTokens) + " are verified at once"};
  }
  if (auto error = check_length(double(input.target_rows.size()), "targetRows")) return *error;
  if (auto error = check_length(double(input.draft_rows.size()), "draftRows")) return *error;
  const std::size_t rows = drafts * (gamma + 1);
  if (input.target_rows.empty() || input.target_rows.size() % rows != 0) {
    return ArgumentError{"targetRows", "targetRows must hold k·(γ + 1) = " + std::to_string(rows) +
                                           " rows of equal length (each draft's γ tokens and one more), not " +
                                           std::to_string(input.target_rows.size()) + " logits"};
  }
  const std::size_t vocabulary = input.target_rows.size() / rows;
  if (input.point_drafts && !input.draft_rows.empty()) {
    return ArgumentError{"draftRows", "point drafts (prompt lookup) have no draft rows"};
  }
  if (!input.point_drafts && input.draft_rows.size() != drafts * gamma * vocabulary) {
    return ArgumentError{"draftRows", "draftRows must hold k·γ = " + std::to_string(drafts * gamma) + " rows of " +
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
  const std::size_t drafts = input.drafts;
  const std::size_t gamma = input.draft_tokens.size() / drafts;
  for (std::size_t i = 0; i < input.draft_tokens.size(); ++i) {
    if (input.draft_tokens[i] < 0 || std::size_t(input.draft_tokens[i]) >= vocabulary) {
      return ArgumentError{"draftTokens", "draftTokens[" + std::to_string(i) + "] is " + std::to_string(input.draft_tokens[i]) +
                                              ", not a token id in [0, " + std::to_string(vocabulary) + ")"};
    }
  }
  // Draft j's tokens; the lead is the first draft that agrees with every token accepted so far.
  const auto tokens_of = [&](std::size_t j) { return input.draft_tokens.subspan(j * gamma, gamma); };
  std::size_t lead = 0;
  const auto agrees = [&](std::size_t j, std::size_t through) {
    return std::equal(tokens_of(j).begin(), tokens_of(j).begin() + std::ptrdiff_t(through + 1), tokens_of(lead).begin());
  };
  auto& context = workspace.context;
  context.assign(options.generated_ids.begin(), options.generated_ids.end());
  context.reserve(context.size() + gamma);  // the positions' spans of it stay valid
  const std::size_t history = options.generated_ids.size();
  // The options of position i on one side, after the lead's first i tokens.
  const auto at = [&](std::size_t i, std::uint64_t stream) {
    context.resize(history);
    context.insert(context.end(), tokens_of(lead).begin(), tokens_of(lead).begin() + std::ptrdiff_t(i));
    SamplingOptions position = options;
    position.stream = stream;
    position.step = options.step + i;
    position.generated_ids = std::span(context);
    position.generated_counts.reset();
    return position;
  };
  SpeculativeResult result{0, 0, {}, {}, false};
  const auto finish = [&](std::int32_t token) {
    result.token = token;
    result.draft = lead;
    result.tokens.assign(tokens_of(lead).begin(), tokens_of(lead).begin() + std::ptrdiff_t(result.accepted));
    result.tokens.push_back(token);
    return result;
  };
  // The bans of position i's history (with the drafts before it) may leave no token.
  const auto bans_leave_none = [&](std::size_t i, const SamplingOptions& position, const FilterWorkspace& side) -> Check {
    auto error = check_bans_left_a_token(position, side);
    if (error) error->message = "position " + std::to_string(i) + " (the history and the drafts before it): " + error->message;
    return error;
  };
  // Row `row` of one side with its −∞ logits masked, its values checked: rows are checked as they
  // are read (those past the first rejection never are).
  const auto masked_row = [&](std::span<const float> rows, std::size_t row, const SamplingOptions& position, FilterWorkspace& side,
                              const std::string& argument) -> std::variant<MaskedLogits, ArgumentError> {
    auto masked = mask_negative_infinity(row_of(rows, row, vocabulary), position, side.masked, argument);
    if (auto* error = std::get_if<ArgumentError>(&masked)) error->message = "row " + std::to_string(row) + ": " + error->message;
    return masked;
  };
  Residual residual(workspace);
  for (std::size_t i = 0; i < gamma; ++i) {
    const auto target = masked_row(input.target_rows, lead * (gamma + 1) + i, at(i, options.stream), workspace.target, "targetRows");
    if (const auto* error = std::get_if<ArgumentError>(&target)) return *error;
    const auto target_row = std::get<MaskedLogits>(target).logits;
    const SamplingOptions& target_options = std::get<MaskedLogits>(target).options;
    if (options.temperature == 0.0) {
      const std::int32_t best = sample_token(target_row, target_options, workspace.target);
      if (auto error = bans_leave_none(i, target_options, workspace.target)) return *error;
      bool found = false;
      for (std::size_t j = lead; j < drafts && !found; ++j) {
        if (i > 0 && !agrees(j, i - 1)) continue;
        found = tokens_of(j)[i] == best;
        result.acceptance.push_back(found ? 1.0 : 0.0);
        if (found) lead = j;
      }
      if (found) {
        ++result.accepted;
        continue;
      }
      result.from_residual = true;
      return finish(best);
    }
    const auto p = detail::kept_tokens(target_row, target_options, workspace.target, true);
    if (auto error = bans_leave_none(i, target_options, workspace.target)) return *error;
    // The trials: each draft that agrees with the accepted prefix, against what the last left.
    double residual_uniform = 0.0;
    bool accepted = false;
    const std::size_t first = lead;
    for (std::size_t j = first; j < drafts; ++j) {
      if (i > 0 && j != first && !agrees(j, i - 1)) continue;
      const std::int32_t x = tokens_of(j)[i];
      Philox verifier(options.seed, nth_draft_stream(options.stream ^ kVerifierStreamBit, j));
      verifier.seek(options.step + i);
      const double accept_uniform = verifier.uniform();
      if (j == first) residual_uniform = verifier.uniform();
      // q_j: a draft's kept set (its row, on its own stream), or all on x for a point draft.
      std::optional<detail::Selection> q;
      double drafted = 1.0;
      if (!input.point_drafts) {
        const std::size_t row = j * gamma + i;
        const auto draft = masked_row(input.draft_rows, row, at(i, nth_draft_stream(input.draft_stream, j)), workspace.draft, "draftRows");
        if (const auto* error = std::get_if<ArgumentError>(&draft)) return *error;
        const SamplingOptions& draft_options = std::get<MaskedLogits>(draft).options;
        q = detail::kept_tokens(std::get<MaskedLogits>(draft).logits, draft_options, workspace.draft, true);
        if (auto error = bans_leave_none(i, draft_options, workspace.draft)) return *error;
        drafted = probability(*q, x);
        if (!(drafted > 0.0)) {
          return ArgumentError{"draftTokens", "draftTokens[" + std::to_string(row) + "] = " + std::to_string(x) +
                                                  " has probability 0 under draftRows[" + std::to_string(row) +
                                                  "] with these options: draw each draft token with the same options on the draft stream"};
        }
      }
      const double ratio = std::min(1.0, (j == first ? probability(p, x) : residual.probability(x)) / drafted);
      result.acceptance.push_back(ratio);
      accepted = accept_uniform < ratio;
      if (accepted) {
        lead = j;
        break;
      }
      if (j == first) residual.start(p);
      residual.reject(q ? &*q : nullptr, x);
    }
    if (accepted) {
      ++result.accepted;
      continue;
    }
    result.from_residual = true;
    return finish(residual.draw(residual_uniform));
  }
  const auto last = masked_row(input.target_rows, lead * (gamma + 1) + gamma, at(gamma, options.stream), workspace.target, "targetRows");
  if (const auto* error = std::get_if<ArgumentError>(&last)) return *error;
  const SamplingOptions& bonus_options = std::get<MaskedLogits>(last).options;
  const std::int32_t bonus = sample_token(std::get<MaskedLogits>(last).logits, bonus_options, workspace.target);
  if (auto error = bans_leave_none(gamma, bonus_options, workspace.target)) return *error;
  return finish(bonus);
}

}  // namespace sampling_lab
