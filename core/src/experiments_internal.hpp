#pragma once
// Shared by the experiment implementations.
#include "params.hpp"
#include "sampling_lab/experiments.hpp"

namespace sampling_lab::detail {

inline Json reject(ParamReader& params, ArgumentError error) {
  params.fail(std::move(error));
  return nullptr;
}

Json sequence(ParamReader& params, const Progress& progress);
Json speculative(ParamReader& params, const Progress& progress);
Json importance(ParamReader& params, const Progress& progress);
Json sample_size(ParamReader& params, const Progress& progress);

}  // namespace sampling_lab::detail
