#include "sampling_lab/filters.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "selection.hpp"
#include "reference.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/samplers.hpp"

namespace filters_test {

namespace sl = sampling_lab;

namespace {
const std::vector<float> kExample = {3, 2.5, 2, 1, 0.5, 0, -1, -2};

sl::FilterResult run(const std::vector<float>& logits, const sl::SamplingOptions& params,
                     std::vector<float>* probs_out = nullptr) {
  std::vector<float> probs(logits.size());
  sl::FilterWorkspace workspace;
  const auto result = sl::filter_distribution(logits, params, probs, workspace);
  if (probs_out) *probs_out = probs;
  return result;
}

sl::SamplingOptions params(double t, std::int64_t k, double p, double min_p) {
  sl::SamplingOptions params;
  params.temperature = t;
  params.top_k = k;
  params.top_p = p;
  params.min_p = min_p;
  return params;
}

// The same options down the general chain: the handbook order given as an order, which changes
// nothing but the path.
sl::SamplingOptions on_the_general_chain(sl::SamplingOptions options) {
  static const std::vector<std::int32_t> handbook = [] {
    std::vector<std::int32_t> order;
    for (const auto stage : sl::kHandbookOrder) order.push_back(std::int32_t(stage));
    return order;
  }();
  options.order = handbook;
  return options;
}

// sample_token with `fast` at steps 0 … steps − 1 against the same options on the general chain.
::testing::AssertionResult draws_as_the_general_chain(const std::vector<float>& logits, sl::SamplingOptions fast,
                                                      std::uint64_t steps) {
  sl::SamplingOptions chain = on_the_general_chain(fast);
  sl::FilterWorkspace fast_workspace, chain_workspace;
  for (std::uint64_t step = 0; step < steps; ++step) {
    fast.step = chain.step = step;
    const auto expected = sl::sample_token(logits, chain, chain_workspace);
    const auto drawn = sl::sample_token(logits, fast, fast_workspace);
    if (drawn != expected) return ::testing::AssertionFailure() << "step " << step << ": " << drawn << " != " << expected;
  }
  return ::testing::AssertionSuccess();
}
}  // namespace


TEST(Filters, TopPKeepsTheTokenThatCrossesP) {
  // Logits = log p give back p at T = 1: masses before each token are 0, .5, .7, .85, .95.
  std::vector<float> logits;
  for (float p : {0.5f, 0.2f, 0.15f, 0.1f, 0.05f}) logits.push_back(std::log(p));
  EXPECT_EQ(run(logits, params(1, 0, 0.75, 0)).kept, 3u);
  EXPECT_EQ(run(logits, params(1, 0, 0.5, 0)).kept, 1u);
  EXPECT_EQ(run(logits, params(1, 0, 0.96, 0)).kept, 5u);
}

TEST(Filters, RenormalisesAndReportsKeptMass) {
  std::vector<float> probs;
  const auto result = run(kExample, params(1, 3, 1, 0), &probs);
  std::vector<float> full(kExample.size());
  sl::softmax(kExample, 1.0, full);
  const double kept_mass = double(full[0]) + full[1] + full[2];
  EXPECT_NEAR(result.kept_mass, kept_mass, 1e-6);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(probs[i], full[i] / kept_mass, 1e-6);
  for (std::size_t i = 3; i < probs.size(); ++i) EXPECT_EQ(probs[i], 0.0f);
  EXPECT_NEAR(result.top_prob, probs[0], 1e-6);
  EXPECT_NEAR(result.entropy_bits, sl::entropy_bits(probs), 1e-6);
}

TEST(Filters, NoOpSettingsKeepEverything) {
  const auto result = run(kExample, params(1, 0, 1, 0));
  EXPECT_EQ(result.kept, kExample.size());
  EXPECT_EQ(result.kept_mass, 1.0);
  EXPECT_EQ(run(kExample, params(1, 100, 1, 0)).kept, kExample.size());  // k >= V
  EXPECT_EQ(run(kExample, params(1, 8, 1, 0)).kept, kExample.size());
  EXPECT_EQ(run(kExample, params(1, 0, 1, 1.0)).kept, 1u);  // min_p = 1 keeps the maximum
}

TEST(Filters, TiesAtTheBoundaryGoToLowerIndices) {
  const std::vector<float> logits = {1, 2, 2, 2, 0};
  std::vector<float> probs;
  EXPECT_EQ(run(logits, params(1, 2, 1, 0), &probs).kept, 2u);
  EXPECT_GT(probs[1], 0.0f);
  EXPECT_GT(probs[2], 0.0f);
  EXPECT_EQ(probs[3], 0.0f);
  // min-p keeps whole tie groups: all three maxima pass p_i >= min_p * p_max.
  EXPECT_EQ(run(logits, params(1, 0, 1, 0.9), &probs).kept, 3u);
}

TEST(Filters, TemperatureZeroAndExtremes) {
  std::vector<float> probs;
  const auto greedy = run({0, 7, 7, 1}, params(0, 0, 0.3, 0.5), &probs);
  EXPECT_EQ(greedy.kept, 1u);
  EXPECT_EQ(probs, (std::vector<float>{0, 1, 0, 0}));
  const auto cold = run({-1e9f, 5, 4, 3e8f}, params(1e-4, 0, 1, 0), &probs);
  EXPECT_EQ(cold.kept, 4u);
  EXPECT_FLOAT_EQ(probs[3], 1.0f);
  const auto hot = run(kExample, params(1e6, 0, 0.5, 0), &probs);
  EXPECT_EQ(hot.kept, 4u);  // nearly uniform: half the mass is half the tokens
  EXPECT_EQ(run({-1e30f, -1e30f, 1e30f}, params(1, 0, 0.999, 0)).kept, 1u);
  EXPECT_EQ(run({42.0f}, params(1, 1, 0.1, 0.5)).kept, 1u);  // V = 1
}

TEST(Penalties, PresenceAndFrequencyFromTheDecodingChapter) {
  std::vector<float> logits(5, 0.0f);
  const std::vector<std::int32_t> ids = {1, 1, 3};
  sl::SamplingOptions options;
  options.presence_penalty = 0.5;
  options.frequency_penalty = 0.2;
  options.generated_ids = ids;
  sl::PenaltyScratch scratch;
  sl::apply_penalties(logits, options, scratch);
  const std::vector<float> expected = {0, -0.9f, 0, -0.7f, 0};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(logits[i], expected[i], 1e-6);
}

TEST(Penalties, RepetitionDividesPositiveAndMultipliesNegative) {
  std::vector<float> logits = {2.0f, -2.0f, 3.0f};
  const std::vector<std::int32_t> ids = {0, 1, 0};
  sl::SamplingOptions options;
  options.repetition_penalty = 2.0;
  options.generated_ids = ids;
  sl::PenaltyScratch scratch;
  sl::apply_penalties(logits, options, scratch);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -4.0f, 3.0f}));
}

