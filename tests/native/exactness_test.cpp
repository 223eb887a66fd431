// Exactness where it is hardest: draws from heavy-tailed 151,936-token distributions counted per
// rank band, deep tail included, for every method and for sample_token with each filter; and
// every method on 20 distributions by χ². A small distribution hides tail bugs: the float32
// noise this replaced drew the deep tail 18 times too often (Gumbel-max) or never (the race).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "reference.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace exactness_test {

namespace sl = sampling_lab;

namespace {

constexpr std::size_t kVocabulary = sl::kQwen3Vocabulary;
constexpr std::size_t kBandEdges[] = {0, 1, 5, 40, 1000, 10'000, kVocabulary};
constexpr std::size_t kBands = std::size(kBandEdges) - 1;

// Three heavy-tailed vocabularies: a Gaussian bulk under 40 boosted tokens; the synthetic vector
// (a Zipf head of 100 over a Gaussian tail); and a flat tail of 151,928 near-equal tokens under a
// head of 8, whose tail beyond rank 10,000 holds ≥ 1e-3 of the mass at every temperature here.
std::vector<float> vocabulary(int which) {
  if (which == 1) return sl::synthetic_logits();
  std::vector<float> logits(kVocabulary);
  sl::Philox rng(2026, std::uint64_t(which));
  if (which == 0) {
    for (float& z : logits) z = float(2.5 * rng.normal());
    for (std::size_t r = 0; r < 40; ++r) logits[(r * 3797 + 11) % kVocabulary] = float(14.0 - 0.5 * double(r));
  } else {
    for (float& z : logits) z = float(-8.2 + 0.05 * rng.normal());
    for (std::size_t r = 0; r < 8; ++r) logits[(r * 18979 + 5) % kVocabulary] = float(-0.5 * double(r));
  }
  return logits;
}

// softmax(z / T) in double.
std::vector<double> exact_probs(const std::vector<float>& logits, double temperature) {
  const double max = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double total = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) total += p[i] = std::exp((logits[i] - max) / temperature);
  for (double& x : p) x /= total;
  return p;
}

struct Bands {
  std::vector<double> expected;  // probability of each rank band
  std::vector<std::size_t> band_of;  // token -> band
};

Bands bands_of(const std::vector<double>& p) {
  std::vector<std::uint32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return p[a] > p[b]; });
  Bands bands{std::vector<double>(kBands, 0.0), std::vector<std::size_t>(p.size())};
  for (std::size_t b = 0; b < kBands; ++b) {
    for (std::size_t r = kBandEdges[b]; r < kBandEdges[b + 1]; ++r) {
      bands.band_of[order[r]] = b;
      bands.expected[b] += p[order[r]];
    }
  }
  return bands;
}

// Every band's count within 4 standard errors of n·P, and the pooled χ² of the tokens.
void expect_exact(const std::vector<std::int32_t>& draws, const std::vector<double>& p, const std::string& label) {
  const Bands bands = bands_of(p);
  std::vector<double> observed(kBands, 0.0);
  for (const auto token : draws) observed[bands.band_of[std::size_t(token)]] += 1.0;
  const double n = double(draws.size());
  for (std::size_t b = 0; b < kBands; ++b) {
    const double mean = n * bands.expected[b];
    const double se = std::sqrt(n * bands.expected[b] * (1.0 - bands.expected[b]));
    EXPECT_LE(std::abs(observed[b] - mean), 4.0 * se + 0.5)
        << label << ": ranks [" << kBandEdges[b] << ", " << kBandEdges[b + 1] << ") drawn " << observed[b]
        << " times, expected " << mean << " ± " << se;
  }
  const std::vector<float> probs(p.begin(), p.end());
  const auto fit = sl::chi_square(sl::counts(draws, p.size()), probs);
  EXPECT_GT(fit.p_value, 1e-6) << label << ": χ² " << fit.statistic << " on " << fit.dof << " dof";
}

struct Case {
  int vocabulary;
  double temperature;
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  return "vocabulary" + std::to_string(info.param.vocabulary) + "_T" + std::to_string(int(info.param.temperature * 10));
}

const Case kCases[] = {{0, 0.5}, {0, 1.0}, {0, 1.5}, {1, 0.5}, {1, 1.0}, {1, 1.5}, {2, 0.5}, {2, 1.0}, {2, 1.5}};

class RankBands : public ::testing::TestWithParam<Case> {};

TEST_P(RankBands, InverseCdfAndAlias) {
  const auto logits = vocabulary(GetParam().vocabulary);
  const auto p = exact_probs(logits, GetParam().temperature);
  sl::SamplerWorkspace workspace;
  for (const auto method : {sl::SamplingMethod::kInverseCdf, sl::SamplingMethod::kAlias}) {
    std::vector<std::int32_t> draws(1'000'000);
    sl::sample_logits(logits, GetParam().temperature, method, {11, 0}, draws, workspace);
    expect_exact(draws, p, std::string(sl::method_name(method)));
  }
}

