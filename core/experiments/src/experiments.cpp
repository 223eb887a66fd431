#include "sampling_lab/experiments.hpp"

#include "registry.hpp"

namespace sampling_lab {

namespace {

const std::vector<detail::Experiment>& registry() {
  static const std::vector<detail::Experiment> all = [] {
    std::vector<detail::Experiment> list;
    for (auto topic : {detail::distribution_shape_experiments, detail::sampling_method_experiments,
                       detail::monte_carlo_experiments, detail::sequence_experiments,
                       detail::speculative_experiments, detail::importance_experiments,
                       detail::sample_size_experiments}) {
      for (auto& experiment : topic()) list.push_back(std::move(experiment));
    }
    return list;
  }();
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
    detail::Params reader(params, experiment.info.params, experiment.info.name);
    Json result = reader.error() ? Json(nullptr) : experiment.run(reader, progress);
    if (reader.error()) return *reader.error();
    return result;
  }
  std::string known;
  for (const auto& experiment : registry()) known += (known.empty() ? "" : ", ") + experiment.info.name;
  return ArgumentError{"experiment", "unknown experiment '" + std::string(name) + "'; known: " + known};
}

}  // namespace sampling_lab
