#include "sampling_lab/experiments.hpp"

#include <functional>

#include "params.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sampling_lab {

namespace {

using detail::ParamReader;
using Runner = std::function<Json(ParamReader&)>;

struct Experiment {
  ExperimentInfo info;
  Runner run;  // returns reject(...) on bad input
};

Json reject(ParamReader& params, ArgumentError error) {
  params.fail(std::move(error));
  return nullptr;
}

// The decoding chapter's worked example.
const std::vector<float> kDecodingExampleLogits = {3, 2.5, 2, 1, 0.5, 0, -1, -2};

Json filters(ParamReader& params) {
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

Json temperature(ParamReader& params) {
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

std::variant<Json, ArgumentError> run_experiment(std::string_view name, const Json& params) {
  for (const auto& experiment : registry()) {
    if (experiment.info.name != name) continue;
    ParamReader reader(params, experiment.info.defaults, experiment.info.name);
    Json result = reader.error() ? Json(nullptr) : experiment.run(reader);
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
