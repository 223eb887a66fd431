#pragma once
// The chapter's experiments, each one pure function params -> JSON. The page, the CLI and the
// tests all go through run_experiment, so every printed number has a single source.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/progress.hpp"
#include "sampling_lab/schema.hpp"

namespace sampling_lab {

struct ExperimentInfo {
  std::string name;
  std::string summary;
  Schema params;
};

const std::vector<ExperimentInfo>& experiments();

// Runs `name` with `params` (an object; missing keys take their defaults). Unknown names,
// unknown keys and bad values come back as an ArgumentError; so does a run that `progress`
// stopped (argument "onProgress").
std::variant<Json, ArgumentError> run_experiment(std::string_view name, const Json& params,
                                                 const Progress& progress = {});

}  // namespace sampling_lab