TEST(Filters, SortedFlatAndTiedLogitsMatchTheReferenceOnTheFastPathAndTheChain) {
  // Ascending logits make every token enter a top-k heap: past its budget the selection takes the
  // histogram. A flat tail and all-equal logits put most of the vocabulary in one bucket of one
  // key, walked in place. Each keeps the reference's tokens with its probabilities.
  sl::FilterWorkspace workspace;
  std::vector<float> probs(151936);
  std::vector<float> ascending(probs.size());
  for (std::size_t i = 0; i < ascending.size(); ++i) ascending[i] = float(std::round(std::log1p(double(i)) * 64) / 64);
  std::vector<float> descending(ascending.rbegin(), ascending.rend());
  std::vector<float> flat_tail(probs.size(), 0.0f);
  for (std::size_t i = 0; i < 100; ++i) flat_tail[i * 1500] = 5.0f + float(i % 7) * 0.25f;
  std::vector<float> all_equal(probs.size(), 1.5f);
  for (const auto* logits : {&ascending, &descending, &flat_tail, &all_equal}) {
    for (std::int64_t k : {0, 1, 50, 1000, 4096, 20000}) {
      for (double p : {1.0, 0.9, 0.999}) {
        for (const bool chain : {false, true}) {
          sl::SamplingOptions fp = params(0.7, k, p, 0.0);
          if (chain) fp = on_the_general_chain(fp);
          const auto fast = sl::filter_distribution(*logits, fp, probs, workspace);
          const auto slow = reference::filter(*logits, fp);
          ASSERT_EQ(fast.kept, slow.kept) << k << " " << p << " " << chain;
          for (std::size_t i = 0; i < probs.size(); ++i) {
            if (!slow.kept_mask[i]) ASSERT_EQ(probs[i], 0.0f) << i;
            ASSERT_NEAR(probs[i], slow.probs[i], 2e-5 * slow.probs[i] + 1e-9) << i;
          }
        }
      }
    }
  }
}

