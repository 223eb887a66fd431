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
// e^x on a batch for x <= 0 (the shifted logits of a softmax): x = n ln2 + r with |r| <= ln2/2,
// e^r by Cephes' expf polynomial, 2^n written into the exponent bits. About 2 ulp; below −87.3
// (where float32 leaves the normal range) the result is 0. Rounding by the 1.5·2^23 trick and clamping by a
// compare and select keep it to adds, multiplies and bit operations, which every SIMD back end
// (WebAssembly's included) runs natively.
Batch exp_approx(Batch x) {
  using Int = xsimd::batch<std::int32_t>;
  // Below −87.3 the exponent bits would wrap; the final select zeroes those lanes instead.
  const auto underflow = x < Batch(-87.33654f);
  const Batch magic(12582912.0f);  // 1.5 · 2^23: adding it rounds to an integer in the low bits
  const Batch shifted = xsimd::fma(x, Batch(1.44269504088896341f), magic);
  const Batch n = shifted - magic;
  const Batch r = xsimd::fnma(n, Batch(-2.12194440e-4f), xsimd::fnma(n, Batch(0.693359375f), x));
  Batch p(1.9875691500e-4f);
  p = xsimd::fma(p, r, Batch(1.3981999507e-3f));
  p = xsimd::fma(p, r, Batch(8.3334519073e-3f));
  p = xsimd::fma(p, r, Batch(4.1665795894e-2f));
  p = xsimd::fma(p, r, Batch(1.6666665459e-1f));
  p = xsimd::fma(p, r, Batch(5.0000001201e-1f));
  const Batch e_r = xsimd::fma(p, r * r, r + Batch(1.0f));
  // The integer n sits in the low mantissa bits of `shifted`; move it to the exponent field.
  const Int exponent = (xsimd::bitwise_cast<std::int32_t>(shifted) - xsimd::bitwise_cast<std::int32_t>(magic) + Int(127)) << 23;
  return xsimd::select(underflow, Batch(0.0f), e_r * xsimd::bitwise_cast<float>(exponent));
}

// ln x on a batch for x > 0 and finite: x = m 2^e with m in [√½, √2), ln m by Cephes' logf
// polynomial. About 2 ulp.
Batch log_approx(Batch x) {
  using Int = xsimd::batch<std::int32_t>;
  const Int bits = xsimd::bitwise_cast<std::int32_t>(x);
  Batch e = xsimd::batch_cast<float>(((bits >> 23) & Int(0xff)) - Int(126));
  Batch m = xsimd::bitwise_cast<float>((bits & Int(0x807fffff)) | Int(0x3f000000));  // [0.5, 1)
  const auto small = m < Batch(0.707106781186547524f);
  e = xsimd::select(small, e - Batch(1.0f), e);
  m = xsimd::select(small, m + m - Batch(1.0f), m - Batch(1.0f));
  const Batch z = m * m;
  Batch p(7.0376836292e-2f);
  p = xsimd::fma(p, m, Batch(-1.1514610310e-1f));
  p = xsimd::fma(p, m, Batch(1.1676998740e-1f));
  p = xsimd::fma(p, m, Batch(-1.2420140846e-1f));
  p = xsimd::fma(p, m, Batch(1.4249322787e-1f));
  p = xsimd::fma(p, m, Batch(-1.6668057665e-1f));
  p = xsimd::fma(p, m, Batch(2.0000714765e-1f));
  p = xsimd::fma(p, m, Batch(-2.4999993993e-1f));
  p = xsimd::fma(p, m, Batch(3.3333331174e-1f));
  Batch y = p * m * z;
  y = xsimd::fma(e, Batch(-2.12194440e-4f), y);
  y = xsimd::fnma(Batch(0.5f), z, y);
  return xsimd::fma(e, Batch(0.693359375f), m + y);
}

// u = (w / 2^8 + ½) / 2^24 from 32-bit words: float uniforms strictly inside (0, 1).
template <typename Transform>
void transform_uniforms(std::span<const std::uint32_t> words, std::span<float> out, Transform transform) {
  using Int = xsimd::batch<std::int32_t>;
  const std::size_t end = simd_end(words.size());
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Int high = xsimd::bitwise_cast<std::int32_t>(xsimd::batch<std::uint32_t>::load_unaligned(words.data() + i) >> 8);
    const Batch u = (xsimd::batch_cast<float>(high) + Batch(0.5f)) * Batch(0x1p-24f);
    transform(u).store_unaligned(out.data() + i);
  }
  for (std::size_t i = end; i < words.size(); ++i) {
    const Batch u((float(words[i] >> 8) + 0.5f) * 0x1p-24f);
    out[i] = transform(u).get(0);
  }
}

