// sample_token without a filter draws by rejection from an envelope that weighs only the head
// (detail::draw_untruncated). These tests aim at its edges: a tail sitting just under the
// threshold (the envelope tight, the tail's share the largest it can be), tokens on both sides
// of the threshold, everything tied, temperatures near 0 and very large; each against the exact
// softmax by χ², and a negative control showing the same test fails a sampler that drops the tail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/synthetic.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"

namespace untruncated_draw_test {

namespace sl = sampling_lab;

namespace {

constexpr std::size_t kVocabulary = 151936;
// Where the head outgrows a quarter of the vocabulary every token is weighed: a smaller one keeps
// those cases quick.
constexpr std::size_t kSmall = 4096;

std::vector<double> exact_probs(const std::vector<float>& logits, double temperature) {
  const double max = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double total = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) total += p[i] = std::exp((double(logits[i]) - max) / temperature);
  for (double& x : p) x /= total;
  return p;
}

std::vector<std::int32_t> draws(const std::vector<float>& logits, double temperature, std::size_t n, std::uint64_t seed) {
  sl::FilterWorkspace workspace;
  sl::SamplingOptions options;
  options.temperature = temperature;
  options.seed = seed;
  std::vector<std::int32_t> out(n);
  for (std::size_t step = 0; step < n; ++step) {
    options.step = step;
    out[step] = sl::sample_token(logits, options, workspace);
  }
  return out;
}

// χ² of the draws against p over rank bands: the most probable token alone, then `groups` bands
// of consecutive ranks holding equal mass, so that the head and each depth of the tail are
// counted apart and every band expects many draws.
double p_value(const std::vector<std::int32_t>& drawn, const std::vector<double>& p, std::size_t groups) {
  std::vector<std::size_t> by_rank(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) by_rank[i] = i;
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  std::vector<std::size_t> group_of(p.size());
  const double rest = 1.0 - p[by_rank[0]];
  double before = 0.0;
  group_of[by_rank[0]] = groups;
  for (std::size_t r = 1; r < p.size(); ++r) {
    group_of[by_rank[r]] = std::min(groups - 1, std::size_t(before / rest * double(groups)));
    before += p[by_rank[r]];
  }
  std::vector<float> expected(groups + 1, 0.0f);
  for (std::size_t i = 0; i < p.size(); ++i) expected[group_of[i]] += float(p[i]);
  std::vector<std::int32_t> grouped(drawn.size());
  for (std::size_t d = 0; d < drawn.size(); ++d) grouped[d] = std::int32_t(group_of[std::size_t(drawn[d])]);
  return sl::chi_square(sl::counts(grouped, groups + 1), expected).p_value;
}

// Bonferroni over the 12 χ² tests of this file.
constexpr double kThreshold = 1e-4 / 12;

// One token at 0 and every other just under the draw's threshold max − T·head_depth(V): the
// tail holds about 50 times the head's mass, as much as the envelope allows.
std::vector<float> tail_under_threshold(double temperature, double below) {
  std::vector<float> logits(kVocabulary, float(-temperature * sl::head_depth(kVocabulary) - below));
  logits[977] = 0.0f;
  return logits;
}

}  // namespace

