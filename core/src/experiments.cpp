#include "sampling_lab/experiments.hpp"

#include <chrono>
#include <cmath>

#include "experiments_internal.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sampling_lab {

namespace {

using detail::ParamReader;
using detail::reject;
using Runner = std::function<Json(ParamReader&, const Progress&)>;

struct Experiment {
  ExperimentInfo info;
  Runner run;  // returns reject(...) on bad input
};

// The decoding chapter's worked example.
const std::vector<float> kDecodingExampleLogits = {3, 2.5, 2, 1, 0.5, 0, -1, -2};

Json filters(ParamReader& params, const Progress&) {
  std::vector<float> logits = params.floats("logits");
  FilterParams filter;
  filter.temperature = params.number("temperature");
  filter.top_k = params.integer("topK");
  filter.top_p = params.number("topP");
  filter.min_p = params.number("minP");
  if (params.error()) return nullptr;
  if (auto error = check_logits(logits, "logits")) return reject(params, *error);
  if (auto error = check_filter_params(filter, logits.size())) return reject(params, *error);

  std::vector<float> probs(logits.size());
  Workspace workspace;
  const FilterResult result = filter_distribution(logits, filter, probs, workspace);
  return {{"probs", probs},
          {"kept", result.kept},
          {"keptMass", result.kept_mass},
          {"entropyBits", result.entropy_bits},
          {"topProb", result.top_prob}};
}

Json temperature(ParamReader& params, const Progress&) {
  std::vector<float> logits = params.floats("logits");
  const std::vector<double> temperatures = params.numbers("temperatures");
  const double mass = params.number("mass");
  if (params.error()) return nullptr;
  if (logits.empty()) logits = synthetic_logits();
  if (auto error = check_logits(logits, "logits")) return reject(params, *error);
  if (auto error = check_mass(mass, "mass")) return reject(params, *error);
  for (const double t : temperatures) {
    if (check_temperature(t)) {
      return reject(params, {"temperatures", "temperatures must be finite numbers >= 0"});
    }
  }

  std::vector<float> probs(logits.size());
  Workspace workspace;
  Json rows = Json::array();
  for (const double t : temperatures) {
    softmax(logits, t, probs);
    rows.push_back({{"temperature", t},
                    {"topProb", top_probability(probs)},
                    {"tokensForMass", cover_count_logits(logits, t, mass, workspace)},
                    {"entropyBits", entropy_bits(probs)}});
  }
  return {{"vocabSize", logits.size()}, {"mass", mass}, {"rows", rows}};
}

Json samplers(ParamReader& params, const Progress& progress) {
  const std::vector<float> p = params.floats("p");
  const std::int64_t n = params.integer("n");
  const std::int64_t seed = params.integer("seed");
  if (params.error()) return nullptr;
  if (auto error = check_probabilities(p, "p")) return reject(params, *error);
  if (auto error = check_sample_count(std::size_t(std::max<std::int64_t>(n, 0)))) {
    return reject(params, *error);
  }
  if (seed < 0) return reject(params, {"seed", "seed must be an integer >= 0"});

  std::vector<std::int32_t> draws(static_cast<std::size_t>(n));
  Workspace workspace;
  Json methods = Json::array();
  std::uint64_t stream = 0;
  for (const auto method : kSamplingMethods) {
    const auto start = std::chrono::steady_clock::now();
    sample_probs(p, method, {std::uint64_t(seed), stream++}, draws, workspace);
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    const auto observed = counts(draws, p.size());
    const auto frequency = frequencies(observed);
    const auto fit = chi_square(observed, p);
    methods.push_back({{"name", method_name(method)},
                       {"frequencies", frequency},
                       {"maxDeviation", max_deviation(frequency, p)},
                       {"chiSquare", {{"statistic", fit.statistic}, {"dof", fit.dof}, {"pValue", fit.p_value}}},
                       {"nanosPerSample", elapsed.count() / double(n)}});
    if (progress) progress(double(stream) / std::size(kSamplingMethods));
  }
  return {{"n", n}, {"methods", methods}};
}

// The chapter's Monte-Carlo error experiment: the spread of a frequency over repeated runs.
Json mc_error(ParamReader& params, const Progress& progress) {
  constexpr double kMaxDraws = 4e8;
  const double p = params.number("p");
  const std::vector<double> ns = params.numbers("ns");
  const std::int64_t repeats = params.integer("repeats");
  const std::int64_t seed = params.integer("seed");
  if (params.error()) return nullptr;
  if (!(p > 0.0 && p < 1.0)) return reject(params, {"p", "p must be in (0, 1)"});
  if (repeats < 2 || repeats > 1'000'000) {
    return reject(params, {"repeats", "repeats must be an integer in [2, 1000000]"});
  }
  if (seed < 0) return reject(params, {"seed", "seed must be an integer >= 0"});
  double draws = 0.0;
  for (const double n : ns) {
    if (n < 1 || n != std::floor(n)) return reject(params, {"ns", "ns must hold integers >= 1"});
    draws += n * double(repeats);
  }
  if (ns.empty()) return reject(params, {"ns", "ns must not be empty"});
  if (draws > kMaxDraws) {
    return reject(params, {"ns", "ns × repeats asks for more than 4e8 draws"});
  }

  std::vector<double> estimates(static_cast<std::size_t>(repeats));
  Json rows = Json::array();
  double done = 0.0;
  for (std::size_t row = 0; row < ns.size(); ++row) {
    const auto n = std::uint64_t(ns[row]);
    Philox rng{std::uint64_t(seed), row};
    for (auto& estimate : estimates) {
      std::uint64_t hits = 0;
      for (std::uint64_t i = 0; i < n; ++i) hits += rng.uniform() < p;
      estimate = double(hits) / double(n);
      done += double(n);
      if (progress && (&estimate - estimates.data()) % 64 == 0) progress(done / draws);
    }
    rows.push_back({{"n", n}, {"std", sample_std(estimates)}, {"theory", standard_error(p, double(n))}});
  }
  return {{"p", p}, {"repeats", repeats}, {"rows", rows}};
}

// Standard error of an accuracy measured on a finite evaluation set.
Json eval_error(ParamReader& params, const Progress&) {
  constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile
  const std::int64_t questions = params.integer("questions");
  const double accuracy = params.number("accuracy");
  if (params.error()) return nullptr;
  if (questions < 1) return reject(params, {"questions", "questions must be an integer >= 1"});
  if (!(accuracy >= 0.0 && accuracy <= 1.0)) {
    return reject(params, {"accuracy", "accuracy must be in [0, 1]"});
  }
  const auto interval = wilson_interval(accuracy * double(questions), double(questions), kZ95);
  return {{"questions", questions},
          {"accuracy", accuracy},
          {"standardError", standard_error(accuracy, double(questions))},
          {"interval95", {interval.low, interval.high}}};
}

const std::vector<Experiment>& registry() {
  static const std::vector<Experiment> all = {
      {{"filters",
        "Penalty-free filter chain temperature -> top-k -> top-p -> min-p on one distribution",
        {{"logits", kDecodingExampleLogits},
         {"temperature", 1.0},
         {"topK", 0},
         {"topP", 1.0},
         {"minP", 0.0}}},
       filters},
      {{"temperature",
        "Top probability, tokens for a mass and entropy at several temperatures (default logits: "
        "the synthetic 151,936-token vector)",
        {{"logits", nullptr}, {"temperatures", {0.5, 1.0, 1.5}}, {"mass", 0.9}}},
       temperature},
      {{"samplers",
        "Inverse CDF, Gumbel-max, exponential race and alias draws against p: frequencies, "
        "max deviation, chi-square, time per sample",
        {{"p", {0.5, 0.25, 0.15, 0.07, 0.03}}, {"n", 200000}, {"seed", 0}}},
       samplers},
      {{"mc-error",
        "Standard deviation of a frequency over repeated runs of n Bernoulli(p) draws against "
        "sqrt(p(1-p)/n)",
        {{"p", 0.3}, {"ns", {100, 10000}}, {"repeats", 2000}, {"seed", 0}}},
       mc_error},
      {{"eval-error",
        "Standard error and Wilson 95% interval of an accuracy measured on a finite eval set",
        {{"questions", 200}, {"accuracy", 0.7}}},
       eval_error},
      {{"sequence",
        "Chain-rule sequence probability: greedy, exhaustive best and beam search on the handbook "
        "tree, or how often greedy misses on random models",
        {{"mode", "handbook"}, {"tree", {0.6, 0.4, 0.5, 0.5, 0.9, 0.1}}, {"vocab", nullptr},
         {"depth", nullptr}, {"widths", nullptr}, {"sharpness", 1.0}, {"models", 200}, {"seed", 0}}},
       detail::sequence},
      {{"speculative",
        "Speculative sampling: acceptance = sum min(p, q) = 1 - TV, output distribution, tokens per "
        "verification; top-k exercise and the mismatched-q pitfall",
        {{"p", {0.5, 0.3, 0.15, 0.05}}, {"q", nullptr}, {"n", 200000}, {"seed", 0}, {"gamma", 4},
         {"topK", 0}, {"mode", "exact"}}},
       detail::speculative},
      {{"importance",
        "Importance sampling of E_p[x] from q: estimates, ESS, TIS clipping, MIS masking, "
        "self-normalised; bias/std/MSE over repeats",
        {{"shifts", {0.0, 1.0, 3.0}}, {"n", 1000}, {"clip", 2.0}, {"seed", 0}, {"repeats", 1}}},
       detail::importance},
      {{"sample-size",
        "Samples per configuration before a difference exceeds z standard errors (exercise 2)",
        {{"mode", "means"}, {"delta", 0.1}, {"std", 1.2}, {"z", 2.0}, {"p1", 0.7}, {"p2", 0.72}}},
       detail::sample_size},
  };
  return all;
}

}  // namespace

const std::vector<ExperimentInfo>& experiments() {
  static const std::vector<ExperimentInfo> infos = [] {
    std::vector<ExperimentInfo> list;
    for (const auto& experiment : registry()) list.push_back(experiment.info);
    return list;
  }();
  return infos;
}

std::variant<Json, ArgumentError> run_experiment(std::string_view name, const Json& params,
                                                 const Progress& progress) {
  for (const auto& experiment : registry()) {
    if (experiment.info.name != name) continue;
    ParamReader reader(params, experiment.info.defaults, experiment.info.name);
    Json result = reader.error() ? Json(nullptr) : experiment.run(reader, progress);
    if (reader.error()) return *reader.error();
    return result;
  }
  std::string known;
  for (const auto& experiment : registry()) {
    known += (known.empty() ? "" : ", ") + experiment.info.name;
  }
  return ArgumentError{"experiment",
                       "unknown experiment '" + std::string(name) + "'; known: " + known};
}

}  // namespace sampling_lab
