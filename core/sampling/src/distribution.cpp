#include "sampling_lab/distribution.hpp"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <numbers>

#include "prefix_select.hpp"
#include "ranking.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

float inverse_temperature(double temperature) {
  return float(std::clamp(1.0 / temperature, double(std::numeric_limits<float>::min()),
                          double(std::numeric_limits<float>::max())));
}

double log_sum_exp(std::span<const float> logits, double temperature) {
  const float max = kernels::min_max(logits).max;
  return max / temperature + std::log(kernels::exp_sum(logits, max, inverse_temperature(temperature)));
}

void softmax(std::span<const float> logits, double temperature, std::span<float> probs) {
  if (temperature == 0.0) {
    std::fill(probs.begin(), probs.end(), 0.0f);
    probs[argmax(logits)] = 1.0f;
    return;
  }
  const float max = kernels::min_max(logits).max;
  const double sum = kernels::exp_shifted(logits, max, inverse_temperature(temperature), probs);
  const float inverse = float(1.0 / sum);
  for (float& p : probs) p *= inverse;
}

void log_softmax(std::span<const float> logits, double temperature, std::span<float> out) {
  const double log_normaliser = log_sum_exp(logits, temperature);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    out[i] = float(logits[i] / temperature - log_normaliser);
  }
}

std::vector<std::uint32_t> ranking(std::span<const float> values) {
  // LSD radix sort (three passes of 11 bits) on keys whose ascending order is descending value:
  // linear time, and stable, so ties keep the lower id first (Knuth, TAOCP vol. 3, 5.2.5).
  constexpr int kBits = 11;
  constexpr std::uint32_t kMask = (1u << kBits) - 1;
  const std::size_t n = values.size();
  std::vector<std::uint32_t> keys(n), order(n), next_keys(n), next_order(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float value = values[i] + 0.0f;  // −0 ties with +0
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const std::uint32_t ascending = bits & 0x80000000u ? ~bits : bits | 0x80000000u;
    keys[i] = ~ascending;
    order[i] = std::uint32_t(i);
  }
  for (int shift = 0; shift < 32; shift += kBits) {
    std::vector<std::size_t> start(std::size_t(kMask) + 2, 0);
    for (const std::uint32_t key : keys) ++start[((key >> shift) & kMask) + 1];
    for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = start[(keys[i] >> shift) & kMask]++;
      next_keys[at] = keys[i];
      next_order[at] = order[i];
    }
    keys.swap(next_keys);
    order.swap(next_order);
  }
  return order;
}

std::size_t argmax(std::span<const float> values) { return kernels::argmax(values); }

double entropy_nats(std::span<const float> probs) {
  double entropy = 0.0;
  for (const float p : probs) {
    if (p > 0.0f) entropy -= double(p) * std::log(double(p));
  }
  return entropy;
}

double entropy_bits(std::span<const float> probs) { return entropy_nats(probs) / std::numbers::ln2; }

float top_probability(std::span<const float> probs) { return kernels::min_max(probs).max; }

std::size_t cover_count(std::span<const float> probs, double mass, CoverWorkspace& workspace) {
  // Rank by log-probability so that buckets resolve the long tail as finely as the head.
  float smallest_positive = 1.0f;
  for (const float p : probs) {
    if (p > 0.0f) smallest_positive = std::min(smallest_positive, p);
  }
  const float floor_key = std::log(smallest_positive) - 1.0f;
  workspace.keys.resize(probs.size());
  for (std::size_t i = 0; i < probs.size(); ++i) {
    workspace.keys[i] = probs[i] > 0.0f ? std::log(probs[i]) : floor_key;
  }
  const auto range = kernels::min_max(workspace.keys);
  detail::PrefixSelector selector(workspace.keys, probs, range.max, range.min, workspace.prefix);
  return selector.reaching_mass(mass).count;
}

std::size_t cover_count_logits(std::span<const float> logits, double temperature, double mass,
                               CoverWorkspace& workspace) {
  if (temperature == 0.0) return 1;
  const auto range = kernels::min_max(logits);
  workspace.weights.resize(logits.size());
  const double total =
      kernels::exp_shifted(logits, range.max, inverse_temperature(temperature), workspace.weights);
  detail::PrefixSelector selector(logits, workspace.weights, range.max, range.min, workspace.prefix);
  return selector.reaching_mass(mass * total).count;
}

namespace {

template <typename T>
Check check_distance_inputs_of(std::span<const T> p, std::span<const T> q) {
  if (auto error = check_probabilities(p, "p")) return error;
  if (auto error = check_probabilities(q, "q")) return error;
  if (p.size() != q.size()) {
    return ArgumentError{"q", "q has " + std::to_string(q.size()) + " entries but p has " +
                                  std::to_string(p.size())};
  }
  return std::nullopt;
}

template <typename T>
Distances distances_of(std::span<const T> p, std::span<const T> q) {
  double absolute_difference = 0.0;
  double kl = 0.0;
  double overlap = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double pi = p[i];
    const double qi = q[i];
    absolute_difference += std::abs(pi - qi);
    overlap += std::min(pi, qi);
    if (pi > 0.0) {
      kl += qi > 0.0 ? pi * std::log(pi / qi) : std::numeric_limits<double>::infinity();
    }
  }
  // Inputs are checked to sum to 1 within float rounding; the distances stay in their ranges.
  return {std::min(1.0, 0.5 * absolute_difference), std::max(0.0, kl), std::min(1.0, overlap)};
}

}  // namespace

Check check_distance_inputs(std::span<const float> p, std::span<const float> q) { return check_distance_inputs_of(p, q); }
Check check_distance_inputs(std::span<const double> p, std::span<const double> q) { return check_distance_inputs_of(p, q); }
Distances distances(std::span<const float> p, std::span<const float> q) { return distances_of(p, q); }
Distances distances(std::span<const double> p, std::span<const double> q) { return distances_of(p, q); }

}  // namespace sampling_lab
