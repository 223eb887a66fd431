// The chapter's exercise 2: draws needed before a difference exceeds z standard errors, and how
// the two configurations' sampling distributions narrow and separate as n grows.
#include <cmath>
#include <numbers>

#include "../registry.hpp"

namespace sampling_lab::detail {

namespace {

// The n axis of the band: the widget's slider spans it.
constexpr double kBandLowN = 10;
constexpr double kBandHighN = 100000;
constexpr std::size_t kBandPoints = 81;
constexpr std::size_t kCurvePoints = 201;

double normal_density(double x, double mean, double variance) {
  const double d = x - mean;
  return std::exp(-0.5 * d * d / variance) / std::sqrt(2.0 * std::numbers::pi * variance);
}

// Each configuration's estimate at n draws is about N(mean, variance / n) (the central limit
// theorem): both densities on one grid, wide enough around the two means for the difference to
// stay visible, so that the curves narrow against it as n grows.
Json sampling_distributions(double n, double mean_a, double variance_a, double mean_b, double variance_b) {
  const double gap = std::abs(mean_b - mean_a);
  const double low = std::min(mean_a, mean_b) - 2.5 * gap, high = std::max(mean_a, mean_b) + 2.5 * gap;
  std::vector<double> x(kCurvePoints), first(kCurvePoints), second(kCurvePoints);
  for (std::size_t i = 0; i < kCurvePoints; ++i) {
    x[i] = low + (high - low) * double(i) / double(kCurvePoints - 1);
    first[i] = normal_density(x[i], mean_a, variance_a / n);
    second[i] = normal_density(x[i], mean_b, variance_b / n);
  }
  return {{"x", bulk(std::span<const double>(x))}, {"first", bulk(std::span<const double>(first))},
          {"second", bulk(std::span<const double>(second))}};
}

// The difference ± z standard errors over n from kBandLowN to kBandHighN (log-spaced): the band
// closes in on the difference and leaves 0 behind at the sample size.
Json difference_band(double difference, double variance_sum, double z) {
  std::vector<double> ns(kBandPoints), low(kBandPoints), high(kBandPoints);
  for (std::size_t i = 0; i < kBandPoints; ++i) {
    ns[i] = kBandLowN * std::pow(kBandHighN / kBandLowN, double(i) / double(kBandPoints - 1));
    const double half = z * std::sqrt(variance_sum / ns[i]);
    low[i] = difference - half;
    high[i] = difference + half;
  }
  return {{"n", bulk(std::span<const double>(ns))}, {"low", bulk(std::span<const double>(low))},
          {"high", bulk(std::span<const double>(high))}};
}

Json sample_size(Params& params, const Progress&) {
  const bool means = params.choice("mode") == "means";
  const double z = params.number("z");
  double mean_a = 0.0, mean_b = 0.0, variance_a = 0.0, variance_b = 0.0;
  if (means) {
    const double std_dev = params.number("std");
    mean_a = params.number("mean");
    mean_b = mean_a + params.number("delta");
    variance_a = variance_b = std_dev * std_dev;
  } else {
    mean_a = params.number("p1");
    mean_b = params.number("p2");
    if (mean_a == mean_b) return reject(params, {"p2", "p2 must differ from p1"});
    variance_a = mean_a * (1 - mean_a);
    variance_b = mean_b * (1 - mean_b);
  }
  // The SE of the difference of the two estimates is √((σ_a² + σ_b²)/n); it must fall below |δ|/z.
  const double difference = mean_b - mean_a;
  const double variance_sum = variance_a + variance_b;
  const double n = z * z * variance_sum / (difference * difference);
  Json result = {{"mode", means ? "means" : "proportions"}, {"n", n}, {"perConfiguration", std::ceil(n - 1e-9)},
                 {"standardErrorAtN", std::sqrt(variance_sum / n)}, {"means", {mean_a, mean_b}}};
  if (params.given("n")) {
    const auto at = double(params.integer("n"));
    const double se = std::sqrt(variance_sum / at);
    result["at"] = {{"n", at}, {"standardError", se}, {"z", std::abs(difference) / se},
                    {"distributions", sampling_distributions(at, mean_a, variance_a, mean_b, variance_b)}};
    result["band"] = difference_band(difference, variance_sum, z);
  }
  return result;
}

}  // namespace

std::vector<Experiment> sample_size_experiments() {
  return {
      {{"sample-size",
        "Samples per configuration before a difference exceeds z standard errors (exercise 2); with n, "
        "both estimates' sampling distributions at n and the difference ± z SE over n",
        {{"mode", choice({"means", "proportions"}), "Compare two means or two proportions"},
         {"mean", number(2.5, closed(-1e6, 1e6)), "Means: the first configuration's mean"},
         {"delta", number(0.1, closed(1e-9, 1e6)), "Means: the difference to detect δ", {0.02, 0.5, 0.01}},
         {"std", number(1.2, open_closed(0, 1e6)), "Means: the standard deviation σ of one run", {0.2, 3, 0.1}},
         {"z", number(2, open_closed(0, 10)), "Standard errors the difference must exceed", {1, 3, 0.1}},
         {"p1", probability(0.7, closed(1e-9, 1 - 1e-9)), "Proportions: the first", {0.05, 0.95, 0.01}},
         {"p2", probability(0.72, closed(1e-9, 1 - 1e-9)), "Proportions: the second", {0.05, 0.95, 0.01}},
         {"n", optional(integer(0, closed(2, 1e9))), "Draws per configuration to show; null = none"}}},
       sample_size},
  };
}

}  // namespace sampling_lab::detail
