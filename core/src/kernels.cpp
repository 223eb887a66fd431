#include "sampling_lab/kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace sampling_lab::kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr std::size_t kLanes = Batch::size;

std::size_t simd_end(std::size_t size) { return size - size % kLanes; }
}  // namespace

MinMax min_max(std::span<const float> values) {
  const float* data = values.data();
  const std::size_t end = simd_end(values.size());
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  if (end > 0) {
    Batch lo_batch = Batch::load_unaligned(data);
    Batch hi_batch = lo_batch;
    for (std::size_t i = kLanes; i < end; i += kLanes) {
      const Batch x = Batch::load_unaligned(data + i);
      lo_batch = xsimd::min(lo_batch, x);
      hi_batch = xsimd::max(hi_batch, x);
    }
    lo = xsimd::reduce_min(lo_batch);
    hi = xsimd::reduce_max(hi_batch);
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
  }
  return {lo, hi};
}

namespace {
// One pass of exp((x - shift) * scale), optionally stored, summed with per-lane Kahan
// compensation: float storage with near-double accuracy.
template <bool kStore>
double exp_pass(std::span<const float> values, float shift, float scale, float* out) {
  const float* in = values.data();
  const std::size_t end = simd_end(values.size());
  const Batch shift_batch(shift);
  const Batch scale_batch(scale);
  Batch sum(0.0f);
  Batch compensation(0.0f);
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Batch e = xsimd::exp((Batch::load_unaligned(in + i) - shift_batch) * scale_batch);
    if constexpr (kStore) e.store_unaligned(out + i);
    const Batch y = e - compensation;
    const Batch t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  alignas(64) std::array<float, kLanes> sums{};
  alignas(64) std::array<float, kLanes> compensations{};
  sum.store_aligned(sums.data());
  compensation.store_aligned(compensations.data());
  double total = 0.0;
  for (std::size_t lane = 0; lane < kLanes; ++lane) {
    total += double(sums[lane]) - double(compensations[lane]);
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    const float e = std::exp((in[i] - shift) * scale);
    if constexpr (kStore) out[i] = e;
    total += e;
  }
  return total;
}
}  // namespace

double exp_shifted(std::span<const float> values, float shift, float scale, std::span<float> out) {
  return exp_pass<true>(values, shift, scale, out.data());
}

double exp_sum(std::span<const float> values, float shift, float scale) {
  return exp_pass<false>(values, shift, scale, nullptr);
}

std::size_t count_at_least(std::span<const float> values, float threshold) {
  const float* data = values.data();
  const std::size_t end = simd_end(values.size());
  const Batch threshold_batch(threshold);
  const Batch one(1.0f);
  const Batch zero(0.0f);
  // Lane counts stay exact in float up to 2^24 (the vocabulary limit).
  Batch counts(0.0f);
  for (std::size_t i = 0; i < end; i += kLanes) {
    counts += xsimd::select(Batch::load_unaligned(data + i) >= threshold_batch, one, zero);
  }
  std::size_t count = static_cast<std::size_t>(xsimd::reduce_add(counts));
  for (std::size_t i = end; i < values.size(); ++i) count += data[i] >= threshold;
  return count;
}

}  // namespace sampling_lab::kernels
