#pragma once
// Logit processors in the decoding chapter's order:
// penalties -> temperature -> top-k -> top-p -> min-p, then renormalise.
#include <cstddef>
#include <cstdint>
#include <span>

#include "sampling_lab/error.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

struct Penalties {
  double repetition = 1.0;  // CTRL (Keskar et al. 2019): positive logits / r, negative ones * r
  double presence = 0.0;    // OpenAI: subtracted once from every generated token
  double frequency = 0.0;   // OpenAI: subtracted once per occurrence
  std::span<const std::int32_t> generated_ids;
};

struct FilterParams {
  double temperature = 1.0;  // 0 = greedy
  std::int64_t top_k = 0;    // 0 = off
  double top_p = 1.0;        // 1 = off
  double min_p = 0.0;        // 0 = off
  Penalties penalties;
};

struct FilterResult {
  std::size_t kept;     // tokens left with non-zero probability
  double kept_mass;     // their mass under the tempered, untruncated distribution
  double entropy_bits;  // of the renormalised result
  double top_prob;      // of the renormalised result
};

Check check_filter_params(const FilterParams& params, std::size_t vocabulary);

// Adds the penalties to `logits` in place.
void apply_penalties(std::span<float> logits, const Penalties& penalties, Workspace& workspace);

// The logits with penalties applied: `logits` itself when none are active, else a copy held
// in the workspace.
std::span<const float> penalised(std::span<const float> logits, const Penalties& penalties,
                                 Workspace& workspace);

// Writes the filtered, renormalised distribution into `probs` (same length as logits).
// The kept set is always a prefix of the tokens ranked by (logit desc, index asc); top-p keeps a
// token while the mass of the tokens before it is < p (applied to the top-k renormalised
// distribution), min-p keeps p_i >= min_p * p_max. Expects checked inputs.
FilterResult filter_distribution(std::span<const float> logits, const FilterParams& params,
                                 std::span<float> probs, Workspace& workspace);

}  // namespace sampling_lab
