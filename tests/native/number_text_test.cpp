// general_text and fixed_text write what printf's "%.15g" and "%f" write (the sampler formats
// ranges and sums with them, without printf).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sampling_lab/values.hpp"

namespace number_text_test {

namespace {

std::string printf_text(const char* format, double x) {
  char text[512];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

std::vector<double> cases() {
  std::vector<double> values{0.0, -0.0, 1.0, -1.0, 0.5, 0.99, 1e-9, 1 - 1e-9, 1e15, 1e16, 1e-4, 1e-5, 123456789012345.0,
                             999999999999999.0, 9999999999999995.0, 0.0078125, 2.5e-7, 5e-7, 1.5, 2.5, 9007199254740991.0,
                             3.4028234663852886e38, 2147483648.0, 4294967295.0, 1.25e8, 5e-324, 1.7976931348623157e308,
                             INFINITY, -INFINITY, NAN, -NAN, 16777217.0};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 600; ++i) {
    // Finite doubles of every exponent, and short decimals such as option bounds.
    const std::uint64_t bits = rng() & ~(std::uint64_t{0x7ff} << 52);
    const std::uint64_t exponent = rng() % 2047;
    double x;
    const std::uint64_t pattern = bits | exponent << 52;
    std::memcpy(&x, &pattern, sizeof x);
    values.push_back(x);
    values.push_back(double(rng() % 100000) * std::pow(10.0, int(rng() % 40) - 20));
  }
  return values;
}

TEST(NumberText, GeneralTextIsPrintfG15) {
  for (const double x : cases()) EXPECT_EQ(sampling_lab::general_text(x), printf_text("%.15g", x)) << x;
}

TEST(NumberText, FixedTextIsPrintfF) {
  for (const double x : cases()) EXPECT_EQ(sampling_lab::fixed_text(x), printf_text("%f", x)) << x;
}

}  // namespace

}  // namespace number_text_test
