// The chapter's exercise 2: draws needed before a difference exceeds z standard errors.
#include <cmath>

#include "../registry.hpp"

namespace sampling_lab::detail {

namespace {

Json sample_size(Params& params, const Progress&) {
  const bool means = params.choice("mode") == "means";
  const double z = params.number("z");
  double n = 0.0;
  double standard_error_at_n = 0.0;
  if (means) {
    const double delta = params.number("delta");
    const double std_dev = params.number("std");
    // SE of a difference of two means is sqrt(2) σ / sqrt(n); need delta > z SE.
    n = 2.0 * (z * std_dev / delta) * (z * std_dev / delta);
    standard_error_at_n = std::sqrt(2.0) * std_dev / std::sqrt(n);
  } else {
    const double p1 = params.number("p1");
    const double p2 = params.number("p2");
    if (p1 == p2) return reject(params, {"p2", "p2 must differ from p1"});
    const double variance = p1 * (1 - p1) + p2 * (1 - p2);
    n = z * z * variance / ((p1 - p2) * (p1 - p2));
    standard_error_at_n = std::sqrt(variance / n);
  }
  return {{"mode", means ? "means" : "proportions"}, {"n", n}, {"perConfiguration", std::ceil(n - 1e-9)},
          {"standardErrorAtN", standard_error_at_n}};
}

}  // namespace

std::vector<Experiment> sample_size_experiments() {
  return {
      {{"sample-size",
        "Samples per configuration before a difference exceeds z standard errors (exercise 2)",
        {{"mode", choice({"means", "proportions"}), "Compare two means or two proportions"},
         {"delta", number(0.1, closed(1e-9, 1e6)), "Means: the difference to detect δ", {0.02, 0.5, 0.01}},
         {"std", number(1.2, open_closed(0, 1e6)), "Means: the standard deviation σ of one run", {0.2, 3, 0.1}},
         {"z", number(2, open_closed(0, 10)), "Standard errors the difference must exceed", {1, 3, 0.1}},
         {"p1", probability(0.7, closed(1e-9, 1 - 1e-9)), "Proportions: the first", {0.05, 0.95, 0.01}},
         {"p2", probability(0.72, closed(1e-9, 1 - 1e-9)), "Proportions: the second", {0.05, 0.95, 0.01}}}},
       sample_size},
  };
}

}  // namespace sampling_lab::detail
