#pragma once
// The few SIMD kernels (xsimd) that every vocabulary-sized pass goes through.
#include <cstddef>
#include <span>

namespace sampling_lab::kernels {

struct MinMax {
  float min;
  float max;
};
MinMax min_max(std::span<const float> values);

// out[i] = exp((values[i] - shift) * scale); returns the sum of out, Kahan-compensated.
double exp_shifted(std::span<const float> values, float shift, float scale, std::span<float> out);

// Σ exp((values[i] - shift) * scale), Kahan-compensated, without storing the terms.
double exp_sum(std::span<const float> values, float shift, float scale);

// Number of values >= threshold.
std::size_t count_at_least(std::span<const float> values, float threshold);

}  // namespace sampling_lab::kernels
