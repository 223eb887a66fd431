#include "sampling_lab/samplers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <new>
#include <numeric>
#include <tuple>
#include <vector>

#include "reference.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sl = sampling_lab;

// Counts heap allocations, to show the per-token path makes none once warm.
static std::size_t g_allocations = 0;
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace samplers_test {

namespace {
// Tests reject at p < 1e-6: a correct sampler fails one check in a million.
constexpr double kAlpha = 1e-6;

std::vector<float> normalised(std::vector<double> weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<float> p(weights.size());
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = float(weights[i] / total);
  return p;
}

std::vector<std::vector<float>> test_distributions() {
  std::vector<std::vector<float>> all = {
      {0.5f, 0.25f, 0.15f, 0.07f, 0.03f},  // the chapter's
      {0.5f, 0.5f},
      {1.0f},
      {0.999f, 0.001f},
      {0.0f, 0.3f, 0.0f, 0.7f, 0.0f},  // zeros must never be drawn
  };
  std::vector<double> zipf(1000), uniform(64, 1.0), geometric(40), random(300);
  for (std::size_t i = 0; i < zipf.size(); ++i) zipf[i] = 1.0 / double(i + 1);
  for (std::size_t i = 0; i < geometric.size(); ++i) geometric[i] = std::pow(0.7, double(i));
  sl::Philox rng(99);
  for (double& w : random) w = rng.exponential();
  all.push_back(normalised(zipf));
  all.push_back(normalised(uniform));
  all.push_back(normalised(geometric));
  all.push_back(normalised(random));
  return all;
}

sl::ChiSquare fit(const std::vector<std::int32_t>& draws, std::span<const float> p) {
  return sl::chi_square(sl::counts(draws, p.size()), p);
}
}  // namespace

class EachMethod : public ::testing::TestWithParam<sl::SamplingMethod> {};

TEST_P(EachMethod, PassesChiSquareOnTenDistributions) {
  sl::SamplerWorkspace workspace;
  const auto distributions = test_distributions();
  std::uint64_t seed = 1;
  for (const auto& p : distributions) {
    std::vector<std::int32_t> draws(200'000);
    sl::sample_probs(p, GetParam(), {seed++, 0}, draws, workspace);
    const auto result = fit(draws, p);
    EXPECT_GT(result.p_value, kAlpha) << "V=" << p.size() << " chi2=" << result.statistic;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i] == 0.0f) EXPECT_EQ(sl::counts(draws, p.size())[i], 0u) << i;
    }
  }
  EXPECT_EQ(distributions.size(), 9u);
}

TEST_P(EachMethod, PassesChiSquareOnTheVocabulary) {
  // The tenth distribution: 151,936 synthetic logits at T = 1 (123 tokens carry 90 %).
  const auto logits = sl::synthetic_logits();
  std::vector<float> p(logits.size());
  sl::softmax(logits, 1.0, p);
  // O(V) per draw for Gumbel-max and the race: fewer draws, still dozens of χ² bins.
  const bool per_draw_scan = GetParam() == sl::SamplingMethod::kGumbelMax ||
                             GetParam() == sl::SamplingMethod::kExponentialRace;
  std::vector<std::int32_t> draws(per_draw_scan ? 2'000 : 400'000);
  sl::SamplerWorkspace workspace;
  sl::sample_logits(logits, 1.0, GetParam(), {7, 3}, draws, workspace);
  const auto result = fit(draws, p);
  EXPECT_GT(result.p_value, kAlpha) << result.statistic << " dof " << result.dof;
  EXPECT_GE(result.dof, 20u);
}

