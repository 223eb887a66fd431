// Sequences, speculative sampling, importance sampling and sample sizes: the handbook's
// figures exactly, the rest statistically.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "run_experiment.hpp"
#include "sampling_lab/experiments.hpp"
#include "sampling_lab/importance.hpp"
#include "sampling_lab/sequence.hpp"
#include "sampling_lab/speculative.hpp"
#include "sampling_lab/statistics.hpp"

namespace chapter_test {

namespace sl = sampling_lab;

namespace {
constexpr double kAlpha = 1e-6;

sl::SequenceModel handbook_tree() {
  return sl::SequenceModel(2, 2, {0.6f, 0.4f, 0.5f, 0.5f, 0.9f, 0.1f});
}

// Every sequence of the model with its probability, keyed by tokens.
std::map<std::vector<std::int32_t>, double> all_sequences(const sl::SequenceModel& model) {
  std::map<std::vector<std::int32_t>, double> result;
  for (const auto& path : sl::beam_search(model, 1u << 20)) result[path.tokens] = std::exp(path.log_prob);
  return result;
}

// χ² of observed sequence counts against probabilities.
double sequence_fit(const std::map<std::vector<std::int32_t>, std::uint64_t>& observed,
                    const std::map<std::vector<std::int32_t>, double>& probs) {
  std::vector<std::uint64_t> counts;
  std::vector<float> p;
  for (const auto& [tokens, prob] : probs) {
    const auto found = observed.find(tokens);
    counts.push_back(found == observed.end() ? 0 : found->second);
    p.push_back(float(prob));
  }
  return sl::chi_square(counts, p).p_value;
}
}  // namespace

TEST(Sequence, GreedyCanMissTheMostProbableSequence) {
  // The handbook's tree: greedy takes A (0.6) but B then b1 (0.4 · 0.9) is more probable.
  const auto model = handbook_tree();
  const auto best = sl::exhaustive_best(model);
  const auto greedy = sl::greedy(model);
  EXPECT_EQ(best.tokens, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(greedy.tokens, (std::vector<std::int32_t>{0, 0}));
  EXPECT_LT(greedy.log_prob, best.log_prob);
  EXPECT_EQ(sl::beam_search(model, 2).front().tokens, best.tokens);
  EXPECT_NEAR(sl::log_probability(model, std::vector<std::int32_t>{1, 1}), std::log(0.4 * 0.1), 1e-6);
}

TEST(Sequence, WideBeamEqualsExhaustiveSearch) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    sl::Philox rng{seed, 0};
    const auto model = sl::SequenceModel::random(3, 4, 2.0, rng);
    const auto best = sl::exhaustive_best(model);
    const auto beam = sl::beam_search(model, 81).front();  // width V^depth
    EXPECT_EQ(beam.tokens, best.tokens);
    EXPECT_NEAR(beam.log_prob, sl::log_probability(model, best.tokens), 1e-9);
  }
}

TEST(Sequence, RandomModelsShowGreedyMissingAndBeamsClosingTheGap) {
  const auto result = run("sequence", {{"mode", "random"}, {"models", 200}});
  EXPECT_GT(result["greedyMissRate"].get<double>(), 0.05);
  const auto& beams = result["beams"];
  EXPECT_EQ(beams[beams.size() - 1]["misses"], 0);  // width V^(depth−1) is exhaustive
  for (std::size_t i = 1; i < beams.size(); ++i) {
    EXPECT_LE(beams[i]["misses"].get<int>(), beams[i - 1]["misses"].get<int>());
  }
  EXPECT_FALSE(result["closingWidth"].is_null());
}

TEST(Sequence, ChainRuleOnAMarkovChain) {
  // Node n > 0 of the breadth-first tree ends in token (n − 1) mod V: its row of the transition.
  const std::vector<float> initial = {0.2f, 0.8f};
  const std::vector<float> transition = {0.9f, 0.1f, 0.3f, 0.7f};
  std::vector<float> distributions(initial);
  for (std::size_t node = 1; node < sl::tree_nodes(2, 3); ++node) {
    const std::size_t last = (node - 1) % 2;
    distributions.insert(distributions.end(), transition.begin() + std::ptrdiff_t(2 * last),
                         transition.begin() + std::ptrdiff_t(2 * last + 2));
  }
  const sl::SequenceModel model(2, 3, distributions);
  EXPECT_NEAR(sl::log_probability(model, std::vector<std::int32_t>{1, 0, 1}), std::log(0.8 * 0.3 * 0.1), 1e-6);
}

