#pragma once
// Straightforward sort-based references that the fast paths are checked against.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "sampling_lab/options.hpp"
#include "sampling_lab/rng.hpp"

namespace reference {

// Token ids by logit descending, ties by id ascending: a stable sort's order, by a stable radix
// sort on the logits' bits made to order as unsigned integers (a comparator sort of the vocabulary
// was half of the reference's time).
inline std::vector<std::size_t> descending_order(const std::vector<float>& logits) {
  const std::size_t v = logits.size();
  std::vector<std::uint32_t> keys(v);
  for (std::size_t i = 0; i < v; ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(logits[i] == 0.0f ? 0.0f : logits[i]);  // −0 ties +0
    keys[i] = bits & 0x80000000u ? bits : ~bits & 0x7fffffffu;  // larger logit, smaller key
  }
  std::vector<std::size_t> order(v), next(v);
  std::iota(order.begin(), order.end(), 0);
  for (int shift = 0; shift < 32; shift += 8) {
    std::array<std::size_t, 257> starts{};
    for (std::size_t id : order) ++starts[((keys[id] >> shift) & 0xffu) + 1];
    std::partial_sum(starts.begin(), starts.end(), starts.begin());
    for (std::size_t id : order) next[starts[(keys[id] >> shift) & 0xffu]++] = id;
    order.swap(next);
  }
  return order;
}

struct Filtered {
  std::vector<double> probs;
  std::vector<bool> kept_mask;  // the kept set, whatever its probabilities underflow to
  std::size_t kept;
  double kept_mass;
  // The top-p or epsilon cut sat within float32 rounding of its threshold, where a float
  // computation may legitimately keep one token more or less.
  bool boundary_within_rounding = false;
};

// Penalties, temperature, then a full stable sort and cumulative sums.
inline Filtered filter(std::vector<float> logits, const sampling_lab::SamplingOptions& params) {
  std::vector<int> counts(logits.size(), 0);
  for (int id : params.generated_ids) ++counts[std::size_t(id)];
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (counts[i] == 0) continue;
    double z = logits[i];
    z = z > 0 ? z / params.repetition_penalty : z * params.repetition_penalty;
    logits[i] = float(z - (params.presence_penalty + params.frequency_penalty * counts[i]));
  }
  const std::size_t v = logits.size();
  const std::vector<std::size_t> order = descending_order(logits);
  Filtered out{std::vector<double>(v, 0.0), std::vector<bool>(v, false), 0, 0.0};
  if (params.temperature == 0.0) {
    out.probs[order[0]] = 1.0;
    out.kept_mask[order[0]] = true;
    out.kept = 1;
    out.kept_mass = 1.0;
    return out;
  }
  const double max = logits[order[0]];
  std::vector<double> weight(v);
  double total = 0.0;
  for (std::size_t i = 0; i < v; ++i) total += weight[i] = std::exp((logits[i] - max) / params.temperature);

  std::size_t keep = v;
  if (params.top_k > 0) keep = std::min<std::size_t>(keep, std::size_t(params.top_k));
  double candidates = 0.0;
  for (std::size_t r = 0; r < keep; ++r) candidates += weight[order[r]];
  if (params.top_p < 1.0) {
    const double target = params.top_p * candidates;
    double before = 0.0;
    std::size_t r = 0;
    while (r < keep && before < target) before += weight[order[r++]];
    const double last = r > 0 ? weight[order[r - 1]] : 0.0;
    out.boundary_within_rounding = std::abs(before - target) < 5e-7 * target ||
                                   std::abs(before - last - target) < 5e-7 * target;
    keep = r;
  }
  if (params.min_p > 0.0) {
    const float threshold = float(max + params.temperature * std::log(params.min_p));
    std::size_t r = 0;
    while (r < keep && logits[order[r]] >= threshold) ++r;
    keep = r;
  }
  if (params.epsilon_cutoff > 0.0) {
    double mass = 0.0;
    for (std::size_t r = 0; r < keep; ++r) mass += weight[order[r]];
    const double threshold = max + params.temperature * std::log(params.epsilon_cutoff * mass);
    std::size_t r = 0;
    while (r < keep && logits[order[r]] >= float(threshold)) ++r;
    // The fast path sums float32 weights (2 ulp each) and rounds the threshold to float32; the
    // first token is kept whatever the threshold.
    const double rounding = 5e-7 * (params.temperature + std::abs(threshold));
    for (std::size_t q = 1; q < keep; ++q) {
      out.boundary_within_rounding |= std::abs(logits[order[q]] - threshold) < rounding;
    }
    keep = std::max<std::size_t>(r, 1);
  }
  double kept = 0.0;
  for (std::size_t r = 0; r < keep; ++r) kept += weight[order[r]];
  for (std::size_t r = 0; r < keep; ++r) {
    out.probs[order[r]] = weight[order[r]] / kept;
    out.kept_mask[order[r]] = true;
  }
  out.kept = keep;
  out.kept_mass = kept / total;
  return out;
}

inline std::vector<float> random_logits(std::size_t v, std::uint64_t seed, double scale) {
  sampling_lab::Philox rng(seed);
  std::vector<float> logits(v);
  for (float& z : logits) z = float(scale * rng.normal());
  return logits;
}

}  // namespace reference