TEST(UntruncatedDraw, ATailJustUnderTheThresholdHoldsItsShare) {
  for (const double temperature : {0.7, 1.0, 1.3}) {
    const auto logits = tail_under_threshold(temperature, 1e-3);
    const auto p = exact_probs(logits, temperature);
    const auto drawn = draws(logits, temperature, 60'000, 1);
    EXPECT_GT(p_value(drawn, p, 64), kThreshold) << "T " << temperature;
    const double tail = 1.0 - p[977];
    const double observed = double(std::count_if(drawn.begin(), drawn.end(), [](auto t) { return t != 977; })) / double(drawn.size());
    EXPECT_NEAR(observed, tail, 4.0 * std::sqrt(tail * (1.0 - tail) / double(drawn.size()))) << "T " << temperature;
  }
}

TEST(UntruncatedDraw, TheSameTestFailsASamplerThatDropsTheTail) {
  const auto logits = tail_under_threshold(1.0, 1e-3);
  const auto p = exact_probs(logits, 1.0);
  // A wrong sampler: the head alone (here the one token at 0) and never the tail.
  const std::vector<std::int32_t> head_only(60'000, 977);
  EXPECT_LT(p_value(head_only, p, 64), 1e-12);
}

// A head of 20 over tokens spread evenly across 3.5 nats around the threshold, one in seven above it.
std::vector<float> both_sides_of_the_threshold() {
  const double threshold = -sl::head_depth(kSmall);
  std::vector<float> logits(kSmall);
  for (std::size_t i = 0; i < kSmall; ++i) logits[i] = float(threshold - 3.0 + 3.5 * double(i) / double(kSmall));
  for (std::size_t r = 0; r < 20; ++r) logits[(r * 197 + 3) % kSmall] = float(-0.1 * double(r));
  return logits;
}

TEST(UntruncatedDraw, TokensOnBothSidesOfTheThreshold) {
  const auto logits = both_sides_of_the_threshold();
  const auto p = exact_probs(logits, 1.0);
  EXPECT_GT(p_value(draws(logits, 1.0, 100'000, 2), p, 64), kThreshold);
}

// The bug this file once missed: proposals uniform over all V tokens but an envelope mass of the
// tail's tokens only, which gives each tail token (V − head) / V of its share (0.85 here).
TEST(UntruncatedDraw, TheSameTestFailsATailShortByTheHeadsShare) {
  const auto logits = both_sides_of_the_threshold();
  const auto p = exact_probs(logits, 1.0);
  const float threshold = float(-sl::head_depth(kSmall));
  const double head = double(std::count_if(logits.begin(), logits.end(), [&](float z) { return z >= threshold; }));
  std::vector<double> biased(p);
  for (std::size_t i = 0; i < p.size(); ++i) biased[i] *= logits[i] < threshold ? (double(kSmall) - head) / double(kSmall) : 1.0;
  std::vector<float> biased_logits(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) biased_logits[i] = float(std::log(biased[i]));
  EXPECT_LT(p_value(draws(biased_logits, 1.0, 100'000, 2), p, 64), 1e-12);
}

// The speculative tests' smallest pair: 12 tokens, where the head is those within T of the maximum.
TEST(UntruncatedDraw, TwelveTokens) {
  const std::vector<float> logits = {2.0f, 1.5f, 0.7f, 0.2f, -0.4f, -1.0f, -1.3f, -2.2f, -3.0f, -4.1f, -5.0f, -6.5f};
  for (const double temperature : {0.5, 1.0, 2.0}) {
    const auto p = exact_probs(logits, temperature);
    const std::vector<float> expected(p.begin(), p.end());
    const auto fit = sl::chi_square(sl::counts(draws(logits, temperature, 60'000, 6), p.size()), expected);
    EXPECT_GT(fit.p_value, kThreshold) << "T " << temperature;
  }
}

TEST(UntruncatedDraw, EveryTokenTied) {
  const std::vector<float> logits(kSmall, 3.5f);
  const auto p = exact_probs(logits, 1.0);
  EXPECT_GT(p_value(draws(logits, 1.0, 50'000, 3), p, 64), kThreshold);
}

TEST(UntruncatedDraw, TemperaturesNearZeroAndVeryLarge) {
  sl::Philox rng(4, 0);
  std::vector<float> logits(kSmall);
  for (float& z : logits) z = float(3.0 * rng.normal());
  for (std::size_t r = 0; r < 100; ++r) logits[(r * 37) % kSmall] = float(18.0 - std::log(double(r + 1)));
  for (const double temperature : {0.02, 0.3, 5.0, 100.0}) {
    const auto p = exact_probs(logits, temperature);
    EXPECT_GT(p_value(draws(logits, temperature, 50'000, 5), p, 64), kThreshold) << "T " << temperature;
  }
}

// Top-p alone, for a draw, bounds the tail's mass instead of weighing it: its token must be the
// one drawn from the exact kept set (sample_token_logprobs weighs every token), and the tail's
// bounds must hold the exact mass.
TEST(TopPByBounds, DrawsFromTheExactKeptSet) {
  sl::FilterWorkspace workspace;
  std::size_t differences = 0, draws_made = 0;
  for (const std::uint64_t seed : {1, 2, 3}) {
    const auto logits = sl::synthetic_logits(kVocabulary, seed);
    for (const double temperature : {0.5, 1.0, 1.5}) {
      for (const double top_p : {0.5, 0.9, 0.95, 0.999}) {
        sl::SamplingOptions options;
        options.temperature = temperature;
        options.top_p = top_p;
        options.seed = seed;
        for (std::uint64_t step = 0; step < 40; ++step) {
          options.step = step;
          const auto fast = sl::sample_token(logits, options, workspace);
          const auto exact = sl::sample_token_logprobs(logits, options, 0, sl::LogprobsMode::kRaw, workspace).token;
          differences += fast != exact;
          ++draws_made;
        }
      }
    }
  }
  // A token's weight may differ by a float ulp between the two weighings (a SIMD lane in one, the
  // scalar remainder in the other), which moves a draw only when its uniform falls within about
  // 1e-7 of a boundary.
  EXPECT_EQ(differences, 0u) << "of " << draws_made;
}

// On a language model's rows at T 1 (a Gaussian body, σ 2.5, and 50 tokens 8–15 above it) the
// tail's bounds straddle top-p's cut, and the next calls of the workspace sum the total at once:
// both ways draw from the exact kept set.
TEST(TopPByBounds, AfterTheBoundsStraddleTheSumAtOnceDrawsTheSame) {
  std::mt19937 generator(5);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> logits(kVocabulary);
  for (auto& logit : logits) logit = body(generator);
  for (int i = 0; i < 50; ++i) logits[generator() % kVocabulary] = 8.0f + 7.0f * uniform(generator);
  sl::FilterWorkspace workspace;
  std::size_t differences = 0, unbounded_calls = 0;
  for (const double top_p : {0.9, 0.95}) {
    sl::SamplingOptions options;
    options.top_p = top_p;
    options.seed = 3;
    for (std::uint64_t step = 0; step < 30; ++step) {
      options.step = step;
      unbounded_calls += workspace.top_p_unbounded_calls > 0;
      differences += sl::sample_token(logits, options, workspace) !=
                     sl::sample_token_logprobs(logits, options, 0, sl::LogprobsMode::kRaw, workspace).token;
    }
  }
  EXPECT_GT(unbounded_calls, 40u);  // the path under test is the one taken
  EXPECT_EQ(differences, 0u);
}

// The path's edges: many tokens tied at the head's threshold, a kept prefix ending where the
// tail's bounds cannot decide (so every token is weighed), temperatures near 0 and very large.
TEST(TopPByBounds, ItsEdgesDrawAsTheExactKeptSet) {
  sl::FilterWorkspace workspace;
  const double depth = sl::top_p_head_depth(kVocabulary);
  std::vector<std::vector<float>> cases;
  // 2,000 tokens tied exactly at the threshold of T 1, under 100 tokens at the top.
  auto tied = std::vector<float>(kVocabulary, float(-depth - 4.0));
  for (std::size_t i = 0; i < 2000; ++i) tied[(i * 71) % kVocabulary] = float(-depth);
  for (std::size_t r = 0; r < 100; ++r) tied[(r * 1499 + 5) % kVocabulary] = float(-0.05 * double(r));
  cases.push_back(tied);
  // Just under the threshold of T 1, the tail holds about half the mass: a top-p of 0.5 ends near
  // the head's edge.
  auto tail = std::vector<float>(kVocabulary, float(-depth - 1e-3));
  tail[977] = 0.0f;
  cases.push_back(tail);
  cases.push_back(sl::synthetic_logits(kVocabulary, 7));
  std::size_t differences = 0, draws_made = 0;
  for (const auto& logits : cases) {
    for (const double temperature : {0.02, 1.0, 50.0}) {
      for (const double top_p : {0.3, 0.5, 0.9, 0.999}) {
        sl::SamplingOptions options;
        options.temperature = temperature;
        options.top_p = top_p;
        options.seed = 8;
        for (std::uint64_t step = 0; step < 6; ++step) {
          options.step = step;
          differences += sl::sample_token(logits, options, workspace) !=
                         sl::sample_token_logprobs(logits, options, 0, sl::LogprobsMode::kRaw, workspace).token;
          ++draws_made;
        }
      }
    }
  }
  EXPECT_EQ(differences, 0u) << "of " << draws_made;
}

TEST(TopPByBounds, TheTailBoundsHoldTheExactMass) {
  for (const std::uint64_t seed : {4, 5}) {
    const auto logits = sl::synthetic_logits(kVocabulary, seed);
    const float max = *std::max_element(logits.begin(), logits.end());
    for (const double temperature : {0.3, 1.0, 3.0}) {
      const float threshold = float(double(max) - sl::top_p_head_depth(kVocabulary) * temperature);
      double exact = 0.0;
      for (const float z : logits) {
        if (z < threshold) exact += std::exp((double(z) - double(max)) / temperature);
      }
      const auto bounds = sl::kernels::tail_mass(logits, threshold, max, float(1.0 / temperature));
      EXPECT_LE(bounds.low, exact) << "T " << temperature;
      EXPECT_GE(bounds.high, exact) << "T " << temperature;
      EXPECT_LT(bounds.high, 1.1 * exact + 1e-30) << "T " << temperature;
    }
  }
}

TEST(UntruncatedDraw, WeighingEveryTokenWithoutStoringGivesTheStoredWeightsIndex) {
  // When every token is weighed, the weights are summed per block and only the block the draw lands
  // in is weighed again: the index must be inverse_cdf's on exp_shifted's weights for every target,
  // at block edges, past the total (rounding), and with a last block of a length no lane count divides.
  for (const std::size_t v : {std::size_t{151936}, std::size_t{5003}, std::size_t{1024}, std::size_t{7}}) {
    std::vector<float> logits(v);
    sl::Philox random(5, v);
    for (std::size_t i = 0; i < v; ++i) logits[i] = i % 3 == 0 ? -200.0f : float(4.0 * random.uniform());
    const float max = *std::max_element(logits.begin(), logits.end());
    std::vector<float> weights(v);
    std::vector<double> block_sums(sl::kernels::block_count(v));
    const double total = sl::kernels::exp_shifted(logits, max, 0.8f, weights, block_sums);
    std::vector<double> recomputed(block_sums.size());
    ASSERT_EQ(sl::kernels::exp_block_sums(logits, max, 0.8f, recomputed), total);
    ASSERT_EQ(recomputed, block_sums);
    std::vector<double> targets = {0.0, total, total * (1.0 + 1e-12), block_sums[0], std::nextafter(block_sums[0], 0.0)};
    for (int i = 0; i < 2000; ++i) targets.push_back(random.uniform() * total);
    for (const double target : targets) {
      ASSERT_EQ(sl::kernels::inverse_cdf_of_exps(logits, max, 0.8f, block_sums, target),
                sl::kernels::inverse_cdf(weights, block_sums, target))
          << v << " " << target;
    }
  }
}

}  // namespace untruncated_draw_test
