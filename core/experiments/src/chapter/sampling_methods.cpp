// The chapter's sampler experiment: four exact methods draw from the same p and are checked
// against it by frequency and χ².
#include <chrono>

#include "../registry.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

// Gumbel-max and the race make one variate per token per draw.
constexpr double kMaxNoiseVariates = 5e7;

Json samplers(Params& params, const Progress& progress) {
  const std::vector<float> p = params.floats("p");
  const std::int64_t n = params.integer("n");
  const std::uint64_t seed = params.seed("seed");
  if (auto error = check_probabilities(p, "p")) return reject(params, *error);

  std::vector<std::int32_t> draws(static_cast<std::size_t>(n));
  SamplerWorkspace workspace;
  Json methods = Json::array();
  std::uint64_t stream = 0;
  for (const auto method : kSamplingMethods) {
    const double done = double(stream) / std::size(kSamplingMethods);
    const auto report = [&](double fraction) { return keep_going(progress, done + fraction / std::size(kSamplingMethods)); };
    const auto start = std::chrono::steady_clock::now();
    if (!sample_probs(p, method, {seed, stream++}, draws, workspace, report)) return cancelled(params);
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    const auto observed = counts(draws, p.size());
    const auto frequency = frequencies(observed);
    const auto fit = chi_square(observed, p);
    std::vector<double> deviations(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) deviations[i] = frequency[i] - double(p[i]);
    methods.push_back({{"name", method_name(method)},
                       {"frequencies", bulk(frequency)},
                       {"deviations", bulk(deviations)},
                       {"maxDeviation", max_deviation(frequency, p)},
                       {"chiSquare", {{"statistic", fit.statistic}, {"dof", fit.dof}, {"pValue", fit.p_value}}},
                       {"nanosPerSample", elapsed.count() / double(n)}});
  }
  // A frequency's standard error under p: the spread chance alone gives each deviation.
  std::vector<double> standard_errors(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) standard_errors[i] = standard_error(p[i], double(n));
  return {{"n", n}, {"standardErrors", bulk(standard_errors)}, {"methods", methods}};
}

// Gumbel-max and the race draw one variate per token, and every draw costs a few tokens' worth.
Check samplers_budget(const Params& params) {
  if (double(params.integer("n")) * (double(params.length("p")) + 16) <= kMaxNoiseVariates) return std::nullopt;
  return ArgumentError{"n", "n × (len(p) + 16) must be at most 5e7"};
}

}  // namespace

std::vector<Experiment> sampling_method_experiments() {
  return {
      {{"samplers",
        "Inverse CDF, Gumbel-max, exponential race and alias draws against p: frequencies, "
        "max deviation, chi-square, time per sample",
        {{"p", array(probability(0), {0.5, 0.25, 0.15, 0.07, 0.03}, 1, kMaxExperimentArray), "The distribution to draw from"},
         {"n", integer(200000, closed(1, 4e6)), "Draws per method", {1000, 1000000, 1000}},
         {"seed", seed(), "Philox seed; method i uses stream i"}}},
       samplers, samplers_budget},
  };
}

}  // namespace sampling_lab::detail
