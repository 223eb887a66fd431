// Speculative decoding's verification (speculative_decoding.hpp), exact where it is cheap to
// see: for γ = 1, 3, 5 the first emitted token follows the target p by χ² on small and
// 151,936-token rows (including a q that gives mass to tokens p cuts), the first position is
// accepted at the chapter's rate α = Σ min(p, q) and the tokens per verification follow
// (1 − α^(γ+1)) / (1 − α); on Markov chains the first three emitted tokens jointly follow the
// target chain. The rule that skips the residual (redrawing from p) fails the same tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "reference.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative.hpp"
#include "sampling_lab/speculative_decoding.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace speculative_decoding_test {

namespace sl = sampling_lab;

namespace {

// Bonferroni: 15 first-token and 8 Markov-chain χ² tests (2 with point drafts, 4 with several
// drafts), each passing at p > kAlpha, reject an exact rule less than 1 % of the time together.
constexpr double kAlpha = 0.01 / 23;
constexpr std::uint64_t kSeed = 2026;
constexpr std::size_t kV = sl::kQwen3Vocabulary;

// Next-token logits after a context; `fixed` when they are the same after every context.
struct Model {
  std::function<std::span<const float>(std::span<const std::int32_t> context)> row;
  bool fixed;
};

Model fixed_row(const std::vector<float>& row) {
  return {[&row](std::span<const std::int32_t>) { return std::span<const float>(row); }, true};
}

std::string p_value_text(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", p);
  return text;
}

sl::SpeculativeResult verify(const sl::SpeculativeInput& input, const sl::SamplingOptions& options,
                             sl::SpeculativeWorkspace& workspace) {
  auto result = sl::speculative_verify(input, options, workspace);
  if (const auto* error = std::get_if<sl::ArgumentError>(&result)) ADD_FAILURE() << error->argument << ": " << error->message;
  return std::get<sl::SpeculativeResult>(std::move(result));
}

struct Step {
  std::vector<std::int32_t> drafts;
  sl::SpeculativeResult result;
};

// Speculative steps of a target and a draft model.
class Speculator {
 public:
  Speculator(Model target, Model draft) : target_(std::move(target)), draft_(std::move(draft)) {}

  // One step after `context` (options.generated_ids is set here): γ drafts drawn as
  // lab.sampleToken would on the draft stream, the γ + 1 target rows, and the verification.
  // `without_residual`: the wrong rule, which replaces a rejected draft by a draw from p.
  Step step(sl::SamplingOptions options, std::vector<std::int32_t> context, std::size_t gamma, bool without_residual) {
    const std::size_t history = context.size();
    const auto at = [&](std::size_t i, std::uint64_t stream) {
      sl::SamplingOptions position = options;
      position.stream = stream;
      position.step = options.step + i;
      position.generated_ids = std::span(context).first(history + i);
      return position;
    };
    // Fixed models' rows are laid out once.
    const bool lay_out = !(target_.fixed && draft_.fixed && laid_out_for_ == gamma);
    if (lay_out) {
      target_rows_.clear();
      draft_rows_.clear();
    }
    const auto append = [&](std::vector<float>& rows, std::span<const float> row) {
      if (lay_out) rows.insert(rows.end(), row.begin(), row.end());
    };
    for (std::size_t i = 0; i < gamma; ++i) {
      const auto row = draft_.row(context);
      append(draft_rows_, row);
      append(target_rows_, target_.row(context));
      context.push_back(sl::sample_token(row, at(i, sl::draft_stream(options.stream)), workspace_.draft));
    }
    append(target_rows_, target_.row(context));
    laid_out_for_ = gamma;
    options.generated_ids = std::span(context).first(history);
    const std::vector<std::int32_t> drafts(context.begin() + std::ptrdiff_t(history), context.end());
    Step step{drafts, verify({target_rows_, draft_rows_, drafts, sl::draft_stream(options.stream)}, options, workspace_)};
    auto& result = step.result;
    if (without_residual && result.from_residual) {
      const std::size_t vocabulary = target_rows_.size() / (gamma + 1);
      result.token = sl::sample_token(std::span(target_rows_).subspan(result.accepted * vocabulary, vocabulary),
                                      at(result.accepted, options.stream), workspace_.target);
      result.tokens.back() = result.token;
    }
    return step;
  }

