#pragma once
// How the topic files declare their experiments to the registry (experiments.cpp).
#include <vector>

#include "params.hpp"
#include "sampling_lab/experiments.hpp"

namespace sampling_lab::detail {

struct Experiment {
  ExperimentInfo info;
  // Returns the result, or calls params.fail(…) and returns null on input it rejects.
  Json (*run)(Params& params, const Progress& progress);
  // What the scalars and the arrays' lengths alone decide, before the arrays are filled: an error
  // when the work exceeds the experiment's budget or when lengths that must agree do not.
  Check (*budget)(const Params& params) = nullptr;
};

inline Json reject(Params& params, ArgumentError error) {
  params.fail(std::move(error));
  return nullptr;
}

// Reports progress; false when the callback asked to stop.
inline bool keep_going(const Progress& progress, double fraction) { return !progress || progress(fraction); }

inline Json cancelled(Params& params) {
  return reject(params, {"onProgress", "the run was stopped by onProgress"});
}

// In the chapter's order.
std::vector<Experiment> distribution_shape_experiments();  // filters, temperature
std::vector<Experiment> sampling_method_experiments();     // samplers
std::vector<Experiment> monte_carlo_experiments();         // mc-error, eval-error
std::vector<Experiment> sequence_experiments();            // sequence
std::vector<Experiment> speculative_experiments();         // speculative
std::vector<Experiment> importance_experiments();          // importance
std::vector<Experiment> sample_size_experiments();         // sample-size

}  // namespace sampling_lab::detail
