#pragma once
// A next-token distribution: softmax with temperature and the numbers that describe its shape.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

// 1 / T in float for T > 0, kept within float's normal range [FLT_MIN, FLT_MAX]: a temperature
// so small that 1 / T overflows keeps a one-hot softmax, and one so large that it underflows a
// flat one, instead of turning 0 · ∞ into NaN.
float inverse_temperature(double temperature);

// log Σ exp(z_i / T) with max subtraction; T > 0.
double log_sum_exp(std::span<const float> logits, double temperature);

// probs = softmax(logits / T). T = 0 is greedy: one-hot on the first maximum.
void softmax(std::span<const float> logits, double temperature, std::span<float> probs);

// out = log softmax(logits / T); T > 0.
void log_softmax(std::span<const float> logits, double temperature, std::span<float> out);

// Token ids by descending value, ties by ascending id: the order every filter's kept prefix
// follows. A full sort, for charts: not for the per-token path.
std::vector<std::uint32_t> ranking(std::span<const float> values);

// Index of the largest value; ties go to the lowest index.
std::size_t argmax(std::span<const float> values);

double entropy_nats(std::span<const float> probs);
double entropy_bits(std::span<const float> probs);
float top_probability(std::span<const float> probs);

// How many of the most probable tokens it takes for their cumulative probability to reach
// `mass` (the chapter's "tokens for 90%"); V when the total falls short by rounding.
std::size_t cover_count(std::span<const float> probs, double mass, CoverWorkspace& workspace);
std::size_t cover_count_logits(std::span<const float> logits, double temperature, double mass,
                               CoverWorkspace& workspace);

struct Distances {
  double tv;       // ½ Σ |p - q|
  double kl;       // Σ p log(p / q), in nats; +inf where q = 0 < p
  double overlap;  // Σ min(p, q) = 1 - TV
};
// In float32 (the core's distributions) or in double (a caller's, unrounded).
Check check_distance_inputs(std::span<const float> p, std::span<const float> q);
Check check_distance_inputs(std::span<const double> p, std::span<const double> q);
Distances distances(std::span<const float> p, std::span<const float> q);
Distances distances(std::span<const double> p, std::span<const double> q);

}  // namespace sampling_lab
