#include "sampling_lab/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>


namespace sampling_lab {

std::vector<std::uint64_t> counts(std::span<const std::int32_t> samples, std::size_t categories) {
  std::vector<std::uint64_t> result(categories, 0);
  for (const auto token : samples) ++result[std::size_t(token)];
  return result;
}

std::vector<double> frequencies(std::span<const std::uint64_t> counts) {
  const double total = double(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
  std::vector<double> result(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) result[i] = double(counts[i]) / total;
  return result;
}

double max_deviation(std::span<const double> frequencies, std::span<const float> probs) {
  double deviation = 0.0;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    deviation = std::max(deviation, std::abs(frequencies[i] - double(probs[i])));
  }
  return deviation;
}

ChiSquare chi_square(std::span<const std::uint64_t> counts, std::span<const float> probs) {
  constexpr double kMinExpected = 5.0;
  const double n = double(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}));
  double total_probability = 0.0;
  for (const float p : probs) total_probability += p;
  double statistic = 0.0;
  std::size_t bins = 0;
  double pooled_expected = 0.0;
  double pooled_observed = 0.0;
  bool impossible_draw = false;
  const auto add_bin = [&](double observed, double expected) {
    statistic += (observed - expected) * (observed - expected) / expected;
    ++bins;
  };
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const double expected = n * double(probs[i]) / total_probability;
    const double observed = double(counts[i]);
    impossible_draw |= expected == 0.0 && observed > 0.0;
    if (expected >= kMinExpected) {
      add_bin(observed, expected);
    } else {
      pooled_expected += expected;
      pooled_observed += observed;
    }
  }
  if (pooled_expected > 0.0) add_bin(pooled_observed, pooled_expected);
  const std::size_t dof = bins > 1 ? bins - 1 : 1;
  // A draw of a zero-probability token refutes the distribution outright.
  if (impossible_draw) return {std::numeric_limits<double>::infinity(), dof, 0.0};
  return {statistic, dof, chi_square_tail(dof, statistic)};
}

double chi_square_tail(std::size_t dof, double statistic) {
  if (!(statistic > 0.0)) return 1.0;
  const double x = statistic / 2.0;
  // Q(m, x) = Σ_{i<m} e^(−x) x^i / i!; Q(m + ½, x) = erfc(√x) + Σ_{i<m} e^(−x) x^(i+½) / Γ(i + 3/2).
  const bool half = dof % 2 == 1;
  const std::size_t terms = dof / 2;
  double log_term = half ? -x + 0.5 * std::log(x) - std::log(std::sqrt(std::numbers::pi) / 2.0) : -x;
  // Σ e^(log_term) accumulated relative to the largest term so far.
  double largest = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (std::size_t i = 0; i < terms; ++i) {
    if (i > 0) log_term += std::log(x / (double(i) + (half ? 0.5 : 0.0)));
    if (log_term > largest) {
      sum = sum * std::exp(largest - log_term) + 1.0;
      largest = log_term;
    } else {
      sum += std::exp(log_term - largest);
    }
  }
  const double finite_sum = terms == 0 ? 0.0 : sum * std::exp(largest);
  return std::min(1.0, (half ? std::erfc(std::sqrt(x)) : 0.0) + finite_sum);
}

double standard_error(double p, double n) { return std::sqrt(p * (1.0 - p) / n); }

Interval wilson_interval(double successes, double n, double z) {
  const double p = successes / n;
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {centre - half, centre + half};
}

double sample_std(std::span<const double> values) {
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  double squares = 0.0;
  for (const double x : values) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / double(values.size() - 1));
}

}  // namespace sampling_lab
