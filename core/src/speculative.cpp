#include "sampling_lab/speculative.hpp"

#include <algorithm>
#include <cmath>

#include "sampling_lab/distribution.hpp"

namespace sampling_lab {

namespace {
// Inverse CDF over weights w(0 … size−1) >= 0 summing to `total`.
template <typename Weight>
std::int32_t draw(std::size_t size, double total, Philox& rng, Weight weight) {
  const double target = rng.uniform() * total;
  double cumulative = 0.0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const double w = weight(i);
    if (w <= 0.0) continue;
    last_positive = i;
    cumulative += w;
    if (cumulative > target) return std::int32_t(i);
  }
  return std::int32_t(last_positive);  // u rounded up to the total
}
}  // namespace

Verification verify(std::span<const float> p, std::span<const float> q, std::int32_t draft,
                    Philox& rng) {
  const auto x = std::size_t(draft);
  const double ratio = q[x] > 0.0f ? double(p[x]) / double(q[x]) : 1.0;
  if (rng.uniform() < ratio) return {true, draft};
  const auto residual = [&](std::size_t i) { return std::max(0.0, double(p[i]) - double(q[i])); };
  double residual_mass = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) residual_mass += residual(i);
  return {false, draw(p.size(), residual_mass, rng, residual)};
}

ChainResult verify_chain(std::span<const float> targets, std::span<const float> drafts,
                         std::span<const std::int32_t> draft_tokens, std::size_t vocabulary,
                         Philox& rng) {
  for (std::size_t i = 0; i < draft_tokens.size(); ++i) {
    const auto outcome = verify(targets.subspan(i * vocabulary, vocabulary),
                                drafts.subspan(i * vocabulary, vocabulary), draft_tokens[i], rng);
    if (!outcome.accepted) return {i, outcome.token};
  }
  const auto bonus = targets.subspan(draft_tokens.size() * vocabulary, vocabulary);
  double total = 0.0;
  for (const float p : bonus) total += p;
  return {draft_tokens.size(), draw(vocabulary, total, rng, [&](std::size_t i) { return double(bonus[i]); })};
}

double acceptance_probability(std::span<const float> p, std::span<const float> q) {
  return distances(p, q).overlap;
}

double expected_tokens(double alpha, std::size_t gamma) {
  if (alpha >= 1.0) return double(gamma + 1);
  return (1.0 - std::pow(alpha, double(gamma + 1))) / (1.0 - alpha);
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