TEST(Filters, MatchSortBasedReferenceOnVocabularySizedLogits) {
  sl::FilterWorkspace workspace;
  std::vector<float> probs(151936);
  int cases = 0;
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    auto logits = reference::random_logits(probs.size(), seed, 1.0 + 1.5 * seed);
    // Ties and duplicated values, as quantised models produce.
    for (std::size_t i = 0; i < logits.size(); i += 97) logits[i] = std::round(logits[i] * 4) / 4;
    const std::vector<std::int32_t> ids = {5, 17, 17, 151935, 42, 5, 5};
    for (double t : {0.3, 0.7, 1.0, 1.8}) {
      for (std::int64_t k : {0, 1, 50, 1000}) {
        for (double p : {1.0, 0.95, 0.5}) {
          for (double min_p : {0.0, 0.05}) {
            sl::SamplingOptions fp = params(t, k, p, min_p);
            if (seed % 2) {
              fp.repetition_penalty = 1.3;
              fp.presence_penalty = 0.4;
              fp.frequency_penalty = 0.1;
              fp.generated_ids = ids;
            }
            const auto fast = sl::filter_distribution(logits, fp, probs, workspace);
            const auto slow = reference::filter(logits, fp);
            ASSERT_EQ(fast.kept, slow.kept) << seed << " " << t << " " << k << " " << p << " " << min_p;
            EXPECT_NEAR(fast.kept_mass, slow.kept_mass, 1e-5 * slow.kept_mass + 1e-12);
            for (std::size_t i = 0; i < probs.size(); ++i) {
              // Cut tokens are exactly 0; kept ones may underflow float32 only below 1e-37.
              if (!slow.kept_mask[i]) ASSERT_EQ(probs[i], 0.0f) << i;
              if (slow.probs[i] > 1e-30) ASSERT_GT(probs[i], 0.0f) << i;
              ASSERT_NEAR(probs[i], slow.probs[i], 2e-5 * slow.probs[i] + 1e-9) << i;
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 4 * 4 * 4 * 3 * 2);
}

TEST(Filters, EpsilonCutsOnTheDistributionLeftByTheStagesBefore) {
  // Hewitt et al. 2022: keep p_i >= epsilon of the current distribution, never fewer than one.
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  sl::SamplingOptions options;
  options.epsilon_cutoff = 0.1;
  EXPECT_EQ(sl::filter_distribution(logits, options, probs, workspace).kept, 3u);
  // After top-2 the distribution is (0.625, 0.375): epsilon 0.4 now cuts the second token.
  options.top_k = 2;
  options.epsilon_cutoff = 0.4;
  EXPECT_EQ(sl::filter_distribution(logits, options, probs, workspace).kept, 1u);
  options.top_k = 0;
  options.epsilon_cutoff = 1.0;
  EXPECT_EQ(sl::filter_distribution(logits, options, probs, workspace).kept, 1u);
  EXPECT_EQ(probs[0], 1.0f);
  // Ties at the maximum stay together, as with min-p.
  const std::vector<float> tied = {1.0f, 1.0f, 0.0f};
  options.epsilon_cutoff = 0.3;
  EXPECT_EQ(sl::filter_distribution(tied, options, probs, workspace).kept, 2u);
}

TEST(Filters, StagesAreTheCumulativeKeptCountsInChainOrder) {
  const auto logits = reference::random_logits(151936, 77, 2.5);
  sl::FilterWorkspace workspace;
  std::vector<float> probs(logits.size());
  sl::SamplingOptions options;
  options.temperature = 0.8;
  options.top_k = 500;
  options.min_p = 0.01;
  options.epsilon_cutoff = 3e-4;
  std::vector<std::uint8_t> cut_by(logits.size());
  const auto stages = sl::filter_stages(logits, options, workspace, cut_by);
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0].filter, "temperature");  // on, and cuts nothing
  EXPECT_EQ(stages[0].kept, logits.size());
  EXPECT_EQ(stages[1].filter, "topK");
  EXPECT_EQ(stages[1].kept, 500u);
  EXPECT_EQ(stages[2].filter, "minP");
  sl::SamplingOptions through_min_p = options;
  through_min_p.epsilon_cutoff = 0.0;
  EXPECT_EQ(stages[2].kept, sl::filter_distribution(logits, through_min_p, probs, workspace).kept);
  EXPECT_EQ(stages[3].filter, "epsilonCutoff");
  EXPECT_EQ(stages[3].kept, sl::filter_distribution(logits, options, probs, workspace).kept);
  EXPECT_LE(stages[3].kept, stages[2].kept);
  EXPECT_LT(stages[2].kept, stages[1].kept);
  // Each token's code names the stage that cut it, and exactly the kept tokens have none.
  std::vector<std::size_t> cut(sl::kStageCount + 2, 0);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    ++cut[cut_by[i]];
    EXPECT_EQ(cut_by[i] == 0, probs[i] > 0) << i;
  }
  EXPECT_EQ(cut[1 + std::size_t(sl::Stage::kTopK)], logits.size() - 500);
  EXPECT_EQ(cut[1 + std::size_t(sl::Stage::kMinP)], stages[1].kept - stages[2].kept);
  EXPECT_EQ(cut[1 + std::size_t(sl::Stage::kEpsilonCutoff)], stages[2].kept - stages[3].kept);
  EXPECT_TRUE(sl::filter_stages(logits, sl::SamplingOptions{}, workspace).empty());
}

TEST(Validation, OptionsNameTheArgument) {
  const auto bad = [](sl::SamplingOptions p) { return sl::check_options(p, 8)->argument; };
  EXPECT_EQ(bad(params(-1, 0, 1, 0)), "temperature");
  EXPECT_EQ(bad(params(NAN, 0, 1, 0)), "temperature");
  EXPECT_EQ(bad(params(1, -1, 1, 0)), "topK");
  EXPECT_EQ(bad(params(1, 0, 0, 0)), "topP");
  EXPECT_EQ(bad(params(1, 0, 1.5, 0)), "topP");
  EXPECT_EQ(bad(params(1, 0, 1, -0.1)), "minP");
  EXPECT_EQ(bad(params(1, 0, 1, 1.1)), "minP");
  sl::SamplingOptions epsilon = params(1, 0, 1, 0);
  epsilon.epsilon_cutoff = 1.5;
  EXPECT_EQ(bad(epsilon), "epsilonCutoff");
  sl::SamplingOptions penalised = params(1, 0, 1, 0);
  penalised.repetition_penalty = 0;
  EXPECT_EQ(bad(penalised), "repetitionPenalty");
  const std::vector<std::int32_t> ids = {8};
  penalised = params(1, 0, 1, 0);
  penalised.generated_ids = ids;
  EXPECT_EQ(bad(penalised), "generatedIds");
  EXPECT_FALSE(sl::check_options(params(0, 0, 1, 0), 8));
}

// The fast paths (heap top-k, threshold candidates, histogram prefixes, SIMD exp) against the
// sort-based reference on 1000 vocabulary-sized logit vectors, each with its own random
// settings, ties, and temperatures from near-greedy to near-uniform; in four shards of 250 so
// that each runs in a few seconds.
class ThousandVocabularies : public ::testing::TestWithParam<int> {};

TEST_P(ThousandVocabularies, FastPathsMatchTheReference) {
  constexpr std::size_t kVocabulary = 151936;
  constexpr std::uint64_t kPerShard = 250;
  sl::Philox settings{2026, std::uint64_t(GetParam())};
  sl::FilterWorkspace workspace;
  std::vector<float> probs(kVocabulary);
  const double temperatures[] = {0.05, 0.3, 0.7, 1.0, 1.5, 3.0, 20.0};
  const std::int64_t top_ks[] = {0, 0, 1, 20, 50, 300, 5000, 200000};
  const double top_ps[] = {1.0, 1.0, 0.999, 0.95, 0.9, 0.5, 0.1};
  const double min_ps[] = {0.0, 0.0, 0.0, 0.001, 0.05, 0.3};
  const double epsilons[] = {0.0, 0.0, 0.0, 1e-6, 3e-4, 0.02, 1.0};
  const auto pick = [&](const auto& options) { return options[settings.next_u32() % std::size(options)]; };
  std::size_t kept_total = 0;
  std::size_t within_rounding = 0;
  for (std::uint64_t vector = GetParam() * kPerShard; vector < (GetParam() + 1) * kPerShard; ++vector) {
    auto logits = reference::random_logits(kVocabulary, 10'000 + vector, 0.5 + double(vector % 7));
    // Every third vector quantised to a 1/8 grid: many exact ties, as low-bit models produce.
    if (vector % 3 == 0) for (float& z : logits) z = std::round(z * 8) / 8;
    sl::SamplingOptions params;
    params.temperature = pick(temperatures);
    params.top_k = pick(top_ks);
    params.top_p = pick(top_ps);
    params.min_p = pick(min_ps);
    params.epsilon_cutoff = pick(epsilons);
    const auto fast = sl::filter_distribution(logits, params, probs, workspace);
    const auto slow = reference::filter(logits, params);
    if (slow.boundary_within_rounding) {
      ++within_rounding;
      ASSERT_NEAR(double(fast.kept), double(slow.kept), 1.0) << "vector " << vector;
      continue;
    }
    ASSERT_EQ(fast.kept, slow.kept) << "vector " << vector << " T=" << params.temperature << " k=" << params.top_k << " p=" << params.top_p << " min_p=" << params.min_p << " eps=" << params.epsilon_cutoff;
    kept_total += fast.kept;
    for (std::size_t i = 0; i < kVocabulary; ++i) {
      if (!slow.kept_mask[i]) ASSERT_EQ(probs[i], 0.0f) << "vector " << vector << " token " << i;
      ASSERT_NEAR(probs[i], slow.probs[i], 2e-5 * slow.probs[i] + 1e-9) << "vector " << vector << " token " << i;
    }
  }
  EXPECT_GT(kept_total, 250u);  // the settings are not all degenerate
  EXPECT_LT(within_rounding, 25u);  // nine cuts in ten are compared exactly
}

INSTANTIATE_TEST_SUITE_P(Shards, ThousandVocabularies, ::testing::Range(0, 4));

TEST(Filters, TopPDrawsOnALanguageModelsBodyMatchTheGeneralChain) {
  // A Gaussian body (σ 2.5) under 50 high tokens at T 1: top-p's cut falls among thousands of
  // body tokens, where bounds on the tail's mass cannot decide it and the draw sums the total
  // exactly; the same options go down the general chain too. Same token, every step.
  std::mt19937 random(7);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> logits(151936);
  for (auto& z : logits) z = body(random);
  for (int i = 0; i < 50; ++i) logits[random() % logits.size()] = 8.0f + 7.0f * float(random() % 1000) / 1000.0f;
  for (double t : {0.9, 1.0, 1.2}) {
    for (double p : {0.9, 0.95, 0.99}) {
      sl::SamplingOptions fast = params(t, 0, p, 0.0);
      fast.seed = 3;
      ASSERT_TRUE(draws_as_the_general_chain(logits, fast, 200)) << t << " " << p;
    }
  }
}

TEST(Filters, TopPOverTheWholeVocabularyDrawsAsTheGeneralChain) {
  // Heads of a quarter of the vocabulary or more (Zipf logits, a wide body at T 1.5, a flat tail,
  // ties, ascending logits): top-p alone weighs every token in place, places its cut from a sample
  // and solves a tied boundary's length instead of walking it (a tail weight with a full
  // mantissa, e^-2.3, included). The same options down the general chain draw the same token every
  // step.
  const std::size_t v = 151936;
  std::mt19937 random(11);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> zipf(v), wide(v), flat(v, -2.3f), equal(v, 0.37f), ascending(v);
  for (std::size_t i = 0; i < v; ++i) zipf[i] = -float(std::log(double(i + 1)));
  std::shuffle(zipf.begin(), zipf.end(), random);
  for (auto& z : wide) z = body(random);
  for (std::size_t i = 0; i < 100; ++i) flat[i * 1511] = 5.0f + float(i % 9) * 0.3f;
  for (std::size_t i = 0; i < v; ++i) ascending[i] = float(std::round(std::log1p(double(i)) * 16) / 16);
  // Every token the evenly spaced sample reads lies far below the rest: the band it places
  // misses the cut, and the histogram decides.
  std::vector<float> misleading = wide;
  for (std::size_t i = 0; i < v; i += v / 4096) misleading[i] = -30.0f;
  sl::FilterWorkspace workspace;
  for (const auto& [logits, t] : {std::pair{&zipf, 1.0}, {&wide, 1.5}, {&flat, 1.0}, {&equal, 1.0}, {&ascending, 0.8},
                                 {&misleading, 1.5}}) {
    for (double p : {0.3, 0.9, 0.999}) {
      sl::SamplingOptions fast = params(t, 0, p, 0.0);
      fast.seed = 5;
      ASSERT_TRUE(draws_as_the_general_chain(*logits, fast, 60)) << t << " " << p;
      // The draw's kept set (the tokens left with a weight) is the sort-based reference's, token
      // for token, and so is its mass (to float weights): a draw alone seldom sees a boundary a few
      // tokens off.
      const auto kept = sl::detail::select_kept(*logits, fast, workspace, true);
      const auto slow = reference::filter(*logits, fast);
      std::size_t count = 0;
      for (std::size_t i = 0; i < kept.ids.size(); ++i) {
        if (kept.weights[i] == 0.0f) continue;
        ++count;
        ASSERT_TRUE(slow.kept_mask[kept.ids[i]]) << t << " " << p << " " << kept.ids[i];
      }
      ASSERT_EQ(count, slow.kept) << t << " " << p;
      ASSERT_NEAR(kept.kept_weight / *kept.total_weight, slow.kept_mass, 1e-6 * slow.kept_mass) << t << " " << p;  // float weights
    }
  }
}

TEST(Filters, LargeTopKFromASampledBoundMatchesTheReference) {
  // Top-k past the heap's budget first places a bound from an evenly spaced sample of the logits,
  // checked by a count. Inputs where the sample misleads (the sampled positions all high, or all
  // low, and ties) must fall back to the exact selections; every case keeps the reference's set.
  const std::size_t v = 151936;
  const std::size_t stride = v / 4096;
  std::mt19937 random(11);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> language_model(v), sampled_high(v), sampled_low(v), quantised(v);
  for (std::size_t i = 0; i < v; ++i) {
    language_model[i] = body(random);
    const bool sampled = i % stride == 0;
    sampled_high[i] = sampled ? 10.0f + body(random) : body(random);
    sampled_low[i] = sampled ? -10.0f + body(random) : body(random);
    quantised[i] = std::round(body(random) * 2.0f) / 2.0f;
  }
  sl::FilterWorkspace workspace;
  std::vector<float> probs(v);
  for (const auto* logits : {&language_model, &sampled_high, &sampled_low, &quantised}) {
    for (std::int64_t k : {500, 1000, 4096, 20000, 100000}) {
      const sl::SamplingOptions options = params(1.0, k, 1.0, 0.0);
      const auto fast = sl::filter_distribution(*logits, options, probs, workspace);
      const auto slow = reference::filter(*logits, options);
      ASSERT_EQ(fast.kept, slow.kept) << k;
      for (std::size_t i = 0; i < v; ++i) {
        if (!slow.kept_mask[i]) ASSERT_EQ(probs[i], 0.0f) << i;
        ASSERT_NEAR(probs[i], slow.probs[i], 2e-5 * slow.probs[i] + 1e-9) << i;
      }
    }
  }
}

}  // namespace filters_test

namespace filters_test {

// DRY and the logit bias on the fast path (applied with the penalties to a copy of the logits, or
// to the tokens the masks gather) against the general chain: the same distribution and the same
// token at every step, for DRY alone and with the penalties (which stay on the chain), with cuts
// and a bias and under a mask (which take the fast path).
TEST(Filters, DryAndTheBiasOnTheFastPathDrawAsTheGeneralChain) {
  std::mt19937 random(11);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> logits(151936);
  for (auto& z : logits) z = body(random);
  // A repetitive history over 300 ids: repeats of every length for DRY to find, breakers among them.
  std::vector<std::int32_t> history;
  for (int i = 0; i < 2048; ++i) history.push_back(std::int32_t(random() % 300) / (i % 7 == 0 ? 1 : 3));
  for (int i = 0; i < 4; ++i) history.insert(history.end(), history.end() - 40, history.end() - 20);
  // The tokens DRY penalises weigh: some of the history's are the likeliest.
  for (int i = 0; i < 300; i += 3) logits[std::size_t(i)] = 9.0f + float(i % 17) * 0.2f;
  const std::vector<std::int32_t> breakers = {5, 13};
  const std::vector<std::int32_t> bias_ids = {3, 9, 150000};
  const std::vector<float> bias_values = {2.5f, -4.0f, 30.0f};
  std::vector<std::int32_t> allowed;
  for (std::int32_t i = 0; i < 151936; i += 3) allowed.push_back(i);
  std::vector<float> fast_probs(logits.size()), chain_probs(logits.size());
  std::int32_t penalised = 0;
  for (int variant = 0; variant < 4; ++variant) {
    sl::SamplingOptions options;
    options.seed = 21;
    options.generated_ids = history;
    options.dry_multiplier = 0.8;
    options.dry_sequence_breakers = breakers;
    if (variant >= 1) options.repetition_penalty = 1.3, options.presence_penalty = 0.2;
    if (variant >= 2) options.top_k = 40, options.top_p = 0.95, options.min_p = 0.02, options.temperature = 0.8;
    // A logit bias, which a cut lets take the fast path too (on the copy, or the gathered tokens).
    if (variant >= 2) options.logit_bias_ids = bias_ids, options.logit_bias_values = bias_values;
    if (variant == 3) options.allowed_tokens = allowed;
    // Untruncated, DRY stays on the general chain (its tokens unchanged); a cut takes the fast path.
    // (A mask, variant 3, is taken by the fast input, which gathers the tokens it allows.)
    if (variant < 3) ASSERT_EQ(sl::detail::needs_general_chain(options), variant < 2) << variant;
    sl::PenaltyScratch scratch;
    const auto dry = sl::dry_penalties(options, logits.size(), scratch);
    ASSERT_FALSE(dry.empty()) << variant;  // DRY has a token to penalise
    penalised = dry.front().token;
    const sl::SamplingOptions chain = on_the_general_chain(options);
    sl::FilterWorkspace fast_workspace, chain_workspace;
    const auto fast = sl::filter_distribution(logits, options, fast_probs, fast_workspace);
    const auto general = sl::filter_distribution(logits, chain, chain_probs, chain_workspace);
    ASSERT_EQ(fast.kept, general.kept) << variant;
    for (std::size_t i = 0; i < logits.size(); ++i) ASSERT_NEAR(fast_probs[i], chain_probs[i], 2e-6 * chain_probs[i] + 1e-12) << variant << " " << i;
    ASSERT_TRUE(draws_as_the_general_chain(logits, options, 100)) << variant;
  }
  // Negative control: without DRY the penalised token's probability differs.
  sl::SamplingOptions plain;
  plain.seed = 21;
  std::vector<float> with_dry(logits.size());
  sl::FilterWorkspace workspace;
  plain.generated_ids = history, plain.dry_sequence_breakers = breakers;
  sl::filter_distribution(logits, plain, fast_probs, workspace);
  plain.dry_multiplier = 0.8;
  sl::filter_distribution(logits, plain, with_dry, workspace);
  EXPECT_LT(with_dry[std::size_t(penalised)], 0.9f * fast_probs[std::size_t(penalised)]);
}

TEST(TemperedDistribution, GivesTheSurprisalsMomentsAndTheTokensForAMass) {
  sl::PenaltyScratch penalties;
  sl::CoverWorkspace cover;
  sl::SamplingOptions options;
  // 151,936 equal logits: every surprisal is log2 V, so the variance, computed around the mean,
  // is 0 to rounding.
  std::vector<float> probs(151936);
  const auto flat = sl::tempered_distribution(std::vector<float>(151936, 0.5f), options, 0.9, probs, penalties, cover);
  EXPECT_NEAR(flat.entropy_bits, std::log2(151936.0), 1e-6);
  EXPECT_LT(flat.surprisal_variance_bits, 1e-9);
  EXPECT_EQ(flat.tokens_for_mass, 136743u);  // ⌈0.9 · V⌉
  // Two tokens at 1/4 and 3/4 among −∞ (an odd length, for the scalar tail), at T 2: the logits
  // are 2 ln p.
  std::vector<float> two(1001, -std::numeric_limits<float>::infinity());
  two[3] = float(2.0 * std::log(0.25));
  two[1000] = float(2.0 * std::log(0.75));
  options.temperature = 2.0;
  probs.resize(two.size());
  const auto pair = sl::tempered_distribution(two, options, 0.5, probs, penalties, cover);
  const double mean = -(0.25 * std::log2(0.25) + 0.75 * std::log2(0.75));
  EXPECT_NEAR(pair.entropy_bits, mean, 1e-6);
  EXPECT_NEAR(pair.surprisal_variance_bits, 0.25 * std::pow(2.0 - mean, 2) + 0.75 * std::pow(-std::log2(0.75) - mean, 2), 1e-6);
  EXPECT_NEAR(probs[3], 0.25f, 1e-6f);
  EXPECT_EQ(pair.tokens_for_mass, 1u);
  EXPECT_EQ(sl::tempered_distribution(two, options, 0.8, probs, penalties, cover).tokens_for_mass, 2u);
}

}  // namespace filters_test