// One pass of exp((x - shift) * scale), optionally stored, summed with per-lane Kahan
// compensation: float storage with near-double accuracy.
template <bool kStore>
double exp_pass(std::span<const float> values, float shift, float scale, float* out) {
  // Four independent Kahan accumulators: one would serialise the pass on its add latency.
  constexpr std::size_t kWays = 4;
  const float* in = values.data();
  const std::size_t end = values.size() - values.size() % (kWays * kLanes);
  const Batch shift_batch(shift);
  const Batch scale_batch(scale);
  std::array<Batch, kWays> sum{}, compensation{};
  for (std::size_t w = 0; w < kWays; ++w) sum[w] = compensation[w] = Batch(0.0f);
  for (std::size_t i = 0; i < end; i += kWays * kLanes) {
    for (std::size_t w = 0; w < kWays; ++w) {
      const Batch e = exp_approx((Batch::load_unaligned(in + i + w * kLanes) - shift_batch) * scale_batch);
      if constexpr (kStore) e.store_unaligned(out + i + w * kLanes);
      const Batch y = e - compensation[w];
      const Batch t = sum[w] + y;
      compensation[w] = (t - sum[w]) - y;
      sum[w] = t;
    }
  }
  double total = 0.0;
  alignas(64) std::array<float, kLanes> lanes{};
  for (std::size_t w = 0; w < kWays; ++w) {
    (sum[w] - compensation[w]).store_aligned(lanes.data());
    for (const float lane : lanes) total += lane;
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    const float x = (in[i] - shift) * scale;
    const float e = x < -87.33654f ? 0.0f : std::exp(x);
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

std::size_t gather_at_least(std::span<const float> values, float threshold,
                            std::vector<std::uint32_t>& ids, std::vector<float>& kept) {
  ids.clear();
  kept.clear();
  const float* data = values.data();
  const std::size_t end = simd_end(values.size());
  const Batch threshold_batch(threshold);
  const auto take = [&](std::size_t i) {
    if (data[i] >= threshold) {
      ids.push_back(std::uint32_t(i));
      kept.push_back(data[i]);
    }
  };
  for (std::size_t i = 0; i < end; i += kLanes) {
    // Most batches hold no candidate: one compare skips them.
    if (xsimd::any(Batch::load_unaligned(data + i) >= threshold_batch)) {
      for (std::size_t j = i; j < i + kLanes; ++j) take(j);
    }
  }
  for (std::size_t i = end; i < values.size(); ++i) take(i);
  return ids.size();
}

std::size_t next_above(std::span<const float> values, std::size_t start, float threshold) {
  const float* data = values.data();
  const Batch threshold_batch(threshold);
  std::size_t i = start;
  for (; i < values.size() && i % kLanes != 0; ++i) {
    if (data[i] > threshold) return i;
  }
  for (const std::size_t end = simd_end(values.size()); i < end; i += kLanes) {
    if (xsimd::any(Batch::load_unaligned(data + i) > threshold_batch)) break;
  }
  for (; i < values.size(); ++i) {
    if (data[i] > threshold) return i;
  }
  return values.size();
}

std::size_t inverse_cdf(std::span<const float> weights, double target) {
  constexpr std::size_t kBlock = 1024;
  double cumulative = 0.0;
  for (std::size_t start = 0; start < weights.size(); start += kBlock) {
    const auto block = weights.subspan(start, std::min(kBlock, weights.size() - start));
    // Whole blocks are skipped on a SIMD sum; only the block holding the target is scanned.
    const std::size_t end = simd_end(block.size());
    Batch lanes(0.0f);
    for (std::size_t i = 0; i < end; i += kLanes) lanes += Batch::load_unaligned(block.data() + i);
    double block_sum = xsimd::reduce_add(lanes);
    for (std::size_t i = end; i < block.size(); ++i) block_sum += block[i];
    if (cumulative + block_sum <= target) {
      cumulative += block_sum;
      continue;
    }
    for (std::size_t i = 0; i < block.size(); ++i) {
      cumulative += block[i];
      if (block[i] > 0.0f && cumulative > target) return start + i;
    }
  }
  // Rounding left the target past the total: the last token that can be drawn.
  std::size_t last = weights.size() - 1;
  while (last > 0 && weights[last] <= 0.0f) --last;
  return last;
}

void exponential_noise(std::span<const std::uint32_t> words, std::span<float> out) {
  transform_uniforms(words, out, [](Batch u) { return -log_approx(u); });
}

void gumbel_noise(std::span<const std::uint32_t> words, std::span<float> out) {
  transform_uniforms(words, out, [](Batch u) { return -log_approx(-log_approx(u)); });
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