TEST_P(EachMethod, RejectsADeliberatelyWrongDistribution) {
  // Draws from p tested against a p' 2 % off in two entries: the test has power.
  const std::vector<float> p = {0.5f, 0.25f, 0.15f, 0.07f, 0.03f};
  const std::vector<float> wrong = {0.49f, 0.26f, 0.15f, 0.07f, 0.03f};
  std::vector<std::int32_t> draws(200'000);
  sl::SamplerWorkspace workspace;
  sl::sample_probs(p, GetParam(), {5, 0}, draws, workspace);
  EXPECT_LT(fit(draws, wrong).p_value, kAlpha);
}

TEST_P(EachMethod, SameSeedSameDrawsOtherSeedOtherDraws) {
  const std::vector<float> logits = {1.0f, 0.5f, 0.2f, -1.0f, 0.0f, 2.0f};
  std::vector<std::int32_t> a(1000), b(1000), c(1000), d(1000);
  sl::SamplerWorkspace workspace;
  sl::sample_logits(logits, 0.8, GetParam(), {42, 0}, a, workspace);
  sl::sample_logits(logits, 0.8, GetParam(), {42, 0}, b, workspace);
  sl::sample_logits(logits, 0.8, GetParam(), {43, 0}, c, workspace);
  sl::sample_logits(logits, 0.8, GetParam(), {42, 1}, d, workspace);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
}

TEST_P(EachMethod, TemperatureZeroIsArgmax) {
  std::vector<std::int32_t> draws(50);
  sl::SamplerWorkspace workspace;
  sl::sample_logits(std::vector<float>{1, 3, 3, 0}, 0.0, GetParam(), {1, 0}, draws, workspace);
  EXPECT_EQ(draws, std::vector<std::int32_t>(50, 1));
}

INSTANTIATE_TEST_SUITE_P(Samplers, EachMethod, ::testing::ValuesIn(sl::kSamplingMethods),
                         [](const auto& info) {
                           std::string name(sl::method_name(info.param));
                           std::erase(name, '-');
                           return name;
                         });

TEST(Methods, NamesRoundTrip) {
  for (const auto method : sl::kSamplingMethods) {
    EXPECT_EQ(sl::parse_method(sl::method_name(method)), method);
  }
  EXPECT_FALSE(sl::parse_method("multinomial"));
}

TEST(SampleToken, NeverReturnsAFilteredTokenAndFollowsTheFilteredDistribution) {
  const auto logits = reference::random_logits(151936, 17, 3.0);
  sl::SamplingOptions params;
  params.temperature = 0.8;
  params.top_k = 200;
  params.top_p = 0.9;
  params.min_p = 0.01;
  params.seed = 2024;
  std::vector<float> filtered(logits.size());
  sl::FilterWorkspace workspace;
  const auto result = sl::filter_distribution(logits, params, filtered, workspace);
  ASSERT_GT(result.kept, 5u);
  std::vector<std::int32_t> draws(100'000);
  for (std::size_t i = 0; i < draws.size(); ++i) {
    params.step = i;
    draws[i] = sl::sample_token(logits, params, workspace);
    ASSERT_GT(filtered[std::size_t(draws[i])], 0.0f) << "drew a filtered token at step " << i;
  }
  EXPECT_GT(fit(draws, filtered).p_value, kAlpha);
}

TEST(SampleToken, DependsOnlyOnSeedStreamAndStep) {
  const auto logits = reference::random_logits(5000, 3, 2.0);
  sl::SamplingOptions params;
  params.seed = 9;
  params.stream = 4;
  params.step = 17;
  sl::SamplingOptions unrelated;
  unrelated.seed = 1;
  unrelated.stream = 1;
  unrelated.step = 3;
  sl::FilterWorkspace workspace;
  const auto token = sl::sample_token(logits, params, workspace);
  sl::sample_token(logits, unrelated, workspace);  // unrelated call in between
  EXPECT_EQ(sl::sample_token(logits, params, workspace), token);
  params.temperature = 0.0;
  EXPECT_EQ(sl::sample_token(logits, params, workspace), std::int32_t(sl::argmax(logits)));
}

TEST(SampleToken, AllocatesNothingOnceWarm) {
  const auto logits = reference::random_logits(151936, 8, 3.0);
  const std::vector<std::int32_t> ids = {3, 3, 99, 1000};
  sl::FilterWorkspace workspace;
  for (const auto& [k, p, min_p] : {std::tuple{0, 1.0, 0.0}, {50, 1.0, 0.0}, {0, 0.9, 0.0},
                                    {0, 1.0, 0.05}, {50, 0.95, 0.05}, {5000, 0.9, 0.0}}) {
    sl::SamplingOptions params;
    params.temperature = 0.7;
    params.top_k = k;
    params.top_p = p;
    params.min_p = min_p;
    params.repetition_penalty = 1.1;
    params.presence_penalty = 0.2;
    params.frequency_penalty = 0.1;
    params.generated_ids = ids;
    params.seed = 1;
    sl::sample_token(logits, params, workspace);  // warm-up sizes the buffers
    const std::size_t before = g_allocations;
    for (params.step = 1; params.step <= 20; ++params.step) sl::sample_token(logits, params, workspace);
    EXPECT_EQ(g_allocations, before) << "k=" << k << " p=" << p << " min_p=" << min_p;
  }
}

}  // namespace samplers_test