TEST(Sequence, AncestralSamplingFollowsTheChainRule) {
  sl::Philox model_rng{4, 0};
  const auto model = sl::SequenceModel::random(3, 3, 1.0, model_rng);
  const auto probs = all_sequences(model);
  sl::Philox rng{5, 0};
  std::map<std::vector<std::int32_t>, std::uint64_t> observed;
  for (int i = 0; i < 100'000; ++i) ++observed[sl::ancestral_sample(model, rng).tokens];
  EXPECT_GT(sequence_fit(observed, probs), kAlpha);
}

TEST(Sequence, GumbelTopKSamplesWithoutReplacement) {
  sl::Philox model_rng{6, 0};
  const auto model = sl::SequenceModel::random(3, 2, 1.0, model_rng);
  const auto probs = all_sequences(model);
  sl::Philox rng{7, 0};
  std::map<std::vector<std::int32_t>, std::uint64_t> first, second;
  const int n = 100'000;
  for (int i = 0; i < n; ++i) {
    const auto drawn = sl::gumbel_top_k(model, 2, rng);
    ASSERT_EQ(drawn.size(), 2u);
    ASSERT_NE(drawn[0].tokens, drawn[1].tokens);
    ++first[drawn[0].tokens];
    ++second[drawn[1].tokens];
  }
  // The first is an ordinary sample; the second follows P(s2 = s) = Σ_{t≠s} p(t) p(s) / (1 − p(t)).
  EXPECT_GT(sequence_fit(first, probs), kAlpha);
  std::map<std::vector<std::int32_t>, double> second_probs;
  for (const auto& [s, ps] : probs) {
    for (const auto& [t, pt] : probs) {
      if (s != t) second_probs[s] += pt * ps / (1.0 - pt);
    }
  }
  EXPECT_GT(sequence_fit(second, second_probs), kAlpha);
  // Asking for every sequence returns each exactly once.
  EXPECT_EQ(sl::gumbel_top_k(model, 9, rng).size(), 9u);
}

TEST(Speculative, OutputIsTheTargetAndAcceptanceIsOneMinusTV) {
  const auto result = run("speculative", sl::Json::object());
  const auto& acceptance = result["acceptance"];
  // Σ min(p, q) = 1 − TV exactly when both sum to 1; float32 inputs sum to 1 within 1e-7.
  EXPECT_NEAR(acceptance["theory"].get<double>(), acceptance["oneMinusTV"].get<double>(), 1e-6);
  EXPECT_NEAR(acceptance["empirical"].get<double>(), acceptance["theory"].get<double>(),
              4 * acceptance["standardError"].get<double>());
  EXPECT_GT(result["output"]["chiSquare"]["pValue"].get<double>(), kAlpha);
  // 4 standard errors of a mean of tokens per verification (each in 1 … γ + 1, sd < 2).
  const auto& tokens = result["expectedTokens"];
  EXPECT_NEAR(tokens["simulated"].get<double>(), tokens["formula"].get<double>(),
              4 * 2.0 / std::sqrt(tokens["verifications"].get<double>()));
}

TEST(Speculative, TopKExerciseIsExactAndThePitfallIsBiased) {
  const auto exact = run("speculative", {{"topK", 2}});
  EXPECT_GT(exact["output"]["chiSquare"]["pValue"].get<double>(), kAlpha);
  const auto pitfall = run("speculative", {{"topK", 2}, {"mode", "pitfall"}});
  EXPECT_LT(pitfall["output"]["chiSquare"]["pValue"].get<double>(), kAlpha);
}

TEST(Speculative, ExpectedTokensIsTheGeometricSum) {
  for (const double alpha : {0.0, 0.3, 0.7, 0.99}) {
    double sum = 0.0;
    for (int i = 0; i <= 4; ++i) sum += std::pow(alpha, i);
    EXPECT_NEAR(sl::expected_tokens(alpha, 4), sum, 1e-12) << alpha;
  }
  EXPECT_EQ(sl::expected_tokens(1.0, 4), 5.0);
}

TEST(Speculative, VerifyNeverReturnsATokenTheTargetRulesOut) {
  const std::vector<float> p = {0.0f, 0.5f, 0.5f};
  const std::vector<float> q = {0.8f, 0.1f, 0.1f};
  sl::Philox rng{3, 0};
  for (int i = 0; i < 10'000; ++i) EXPECT_NE(sl::verify(p, q, 0, rng).token, 0);
}

TEST(Importance, EssIsNWhenQEqualsPAndFallsWithTheShift) {
  const auto result = run("importance", {{"shifts", {0.0, 1.0, 3.0}}});
  const auto& rows = result["rows"];
  EXPECT_EQ(rows[0]["ess"].get<double>(), result["n"].get<double>());  // every weight is 1
  EXPECT_LT(rows[1]["ess"].get<double>(), rows[0]["ess"].get<double>());
  EXPECT_LT(rows[2]["ess"].get<double>(), rows[1]["ess"].get<double>());
}

TEST(Importance, TruncationTradesBiasForVariance) {
  const auto result = run("importance", {{"shifts", {3.0}}, {"repeats", 400}});
  const auto& estimators = result["rows"][0]["estimators"];
  const auto& plain = estimators["none"];
  const auto& tis = estimators["tis"];
  EXPECT_LT(tis["std"].get<double>(), plain["std"].get<double>());
  EXPECT_GT(std::abs(tis["bias"].get<double>()), std::abs(plain["bias"].get<double>()));
  // Plain IS is unbiased: its mean is within 4 standard errors of the truth.
  EXPECT_LT(std::abs(plain["bias"].get<double>()), 4 * plain["std"].get<double>() / std::sqrt(400.0));
}

TEST(Importance, EstimatesByHand) {
  const std::vector<float> p = {0.5f, 0.5f};
  const std::vector<float> q = {0.25f, 0.75f};
  const std::vector<double> f = {1.0, 3.0};
  const std::vector<std::int32_t> draws = {0, 1, 1, 1};  // weights 2, 2/3, 2/3, 2/3
  const auto e = sl::importance_estimates(p, q, f, draws, 1.0);
  EXPECT_NEAR(e.ordinary, (2.0 + 3 * 2.0) / 4, 1e-6);
  EXPECT_NEAR(e.self_normalised, (2.0 + 6.0) / 4.0, 1e-6);
  EXPECT_NEAR(e.truncated, (1.0 + 3 * 2.0) / 4, 1e-6);
  EXPECT_NEAR(e.masked, (3 * 2.0) / 4, 1e-6);
  EXPECT_NEAR(e.ess, 16.0 / (4.0 + 3.0 * 4.0 / 9.0), 1e-6);
}

TEST(SampleSize, TheDifferenceIsZStandardErrorsAtN) {
  const auto means = run("sample-size", {{"delta", 0.2}, {"std", 1.0}, {"z", 3}});
  EXPECT_NEAR(means["n"].get<double>(), 2 * (3 * 1.0 / 0.2) * (3 * 1.0 / 0.2), 1e-9);
  EXPECT_NEAR(0.2, 3 * means["standardErrorAtN"].get<double>(), 1e-12);
  const auto proportions = run("sample-size", {{"mode", "proportions"}, {"p1", 0.7}, {"p2", 0.72}, {"z", 2}});
  EXPECT_NEAR(proportions["n"].get<double>(), 4 * (0.21 + 0.2016) / 0.0004, 1e-6);
}

TEST(SampleSize, TheSamplingDistributionsNarrowAndTheBandLeavesZeroAtTheSampleSize) {
  // The chapter's exercise: 2.5 against 2.6, σ 1.2, two standard errors: n ≈ 1,150.
  const auto at = [](double n) { return run("sample-size", {{"mean", 2.5}, {"delta", 0.1}, {"std", 1.2}, {"z", 2}, {"n", n}}); };
  const auto chapter = at(1152);
  EXPECT_EQ(chapter["perConfiguration"].get<double>(), 1152);
  EXPECT_NEAR(chapter["at"]["z"].get<double>(), 2.0, 1e-9);
  // Each density integrates to about 1 over the grid (the grid holds ±7 SD at this n) and peaks at its mean.
  const auto& curves = chapter["at"]["distributions"];
  const auto x = curves["x"].get<std::vector<double>>();
  for (const char* name : {"first", "second"}) {
    const auto density = curves[name].get<std::vector<double>>();
    double area = 0.0;
    for (std::size_t i = 1; i < x.size(); ++i) area += 0.5 * (density[i] + density[i - 1]) * (x[i] - x[i - 1]);
    EXPECT_NEAR(area, 1.0, 1e-3) << name;
    const auto peak = std::max_element(density.begin(), density.end()) - density.begin();
    EXPECT_NEAR(x[std::size_t(peak)], std::string(name) == "first" ? 2.5 : 2.6, 0.01) << name;
  }
  // Ten times fewer draws: √10 times wider, so the peak is √10 times lower.
  const auto fewer = at(115)["at"]["distributions"]["first"].get<std::vector<double>>();
  const auto more = chapter["at"]["distributions"]["first"].get<std::vector<double>>();
  EXPECT_NEAR(*std::max_element(more.begin(), more.end()) / *std::max_element(fewer.begin(), fewer.end()),
              std::sqrt(1152.0 / 115.0), 0.02);
  // The band δ − 2 SE crosses 0 where n passes 1,152.
  const auto ns = chapter["band"]["n"].get<std::vector<double>>();
  const auto low = chapter["band"]["low"].get<std::vector<double>>();
  for (std::size_t i = 0; i < ns.size(); ++i) EXPECT_EQ(low[i] > 0, ns[i] > 1152.0) << ns[i];
}

}  // namespace chapter_test
