#pragma once
// The few SIMD kernels (xsimd) that every vocabulary-sized pass goes through.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sampling_lab::kernels {

struct MinMax {
  float min;
  float max;
};
MinMax min_max(std::span<const float> values);

// out[i] = exp((values[i] - shift) * scale); returns the sum of out, Kahan-compensated.
// Needs (values[i] − shift) · scale <= 0, as with shift = max and scale = 1/T > 0. A polynomial
// exp accurate to about 2 ulp; arguments below −87.3 give 0.
double exp_shifted(std::span<const float> values, float shift, float scale, std::span<float> out);

// Σ exp((values[i] - shift) * scale), Kahan-compensated, without storing the terms.
double exp_sum(std::span<const float> values, float shift, float scale);

// Ids and values of every value >= threshold, in id order (buffers are cleared first).
std::size_t gather_at_least(std::span<const float> values, float threshold,
                            std::vector<std::uint32_t>& ids, std::vector<float>& kept);

// First index >= start whose value is > threshold, or values.size().
std::size_t next_above(std::span<const float> values, std::size_t start, float threshold);

// The inverse-CDF draw: the first index whose running sum of weights exceeds `target`, for
// weights >= 0 and target = u · Σ weights with u in [0, 1). Never returns a zero-weight index.
std::size_t inverse_cdf(std::span<const float> weights, double target);

// Noise from Philox words w, with u = (⌊w / 2^8⌋ + ½) / 2^24 strictly inside (0, 1) (float32
// resolution, as torch.rand): Exp(1) variates −ln u, or standard Gumbel variates −ln(−ln u).
void exponential_noise(std::span<const std::uint32_t> words, std::span<float> out);
void gumbel_noise(std::span<const std::uint32_t> words, std::span<float> out);

// Number of values >= threshold.
std::size_t count_at_least(std::span<const float> values, float threshold);

}  // namespace sampling_lab::kernels
