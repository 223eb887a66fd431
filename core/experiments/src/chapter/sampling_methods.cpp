// The chapter's sampler experiment: four exact methods draw from the same p and are checked
// against it by frequency and χ².
#include <chrono>
#include <cmath>

#include "../registry.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

// The experiment's own budget (its four methods run n draws each; Gumbel-max and the race make
// a variate per token per draw): below the core's kMaxNoiseVariates for one method.
constexpr double kMaxSamplersWork = 5e7;

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
  if (double(params.integer("n")) * (double(params.length("p")) + 16) <= kMaxSamplersWork) return std::nullopt;
  return ArgumentError{"n", "n × (len(p) + 16) must be at most 5e7"};
}

// Single draws of one method with what it computes on the way, from the very keys the samplers
// experiment uses (method i on stream i): draw k here is draw k of that experiment's n.
Json sampler_trace(Params& params, const Progress&) {
  const std::vector<float> p = params.floats("p");
  if (auto error = check_probabilities(p, "p")) return reject(params, *error);
  const auto method = *parse_method(params.choice("method"));
  const RandomKey key{params.seed("seed"), std::uint64_t(params.integer("stream"))};
  const auto first = std::uint64_t(params.integer("first"));
  SamplerWorkspace workspace;
  std::vector<DrawTrace> traces(static_cast<std::size_t>(params.integer("n")));
  trace_draws(p, method, key, first, traces, workspace);

  double total = 0.0;
  for (const float pi : p) total += pi;
  Json result = {{"method", method_name(method)}, {"seed", key.seed}, {"stream", key.stream}, {"first", first}};
  if (method == SamplingMethod::kInverseCdf) {
    Json cdf = Json::array();
    double running = 0.0;
    for (const float pi : p) cdf.push_back((running += pi) / total);
    result["cdf"] = cdf;
  }
  if (method == SamplingMethod::kGumbelMax) {
    Json logs = Json::array();
    for (const float pi : p) logs.push_back(std::log(double(pi) / total));
    result["logP"] = logs;
  }
  if (method == SamplingMethod::kAlias) {
    const AliasTable table = alias_table(p, workspace);
    result["aliasTable"] = {{"threshold", table.threshold}, {"alias", table.alias}};
  }
  Json draws = Json::array();
  for (std::size_t j = 0; j < traces.size(); ++j) {
    const DrawTrace& t = traces[j];
    Json draw = {{"index", first + j}, {"token", t.token}};
    switch (method) {
      case SamplingMethod::kInverseCdf:
        draw["u"] = t.uniform;
        break;
      case SamplingMethod::kAlias:
        draw["column"] = t.column;
        draw["coin"] = t.coin;
        break;
      case SamplingMethod::kGumbelMax: {
        // The chapter's form: log p_i + G_i with G_i = −ln E_i; its argmax is the token.
        Json noise = Json::array(), noisy = Json::array();
        for (std::size_t i = 0; i < p.size(); ++i) {
          const double g = -std::log(double(t.clocks[i]));
          noise.push_back(g);
          noisy.push_back(std::log(double(p[i]) / total) + g);
        }
        draw["gumbel"] = noise;
        draw["noisyLogits"] = noisy;
        break;
      }
      case SamplingMethod::kExponentialRace: {
        // Clock i rings at E_i / p_i, an Exp(p_i) time: the first to ring is the token.
        Json clocks = Json::array(), rings = Json::array();
        for (std::size_t i = 0; i < p.size(); ++i) {
          clocks.push_back(double(t.clocks[i]));
          rings.push_back(double(t.clocks[i]) / (double(p[i]) / total));
        }
        draw["clocks"] = clocks;
        draw["arrivals"] = rings;
        break;
      }
    }
    draws.push_back(std::move(draw));
  }
  result["draws"] = std::move(draws);
  return result;
}

// A trace holds V numbers per draw for the noise methods.
Check sampler_trace_budget(const Params& params) {
  if (double(params.integer("n")) * double(params.length("p")) <= 1e6) return std::nullopt;
  return ArgumentError{"n", "n × len(p) must be at most 1e6"};
}

}  // namespace

std::vector<Experiment> sampling_method_experiments() {
  return {
      {{"samplers",
        "Inverse CDF, Gumbel-max, exponential race and alias draws against p: frequencies, "
        "max deviation, chi-square, time per sample",
        {{"p", single(array(probability(0), {0.5, 0.25, 0.15, 0.07, 0.03}, 1, kMaxExperimentArray)), "The distribution to draw from"},
         {"n", integer(200000, closed(1, 4e6)), "Draws per method", {1000, 1000000, 1000}},
         {"seed", seed(), "Philox seed; method i uses stream i"}}},
       samplers, samplers_budget},
      {{"sampler-trace",
        "Single draws of one exact method with what it computes: u against the CDF (inverse CDF), "
        "the Gumbel noises and noisy logits (Gumbel-max), the clocks and their arrivals (race), "
        "the column and coin (alias), each with its token, on the samplers' keys",
        {{"p", single(array(probability(0), {0.5, 0.25, 0.15, 0.07, 0.03}, 1, kMaxTraceVocabulary)), "The distribution to draw from"},
         {"method", choice({"inverse-cdf", "gumbel-max", "exponential-race", "alias"}), "The sampling method"},
         {"seed", seed(), "Philox seed"},
         {"stream", integer(0, closed(0, 1e15)), "Philox stream (the samplers experiment uses stream i for method i)"},
         {"first", integer(0, closed(0, 4e6)), "Index of the first draw traced"},
         {"n", integer(100, closed(1, 1000)), "Draws traced"}}},
       sampler_trace, sampler_trace_budget},
  };
}

}  // namespace sampling_lab::detail
