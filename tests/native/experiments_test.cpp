#include "run_experiment.hpp"
#include "sampling_lab/experiments.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <utility>

#include "sampling_lab/synthetic.hpp"

namespace experiments_test {

namespace sl = sampling_lab;

namespace {
std::string error_argument(const std::string& name, const sl::Json& params) {
  auto outcome = sl::run_experiment(name, params);
  auto* error = std::get_if<sl::ArgumentError>(&outcome);
  return error ? error->argument : "(no error)";
}
}  // namespace

TEST(Experiments, ListsEachWithItsSchema) {
  ASSERT_GE(sl::experiments().size(), 2u);
  const auto& filters = sl::experiments()[0];
  EXPECT_EQ(filters.name, "filters");
  const auto top_p = std::find_if(filters.params.begin(), filters.params.end(),
                                  [](const sl::ParamSpec& p) { return p.name == "topP"; });
  ASSERT_NE(top_p, filters.params.end());
  EXPECT_EQ(top_p->value.default_value, 1.0);
  EXPECT_EQ(sl::to_json(*top_p)["minExclusive"], true);
}

TEST(Experiments, FiltersKeepsEverythingByDefaultAndReportsTheTemperedDistribution) {
  const auto result = run("filters", sl::Json::object());
  EXPECT_EQ(result["kept"], result["probs"].size());
  EXPECT_EQ(result["probs"], result["tempered"]);
  const auto cut = run("filters", {{"topK", 3}, {"temperature", 0.5}});
  EXPECT_EQ(cut["kept"], 3);
  EXPECT_GT(cut["tempered"][5].get<double>(), 0.0);
  EXPECT_EQ(cut["probs"][5].get<double>(), 0.0);
}

TEST(Experiments, TemperatureOnTheSyntheticVocabulary) {
  const auto result = run("temperature", sl::Json::object());
  EXPECT_EQ(result["vocabSize"], sl::kQwen3Vocabulary);
  const auto& rows = result["rows"];
  ASSERT_EQ(rows.size(), 3u);
  // Hotter is flatter: top probability falls, tokens for 90% and entropy rise.
  for (int i = 1; i < 3; ++i) {
    EXPECT_LT(rows[i]["topProb"].get<double>(), rows[i - 1]["topProb"].get<double>());
    EXPECT_GT(rows[i]["tokensForMass"].get<double>(), rows[i - 1]["tokensForMass"].get<double>());
    EXPECT_GT(rows[i]["entropyBits"].get<double>(), rows[i - 1]["entropyBits"].get<double>());
  }
  EXPECT_LE(rows[0]["tokensForMass"].get<int>(), 20);
  EXPECT_GE(rows[2]["tokensForMass"].get<int>(), 1000);
}

TEST(Experiments, SyntheticLogitsAreReproducible) {
  EXPECT_EQ(sl::synthetic_logits(), sl::synthetic_logits());
  EXPECT_NE(sl::synthetic_logits(1000, 1), sl::synthetic_logits(1000, 2));
}

TEST(Experiments, SyntheticLogitsFallWithoutAGapFromTheHeadIntoTheBulk) {
  auto sorted = sl::synthetic_logits();
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  // Past the top few (whose spacing is the Zipf head's, ln 2 at rank 1), neighbours are close: the
  // head of 100 tokens over a bulk that ended near 9 left a drop of 4.5 at rank 100.
  float widest = 0;
  for (std::size_t rank = 10; rank < 20'000; ++rank) widest = std::max(widest, sorted[rank - 1] - sorted[rank]);
  EXPECT_LT(widest, 0.5f);
  EXPECT_GT(sorted[0], 17.0f);
  EXPECT_LT(sorted[19'999], 5.0f);
}

namespace {
// Entropy and varentropy in bits of softmax(z / T) over the k largest logits, all in double.
std::pair<double, double> direct_surprisal_moments(const std::vector<float>& logits, double temperature, std::size_t k) {
  std::vector<double> z(logits.begin(), logits.end());
  std::sort(z.begin(), z.end(), std::greater<>());
  z.resize(k);
  double sum = 0;
  for (const double x : z) sum += std::exp((x - z[0]) / temperature);
  const double log_total = z[0] / temperature + std::log(sum);
  const auto surprisal = [&](double x) { return (log_total - x / temperature) / std::numbers::ln2; };
  double mean = 0;
  for (const double x : z) mean += std::exp(x / temperature - log_total) * surprisal(x);
  double variance = 0;
  for (const double x : z) variance += std::exp(x / temperature - log_total) * std::pow(surprisal(x) - mean, 2);
  return {mean, variance};
}
}  // namespace

TEST(Experiments, FiltersGivesTheSurprisalMomentsOfADirectFloat64Computation) {
  const auto logits = sl::synthetic_logits();
  const auto result = run("filters", {{"logits", logits}, {"temperature", 1.3}, {"topK", 500}});
  const auto [kept_mean, kept_variance] = direct_surprisal_moments(logits, 1.3, 500);
  const auto [all_mean, all_variance] = direct_surprisal_moments(logits, 1.3, logits.size());
  // The core's probabilities are float32: each −log2 p is off by about 2^-23 / ln 2 at most.
  constexpr double kTolerance = 1e-5;
  const auto& kept = result["surprisal"]["kept"];
  EXPECT_NEAR(kept["mean"].get<double>(), kept_mean, kTolerance);
  EXPECT_NEAR(kept["variance"].get<double>(), kept_variance, kTolerance);
  EXPECT_NEAR(kept["meanSquare"].get<double>(), kept_variance + kept_mean * kept_mean, kTolerance);
  EXPECT_NEAR(kept["standardDeviation"].get<double>(), std::sqrt(kept_variance), kTolerance);
  EXPECT_NEAR(kept["mean"].get<double>(), result["entropyBits"].get<double>(), kTolerance);
  const auto& tempered = result["surprisal"]["tempered"];
  EXPECT_NEAR(tempered["mean"].get<double>(), all_mean, kTolerance);
  EXPECT_NEAR(tempered["variance"].get<double>(), all_variance, kTolerance);
  // Cutting the tail lowers both, by far more than the tolerance.
  EXPECT_LT(kept_mean, all_mean - 0.1);
  EXPECT_LT(kept_variance, all_variance - 0.1);
}

TEST(Experiments, SpeculativeStepsEmitTokensDistributedAsTheTargetAndTheWrongRuleDoesNot) {
  // 2,000 verifications at γ 3 against a far draft: the chapter's rule's emitted tokens pass a χ²
  // test against p; the negative control, which redraws a rejected token from p, fails it.
  const auto result = run("speculative-steps", {{"q", {0.05, 0.15, 0.3, 0.5}}, {"steps", 2000}, {"seed", 7}});
  EXPECT_GT(result["chiSquare"]["pValue"].get<double>(), 1e-3);
  EXPECT_LT(result["wrongChiSquare"]["pValue"].get<double>(), 1e-6);
  // Each step checks drafts up to its first rejection and emits the accepted ones and one more.
  for (const auto& step : result["steps"]) {
    const auto accepted = step["accepted"].get<std::size_t>();
    EXPECT_LE(accepted, 3u);
    EXPECT_EQ(step["drafts"].size(), step["fromResidual"].get<bool>() ? accepted + 1 : accepted);
  }
}

TEST(Experiments, SimulatedEvalsScoreEachModelAtItsAccuracyAndAccumulate) {
  // 400 evals of 200 questions at 70 % and 72 %: each model's mean measured accuracy within 4 SE
  // of its accuracy (SE √(p(1 − p)/(200 · 400))), and B ahead in fewer than nine runs of ten.
  const auto result = run("eval-error", {{"questions", 200}, {"accuracy", 0.7}, {"gap", 0.02}, {"evals", 400}, {"seed", 3}});
  const auto& simulated = result["simulated"];
  for (const auto& [name, p] : {std::pair{"first", 0.7}, std::pair{"second", 0.72}}) {
    const auto scores = simulated[name].get<std::vector<double>>();
    ASSERT_EQ(scores.size(), 400u);
    double mean = 0.0;
    for (const double s : scores) mean += s / 400.0;
    EXPECT_LT(std::abs(mean - p), 4 * std::sqrt(p * (1 - p) / (200.0 * 400.0))) << name;
  }
  const auto ahead = simulated["secondAhead"].get<double>();
  EXPECT_EQ(ahead + simulated["tied"].get<double>() + simulated["secondBehind"].get<double>(), 400);
  EXPECT_GT(ahead, 200);
  EXPECT_LT(ahead, 360);
  // More evals repeat the first ones: a reader's clicks accumulate.
  const auto fewer = run("eval-error", {{"questions", 200}, {"accuracy", 0.7}, {"gap", 0.02}, {"evals", 10}, {"seed", 3}});
  const auto all = simulated["first"].get<std::vector<double>>();
  EXPECT_EQ(fewer["simulated"]["first"].get<std::vector<double>>(), std::vector<double>(all.begin(), all.begin() + 10));
  // A model at 100 % answers every question.
  const auto perfect = run("eval-error", {{"questions", 50}, {"accuracy", 0.9}, {"gap", 0.1}, {"evals", 5}});
  for (const double s : perfect["simulated"]["second"].get<std::vector<double>>()) EXPECT_EQ(s, 1.0);
  EXPECT_EQ(error_argument("eval-error", {{"questions", 100000}, {"evals", 101}}), "evals");
}

TEST(Experiments, BeamStepsKeepTheBestWidthOfEachStepAndEndAtBeamSearchsSequence) {
  const sl::Json params = {{"vocab", 3}, {"depth", 4}, {"width", 2}, {"sharpness", 1.5}, {"model", 5}};
  const auto result = run("beam-steps", params);
  const auto& steps = result["steps"];
  ASSERT_EQ(steps.size(), 4u);
  std::vector<std::vector<double>> kept{{}};
  for (const auto& step : steps) {
    const auto& candidates = step["candidates"];
    // Every kept prefix expanded into 3, best first, the first `width` kept.
    ASSERT_EQ(candidates.size(), kept.size() * 3);
    std::vector<std::vector<double>> next;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (i > 0) EXPECT_GE(candidates[i - 1]["logProb"].get<double>(), candidates[i]["logProb"].get<double>());
      EXPECT_EQ(candidates[i]["kept"].get<bool>(), i < 2);
      auto path = candidates[i]["path"].get<std::vector<double>>();
      EXPECT_NE(std::find(kept.begin(), kept.end(), std::vector<double>(path.begin(), path.end() - 1)), kept.end());
      if (i < 2) next.push_back(path);
    }
    kept = next;
  }
  EXPECT_EQ(result["beam"]["path"].get<std::vector<double>>(), kept.front());
  EXPECT_NEAR(std::log(result["beam"]["prob"].get<double>()), steps[3]["candidates"][0]["logProb"].get<double>(), 1e-9);
  // Greedy's log-probability after each step ends at its sequence's; width 27 (every sequence) finds the best.
  EXPECT_NEAR(std::exp(result["greedy"]["logProbs"][3].get<double>()), result["greedy"]["prob"].get<double>(), 1e-12);
  auto exhaustive = params;
  exhaustive["width"] = 16;
  const auto wide = run("beam-steps", exhaustive);
  EXPECT_NEAR(wide["beam"]["prob"].get<double>(), wide["best"]["prob"].get<double>(), 1e-12);
  EXPECT_EQ(error_argument("beam-steps", {{"vocab", 8}, {"depth", 8}}), "depth");
  // Unnamed, the model is one where greedy misses.
  const auto chosen = run("beam-steps", {{"vocab", 3}, {"depth", 4}});
  EXPECT_LT(chosen["greedy"]["prob"].get<double>(), chosen["best"]["prob"].get<double>());
}

TEST(Experiments, BadParametersNameTheArgument) {
  EXPECT_EQ(error_argument("nope", sl::Json::object()), "experiment");
  EXPECT_EQ(error_argument("filters", {{"topq", 1}}), "topq");
  EXPECT_EQ(error_argument("filters", {{"topP", "high"}}), "topP");
  EXPECT_EQ(error_argument("filters", {{"topP", 0}}), "topP");
  EXPECT_EQ(error_argument("filters", {{"topK", 2.5}}), "topK");
  EXPECT_EQ(error_argument("filters", {{"logits", sl::Json::array()}}), "logits");
  EXPECT_EQ(error_argument("filters", {{"logits", {1, nullptr}}}), "logits");
  // Logits cross as float32: a double past its range is refused, not rounded to ±∞ (−∞ masks).
  EXPECT_EQ(error_argument("filters", {{"logits", {1, -1e39}}}), "logits");
  EXPECT_EQ(error_argument("filters", {{"logits", {1, 1e39}}}), "logits");
  // A second model past 100 % would be scored as a smaller gap than the one asked for.
  EXPECT_EQ(error_argument("eval-error", {{"accuracy", 0.99}, {"gap", 0.05}}), "gap");
  EXPECT_EQ(error_argument("temperature", {{"mass", 2}}), "mass");
  EXPECT_EQ(error_argument("temperature", {{"temperatures", {1, -1}}}), "temperatures");
  EXPECT_EQ(error_argument("filters", sl::Json::array()), "params");
  // Fuzz regressions (tests/fuzz/regressions/fuzz_experiments): a key "" is an unknown parameter
  // named "params", before its items are read.
  EXPECT_EQ(error_argument("filters", {{"", 1040}}), "params");
  EXPECT_EQ(error_argument("filters", {{"", {"n"}}}), "params");
  EXPECT_EQ(error_argument("temperature", {{"temperatures", {1, "n"}}}), "temperatures");
}

TEST(Experiments, AcceptanceSummarisesPerPositionOverlapAsTheChapterPrintsIt) {
  const auto result = run("acceptance", {{"accept", {0.9, 0.7, 0.4, 0.03, 0.75}},
                                         {"tv", {0.1, 0.3, 0.6, 0.97, 0.25}},
                                         {"bins", 10}});
  EXPECT_EQ(result["positions"], 5);
  EXPECT_DOUBLE_EQ(result["mean"].get<double>(), (0.9 + 0.7 + 0.4 + 0.03 + 0.75) / 5);
  EXPECT_DOUBLE_EQ(result["median"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(result["min"].get<double>(), 0.03);
  EXPECT_NEAR(result["meanOneMinusTV"].get<double>(), result["mean"].get<double>(), 1e-15);
  EXPECT_LT(result["maxDifference"].get<double>(), 1e-15);
  EXPECT_EQ(result["histogram"]["counts"], (std::vector<int>{1, 0, 0, 0, 1, 0, 0, 2, 0, 1}));
  // Even counts: the lower middle value, as torch.median returns.
  EXPECT_DOUBLE_EQ(run("acceptance", {{"accept", {0.2, 0.8}}, {"tv", {0.8, 0.2}}})["median"].get<double>(), 0.2);
  EXPECT_EQ(error_argument("acceptance", {{"accept", {0.5}}, {"tv", {0.5, 0.5}}}), "tv");
  EXPECT_EQ(error_argument("acceptance", {{"accept", {1.5}}, {"tv", {0.5}}}), "accept");
}

}  // namespace experiments_test
