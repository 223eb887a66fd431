#include "sampling_lab/distribution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "reference.hpp"

namespace distribution_test {

namespace sl = sampling_lab;

namespace {
// Sort-based reference for cover_count: the chapter's int((cumsum < mass).sum()) + 1.
std::size_t sorted_cover_count(std::vector<double> weights, double target) {
  std::sort(weights.begin(), weights.end(), std::greater<>());
  double cumulative = 0.0;
  std::size_t below = 0;
  for (double w : weights) {
    cumulative += w;
    if (cumulative < target) ++below;
  }
  return std::min(below + 1, weights.size());
}
}  // namespace

TEST(Softmax, MatchesDoublePrecisionOnRandomLogits) {
  const auto logits = reference::random_logits(5000, 3, 4.0);
  for (const double t : {0.3, 1.0, 2.5}) {
    std::vector<float> probs(logits.size());
    sl::softmax(logits, t, probs);
    double max = *std::max_element(logits.begin(), logits.end());
    double total = 0.0;
    for (const float z : logits) total += std::exp((z - max) / t);
    for (std::size_t i = 0; i < probs.size(); ++i) {
      const double expected = std::exp((logits[i] - max) / t) / total;
      ASSERT_NEAR(probs[i], expected, 1e-5 * expected + 1e-30) << i;
    }
  }
}

TEST(Softmax, SurvivesHugeAndTinyLogits) {
  const std::vector<float> logits = {1e30f, 1e30f - 1e24f, -1e30f, 0.0f};
  std::vector<float> probs(logits.size());
  sl::softmax(logits, 1.0, probs);
  EXPECT_FLOAT_EQ(probs[0], 1.0f);
  EXPECT_FLOAT_EQ(probs[2], 0.0f);
  EXPECT_TRUE(std::isfinite(sl::log_sum_exp(logits, 1.0)));
  EXPECT_NEAR(sl::log_sum_exp(std::vector<float>{-1e4f, -1e4f}, 1.0), -1e4 + std::log(2.0), 1e-3);
}

TEST(Softmax, TemperatureZeroIsGreedyWithTiesToLowestIndex) {
  const std::vector<float> logits = {1, 5, 5, 2};
  std::vector<float> probs(logits.size());
  sl::softmax(logits, 0.0, probs);
  EXPECT_EQ(probs, (std::vector<float>{0, 1, 0, 0}));
  EXPECT_EQ(sl::argmax(logits), 1u);
}

TEST(Softmax, SmallTemperatureApproachesGreedy) {
  const std::vector<float> logits = {1, 5, 4.9f, 2};
  std::vector<float> probs(logits.size());
  sl::softmax(logits, 1e-3, probs);
  EXPECT_NEAR(probs[1], 1.0, 1e-12);
}

TEST(Softmax, SingleTokenVocabulary) {
  std::vector<float> probs(1);
  sl::softmax(std::vector<float>{-3.5f}, 0.7, probs);
  EXPECT_EQ(probs[0], 1.0f);
  sl::CoverWorkspace workspace;
  EXPECT_EQ(sl::cover_count(probs, 0.9, workspace), 1u);
  EXPECT_EQ(sl::entropy_bits(probs), 0.0);
}

TEST(LogSoftmax, AgreesWithLogOfSoftmaxInDouble) {
  const auto logits = reference::random_logits(1000, 11, 4.0);
  std::vector<float> out(logits.size());
  sl::log_softmax(logits, 0.8, out);
  double max = *std::max_element(logits.begin(), logits.end()) / 0.8, total = 0.0;
  for (float z : logits) total += std::exp(z / 0.8 - max);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    EXPECT_NEAR(out[i], logits[i] / 0.8 - max - std::log(total), 1e-4);
  }
}

TEST(Entropy, UniformAndOneHot) {
  std::vector<float> uniform(1024, 1.0f / 1024);
  EXPECT_NEAR(sl::entropy_bits(uniform), 10.0, 1e-9);
  EXPECT_NEAR(sl::entropy_nats(uniform), 10.0 * std::log(2.0), 1e-9);
  EXPECT_EQ(sl::entropy_bits(std::vector<float>{0, 1, 0}), 0.0);
  EXPECT_EQ(sl::top_probability(std::vector<float>{0.2f, 0.5f, 0.3f}), 0.5f);
}