TEST_P(RankBands, GumbelMaxAndTheExponentialRace) {
  const auto logits = vocabulary(GetParam().vocabulary);
  const auto p = exact_probs(logits, GetParam().temperature);
  sl::SamplerWorkspace workspace;
  for (const auto method : {sl::SamplingMethod::kGumbelMax, sl::SamplingMethod::kExponentialRace}) {
    std::vector<std::int32_t> draws(20'000);
    sl::sample_logits(logits, GetParam().temperature, method, {12, std::uint64_t(method)}, draws, workspace);
    expect_exact(draws, p, std::string(sl::method_name(method)));
  }
}

INSTANTIATE_TEST_SUITE_P(HeavyTails, RankBands, ::testing::ValuesIn(kCases), name_of);

// sample_token with each filter (none, top-k 5000, top-p 0.999, min-p 1e-5) against the filtered
// distribution it draws from.
class SampleTokenBands : public ::testing::TestWithParam<std::tuple<Case, int>> {};

TEST_P(SampleTokenBands, FollowTheFilteredDistribution) {
  const auto [which, filter] = GetParam();
  const auto logits = vocabulary(which.vocabulary);
  sl::FilterWorkspace workspace;
  sl::SamplingOptions options;
  options.temperature = which.temperature;
  if (filter == 1) options.top_k = 5000;
  if (filter == 2) options.top_p = 0.999;
  if (filter == 3) options.min_p = 1e-5;
  options.seed = 13;
  options.stream = std::uint64_t(filter);
  std::vector<float> filtered(logits.size());
  sl::filter_distribution(logits, options, filtered, workspace);
  std::vector<std::int32_t> draws(4000);
  for (std::size_t step = 0; step < draws.size(); ++step) {
    options.step = step;
    draws[step] = sl::sample_token(logits, options, workspace);
  }
  expect_exact(draws, std::vector<double>(filtered.begin(), filtered.end()), "sample_token");
}

INSTANTIATE_TEST_SUITE_P(HeavyTails, SampleTokenBands, ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Range(0, 4)),
                         [](const auto& info) {
                           const Case which = std::get<0>(info.param);
                           return "vocabulary" + std::to_string(which.vocabulary) + "_T" + std::to_string(int(which.temperature * 10)) +
                                  "_filter" + std::to_string(std::get<1>(info.param));
                         });

TEST(RankBands, TheFlatTailHoldsAThousandthBeyondRank10000) {
  for (const double t : {0.5, 1.0, 1.5}) {
    EXPECT_GE(bands_of(exact_probs(vocabulary(2), t)).expected[kBands - 1], 1e-3) << t;
  }
}

// The band test has the power to see the bug it was written for: the race on float32 uniforms
// (24 bits, u = (⌊w / 2^8⌋ + ½) / 2^24, as before) never draws the flat tail's deep ranks.
TEST(RankBands, RejectTheFloat32Race) {
  const auto logits = vocabulary(2);
  const auto p = exact_probs(logits, 0.5);
  const Bands bands = bands_of(p);
  sl::Philox rng(14);
  double deep = 0.0;
  const int n = 5'000;
  for (int d = 0; d < n; ++d) {
    std::size_t winner = 0;
    double best = 0.0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      const float u = (float(rng.next_u32() >> 8) + 0.5f) * 0x1p-24f;
      // −log u ≥ 1 − u, so a token with 1 − u ≥ p_i / best cannot win: its log is skipped (with
      // a margin for logf's rounding). The draws and the winner are those of the plain race.
      if (double(1.0f - u) * best >= p[i] * (1.0 + 1e-6)) continue;
      const double score = p[i] / double(-std::log(u));
      if (score > best) best = score, winner = i;
    }
    deep += bands.band_of[winner] == kBands - 1;
  }
  const double expected = n * bands.expected[kBands - 1];
  EXPECT_GT(std::abs(deep - expected), 4.0 * std::sqrt(expected)) << deep << " vs " << expected;
}

// Every method on 20 distributions from 2 to 151,936 categories; at p > 1e-4 each, the family of
// 80 tests rejects a correct sampler less than 1 % of the time (Bonferroni).
std::vector<float> normalised(std::vector<double> weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<float> p(weights.size());
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = float(weights[i] / total);
  return p;
}

std::vector<float> family_member(int k) {
  constexpr std::size_t kSizes[] = {2, 3, 5, 8, 13, 30, 64, 100, 300, 1000,
                                    2000, 4096, 5000, 10'000, 30'000, 65'536, 100'000, 131'072, 151'936, 151'936};
  const std::size_t v = kSizes[k];
  sl::Philox rng(300, std::uint64_t(k));
  std::vector<double> w(v);
  for (std::size_t i = 0; i < v; ++i) {
    switch (k % 5) {
      case 0: w[i] = 1.0; break;                                   // uniform
      case 1: w[i] = 1.0 / double(i + 1); break;                   // Zipf
      case 2: w[i] = std::pow(0.9, double(i % 200)); break;         // geometric, repeated
      case 3: w[i] = rng.exponential(); break;                     // random
      default: w[i] = std::exp(3.0 * rng.normal()); break;          // log-normal, heavy tail
    }
    if (i % 7 == 3 && v > 4) w[i] = 0.0;  // zeros must never be drawn
  }
  return normalised(w);
}

class Family : public ::testing::TestWithParam<int> {};

TEST_P(Family, EveryMethodPassesChiSquare) {
  const auto p = family_member(GetParam());
  sl::SamplerWorkspace workspace;
  for (const auto method : sl::kSamplingMethods) {
    const bool per_token = method == sl::SamplingMethod::kGumbelMax || method == sl::SamplingMethod::kExponentialRace;
    std::vector<std::int32_t> draws(per_token && p.size() > 4096 ? 20'000 : 200'000);
    sl::sample_probs(p, method, {400, std::uint64_t(GetParam())}, draws, workspace);
    const auto observed = sl::counts(draws, p.size());
    const auto fit = sl::chi_square(observed, p);
    EXPECT_GT(fit.p_value, 1e-4) << sl::method_name(method) << " V=" << p.size() << " χ²=" << fit.statistic << " dof " << fit.dof;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i] == 0.0f) ASSERT_EQ(observed[i], 0u) << sl::method_name(method) << " drew zero-probability token " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TwentyDistributions, Family, ::testing::Range(0, 20));

}  // namespace

}  // namespace exactness_test
