#pragma once
// The kept set of the filter chain, found without touching more of the vocabulary than needed:
// a candidate superset by threshold or by a top-k heap, then exact prefix queries on it.
#include <cstddef>
#include <span>

#include "sampling_lab/filters.hpp"

namespace sampling_lab::detail {

struct Selection {
  // Kept tokens: workspace.candidate_* (ids ascending), weights unnormalised; or, when
  // `everything`, the whole vocabulary with its weights alone in candidate_weights.
  std::size_t kept;
  double kept_weight;  // Σ exp((z - max) / T) over them
  double total_weight; // the same over the vocabulary, or NaN where the filters did not need it
  float max_logit;
  float inverse_temperature;
  bool everything;
};

// Expects penalised logits, T > 0 and checked parameters.
Selection select_kept(std::span<const float> logits, const FilterParams& params,
                      Workspace& workspace);

}  // namespace sampling_lab::detail