TEST(CoverCount, HandbookExerciseAndTies) {
  sl::CoverWorkspace workspace;
  const std::vector<float> p = {0.5f, 0.2f, 0.15f, 0.1f, 0.05f};
  EXPECT_EQ(sl::cover_count(p, 0.5, workspace), 1u);
  EXPECT_EQ(sl::cover_count(p, 0.75, workspace), 3u);
  EXPECT_EQ(sl::cover_count(p, 0.9, workspace), 4u);
  EXPECT_EQ(sl::cover_count(p, 1.0, workspace), 5u);
  const std::vector<float> ties(8, 0.125f);
  EXPECT_EQ(sl::cover_count(ties, 0.5, workspace), 4u);
  const std::vector<float> with_zeros = {0.0f, 0.7f, 0.0f, 0.3f};
  EXPECT_EQ(sl::cover_count(with_zeros, 0.99, workspace), 2u);
}

TEST(CoverCount, MatchesSortOnVocabularySizedLogits) {
  sl::CoverWorkspace workspace;
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    const auto logits = reference::random_logits(151936, seed, 1.0 + seed);
    for (double t : {0.5, 1.0, 1.5}) {
      std::vector<double> probs(logits.size());
      std::vector<float> probs32(logits.size());
      sl::softmax(logits, t, probs32);
      std::copy(probs32.begin(), probs32.end(), probs.begin());
      for (double mass : {0.1, 0.5, 0.9, 0.99}) {
        EXPECT_EQ(sl::cover_count(probs32, mass, workspace), sorted_cover_count(probs, mass))
            << seed << " " << t << " " << mass;
        // From logits the weights are the unnormalised exp terms; the count is the same.
        std::vector<double> weights(logits.size());
        const double max = *std::max_element(logits.begin(), logits.end());
        for (std::size_t i = 0; i < logits.size(); ++i) weights[i] = std::exp((logits[i] - max) / t);
        const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
        EXPECT_NEAR(double(sl::cover_count_logits(logits, t, mass, workspace)),
                    double(sorted_cover_count(weights, mass * total)), 1.0)
            << seed << " " << t << " " << mass;
      }
    }
  }
}

TEST(Distances, TotalVariationKlAndOverlap) {
  const std::vector<float> p = {0.5f, 0.3f, 0.15f, 0.05f};
  const std::vector<float> q(4, 0.25f);
  const auto d = sl::distances(p, q);
  EXPECT_NEAR(d.tv, 0.3, 1e-7);
  EXPECT_NEAR(d.overlap, 0.7, 1e-7);  // the serving chapter's acceptance 0.700
  EXPECT_NEAR(d.tv + d.overlap, 1.0, 1e-7);
  double kl = 0.0;
  for (float x : p) kl += x * std::log(x / 0.25);
  EXPECT_NEAR(d.kl, kl, 1e-7);
  EXPECT_EQ(sl::distances(p, p).kl, 0.0);
  EXPECT_TRUE(std::isinf(sl::distances(q, std::vector<float>{1, 0, 0, 0}).kl));
}

TEST(Validation, NamesTheArgument) {
  const std::vector<float> nan_logits = {1.0f, NAN};
  EXPECT_EQ(sl::check_logits(nan_logits, "logits")->argument, "logits");
  EXPECT_EQ(sl::check_logits(std::vector<float>{INFINITY}, "logits")->argument, "logits");
  EXPECT_EQ(sl::check_logits(std::vector<float>{-INFINITY}, "logits")->argument, "logits");
  EXPECT_EQ(sl::check_logits({}, "logits")->argument, "logits");
  EXPECT_FALSE(sl::check_logits(std::vector<float>{1, 2}, "logits"));
  EXPECT_EQ(sl::check_probabilities(std::vector<float>{0.5f, 0.6f}, "p")->argument, "p");
  EXPECT_EQ(sl::check_probabilities(std::vector<float>{1.5f, -0.5f}, "p")->argument, "p");
  EXPECT_EQ(sl::check_distance_inputs(std::vector<float>{1}, std::vector<float>{0.5f, 0.5f})->argument, "q");
  EXPECT_EQ(sl::check_temperature(-0.1)->argument, "temperature");
  EXPECT_EQ(sl::check_mass(0.0, "mass")->argument, "mass");
  EXPECT_EQ(sl::check_mass(1.01, "mass")->argument, "mass");
}

TEST(Ranking, DescendingWithTiesToLowerIds) {
  EXPECT_EQ(sl::ranking(std::vector<float>{1, 3, 3, 2}), (std::vector<std::uint32_t>{1, 2, 3, 0}));
  EXPECT_EQ(sl::ranking(std::vector<float>{5}), (std::vector<std::uint32_t>{0}));
}

}  // namespace distribution_test
