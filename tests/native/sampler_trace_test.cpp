// The traced draws the page animates are the samplers' own: each trace's token is the token
// sample_probs draws for that key and index, and the numbers shown lead to it by the method's rule.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "run_experiment.hpp"
#include "sampling_lab/samplers.hpp"

namespace sampler_trace_test {

namespace sl = sampling_lab;

namespace {
const std::vector<std::vector<float>> kDistributions = {
    {0.5f, 0.25f, 0.15f, 0.07f, 0.03f},
    {0.02f, 0.3f, 0.01f, 0.12f, 0.2f, 0.05f, 0.04f, 0.06f, 0.08f, 0.03f, 0.07f, 0.02f},
};

std::size_t argmax(const sl::Json& values) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < values.size(); ++i) best = values[i].get<double>() > values[best].get<double>() ? i : best;
  return best;
}
}  // namespace

TEST(SamplerTrace, EachTracedTokenIsTheSamplersTokenForThatKey) {
  constexpr std::uint64_t kFirst = 37;
  constexpr std::size_t kTraced = 300;
  for (const auto& p : kDistributions) {
    for (const std::uint64_t seed : {0u, 7u}) {
      std::uint64_t stream = 0;
      for (const auto method : sl::kSamplingMethods) {
        std::vector<std::int32_t> drawn(kFirst + kTraced);
        sl::SamplerWorkspace workspace;
        ASSERT_TRUE(sl::sample_probs(p, method, {seed, stream}, drawn, workspace));
        const auto trace = run("sampler-trace", {{"p", p}, {"method", sl::method_name(method)}, {"seed", seed},
                                                 {"stream", stream}, {"first", kFirst}, {"n", kTraced}});
        ASSERT_EQ(trace["draws"].size(), kTraced);
        for (std::size_t j = 0; j < kTraced; ++j) {
          const auto& draw = trace["draws"][j];
          const auto token = draw["token"].get<std::size_t>();
          ASSERT_EQ(draw["index"].get<std::uint64_t>(), kFirst + j);
          ASSERT_EQ(draw["token"].get<std::int32_t>(), drawn[kFirst + j])
              << sl::method_name(method) << " seed " << seed << " draw " << kFirst + j;
          // The numbers shown give the token by the chapter's rule.
          switch (method) {
            case sl::SamplingMethod::kInverseCdf: {
              const double u = draw["u"].get<double>();
              const auto& cdf = trace["cdf"];
              EXPECT_GT(cdf[token].get<double>(), u - 1e-12);
              if (token > 0) EXPECT_LE(cdf[token - 1].get<double>(), u + 1e-12);
              break;
            }
            case sl::SamplingMethod::kGumbelMax:
              EXPECT_EQ(argmax(draw["noisyLogits"]), token);
              break;
            case sl::SamplingMethod::kExponentialRace: {
              sl::Json negated = sl::Json::array();
              for (const auto& a : draw["arrivals"]) negated.push_back(-a.get<double>());
              EXPECT_EQ(argmax(negated), token);
              break;
            }
            case sl::SamplingMethod::kAlias: {
              const auto column = draw["column"].get<std::size_t>();
              const bool keep = draw["coin"].get<double>() < trace["aliasTable"]["threshold"][column].get<double>();
              EXPECT_EQ(token, keep ? column : trace["aliasTable"]["alias"][column].get<std::size_t>());
              break;
            }
          }
        }
        ++stream;
      }
    }
  }
}

TEST(SamplerTrace, AliasTableHoldsEachTokensMass) {
  // Column i gives its own token with probability threshold[i] and its alias otherwise; each
  // column is chosen with probability 1/V, so token t's mass is (threshold[t] + Σ_{alias = t} (1 − threshold)) / V.
  const auto& p = kDistributions[1];
  const auto trace = run("sampler-trace", {{"p", p}, {"method", "alias"}, {"n", 1}});
  const auto& table = trace["aliasTable"];
  std::vector<double> mass(p.size(), 0.0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double keep = table["threshold"][i].get<double>();
    mass[i] += keep / double(p.size());
    mass[table["alias"][i].get<std::size_t>()] += (1 - keep) / double(p.size());
  }
  double total = 0;
  for (const float pi : p) total += pi;
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(mass[i], p[i] / total, 1e-12);
}

TEST(SamplerTrace, RejectsVocabulariesBeyondTheSmallPathAndOverlongTraces) {
  auto outcome = sl::run_experiment("sampler-trace", {{"p", std::vector<double>(sl::kMaxTraceVocabulary + 1, 1.0)}});
  ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(outcome));
  EXPECT_EQ(std::get<sl::ArgumentError>(outcome).argument, "p");
  outcome = sl::run_experiment("sampler-trace", {{"p", std::vector<double>(4000, 1.0)}, {"n", 1000}});
  ASSERT_TRUE(std::holds_alternative<sl::ArgumentError>(outcome));
  EXPECT_EQ(std::get<sl::ArgumentError>(outcome).argument, "n");
}

TEST(LogSpace, ProductsUnderflowToZeroWhileTheLogSumDoesNot) {
  const auto result = run("log-space", {{"tokenProb", 0.1}, {"length", 400}});
  EXPECT_EQ(result["productFloat32"].get<double>(), 0.0);
  EXPECT_EQ(result["productFloat64"].get<double>(), 0.0);
  EXPECT_NEAR(result["logSum"].get<double>(), 400 * std::log(0.1), 1e-9);
  EXPECT_NEAR(result["log10Prob"].get<double>(), -400.0, 1e-9);
  // 10^-324 is below half the smallest subnormal double (4.9·10^-324); 10^-323 is not.
  EXPECT_EQ(result["float64ZeroAt"].get<int>(), 324);
  const int single_zero = result["float32ZeroAt"].get<int>();
  EXPECT_LT(single_zero, 50);  // float's smallest subnormal is 1.4·10^-45
  const auto before = run("log-space", {{"tokenProb", 0.1}, {"length", single_zero - 1}});
  EXPECT_GT(before["productFloat32"].get<double>(), 0.0);
  EXPECT_TRUE(before["float32ZeroAt"].is_null());
  const auto short_run = run("log-space", {{"tokenProb", 0.5}, {"length", 20}});
  EXPECT_EQ(short_run["productFloat64"].get<double>(), std::ldexp(1.0, -20));
  EXPECT_TRUE(short_run["float64ZeroAt"].is_null());
}

}  // namespace sampler_trace_test