 private:
  Model target_;
  Model draft_;
  sl::SpeculativeWorkspace workspace_;
  std::vector<float> target_rows_;
  std::vector<float> draft_rows_;
  std::size_t laid_out_for_ = 0;  // the γ the fixed rows are laid out for (0: none)
};

std::vector<float> filtered(std::span<const float> logits, const sl::SamplingOptions& options) {
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  sl::filter_distribution(logits, options, probs, workspace);
  return probs;
}

// A (p, q) pair: one target and one draft row used at every position, with options and history.
struct Pair {
  std::string name;
  std::vector<float> target;
  std::vector<float> draft;
  sl::SamplingOptions options;
  std::vector<std::int32_t> history;
  std::size_t trials;
  bool stationary;  // no penalties: every position has the same p, q and α
};

std::vector<float> perturbed(std::vector<float> logits, double scale, std::uint64_t seed) {
  sl::Philox rng(seed, 1);
  for (float& z : logits) z = float(z + scale * rng.normal());
  return logits;
}

Pair pair_of(int which) {
  Pair pair;
  switch (which) {
    case 0:
      pair = {"12 tokens", reference::random_logits(12, 1, 1.5), reference::random_logits(12, 2, 1.5), {}, {}, 20'000, true};
      break;
    case 1: {
      // The draft's head is the target's moved down three ranks: q's top 3 are tokens top-k
      // cuts from p, and p's ranks 38–40 are cut from q.
      const auto other = sl::synthetic_logits(kV, 2);
      std::vector<float> draft(kV);
      for (std::size_t i = 0; i < kV; ++i) draft[i] = 0.8f * other[(i + 3 * 1499) % kV];
      pair = {"151,936 tokens, top-k 40, q on tokens p cuts", sl::synthetic_logits(kV, 1), draft, {}, {}, 4'000, true};
      pair.options.top_k = 40;
      break;
    }
    case 2:
      pair = {"151,936 tokens, T 0.8, min-p, penalties", sl::synthetic_logits(kV, 3), perturbed(sl::synthetic_logits(kV, 4), 0.3, 4),
              {}, {1499, 2998, 7495, 123}, 4'000, false};
      pair.options.temperature = 0.8;
      pair.options.min_p = 0.002;
      pair.options.repetition_penalty = 1.3;
      pair.options.presence_penalty = 0.5;
      break;
    case 3: {
      const auto target = reference::random_logits(1000, 5, 2.5);
      pair = {"1,000 tokens, general chain: typical-p, top-nσ", target, perturbed(target, 0.8, 6), {}, {}, 20'000, true};
      pair.options.temperature = 1.2;
      pair.options.typical_p = 0.9;
      pair.options.top_n_sigma = 2.0;
      break;
    }
    default:
      pair = {"151,936 tokens, whole vocabulary", sl::synthetic_logits(kV, 5), sl::synthetic_logits(kV, 6), {}, {}, 1'500, true};
      break;
  }
  return pair;
}

class FirstToken : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(FirstToken, FollowsTheTargetAndAcceptsAtTheChaptersRate) {
  const auto [which, gamma] = GetParam();
  Pair pair = pair_of(which);
  pair.options.generated_ids = pair.history;
  const auto p = filtered(pair.target, pair.options);
  const auto q = filtered(pair.draft, pair.options);
  const double alpha = sl::acceptance_probability(p, q);
  Speculator speculator(fixed_row(pair.target), fixed_row(pair.draft));
  std::vector<std::int32_t> first;
  double first_accepted = 0.0, tokens = 0.0, tokens_squared = 0.0;
  for (std::size_t t = 0; t < pair.trials; ++t) {
    sl::SamplingOptions options = pair.options;
    options.seed = kSeed;
    // Each γ its own requests: the first token does not depend on γ, so shared keys would repeat it.
    options.stream = std::uint64_t(gamma) << 32 | t;
    options.step = 40;
    const auto [drafts, result] = speculator.step(options, pair.history, std::size_t(gamma), false);
    ASSERT_EQ(result.tokens.size(), result.accepted + 1);
    ASSERT_EQ(result.acceptance.size(), std::min(result.accepted + 1, std::size_t(gamma)));
    const auto x = std::size_t(drafts[0]);
    ASSERT_NEAR(result.acceptance[0], std::min(1.0, double(p[x]) / double(q[x])), 1e-5);
    first.push_back(result.tokens[0]);
    first_accepted += result.accepted > 0;
    const double emitted = double(result.accepted + 1);
    tokens += emitted;
    tokens_squared += emitted * emitted;
  }
  const double n = double(pair.trials);
  const auto fit = sl::chi_square(sl::counts(first, p.size()), p);
  RecordProperty("chi_square_p", p_value_text(fit.p_value));
  EXPECT_GT(fit.p_value, kAlpha) << pair.name << ": χ² " << fit.statistic << " on " << fit.dof << " dof";
  EXPECT_LE(std::abs(first_accepted / n - alpha), 4.0 * sl::standard_error(alpha, n) + 1e-12)
      << pair.name << ": first position accepted " << first_accepted / n << ", α = " << alpha;
  if (pair.stationary) {
    const double mean = tokens / n;
    const double se = std::sqrt((tokens_squared / n - mean * mean) / n);
    EXPECT_LE(std::abs(mean - sl::expected_tokens(alpha, std::size_t(gamma))), 4.0 * se + 1e-12)
        << pair.name << ": " << mean << " tokens per verification";
  }
}

INSTANTIATE_TEST_SUITE_P(Pairs, FirstToken, ::testing::Combine(::testing::Range(0, 5), ::testing::Values(1, 3, 5)),
                         [](const auto& info) {
                           return "pair" + std::to_string(std::get<0>(info.param)) + "_gamma" + std::to_string(std::get<1>(info.param));
                         });

// The test can see the error it guards against: redrawing a rejected draft from p gives
// min(p, q) + (1 − α) p, not p.
TEST(FirstToken, TheRuleWithoutItsResidualFails) {
  Pair pair = pair_of(1);
  const auto p = filtered(pair.target, pair.options);
  Speculator speculator(fixed_row(pair.target), fixed_row(pair.draft));
  std::vector<std::int32_t> first;
  for (std::size_t t = 0; t < pair.trials; ++t) {
    sl::SamplingOptions options = pair.options;
    options.seed = kSeed;
    options.stream = t;
    first.push_back(speculator.step(options, {}, 3, true).result.tokens[0]);
  }
  const auto fit = sl::chi_square(sl::counts(first, p.size()), p);
  RecordProperty("chi_square_p", p_value_text(fit.p_value));
  EXPECT_LT(fit.p_value, 1e-12) << "χ² " << fit.statistic << " on " << fit.dof << " dof";
}

// A Markov chain over a few tokens: row a holds the logits of the token after a.
struct Chain {
  std::size_t v;
  std::vector<float> target;
  std::vector<float> draft;
  sl::SamplingOptions options;
};

Chain chain_of(int which) {
  if (which == 0) return {4, reference::random_logits(16, 11, 1.5), reference::random_logits(16, 12, 1.5), {}};
  Chain chain{5, reference::random_logits(25, 13, 1.5), reference::random_logits(25, 14, 1.5), {}};
  chain.options.temperature = 0.9;
  chain.options.top_k = 3;
  chain.options.repetition_penalty = 1.5;
  chain.options.frequency_penalty = 0.4;
  return chain;
}

Model rows_of(const Chain& chain, const std::vector<float>& table) {
  return {[&chain, &table](std::span<const std::int32_t> context) {
            return std::span(table).subspan(std::size_t(context.back()) * chain.v, chain.v);
          },
          false};
}

// What one speculative step emits after `sequence`, with request t's options at its step.
using StepFn = std::function<std::vector<std::int32_t>(const sl::SamplingOptions& options, const std::vector<std::int32_t>& sequence, std::size_t t)>;

// The first three tokens after the start token 0, decoded step by step, as cell 9a + 3b + c of
// the joint (a, b, c), over `trials` requests (streams).
std::vector<std::int32_t> first_three_cells(const Chain& chain, std::size_t trials, const StepFn& step) {
  std::vector<std::int32_t> cells;
  for (std::size_t t = 0; t < trials; ++t) {
    std::vector<std::int32_t> sequence = {0};
    while (sequence.size() < 4) {
      sl::SamplingOptions options = chain.options;
      options.seed = kSeed;
      options.stream = t;
      options.step = sequence.size() - 1;
      const auto tokens = step(options, sequence, t);
      sequence.insert(sequence.end(), tokens.begin(), tokens.end());
    }
    const auto v = std::int32_t(chain.v);
    cells.push_back((sequence[1] * v + sequence[2]) * v + sequence[3]);
  }
  return cells;
}

// Decoded speculatively with γ = 3.
std::vector<std::int32_t> first_three(const Chain& chain, std::size_t trials, bool without_residual) {
  Speculator speculator(rows_of(chain, chain.target), rows_of(chain, chain.draft));
  return first_three_cells(chain, trials, [&](const sl::SamplingOptions& options, const std::vector<std::int32_t>& sequence, std::size_t) {
    return speculator.step(options, sequence, 3, without_residual).result.tokens;
  });
}

// P(a, b, c) under the target with the chain's options, each token seeing the ones before.
std::vector<float> target_joint(const Chain& chain) {
  const std::size_t v = chain.v;
  std::vector<float> joint(v * v * v);
  const auto next = [&](std::vector<std::int32_t> context) {
    sl::SamplingOptions options = chain.options;
    options.generated_ids = context;
    return filtered(std::span(chain.target).subspan(std::size_t(context.back()) * v, v), options);
  };
  const auto first = next({0});
  for (std::size_t a = 0; a < v; ++a) {
    const auto second = next({0, std::int32_t(a)});
    for (std::size_t b = 0; b < v; ++b) {
      const auto third = next({0, std::int32_t(a), std::int32_t(b)});
      for (std::size_t c = 0; c < v; ++c) joint[(a * v + b) * v + c] = first[a] * second[b] * third[c];
    }
  }
  return joint;
}

// The cells follow the joint: no impossible sequence, and χ² p above kAlpha.
void expect_follows(const std::vector<std::int32_t>& cells, const std::vector<float>& joint) {
  const auto observed = sl::counts(cells, joint.size());
  for (std::size_t cell = 0; cell < joint.size(); ++cell) {
    if (joint[cell] == 0.0f) EXPECT_EQ(observed[cell], 0u) << "impossible sequence " << cell;
  }
  const auto fit = sl::chi_square(observed, joint);
  ::testing::Test::RecordProperty("chi_square_p", p_value_text(fit.p_value));
  EXPECT_GT(fit.p_value, kAlpha) << "χ² " << fit.statistic << " on " << fit.dof << " dof";
}

// A wrong rule's cells: χ² p below 10⁻¹², recorded under `property`.
void expect_fails(const std::vector<std::int32_t>& cells, const std::vector<float>& joint, const std::string& property = "chi_square_p") {
  const auto fit = sl::chi_square(sl::counts(cells, joint.size()), joint);
  ::testing::Test::RecordProperty(property, p_value_text(fit.p_value));
  EXPECT_LT(fit.p_value, 1e-12) << "χ² " << fit.statistic << " on " << fit.dof << " dof";
}

class MarkovChain : public ::testing::TestWithParam<int> {};

TEST_P(MarkovChain, TheFirstThreeTokensFollowTheTargetChain) {
  const Chain chain = chain_of(GetParam());
  expect_follows(first_three(chain, 30'000, false), target_joint(chain));
}

INSTANTIATE_TEST_SUITE_P(Chains, MarkovChain, ::testing::Range(0, 2));

TEST(MarkovChain, TheRuleWithoutItsResidualFails) {
  const Chain chain = chain_of(0);
  expect_fails(first_three(chain, 30'000, true), target_joint(chain));
}

// Point drafts (prompt lookup's): proposals with no distribution, here token (last + 1) mod V
// and on. Decoding the chain with them, whatever they propose, the first three tokens follow the
// target chain; the rule that redraws a rejection from p itself (x_i not removed) does not.
std::vector<std::int32_t> first_three_from_point_drafts(const Chain& chain, std::size_t trials, bool redraw_from_p) {
  constexpr std::size_t kGamma = 3;
  const std::size_t v = chain.v;
  sl::SpeculativeWorkspace workspace;
  sl::FilterWorkspace plain;
  std::vector<float> rows;
  return first_three_cells(chain, trials, [&](sl::SamplingOptions options, const std::vector<std::int32_t>& sequence, std::size_t) {
    std::vector<std::int32_t> drafts;
    for (std::size_t i = 0; i < kGamma; ++i) drafts.push_back(std::int32_t((std::size_t((i ? drafts.back() : sequence.back())) + 1) % v));
    rows.clear();
    for (std::size_t i = 0; i <= kGamma; ++i) {
      const auto after = std::size_t(i == 0 ? sequence.back() : drafts[i - 1]);
      rows.insert(rows.end(), chain.target.begin() + std::ptrdiff_t(after * v), chain.target.begin() + std::ptrdiff_t((after + 1) * v));
    }
    options.generated_ids = sequence;
    auto result = verify({rows, {}, drafts, 0, true}, options, workspace);
    if (redraw_from_p && result.from_residual) {
      // The wrong residual: p at the rejected position, the rejected draft still in it.
      std::vector<std::int32_t> context = sequence;
      context.insert(context.end(), drafts.begin(), drafts.begin() + std::ptrdiff_t(result.accepted));
      sl::SamplingOptions position = options;
      position.step += result.accepted;
      position.stream ^= std::uint64_t{1} << 40;
      position.generated_ids = context;
      result.tokens.back() = sl::sample_token(std::span(rows).subspan(result.accepted * v, v), position, plain);
    }
    return result.tokens;
  });
}

TEST_P(MarkovChain, PointDraftsLeaveTheFirstThreeTokensToTheTargetChain) {
  const Chain chain = chain_of(GetParam());
  expect_follows(first_three_from_point_drafts(chain, 30'000, false), target_joint(chain));
}

TEST(MarkovChain, PointDraftsRedrawnFromPFail) {
  const Chain chain = chain_of(0);
  expect_fails(first_three_from_point_drafts(chain, 30'000, true), target_joint(chain));
}

TEST(SpeculativeVerify, PointDraftsAreAcceptedWithTheirTargetProbabilityAndGreedyAtTemperatureZero) {
  const auto row = reference::random_logits(50, 21, 2.0);
  std::vector<float> rows;
  for (int i = 0; i < 3; ++i) rows.insert(rows.end(), row.begin(), row.end());
  const std::vector<std::int32_t> drafts = {7, 3};
  sl::SpeculativeWorkspace workspace;
  sl::SamplingOptions options;
  options.seed = kSeed;
  const auto result = verify({rows, {}, drafts, 0, true}, options, workspace);
  const auto p = filtered(row, options);
  ASSERT_GE(result.acceptance.size(), 1u);
  EXPECT_NEAR(result.acceptance[0], p[7], 1e-6);
  // Greedy: accepted while each is the argmax, which is then emitted.
  options.temperature = 0.0;
  const auto best = std::int32_t(std::max_element(row.begin(), row.end()) - row.begin());
  const std::vector<std::int32_t> right = {best, best == 7 ? 3 : 7};
  const auto greedy = verify({rows, {}, right, 0, true}, options, workspace);
  EXPECT_EQ(greedy.accepted, 1u);
  EXPECT_EQ(greedy.tokens, (std::vector<std::int32_t>{best, best}));
  // Point drafts take no rows.
  auto refused = sl::speculative_verify({rows, std::span(row).first(50), std::span(drafts).first(1), 0, true}, options, workspace);
  ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(refused));
  EXPECT_EQ(std::get<sl::ArgumentError>(refused).argument, "draftRows");
}

TEST(BestGamma, MaximisesExpectedTokensPerUnitOfTime) {
  // A free draft and a verification as cheap as one step: as many drafts as allowed.
  const std::vector<float> one_pass = {1.0f, 10.0f};
  EXPECT_EQ(sl::best_gamma(0.8, 0.0, one_pass, 8), 8u);
  // The chapter's pair (α 0.87, c = 0.072) with a flat verification: the γ maximising E/(γc + 1).
  std::size_t expected = 1;
  for (std::size_t g = 1; g <= 8; ++g) {
    if (sl::expected_tokens(0.87, g) / (double(g) * 0.072 + 1.0) > sl::expected_tokens(0.87, expected) / (double(expected) * 0.072 + 1.0)) expected = g;
  }
  const std::vector<float> unit = {1.0f, 1.0f};
  EXPECT_EQ(sl::best_gamma(0.87, 0.072, unit, 8), expected);
  // A verification growing 0.5 per position favours fewer drafts; a draft as dear as the target, one.
  const std::vector<float> growing = {2, 2, 4, 3, 6, 4};
  EXPECT_LT(sl::best_gamma(0.87, 0.072, growing, 8), expected);
  EXPECT_EQ(sl::best_gamma(0.5, 1.0, unit, 8), 1u);
  // Nothing timed: the largest allowed.
  EXPECT_EQ(sl::best_gamma(0.5, 0.1, {}, 6), 6u);
}

// A match's proposal: what followed it.
std::vector<std::int32_t> proposal_of(const std::vector<std::int32_t>& context, const sl::LookupMatch& match) {
  return {context.begin() + std::ptrdiff_t(match.from), context.begin() + std::ptrdiff_t(match.from + match.count)};
}

TEST(PromptLookup, TheEarliestRecurrenceOfTheLongestNgramProposesWhatFollowedIt) {
  sl::PromptLookup found;
  const auto lookup = [&](std::vector<std::int32_t> context, std::size_t max_n, std::size_t min_n, std::size_t tokens) {
    sl::prompt_lookup(context, max_n, min_n, tokens, found);
    return found.matches.empty() ? std::vector<std::int32_t>{} : proposal_of(context, found.matches[0]);
  };
  EXPECT_EQ(lookup({1, 2, 3, 4, 1, 2}, 2, 1, 3), (std::vector<std::int32_t>{3, 4, 1}));
  EXPECT_EQ(found.matches[0].ngram, 2u);
  EXPECT_EQ(found.matches[0].at, 0u);
  // The longest n first, then shorter: [9, 7, 2] and [7, 2] never recur; [2] does, at 2.
  EXPECT_EQ(lookup({5, 1, 2, 9, 7, 2}, 3, 1, 4), (std::vector<std::int32_t>{9, 7, 2}));
  EXPECT_EQ(found.matches[0].ngram, 1u);
  // The earliest occurrence, as transformers' PromptLookupCandidateGenerator takes it.
  EXPECT_EQ(lookup({1, 7, 1, 8, 1}, 1, 1, 2), (std::vector<std::int32_t>{7, 1}));
  // Below ngramMin, or only the suffix itself: nothing.
  EXPECT_TRUE(lookup({5, 1, 2, 9, 7, 2}, 3, 2, 4).empty());
  EXPECT_TRUE(found.matches.empty());
  EXPECT_TRUE(lookup({4, 5, 6}, 3, 1, 4).empty());
  EXPECT_TRUE(lookup({}, 3, 1, 4).empty());
}

// Several drafts: the next occurrences in the same order, a continuation already proposed skipped.
TEST(PromptLookup, SeveralDraftsAreTheNextDistinctContinuations) {
  sl::PromptLookup found;
  const std::vector<std::int32_t> context = {1, 2, 3, 1, 2, 4, 9, 2, 3, 1, 2, 3, 5, 2};
  sl::prompt_lookup(context, 2, 1, 2, found, 4);
  std::vector<std::vector<std::int32_t>> proposals;
  for (const auto& match : found.matches) proposals.push_back(proposal_of(context, match));
  // [2] recurs at 1, 4, 7, 10: [3, 1], [4, 9], [3, 1] (again, skipped), [3, 5]; no 2-gram [x, 2] recurs with 5 before it.
  EXPECT_EQ(proposals, (std::vector<std::vector<std::int32_t>>{{3, 1}, {4, 9}, {3, 5}}));
  for (const auto& match : found.matches) EXPECT_EQ(match.ngram, 1u);
  // One draft is the single proposal.
  sl::prompt_lookup(context, 2, 1, 2, found, 1);
  ASSERT_EQ(found.matches.size(), 1u);
  EXPECT_EQ(proposal_of(context, found.matches[0]), (std::vector<std::int32_t>{3, 1}));
  // A longer n-gram ranks first: [1, 2] recurs at 0 and 3 before any [2] alone.
  const std::vector<std::int32_t> tail = {1, 2, 7, 1, 2, 8, 2, 9, 1, 2};
  sl::prompt_lookup(tail, 2, 1, 1, found, 3);
  proposals.clear();
  for (const auto& match : found.matches) proposals.push_back(proposal_of(tail, match));
  EXPECT_EQ(proposals, (std::vector<std::vector<std::int32_t>>{{7}, {8}, {9}}));
  EXPECT_EQ(found.matches[0].ngram, 2u);
  EXPECT_EQ(found.matches[2].ngram, 1u);
}

TEST(PromptLookup, AgreesWithTheDirectSearchOnRandomContexts) {
  // The direct search: n from the longest down, occurrences in order.
  const auto direct = [](const std::vector<std::int32_t>& context, std::size_t max_n, std::size_t min_n, std::size_t tokens) {
    const std::size_t length = context.size();
    for (std::size_t n = std::min(max_n, length); n >= min_n && n > 0; --n) {
      for (std::size_t start = 0; start + n < length; ++start) {
        if (std::equal(context.end() - std::ptrdiff_t(n), context.end(), context.begin() + std::ptrdiff_t(start))) {
          const std::size_t from = start + n;
          return std::vector<std::int32_t>(context.begin() + std::ptrdiff_t(from),
                                           context.begin() + std::ptrdiff_t(std::min(length, from + tokens)));
        }
      }
    }
    return std::vector<std::int32_t>{};
  };
  sl::Philox rng(kSeed, 0);
  sl::PromptLookup found;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::int32_t> context(1 + rng.next_u32() % 40);
    const std::uint32_t alphabet = 2 + rng.next_u32() % 3;
    for (auto& token : context) token = std::int32_t(rng.next_u32() % alphabet);
    const std::size_t min_n = 1 + rng.next_u32() % 3, max_n = min_n + rng.next_u32() % 4;
    sl::prompt_lookup(context, max_n, min_n, 5, found);
    ASSERT_EQ(found.matches.empty() ? std::vector<std::int32_t>{} : proposal_of(context, found.matches[0]), direct(context, max_n, min_n, 5)) << "trial " << trial;
  }
}

// Several drafts verified together (recursive rejection sampling): k sequences of γ = 2 tokens per
// step. Stochastic drafts come from the draft chain, draft j on its own stream; point drafts propose
// (last + 1 + j) mod V and on. `best_of`: the wrong rule, which verifies each draft alone against
// p and keeps whichever got furthest. Returns the first three tokens' cells and counts the target's
// passes in `passes`.
enum class Drafts { kSampled, kPoint };
std::vector<std::int32_t> first_three_from_drafts(const Chain& chain, Drafts kind, std::size_t k, std::size_t trials, bool best_of,
                                                  std::size_t* passes = nullptr) {
  constexpr std::size_t kGamma = 2;
  const std::size_t v = chain.v;
  const auto row_after = [&](const std::vector<float>& table, std::int32_t token) { return std::span(table).subspan(std::size_t(token) * v, v); };
  sl::SpeculativeWorkspace workspace;
  sl::FilterWorkspace drafting;
  std::vector<float> target_rows, draft_rows;
  std::vector<std::int32_t> tokens;
  return first_three_cells(chain, trials, [&](sl::SamplingOptions options, const std::vector<std::int32_t>& sequence, std::size_t t) {
    target_rows.clear();
    draft_rows.clear();
    tokens.clear();
    for (std::size_t j = 0; j < k; ++j) {
      std::vector<std::int32_t> context = sequence;
      for (std::size_t i = 0; i < kGamma; ++i) {
        const auto target_row = row_after(chain.target, context.back());
        target_rows.insert(target_rows.end(), target_row.begin(), target_row.end());
        std::int32_t x = std::int32_t((std::size_t(context.back()) + 1 + j) % v);
        if (kind == Drafts::kSampled) {
          const auto row = row_after(chain.draft, context.back());
          draft_rows.insert(draft_rows.end(), row.begin(), row.end());
          sl::SamplingOptions position = options;
          position.stream = sl::nth_draft_stream(sl::draft_stream(t), j);
          position.step = options.step + i;
          position.generated_ids = context;
          x = sl::sample_token(row, position, drafting);
        }
        context.push_back(x);
        tokens.push_back(x);
      }
      const auto last = row_after(chain.target, context.back());
      target_rows.insert(target_rows.end(), last.begin(), last.end());
    }
    options.generated_ids = sequence;
    if (passes) ++*passes;
    if (!best_of) return verify({target_rows, draft_rows, tokens, sl::draft_stream(t), kind == Drafts::kPoint, k}, options, workspace).tokens;
    sl::SpeculativeResult best;
    for (std::size_t j = 0; j < k; ++j) {
      const std::span<const float> drafted = kind == Drafts::kPoint ? std::span<const float>() : std::span(draft_rows).subspan(j * kGamma * v, kGamma * v);
      auto alone = verify({std::span(target_rows).subspan(j * (kGamma + 1) * v, (kGamma + 1) * v), drafted, std::span(tokens).subspan(j * kGamma, kGamma),
                           sl::nth_draft_stream(sl::draft_stream(t), j), kind == Drafts::kPoint},
                          options, workspace);
      if (j == 0 || alone.accepted > best.accepted) best = std::move(alone);
    }
    return best.tokens;
  });
}

class SeveralDrafts : public ::testing::TestWithParam<std::tuple<int, Drafts>> {};

TEST_P(SeveralDrafts, LeaveTheFirstThreeTokensToTheTargetChain) {
  const auto [which, kind] = GetParam();
  const Chain chain = chain_of(which);
  expect_follows(first_three_from_drafts(chain, kind, 3, 30'000, false), target_joint(chain));
}

INSTANTIATE_TEST_SUITE_P(Chains, SeveralDrafts, ::testing::Combine(::testing::Range(0, 2), ::testing::Values(Drafts::kSampled, Drafts::kPoint)));

TEST(SeveralDrafts, TheBestOfSeparateVerificationsFails) {
  const Chain chain = chain_of(0);
  const auto joint = target_joint(chain);
  for (const auto kind : {Drafts::kSampled, Drafts::kPoint}) {
    expect_fails(first_three_from_drafts(chain, kind, 3, 30'000, true), joint, kind == Drafts::kPoint ? "point_chi_square_p" : "chi_square_p");
  }
}

// More drafts, fewer target passes for the same three tokens: k = 1, 2, 4 on the first chain.
TEST(SeveralDrafts, MoreDraftsTakeFewerTargetPasses) {
  const Chain chain = chain_of(0);
  constexpr std::size_t kTrials = 4'000;
  double previous = 1e9;
  for (const std::size_t k : {1u, 2u, 4u}) {
    std::size_t passes = 0;
    first_three_from_drafts(chain, Drafts::kSampled, k, kTrials, false, &passes);
    const double per_sequence = double(passes) / kTrials;
    RecordProperty("passes_k" + std::to_string(k), p_value_text(per_sequence));
    EXPECT_LT(per_sequence, previous) << "k = " << k;
    previous = per_sequence;
  }
}

// At temperature 0 the step follows whichever draft agrees longest with the target's greedy path.
TEST(SeveralDrafts, GreedyFollowsTheDraftOnTheTargetsPath) {
  const std::size_t v = 50;
  const auto table = reference::random_logits(v * v, 21, 2.0);
  const auto row_after = [&](std::int32_t token) { return std::span(table).subspan(std::size_t(token) * v, v); };
  const auto best_after = [&](std::int32_t token) {
    const auto row = row_after(token);
    return std::int32_t(std::max_element(row.begin(), row.end()) - row.begin());
  };
  const std::int32_t first = best_after(0), second = best_after(first);
  const auto other = [&](std::int32_t token) { return std::int32_t((token + 1) % std::int32_t(v)); };
  const std::vector<std::vector<std::int32_t>> drafts = {{other(first), first}, {first, other(second)}, {first, second}};
  std::vector<float> rows;
  std::vector<std::int32_t> tokens;
  for (const auto& draft : drafts) {
    for (const std::int32_t after : {0, draft[0], draft[1]}) rows.insert(rows.end(), row_after(after).begin(), row_after(after).end());
    tokens.insert(tokens.end(), draft.begin(), draft.end());
  }
  sl::SamplingOptions options;
  options.temperature = 0.0;
  sl::SpeculativeWorkspace workspace;
  const auto all = verify({rows, {}, tokens, 0, true, 3}, options, workspace);
  EXPECT_EQ(all.accepted, 2u);
  EXPECT_EQ(all.draft, 2u);
  EXPECT_EQ(all.tokens, (std::vector<std::int32_t>{first, second, best_after(second)}));
  const auto two = verify({std::span(rows).first(6 * v), {}, std::span(tokens).first(4), 0, true, 2}, options, workspace);
  EXPECT_EQ(two.accepted, 1u);
  EXPECT_EQ(two.draft, 1u);
  EXPECT_EQ(two.tokens, (std::vector<std::int32_t>{first, second}));
  // k must divide the tokens and lie in [1, kMaxDrafts].
  for (const std::size_t k : {std::size_t{0}, sl::kMaxDrafts + 1, std::size_t{4}}) {
    const auto refused = sl::speculative_verify({rows, {}, tokens, 0, true, k}, options, workspace);
    ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(refused)) << k;
    EXPECT_EQ(std::get<sl::ArgumentError>(refused).argument, k == 4 ? "draftTokens" : "drafts");
  }
}

// Greedy speculative decoding emits exactly the target's greedy tokens, whatever the draft.
TEST(SpeculativeGreedy, EmitsTheTargetsGreedyTokens) {
  const std::size_t v = 50;
  const Chain chain{v, reference::random_logits(v * v, 21, 2.0), reference::random_logits(v * v, 22, 2.0), {}};
  sl::SamplingOptions options;
  options.temperature = 0.0;
  options.repetition_penalty = 1.2;  // greedy then does not settle into a short loop
  sl::FilterWorkspace workspace;
  std::vector<std::int32_t> greedy = {0};
  while (greedy.size() <= 40) {
    sl::SamplingOptions at = options;
    at.generated_ids = greedy;
    greedy.push_back(sl::sample_token(std::span(chain.target).subspan(std::size_t(greedy.back()) * v, v), at, workspace));
  }
  for (const auto* draft : {&chain.draft, &chain.target}) {
    Speculator speculator(rows_of(chain, chain.target), rows_of(chain, *draft));
    std::vector<std::int32_t> sequence = {0};
    while (sequence.size() <= 40) {
      sl::SamplingOptions at = options;
      at.step = sequence.size() - 1;
      const auto [drafts, result] = speculator.step(at, sequence, 4, false);
      for (const double a : result.acceptance) EXPECT_TRUE(a == 0.0 || a == 1.0);
      // With the target as its own draft every proposal is accepted.
      if (draft == &chain.target) EXPECT_EQ(result.accepted, 4u);
      sequence.insert(sequence.end(), result.tokens.begin(), result.tokens.end());
    }
    sequence.resize(greedy.size());
    EXPECT_EQ(sequence, greedy) << (draft == &chain.target ? "target as draft" : "random draft");
  }
}

// With q = p every draft is accepted, and the bonus is the token sampleToken draws from the last
// row at step + γ with every draft in the history; the same input gives the same result.
TEST(SpeculativeVerify, AnIdenticalDraftIsAlwaysAcceptedAndTheBonusIsSampleTokens) {
  const auto logits = sl::synthetic_logits(kV, 7);
  sl::SamplingOptions options;
  options.top_p = 0.95;
  options.repetition_penalty = 1.1;
  options.seed = 3;
  options.stream = 9;
  options.step = 12;
  const std::vector<std::int32_t> history = {1499, 5};
  Speculator speculator(fixed_row(logits), fixed_row(logits));
  for (int trial = 0; trial < 20; ++trial) {
    options.step = 12 + std::uint64_t(trial) * 10;
    const auto [drafts, result] = speculator.step(options, history, 5, false);
    EXPECT_EQ(result.accepted, 5u);
    EXPECT_FALSE(result.from_residual);
    EXPECT_EQ(result.acceptance, std::vector<double>(5, 1.0));
    std::vector<std::int32_t> context = history;
    context.insert(context.end(), drafts.begin(), drafts.end());
    sl::SamplingOptions bonus = options;
    bonus.step = options.step + 5;
    bonus.generated_ids = context;
    sl::FilterWorkspace plain;
    EXPECT_EQ(result.token, sl::sample_token(logits, bonus, plain));
    const auto again = speculator.step(options, history, 5, false);
    EXPECT_EQ(again.result.tokens, result.tokens);
  }
}

TEST(SpeculativeVerify, BadInputNamesTheArgument) {
  const std::size_t v = 8;
  const std::vector<float> row = reference::random_logits(v, 1, 1.0);
  const auto rows = [&](std::size_t count) {
    std::vector<float> out;
    for (std::size_t r = 0; r < count; ++r) out.insert(out.end(), row.begin(), row.end());
    return out;
  };
  sl::SpeculativeWorkspace workspace;
  const auto argument_of = [&](std::vector<float> target, std::vector<float> draft, std::vector<std::int32_t> tokens,
                               sl::SamplingOptions options = {}) {
    const auto result = sl::speculative_verify({target, draft, tokens, 0}, options, workspace);
    return std::holds_alternative<sl::ArgumentError>(result) ? std::get<sl::ArgumentError>(result).argument : "(no error)";
  };
  const std::vector<std::int32_t> two = {1, 2};
  EXPECT_EQ(argument_of(rows(3), rows(2), two), "(no error)");
  EXPECT_EQ(argument_of(rows(66), rows(65), std::vector<std::int32_t>(65, 1)), "draftTokens");
  EXPECT_EQ(argument_of({}, {}, {}), "targetRows");
  EXPECT_EQ(argument_of(rows(2), rows(2), two), "targetRows");
  EXPECT_EQ(argument_of(rows(3), rows(1), two), "draftRows");
  auto nan_draft = rows(2);
  nan_draft[v + 3] = NAN;
  EXPECT_EQ(argument_of(rows(3), nan_draft, two), "draftRows");
  auto infinite_target = rows(3);
  infinite_target[2 * v] = INFINITY;
  EXPECT_EQ(argument_of(infinite_target, rows(2), two), "targetRows");
  EXPECT_EQ(argument_of(rows(3), rows(2), {1, std::int32_t(v)}), "draftTokens");
  EXPECT_EQ(argument_of(rows(3), rows(2), {-1, 2}), "draftTokens");
  sl::SamplingOptions top_one;
  top_one.top_k = 1;
  const auto best = std::int32_t(sl::argmax(row));
  EXPECT_EQ(argument_of(rows(3), rows(2), {best, best}, top_one), "(no error)");
  EXPECT_EQ(argument_of(rows(3), rows(2), {best, (best + 1) % std::int32_t(v)}, top_one), "draftTokens");
  sl::SamplingOptions mirostat;
  mirostat.mirostat_version = 2;
  EXPECT_EQ(argument_of(rows(3), rows(2), two, mirostat), "mirostat");
}

// Non-finite logits are found wherever they sit in a vocabulary-sized row (SIMD lanes and tail).
TEST(SpeculativeVerify, FindsANonFiniteLogitAnywhereInARow) {
  const auto row = sl::synthetic_logits(kV, 8);
  sl::SpeculativeWorkspace workspace;
  for (const std::size_t at : {std::size_t{0}, std::size_t{77}, std::size_t{100'003}, kV - 1}) {
    for (const float bad : {NAN, INFINITY}) {
      std::vector<float> target(row), draft(row);
      target.insert(target.end(), row.begin(), row.end());
      target[kV + at] = bad;
      const std::vector<std::int32_t> tokens = {std::int32_t(sl::argmax(row))};
      const auto result = sl::speculative_verify({target, draft, tokens, 0}, {}, workspace);
      ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(result));
      const auto& error = std::get<sl::ArgumentError>(result);
      EXPECT_EQ(error.argument, "targetRows");
      EXPECT_NE(error.message.find("row 1: targetRows[" + std::to_string(at) + "]"), std::string::npos) << error.message;
    }
  }
}

}  // namespace

}  // namespace speculative_decoding_test
