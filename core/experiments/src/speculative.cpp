#include "sampling_lab/speculative.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

std::int32_t inverse_cdf_draw(std::span<const float> weights, double u) {
  double total = 0.0;
  for (const float w : weights) total += w;
  return std::int32_t(kernels::inverse_cdf(weights, u * total));
}

namespace {
std::int32_t draw(std::span<const float> weights, Philox& rng) { return inverse_cdf_draw(weights, rng.uniform()); }
}  // namespace

Verification verify(std::span<const float> p, std::span<const float> q, std::int32_t draft,
                    Philox& rng) {
  const auto x = std::size_t(draft);
  const double ratio = q[x] > 0.0f ? double(p[x]) / double(q[x]) : 1.0;
  if (rng.uniform() < ratio) return {true, draft};
  std::vector<float> residual(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) residual[i] = std::max(0.0f, p[i] - q[i]);
  return {false, draw(residual, rng)};
}

ChainResult verify_chain(std::span<const float> p, std::span<const float> q,
                         std::span<const std::int32_t> draft_tokens, Philox& rng) {
  for (std::size_t i = 0; i < draft_tokens.size(); ++i) {
    const auto outcome = verify(p, q, draft_tokens[i], rng);
    if (!outcome.accepted) return {i, outcome.token};
  }
  return {draft_tokens.size(), draw(p, rng)};
}

double acceptance_probability(std::span<const float> p, std::span<const float> q) {
  return distances(p, q).overlap;
}

void truncate_top_k(std::span<const float> p, std::size_t k, std::span<float> out) {
  std::copy(p.begin(), p.end(), out.begin());
  if (k == 0 || k >= p.size()) return;
  const auto order = ranking(p);
  double kept = 0.0;
  for (std::size_t r = 0; r < k; ++r) kept += p[order[r]];
  std::fill(out.begin(), out.end(), 0.0f);
  for (std::size_t r = 0; r < k; ++r) out[order[r]] = float(p[order[r]] / kept);
}

}  // namespace sampling_lab
