#include "sampling_lab/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <vector>

namespace statistics_test {

namespace sl = sampling_lab;

TEST(ChiSquare, KnownValueAndPValue) {
  // 100 draws over 4 equally likely categories: chi2 = (4 + 0 + 4 + 0) / 25 = 0.32, dof 3.
  const std::vector<std::uint64_t> observed = {27, 25, 23, 25};
  const auto result = sl::chi_square(observed, std::vector<float>(4, 0.25f));
  EXPECT_NEAR(result.statistic, 0.32, 1e-9);
  EXPECT_EQ(result.dof, 3u);
  EXPECT_NEAR(result.p_value, 0.95619, 1e-4);  // scipy.stats.chi2.sf(0.32, 3)
}

TEST(ChiSquare, PoolsSmallCategoriesAndRefutesImpossibleDraws) {
  std::vector<float> p(1000, 0.0001f);
  p[0] = 0.9001f;
  std::vector<std::uint64_t> observed(1000, 0);
  observed[0] = 900;
  for (int i = 1; i <= 100; ++i) observed[std::size_t(i)] = 1;
  const auto pooled = sl::chi_square(observed, p);
  EXPECT_EQ(pooled.dof, 1u);  // the head and one pooled tail bin
  EXPECT_GT(pooled.p_value, 0.5);
  const auto impossible = sl::chi_square(std::vector<std::uint64_t>{10, 1}, std::vector<float>{1.0f, 0.0f});
  EXPECT_EQ(impossible.p_value, 0.0);
}

TEST(Frequencies, CountsAndMaxDeviation) {
  const std::vector<std::int32_t> draws = {0, 1, 1, 2, 1, 0, 1, 1};
  const auto observed = sl::counts(draws, 4);
  EXPECT_EQ(observed, (std::vector<std::uint64_t>{2, 5, 1, 0}));
  const auto f = sl::frequencies(observed);
  EXPECT_EQ(f, (std::vector<double>{0.25, 0.625, 0.125, 0.0}));
  EXPECT_NEAR(sl::max_deviation(f, std::vector<float>{0.25f, 0.5f, 0.25f, 0.0f}), 0.125, 1e-7);
}

TEST(StandardError, EvalSetOf200QuestionsAt70Percent) {
  EXPECT_NEAR(sl::standard_error(0.7, 200), 0.0324, 1e-4);  // "about 3 percentage points"
  EXPECT_NEAR(sl::standard_error(0.3, 100), 0.0458, 1e-4);  // the chapter's n = 100 theory
  const auto interval = sl::wilson_interval(140, 200, 1.959963984540054);
  EXPECT_NEAR(interval.low, 0.63321, 1e-5);  // by hand: centre 0.69623, half-width 0.06302
  EXPECT_NEAR(interval.high, 0.75925, 1e-5);
  EXPECT_NEAR(sl::sample_std(std::vector<double>{1, 2, 3, 4}), std::sqrt(5.0 / 3.0), 1e-12);
}

// The closed-form tail against Boost.Math's incomplete gamma (which the WebAssembly module no
// longer links): relative error below 1e-9 from the body to 1e-250 deep in the tail, at degrees
// of freedom from 1 to a vocabulary's.
TEST(ChiSquareTail, MatchesBoostMathFromTheBodyToTheDeepTail) {
  for (const std::size_t dof : {1u, 2u, 3u, 4u, 5u, 10u, 51u, 100u, 1001u, 20000u, 151935u}) {
    const double d = double(dof);
    for (double z = -8.0; z <= 60.0; z += 0.5) {
      const double statistic = std::max(1e-6, d + z * std::sqrt(2.0 * d) + (z > 30 ? (z - 30) * d : 0.0));
      const double expected = boost::math::cdf(boost::math::complement(boost::math::chi_squared(d), statistic));
      if (expected < 1e-250) continue;
      EXPECT_NEAR(sl::chi_square_tail(dof, statistic) / expected, 1.0, 1e-9) << "dof " << dof << ", statistic " << statistic;
    }
  }
  EXPECT_EQ(sl::chi_square_tail(3, 0.0), 1.0);
}

}  // namespace statistics_test
