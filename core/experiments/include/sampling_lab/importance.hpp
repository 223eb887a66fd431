#pragma once
// Importance sampling: estimating E_p[f] from draws of q with weights w = p/q, and the
// truncations RL uses to tame the weights' variance.
#include <cstdint>
#include <span>

namespace sampling_lab {

struct ImportanceEstimates {
  double ordinary;         // mean(w f)
  double self_normalised;  // Σ w f / Σ w
  double truncated;        // TIS: mean(min(w, c) f)
  double masked;           // MIS: mean(w 1[w <= c] f), ratios above c dropped
  double ess;              // effective sample size (Σ w)² / Σ w² (Kong 1992)
};

// `draws` are ids drawn from q; f is indexed by id.
ImportanceEstimates importance_estimates(std::span<const float> p, std::span<const float> q,
                                         std::span<const double> f,
                                         std::span<const std::int32_t> draws, double clip);

}  // namespace sampling_lab
