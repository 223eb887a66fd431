#pragma once
// Speculative sampling (Leviathan et al. 2023; Chen et al. 2023): draft from q, verify against
// the target p, and the output is distributed exactly as p.
#include <cstddef>
#include <cstdint>
#include <span>

#include "sampling_lab/speculative_decoding.hpp"  // expected_tokens

#include "sampling_lab/rng.hpp"

namespace sampling_lab {

// The inverse-CDF draw from weights >= 0 (not normalised) on the uniform u in [0, 1).
std::int32_t inverse_cdf_draw(std::span<const float> weights, double u);

struct Verification {
  bool accepted;
  std::int32_t token;  // the draft token if accepted, else a draw from norm(max(0, p − q))
};

// Accepts draft token x ~ q with probability min(1, p(x) / q(x)); otherwise resamples from the
// residual norm(max(0, p − q)).
Verification verify(std::span<const float> p, std::span<const float> q, std::int32_t draft,
                    Philox& rng);

struct ChainResult {
  std::size_t accepted;     // draft tokens accepted, 0 … γ
  std::int32_t next_token;  // the correction, or a bonus draw from p_γ when all γ were accepted
};

// One verification of γ draft tokens, all drafted from q against the target p (the bonus token,
// when every draft is accepted, is drawn from p).
ChainResult verify_chain(std::span<const float> p, std::span<const float> q,
                         std::span<const std::int32_t> draft_tokens, Philox& rng);

// Expected acceptance Σ min(p, q) = 1 − TV(p, q).
double acceptance_probability(std::span<const float> p, std::span<const float> q);

// Keeps the k most probable entries (ties to lower ids) and renormalises; k = 0 keeps all.
// Sorts: for the small teaching distributions, not the per-token path.
void truncate_top_k(std::span<const float> p, std::size_t k, std::span<float> out);

}  // namespace sampling_lab
