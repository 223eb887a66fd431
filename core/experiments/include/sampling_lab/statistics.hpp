#pragma once
// Monte-Carlo checks: empirical frequencies, χ² goodness of fit, standard errors.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sampling_lab {

std::vector<std::uint64_t> counts(std::span<const std::int32_t> samples, std::size_t categories);
std::vector<double> frequencies(std::span<const std::uint64_t> counts);
double max_deviation(std::span<const double> frequencies, std::span<const float> probs);

struct ChiSquare {
  double statistic;
  std::size_t dof;
  double p_value;  // P(χ²_dof >= statistic)
};

// P(χ²_dof >= statistic): the regularised upper incomplete gamma Q(dof / 2, statistic / 2) in its
// closed form for integer and half-integer shapes (Abramowitz & Stegun 26.4.4 and 26.4.5), the
// terms of the finite sum in log space so that neither e^(−x) nor x^i / i! leaves double.
double chi_square_tail(std::size_t dof, double statistic);

// Pearson's χ² test of observed counts against probabilities. Categories expecting fewer than 5
// draws are pooled into one (Cochran's rule), so vocabulary-sized tests keep their validity.
ChiSquare chi_square(std::span<const std::uint64_t> counts, std::span<const float> probs);

// Standard error of a frequency estimated from n Bernoulli(p) draws: sqrt(p(1 − p)/n).
double standard_error(double p, double n);

struct Interval {
  double low;
  double high;
};
// Wilson score interval for successes out of n at z standard errors (Wilson 1927).
Interval wilson_interval(double successes, double n, double z);

// Sample standard deviation (n − 1 denominator, as torch.std).
double sample_std(std::span<const double> values);


}  // namespace sampling_lab
