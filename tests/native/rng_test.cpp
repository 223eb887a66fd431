#include "sampling_lab/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace rng_test {

using sampling_lab::Philox;
using sampling_lab::philox4x32_10;
using sampling_lab::PhiloxCounter;

// Random123's published known-answer vectors (tests/kat_vectors).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, StreamIsTheBlockSequence) {
  Philox rng(0x299f31d0a4093822ULL, 7);
  for (std::uint32_t block = 0; block < 3; ++block) {
    const auto expected = philox4x32_10({block, 0, 7, 0}, {0xa4093822, 0x299f31d0});
    for (const auto word : expected) EXPECT_EQ(rng.next_u32(), word);
  }
}

TEST(Philox, SeedsAndStreamsDiffer) {
  Philox a(1, 0), b(2, 0), c(1, 1), a_again(1, 0);
  int same_seed_matches = 0, other_seed_matches = 0, other_stream_matches = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.next_u32();
    same_seed_matches += x == a_again.next_u32();
    other_seed_matches += x == b.next_u32();
    other_stream_matches += x == c.next_u32();
  }
  EXPECT_EQ(same_seed_matches, 1000);
  EXPECT_LT(other_seed_matches, 3);
  EXPECT_LT(other_stream_matches, 3);
}

TEST(Philox, UniformsStayInsideTheOpenInterval) {
  Philox rng(3);
  double sum = 0.0;
  const int n = 1'000'000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  // Mean of n uniforms has standard error sqrt(1/12/n).
  EXPECT_NEAR(sum / n, 0.5, 4.0 * std::sqrt(1.0 / 12.0 / n));
  // The extreme words too, with double's resolution at both ends.
  EXPECT_EQ(sampling_lab::to_open_unit(0, 0), 0.5 * 0x1p-52);
  EXPECT_EQ(sampling_lab::to_open_unit(0xffffffffu, 0xffffffffu), 1.0 - 0.5 * 0x1p-52);
  EXPECT_LT(sampling_lab::to_open_unit(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_TRUE(std::isfinite(std::log(-std::log(sampling_lab::to_open_unit(0xffffffffu, 0xffffffffu)))));
}

TEST(Philox, ExponentialKeepsFullPrecisionAtBothEnds) {
  // U = (w + ½) / 2^64 near 1: E = −log1p(−(1 − U)) ≈ 1 − U, to double precision.
  EXPECT_DOUBLE_EQ(sampling_lab::exponential_from(0xffffffffu, 0xffffffffu), 0.5 * 0x1p-64);
  EXPECT_DOUBLE_EQ(sampling_lab::exponential_from(0xffffffffu, 0xfffffffdu), 2.5 * 0x1p-64);
  // Near 0: E = −ln U, U = ½ · 2^-64.
  EXPECT_DOUBLE_EQ(sampling_lab::exponential_from(0, 0), 64 * std::log(2.0) + std::log(2.0));
  // The middle: U = ½ exactly gives ln 2.
  EXPECT_NEAR(sampling_lab::exponential_from(0x80000000u, 0), std::log(2.0), 1e-15);
}

TEST(Philox, NormalHasUnitVariance) {
  Philox rng(5);
  const int n = 400'000;
  double sum = 0.0, squares = 0.0;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    squares += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 4.0 / std::sqrt(n));
  // Var of the sample second moment of N(0,1) is 2/n.
  EXPECT_NEAR(squares / n, 1.0, 4.0 * std::sqrt(2.0 / n));
}

// Box-Muller's cosine is our own (rng.cpp): each normal to 2 ulp (the kernel's 1 and the product's
// rounding) of long double's cosine of the same uniform, reduced by quarter turns first (2π·u in
// long double alone loses the relative precision of the values near cos = 0), and to 1e-15 of
// std::cos without the reduction, which would catch a wrong quarter.
TEST(Philox, NormalIsBoxMullerToTwoUlp) {
  Philox rng(11, 4), uniforms(11, 4);
  constexpr long double two_pi = 2.0L * std::numbers::pi_v<long double>;
  const long double quarter_cosines[][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}, {1, 0}};  // cos, −sin of qπ/2
  double worst_ulps = 0.0, worst_plain = 0.0;
  for (int i = 0; i < 1'000'000; ++i) {
    const double radius = std::sqrt(-2.0 * std::log(uniforms.uniform()));
    const double u = uniforms.uniform();
    const int q = int(std::lround(4.0 * u));
    const long double r = two_pi * (u - 0.25 * q);
    const long double cosine = quarter_cosines[q][0] * std::cos(r) + quarter_cosines[q][1] * std::sin(r);
    const double expected = double(radius * cosine);
    const double x = rng.normal();
    const double ulp = std::nextafter(std::abs(expected), INFINITY) - std::abs(expected);
    worst_ulps = std::max(worst_ulps, std::abs(x - expected) / ulp);
    worst_plain = std::max(worst_plain, std::abs(x / radius - std::cos(2.0 * std::numbers::pi * u)));
  }
  EXPECT_LE(worst_ulps, 2.0);
  EXPECT_LE(worst_plain, 1e-15);
}

TEST(Philox, FillGivesTheSameWordsAsNextU32) {
  Philox one_by_one(77, 3), bulk(77, 3);
  std::vector<std::uint32_t> expected(1003);
  for (auto& word : expected) word = one_by_one.next_u32();
  std::vector<std::uint32_t> words(1003);
  bulk.next_u32();  // start mid-block
  bulk.fill(std::span(words).subspan(1));
  words[0] = expected[0];
  EXPECT_EQ(words, expected);
}

}  // namespace rng_test
