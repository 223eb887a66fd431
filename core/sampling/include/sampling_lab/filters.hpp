#pragma once
// Logit processors in the decoding chapter's order:
// penalties -> temperature -> top-k -> top-p -> min-p -> ε, then renormalise.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

struct FilterResult {
  std::size_t kept;     // tokens left with non-zero probability
  double kept_mass;     // their mass under the tempered, untruncated distribution
  double entropy_bits;  // of the renormalised result
  double top_prob;      // of the renormalised result
};

// Adds the repetition, presence and frequency penalties for options.generated_ids in place.
void apply_penalties(std::span<float> logits, const SamplingOptions& options, PenaltyScratch& scratch);

// The logits with penalties applied: `logits` itself when none are active, else a copy held in
// the scratch.
std::span<const float> penalised(std::span<const float> logits, const SamplingOptions& options,
                                 PenaltyScratch& scratch);

// The distribution before truncation: softmax of the penalised logits at the temperature.
void tempered_distribution(std::span<const float> logits, const SamplingOptions& options,
                           std::span<float> probs, PenaltyScratch& scratch);

// Writes the filtered, renormalised distribution into `probs` (same length as logits).
// The kept set is always a prefix of the tokens ranked by (logit desc, index asc); top-p keeps a
// token while the mass of the tokens before it is < p (applied to the top-k renormalised
// distribution), min-p keeps p_i >= min_p * p_max. Expects checked inputs.
FilterResult filter_distribution(std::span<const float> logits, const SamplingOptions& options,
                                 std::span<float> probs, FilterWorkspace& workspace);

// One truncating filter of the chain and the tokens left once it and those before it have cut.
struct FilterStage {
  std::string_view filter;  // the option's public name: "topK", "topP", "minP", "epsilonCutoff"
  std::size_t kept;
};

// Where each active truncating filter cuts the ranking, cumulatively in chain order (top-k,
// top-p, min-p, ε): a token of rank r is cut by the first stage whose `kept` is at most r.
// Expects checked inputs.
std::vector<FilterStage> filter_stages(std::span<const float> logits, const SamplingOptions& options,
                                       FilterWorkspace& workspace);

}  // namespace sampling_lab
