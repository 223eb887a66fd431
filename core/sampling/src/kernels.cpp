#include "sampling_lab/kernels.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <xsimd/xsimd.hpp>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <immintrin.h>
#endif

namespace sampling_lab::kernels {

namespace {
using Batch = xsimd::batch<float>;
constexpr std::size_t kLanes = Batch::size;

std::size_t simd_end(std::size_t size) { return size - size % kLanes; }

// Sparse scans test four batches at a time: one any_true, branch and loop check (and, in V8, one
// stack check) per 4 · kLanes values instead of per batch.
constexpr std::size_t kScanStride = 4 * kLanes;

// Whether test(batch) holds in some lane of the four batches at `data`.
template <typename Test>
bool any_in_four(const float* data, Test test) {
  return xsimd::any((test(Batch::load_unaligned(data)) || test(Batch::load_unaligned(data + kLanes))) ||
                    (test(Batch::load_unaligned(data + 2 * kLanes)) || test(Batch::load_unaligned(data + 3 * kLanes))));
}

// A gather in two steps: a pass marks the values it keeps, one bit each, packed into words (a
// compare and a mask per batch), and list_marked then lists the marked ones word by word. Listing
// inside the pass costs a mispredicted branch for about every batch that holds one, once they
// are more than a few per cent of the values.
std::size_t marked_words(std::size_t size) { return (size + 31) / 32; }

// Marks, one bit per value, of the values within [low, high] (NaN never is), into
// marked_words(values.size()) words: bit b of word w for values[32w + b]. Most words of a sparse
// gather hold no value at or above `low`: that one compare per value skips the rest.
void mark_within(std::span<const float> values, float low, float high, std::uint32_t* words) {
  constexpr std::size_t kBatches = 32 / kLanes;
  const Batch low_batch(low), high_batch(high);
  const auto mark_word = [&](const float* data) {
    auto any = xsimd::batch_bool<float>(false);
    for (std::size_t b = 0; b < kBatches; ++b) any = any || Batch::load_unaligned(data + b * kLanes) >= low_batch;
    std::uint32_t word = 0;
    if (!xsimd::any(any)) return word;
    for (std::size_t b = 0; b < kBatches; ++b) {
      const Batch x = Batch::load_unaligned(data + b * kLanes);
      word |= std::uint32_t((x >= low_batch && x <= high_batch).mask()) << (b * kLanes);
    }
    return word;
  };
  const std::size_t whole = values.size() / 32;
  for (std::size_t w = 0; w < whole; ++w) words[w] = mark_word(values.data() + w * 32);
  if (values.size() % 32 == 0) return;
  std::array<float, 32> rest;
  rest.fill(std::numeric_limits<float>::quiet_NaN());
  std::copy(values.begin() + std::ptrdiff_t(whole * 32), values.end(), rest.begin());
  words[whole] = mark_word(rest.data());
}

// The marked positions of `values` and their values, in order, into ids and kept, word by word
// until `limit` or more are listed; returns how many are listed then.
std::size_t list_marked(const std::uint32_t* words, std::size_t size, const float* values, std::uint32_t* ids, float* kept,
                        std::size_t limit) {
  std::size_t count = 0;
  for (std::size_t w = 0; w < marked_words(size) && count < limit; ++w) {
    for (std::uint32_t bits = words[w]; bits != 0; bits &= bits - 1, ++count) {
      const std::size_t i = w * 32 + std::size_t(std::countr_zero(bits));
      ids[count] = std::uint32_t(i);
      kept[count] = values[i];
    }
  }
  return count;
}
}  // namespace

namespace {
// x − x is 0 for a finite x and NaN for NaN or ±∞: summed over a pass, NaN says some value was not finite.
Batch poisoned(Batch poison, Batch x) { return poison + (x - x); }
}  // namespace

// Two accumulator sets: one would serialise the pass on the latency of min and max; more would
// spill in V8, which keeps about 12 vectors in registers.
MinMax min_max(std::span<const float> values) {
  const float* data = values.data();
  const std::size_t n = values.size();
  const std::size_t end = n - n % (2 * kLanes);
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  bool finite = true;
  if (end > 0) {
    Batch lo0 = Batch::load_unaligned(data), lo1 = Batch::load_unaligned(data + kLanes);
    Batch hi0 = lo0, hi1 = lo1;
    Batch poison0 = lo0 - lo0, poison1 = lo1 - lo1;
    for (std::size_t i = 2 * kLanes; i < end; i += 2 * kLanes) {
      const Batch x0 = Batch::load_unaligned(data + i);
      const Batch x1 = Batch::load_unaligned(data + i + kLanes);
      lo0 = xsimd::min(lo0, x0);
      hi0 = xsimd::max(hi0, x0);
      poison0 = poisoned(poison0, x0);
      lo1 = xsimd::min(lo1, x1);
      hi1 = xsimd::max(hi1, x1);
      poison1 = poisoned(poison1, x1);
    }
    lo = xsimd::reduce_min(xsimd::min(lo0, lo1));
    hi = xsimd::reduce_max(xsimd::max(hi0, hi1));
    finite = !std::isnan(xsimd::reduce_add(poison0 + poison1));
  }
  for (std::size_t i = end; i < n; ++i) {
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
    finite = finite && std::isfinite(data[i]);
  }
  return {lo, hi, finite};
}

float lane_sum(std::span<const float> values) {
  const float* data = values.data();
  const std::size_t n = values.size();
  const std::size_t end = n - n % (4 * kLanes);
  Batch s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f);
  for (std::size_t i = 0; i < end; i += 4 * kLanes) {
    s0 += Batch::load_unaligned(data + i);
    s1 += Batch::load_unaligned(data + i + kLanes);
    s2 += Batch::load_unaligned(data + i + 2 * kLanes);
    s3 += Batch::load_unaligned(data + i + 3 * kLanes);
  }
  float total = xsimd::reduce_add((s0 + s1) + (s2 + s3));
  for (std::size_t i = end; i < n; ++i) total += data[i];
  return total;
}

float masked_max(std::span<const std::uint32_t> mask, std::span<const float> values) {
  using U32 = xsimd::batch<std::uint32_t>;
  const float* data = values.data();
  // Lane l of a register tests bit l of its share of the word.
  alignas(64) std::array<std::uint32_t, kLanes> lane_bits;
  for (std::size_t lane = 0; lane < kLanes; ++lane) lane_bits[lane] = 1u << lane;
  const U32 bits = U32::load_aligned(lane_bits.data());
  const Batch none(-std::numeric_limits<float>::infinity());
  // Two accumulators, as min_max has, so that neither waits on the other's latency.
  std::array<Batch, 2> best{none, none};
  const std::size_t full_words = values.size() / 32;
  for (std::size_t w = 0; w < full_words; ++w) {
    const std::uint32_t word = mask[w];
    for (std::size_t lane = 0; lane < 32; lane += kLanes) {
      const auto allowed = xsimd::batch_bool_cast<float>((U32(word >> lane) & bits) != U32(0u));
      Batch& way = best[(lane / kLanes) % 2];
      way = xsimd::max(way, xsimd::select(allowed, Batch::load_unaligned(data + 32 * w + lane), none));
    }
  }
  float result = xsimd::reduce_max(xsimd::max(best[0], best[1]));
  for (std::size_t i = 32 * full_words; i < values.size(); ++i) {
    if (mask[i / 32] >> (i % 32) & 1u) result = std::max(result, data[i]);
  }
  return result;
}

std::size_t first_non_finite(std::span<const float> values) {
  const float* data = values.data();
  // Four accumulators: one would wait on the latency of each add.
  const std::size_t end = values.size() - values.size() % (4 * kLanes);
  Batch poison0(0.0f), poison1(0.0f), poison2(0.0f), poison3(0.0f);
  for (std::size_t i = 0; i < end; i += 4 * kLanes) {
    poison0 = poisoned(poison0, Batch::load_unaligned(data + i));
    poison1 = poisoned(poison1, Batch::load_unaligned(data + i + kLanes));
    poison2 = poisoned(poison2, Batch::load_unaligned(data + i + 2 * kLanes));
    poison3 = poisoned(poison3, Batch::load_unaligned(data + i + 3 * kLanes));
  }
  const std::size_t first = std::isnan(xsimd::reduce_add((poison0 + poison1) + (poison2 + poison3))) ? 0 : end;
  for (std::size_t i = first; i < values.size(); ++i) {
    if (!std::isfinite(data[i])) return i;
  }
  return values.size();
}

bool checked_copy(std::span<const float> values, std::span<float> out) {
  const float* data = values.data();
  float* target = out.data();
  const std::size_t end = simd_end(values.size());
  Batch poison(0.0f);
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Batch x = Batch::load_unaligned(data + i);
    x.store_unaligned(target + i);
    poison = poisoned(poison, x);
  }
  bool finite = !std::isnan(xsimd::reduce_add(poison));
  for (std::size_t i = end; i < values.size(); ++i) {
    target[i] = data[i];
    finite = finite && std::isfinite(data[i]);
  }
  return finite;
}

namespace {
// Each block's maximum, in a pass as cheap as lane_sum's, then a scan of the first block holding
// the overall maximum; with kCheck, whether every value was finite too. Four accumulators of each
// kind: one would wait on the latency of every max and add.
template <bool kCheck>
CheckedIndex argmax_pass(std::span<const float> values) {
  const float* data = values.data();
  const std::size_t blocks = block_count(values.size());
  float best = -std::numeric_limits<float>::infinity();
  std::size_t best_block = 0;
  const Batch none(-std::numeric_limits<float>::infinity());
  Batch poison0(0.0f), poison1(0.0f), poison2(0.0f), poison3(0.0f);
  bool finite = true;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t begin = b * kBlock;
    const std::size_t end = std::min(values.size(), begin + kBlock);
    const std::size_t unrolled_stop = begin + (end - begin) - (end - begin) % (4 * kLanes);
    Batch max0 = none, max1 = none, max2 = none, max3 = none;
    for (std::size_t i = begin; i < unrolled_stop; i += 4 * kLanes) {
      const Batch x0 = Batch::load_unaligned(data + i), x1 = Batch::load_unaligned(data + i + kLanes);
      const Batch x2 = Batch::load_unaligned(data + i + 2 * kLanes), x3 = Batch::load_unaligned(data + i + 3 * kLanes);
      max0 = xsimd::max(max0, x0);
      max1 = xsimd::max(max1, x1);
      max2 = xsimd::max(max2, x2);
      max3 = xsimd::max(max3, x3);
      if constexpr (kCheck) {
        poison0 = poisoned(poison0, x0);
        poison1 = poisoned(poison1, x1);
        poison2 = poisoned(poison2, x2);
        poison3 = poisoned(poison3, x3);
      }
    }
    float block_max = xsimd::reduce_max(xsimd::max(xsimd::max(max0, max1), xsimd::max(max2, max3)));
    for (std::size_t i = unrolled_stop; i < end; ++i) {
      block_max = std::max(block_max, data[i]);
      if constexpr (kCheck) finite = finite && std::isfinite(data[i]);
    }
    if (block_max > best) {
      best = block_max;
      best_block = b;
    }
  }
  if constexpr (kCheck) finite = finite && !std::isnan(xsimd::reduce_add((poison0 + poison1) + (poison2 + poison3)));
  const std::size_t end = std::min(values.size(), (best_block + 1) * kBlock);
  for (std::size_t i = best_block * kBlock; i < end; ++i) {
    if (data[i] == best) return {i, finite};
  }
  return {best_block * kBlock, finite};  // every value is −∞
}
}  // namespace

std::size_t argmax(std::span<const float> values) { return argmax_pass<false>(values).index; }

CheckedIndex checked_argmax(std::span<const float> values) { return argmax_pass<true>(values); }

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

// ln(2^e · (1 + f)) for f in [√½ − 1, √2 − 1) by Cephes' logf polynomial: about 2 ulp.
Batch log_reduced(Batch e, Batch f) {
  const Batch z = f * f;
  Batch p(7.0376836292e-2f);
  p = xsimd::fma(p, f, Batch(-1.1514610310e-1f));
  p = xsimd::fma(p, f, Batch(1.1676998740e-1f));
  p = xsimd::fma(p, f, Batch(-1.2420140846e-1f));
  p = xsimd::fma(p, f, Batch(1.4249322787e-1f));
  p = xsimd::fma(p, f, Batch(-1.6668057665e-1f));
  p = xsimd::fma(p, f, Batch(2.0000714765e-1f));
  p = xsimd::fma(p, f, Batch(-2.4999993993e-1f));
  p = xsimd::fma(p, f, Batch(3.3333331174e-1f));
  Batch y = p * f * z;
  y = xsimd::fma(e, Batch(-2.12194440e-4f), y);
  y = xsimd::fnma(Batch(0.5f), z, y);
  return xsimd::fma(e, Batch(0.693359375f), f + y);
}

// Exp(1) variates from 32-bit words (see exponential_noise); lanes within 2^-11 of an end are
// flagged in `extend`. Masks are combined with and/xor where a select would cost three ops.
Batch exponential_of_words(xsimd::batch<std::uint32_t> words, xsimd::batch_bool<float>& extend) {
  using Int = xsimd::batch<std::int32_t>;
  // S = (m + ½) / 2^32 with m = w below ½ and 2^32 − 1 − w above: U's distance to the nearer end.
  const Int upper_half = xsimd::bitwise_cast<std::int32_t>(words) >> 31;  // all ones above ½
  const Int m = xsimd::bitwise_cast<std::int32_t>(words) ^ upper_half;    // below 2^31
  extend = xsimd::batch_bool_cast<float>(m < Int(1 << 21));
  const Batch s = (xsimd::batch_cast<float>(m) + Batch(0.5f)) * Batch(0x1p-32f);
  // Below ½, E = −ln S: S = 2^e (1 + f) from its bits, 1 + f in [√½, √2).
  const Int bits = xsimd::bitwise_cast<std::int32_t>(s);
  const Batch mantissa = xsimd::bitwise_cast<float>((bits & Int(0x007fffff)) | Int(0x3f000000));  // [½, 1)
  const auto low = mantissa < Batch(0.707106781186547524f);
  const Batch e = xsimd::batch_cast<float>((bits >> 23) - Int(126)) - (Batch(1.0f) & xsimd::bitwise_cast(low));
  const Batch f = (mantissa + (mantissa & xsimd::bitwise_cast(low))) - Batch(1.0f);
  // Above ½, E = −ln(1 − S) with 1 − S = 2^e (1 + f) exactly: f = −S, or 1 − 2S with e = −1.
  const auto halved = s > Batch(0.292893218813452476f);
  const Batch far_e = Batch(-1.0f) & xsimd::bitwise_cast(halved);
  const Batch far_f = xsimd::select(halved, Batch(1.0f) - (s + s), -s);
  const auto below_half = xsimd::batch_bool_cast<float>(upper_half == Int(0));
  return -log_reduced(xsimd::select(below_half, e, far_e), xsimd::select(below_half, f, far_f));
}

}  // namespace

void exponential_noise(std::span<const std::uint32_t> words, std::span<float> out,
                       std::vector<std::uint32_t>& extend) {
  using U32 = xsimd::batch<std::uint32_t>;
  // Four batches per step: their polynomials are independent, so they overlap in the pipeline.
  constexpr std::size_t kWays = 4;
  const std::size_t end = simd_end(words.size());
  const std::size_t wide_end = end - end % (kWays * kLanes);
  const auto flag_lanes = [&](std::size_t first, std::size_t count) {
    for (std::size_t j = first; j < first + count; ++j) {
      if (std::min(words[j], ~words[j]) < (1u << 21)) extend.push_back(std::uint32_t(j));
    }
  };
  std::array<xsimd::batch_bool<float>, kWays> flagged;
  for (std::size_t i = 0; i < wide_end; i += kWays * kLanes) {
    for (std::size_t w = 0; w < kWays; ++w) {
      const std::size_t at = i + w * kLanes;
      exponential_of_words(U32::load_unaligned(words.data() + at), flagged[w]).store_unaligned(out.data() + at);
    }
    if (xsimd::any((flagged[0] || flagged[1]) || (flagged[2] || flagged[3]))) flag_lanes(i, kWays * kLanes);
  }
  for (std::size_t i = wide_end; i < end; i += kLanes) {
    exponential_of_words(U32::load_unaligned(words.data() + i), flagged[0]).store_unaligned(out.data() + i);
    if (xsimd::any(flagged[0])) flag_lanes(i, kLanes);
  }
  if (end == words.size()) return;
  // The last few words go through the same lanes, padded, so every variate is computed alike.
  alignas(64) std::array<std::uint32_t, kLanes> tail_words{};
  alignas(64) std::array<float, kLanes> tail{};
  std::copy(words.begin() + std::ptrdiff_t(end), words.end(), tail_words.begin());
  exponential_of_words(U32::load_aligned(tail_words.data()), flagged[0]).store_aligned(tail.data());
  for (std::size_t j = end; j < words.size(); ++j) {
    out[j] = tail[j - end];
    if (std::min(words[j], ~words[j]) < (1u << 21)) extend.push_back(std::uint32_t(j));
  }
}

namespace {

// Four independent Kahan accumulators (one would serialise a pass on its add latency).
constexpr std::size_t kWays = 4;
constexpr std::size_t kStride = kWays * kLanes;

// Σ term(i) over [begin, stop) (stop − begin a multiple of kStride), each term a batch of the
// values at i, per lane Kahan-compensated and read out in double: about float precision squared.
template <typename Term>
double compensated_sum(std::size_t begin, std::size_t stop, Term term) {
  std::array<Batch, kWays> sum, compensation;
  sum.fill(Batch(0.0f));
  compensation.fill(Batch(0.0f));
  for (std::size_t i = begin; i < stop; i += kStride) {
    for (std::size_t w = 0; w < kWays; ++w) {
      const Batch y = term(i + w * kLanes) - compensation[w];
      const Batch t = sum[w] + y;
      compensation[w] = (t - sum[w]) - y;
      sum[w] = t;
    }
  }
  double total = 0.0;
  alignas(64) std::array<float, kLanes> sums{}, compensations{};
  for (std::size_t w = 0; w < kWays; ++w) {
    sum[w].store_aligned(sums.data());
    compensation[w].store_aligned(compensations.data());
    for (std::size_t lane = 0; lane < kLanes; ++lane) total += double(sums[lane]) - double(compensations[lane]);
  }
  return total;
}

// One pass of exp((x - shift) * scale), optionally stored, summed with per-lane Kahan
// compensation; each block's (sum, compensation) pairs are read out in double, which keeps the
// block sums and the total to about float precision squared.
template <bool kStore>
double exp_pass(std::span<const float> values, float shift, float scale, float* out, std::span<double> block_sums) {
  static_assert(kBlock % kStride == 0);
  const float* in = values.data();
  const Batch shift_batch(shift);
  const Batch scale_batch(scale);
  double total = 0.0;
  for (std::size_t begin = 0; begin < values.size(); begin += kBlock) {
    const std::size_t end = std::min(values.size(), begin + kBlock);
    const std::size_t simd_stop = begin + (end - begin) / kStride * kStride;
    double block = compensated_sum(begin, simd_stop, [&](std::size_t at) {
      const Batch e = exp_approx((Batch::load_unaligned(in + at) - shift_batch) * scale_batch);
      if constexpr (kStore) e.store_unaligned(out + at);
      return e;
    });
    for (std::size_t i = simd_stop; i < end; ++i) {
      const float x = (in[i] - shift) * scale;
      const float e = x < -87.33654f ? 0.0f : std::exp(x);
      if constexpr (kStore) out[i] = e;
      block += e;
    }
    if (!block_sums.empty()) block_sums[begin / kBlock] = block;
    total += block;
  }
  return total;
}

}  // namespace


EntropySums entropy_sums(std::span<const float> values, float shift) {
  const float* in = values.data();
  constexpr std::size_t kPairs = 2;  // two independent lanes of each sum hide the add latency
  const std::size_t stop = values.size() - values.size() % (kPairs * kLanes);
  const Batch shift_batch(shift);
  std::array<Batch, kPairs> total, total_error, weighted, weighted_error;
  for (auto* accumulators : {&total, &total_error, &weighted, &weighted_error}) accumulators->fill(Batch(0.0f));
  const auto add = [](Batch& sum, Batch& error, Batch term) {
    const Batch y = term - error;
    const Batch t = sum + y;
    error = (t - sum) - y;
    sum = t;
  };
  for (std::size_t i = 0; i < stop; i += kPairs * kLanes) {
    for (std::size_t w = 0; w < kPairs; ++w) {
      const Batch y = Batch::load_unaligned(in + i + w * kLanes) - shift_batch;
      const Batch e = exp_approx(y);
      add(total[w], total_error[w], e);
      add(weighted[w], weighted_error[w], e * y);
    }
  }
  const auto read_out = [](Batch sum, Batch error) {
    alignas(64) std::array<float, kLanes> sums{}, errors{};
    sum.store_aligned(sums.data());
    error.store_aligned(errors.data());
    double out = 0.0;
    for (std::size_t lane = 0; lane < kLanes; ++lane) out += double(sums[lane]) - double(errors[lane]);
    return out;
  };
  EntropySums sums{0.0, 0.0};
  for (std::size_t w = 0; w < kPairs; ++w) {
    sums.total += read_out(total[w], total_error[w]);
    sums.weighted_exponent += read_out(weighted[w], weighted_error[w]);
  }
  for (std::size_t i = stop; i < values.size(); ++i) {
    const float y = in[i] - shift;
    const float e = y < -87.33654f ? 0.0f : std::exp(y);
    sums.total += e;
    sums.weighted_exponent += double(e) * y;
  }
  return sums;
}

MassBounds tail_mass(std::span<const float> values, float threshold, float shift, float scale) {
  const float* data = values.data();
  const std::size_t end = simd_end(values.size());
  const Batch threshold_batch(threshold), shift_batch(shift);
  // y = (x − shift) · scale · log2 e in fixed point with 15 fraction bits, + 127 · 2^15, + 2^23: a
  // float in [2^23, 2^24) whose mantissa bits, shifted left by 8 (the exponent bits of 2^23 shift
  // out), read as a float are 2^⌊y⌋ (1 + frac y). A shift, where a float-to-int conversion costs
  // five instructions more in V8 (WebAssembly's conversion saturates). y <= −127 (clamped to 2^23,
  // the bits of 0.0f) is left out, below 2^−126 each.
  const Batch bits_scale(scale * 1.44269504088896341f * 32768.0f);
  const Batch bits_bias(127.0f * 32768.0f + 8388608.0f);
  const Batch bits_floor(8388608.0f);
  const auto tail_term = [&](Batch x, xsimd::batch_bool<float> tail) {
    const Batch fixed = xsimd::max((x - shift_batch) * bits_scale + bits_bias, bits_floor);
    return xsimd::select(tail, xsimd::bitwise_cast<float>(xsimd::bitwise_cast<std::int32_t>(fixed) << 8), Batch(0.0f));
  };
  double total = 0.0;
  for (std::size_t begin = 0; begin < end; begin += kBlock) {
    const std::size_t stop = std::min(end, begin + kBlock);
    Batch sum(0.0f);
    for (std::size_t i = begin; i < stop; i += kLanes) {
      const Batch x = Batch::load_unaligned(data + i);
      sum += tail_term(x, x < threshold_batch);
    }
    total += double(xsimd::reduce_add(sum));
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    if (data[i] < threshold) total += std::exp((double(data[i]) - double(shift)) * double(scale));
  }
  // The approximation is at most 1.0861 times the term and never below it; float rounding of y
  // (at most 1.25 units of 2^−15, 4 · 10^−5 of the term) and of a block's sum in a lane (256
  // terms, 1.5 · 10^−5) stays inside 10^−4; the terms left out add at most 2^−126 each.
  constexpr double kSlack = 1e-4;
  return {total / 1.08616 / (1.0 + kSlack), total * (1.0 + kSlack) + double(values.size()) * 0x1p-126};
}

double block_sum(std::span<const float> values, std::span<double> block_sums) {
  static_assert(kBlock % kStride == 0);
  const float* data = values.data();
  double total = 0.0;
  for (std::size_t begin = 0; begin < values.size(); begin += kBlock) {
    const std::size_t end = std::min(values.size(), begin + kBlock);
    const std::size_t simd_stop = begin + (end - begin) / kStride * kStride;
    // As exp_pass sums its weights: four Kahan-compensated ways, read out in double.
    double block = compensated_sum(begin, simd_stop, [&](std::size_t at) { return Batch::load_unaligned(data + at); });
    for (std::size_t i = simd_stop; i < end; ++i) block += data[i];
    block_sums[begin / kBlock] = block;
    total += block;
  }
  return total;
}

void negative_distance(std::span<const float> values, float shift, float scale, float offset, std::span<float> out) {
  const std::size_t end = simd_end(values.size());
  const Batch shift_batch(shift), scale_batch(scale), offset_batch(offset), lowest(-std::numeric_limits<float>::max());
  // −|d| is d with its sign bit set: one OR, where V8 spends three instructions each on abs and neg.
  const Batch sign_bit(-0.0f);
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Batch difference = (shift_batch - Batch::load_unaligned(values.data() + i)) * scale_batch + offset_batch;
    xsimd::max(difference | sign_bit, lowest).store_unaligned(out.data() + i);
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    out[i] = std::max(-std::abs((shift - values[i]) * scale + offset), -std::numeric_limits<float>::max());
  }
}

double weighted_exponent_sum(std::span<const float> values, std::span<const float> weights, float shift, float scale) {
  const std::size_t simd_stop = values.size() / kStride * kStride;
  const Batch shift_batch(shift);
  const Batch scale_batch(scale);
  const Batch zero(0.0f);
  double total = compensated_sum(0, simd_stop, [&](std::size_t at) {
    const Batch weight = Batch::load_unaligned(weights.data() + at);
    const Batch exponent = (Batch::load_unaligned(values.data() + at) - shift_batch) * scale_batch;
    return xsimd::select(weight > zero, weight * exponent, zero);
  });
  for (std::size_t i = simd_stop; i < values.size(); ++i) {
    if (weights[i] > 0.0f) total += double(weights[i]) * ((double(values[i]) - shift) * scale);
  }
  return total;
}

double weighted_squared_deviation(std::span<const float> values, std::span<const float> weights, float shift, float scale,
                                  float center) {
  const std::size_t simd_stop = values.size() / kStride * kStride;
  const Batch shift_batch(shift);
  const Batch scale_batch(scale);
  const Batch center_batch(center);
  const Batch zero(0.0f);
  double total = compensated_sum(0, simd_stop, [&](std::size_t at) {
    const Batch weight = Batch::load_unaligned(weights.data() + at);
    const Batch deviation = (Batch::load_unaligned(values.data() + at) - shift_batch) * scale_batch - center_batch;
    return xsimd::select(weight > zero, weight * deviation * deviation, zero);
  });
  for (std::size_t i = simd_stop; i < values.size(); ++i) {
    if (!(weights[i] > 0.0f)) continue;
    const double deviation = (double(values[i]) - shift) * scale - center;
    total += double(weights[i]) * deviation * deviation;
  }
  return total;
}

double kahan_sum(std::span<const float> values) {
  const std::size_t simd_stop = values.size() / kStride * kStride;
  double total = compensated_sum(0, simd_stop, [&](std::size_t at) { return Batch::load_unaligned(values.data() + at); });
  for (std::size_t i = simd_stop; i < values.size(); ++i) total += values[i];
  return total;
}

double sum_of_squares(std::span<const float> values, float shift) {
  const std::size_t simd_stop = values.size() / kStride * kStride;
  const Batch shift_batch(shift);
  double total = compensated_sum(0, simd_stop, [&](std::size_t at) {
    const Batch value = Batch::load_unaligned(values.data() + at) - shift_batch;
    return value * value;
  });
  for (std::size_t i = simd_stop; i < values.size(); ++i) total += double(values[i] - shift) * double(values[i] - shift);
  return total;
}

double exp_shifted(std::span<const float> values, float shift, float scale, std::span<float> out,
                   std::span<double> block_sums) {
  return exp_pass<true>(values, shift, scale, out.data(), block_sums);
}

double exp_sum(std::span<const float> values, float shift, float scale) {
  return exp_pass<false>(values, shift, scale, nullptr, {});
}

double exp_block_sums(std::span<const float> values, float shift, float scale, std::span<double> block_sums) {
  return exp_pass<false>(values, shift, scale, nullptr, block_sums);
}

namespace {

// With kMasked, the marks are and-ed with the mask's words (the same layout).
template <bool kMasked>
std::size_t gather_at_least_in(std::span<const std::uint32_t> mask, std::span<const float> values, float threshold,
                               Buffer<std::uint32_t>& ids, Buffer<float>& kept, std::size_t limit) {
  const std::size_t size = values.size();
  // The marks' words live after room for every id: listing never reaches them.
  ids.resize(size + marked_words(size));
  kept.resize(size);
  std::uint32_t* words = ids.data() + size;
  const float* data = values.data();
  mark_within(values, threshold, std::numeric_limits<float>::infinity(), words);
  if constexpr (kMasked) {
    for (std::size_t w = 0; w < marked_words(size); ++w) words[w] &= mask[w];
  }
  const std::size_t count = list_marked(words, size, data, ids.data(), kept.data(), limit);
  ids.resize(count);
  kept.resize(count);
  return count;
}

}  // namespace

void zero_below(std::span<const float> keys, float threshold, std::span<float> weights) {
  const std::size_t end = simd_end(keys.size());
  const Batch threshold_batch(threshold), zero(0.0f);
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Batch w = Batch::load_unaligned(weights.data() + i);
    xsimd::select(Batch::load_unaligned(keys.data() + i) < threshold_batch, zero, w).store_unaligned(weights.data() + i);
  }
  for (std::size_t i = end; i < keys.size(); ++i) {
    if (keys[i] < threshold) weights[i] = 0.0f;
  }
}

std::size_t gather_at_least(std::span<const float> values, float threshold, Buffer<std::uint32_t>& ids,
                            Buffer<float>& kept, std::size_t limit) {
  return gather_at_least_in<false>({}, values, threshold, ids, kept, limit);
}

std::size_t gather_allowed_at_least(std::span<const std::uint32_t> mask, std::span<const float> values, float threshold,
                                    Buffer<std::uint32_t>& ids, Buffer<float>& kept, std::size_t limit) {
  return gather_at_least_in<true>(mask, values, threshold, ids, kept, limit);
}

std::size_t mask_count(std::span<const std::uint32_t> mask, std::size_t vocabulary) {
  const std::size_t full = std::min(mask.size(), vocabulary / 32);
  std::size_t count = 0;
  for (std::size_t w = 0; w < full; ++w) count += std::size_t(std::popcount(mask[w]));
  if (full < mask.size() && vocabulary % 32 != 0) {
    count += std::size_t(std::popcount(mask[full] & ((1u << (vocabulary % 32)) - 1u)));
  }
  return count;
}

namespace {

// Writes the lanes of one register of values (and their ids, from `base`) whose bit is set in
// `bits`, packed, at `kept` and `ids`; returns how many. Each store writes a whole register: the
// buffers have room past the last kept value.
#if defined(__AVX512F__)
constexpr std::size_t kMaskLanes = 16;
std::size_t compress_lanes(const float* values, std::uint32_t base, std::uint32_t bits, float* kept, std::uint32_t* ids) {
  const auto lanes = __mmask16(bits);
  _mm512_mask_compressstoreu_ps(kept, lanes, _mm512_loadu_ps(values));
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  _mm512_mask_compressstoreu_epi32(ids, lanes, _mm512_add_epi32(_mm512_set1_epi32(std::int32_t(base)), iota));
  return std::size_t(std::popcount(bits));
}
#elif defined(__AVX2__)
constexpr std::size_t kMaskLanes = 8;
// The set lanes of each 8-bit pattern, in order: the permutation that packs them, and their ids.
const auto kPermutations = [] {
  std::array<std::array<std::int32_t, 8>, 256> table{};
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    std::size_t at = 0;
    for (std::int32_t lane = 0; lane < 8; ++lane) {
      if (bits >> lane & 1u) table[bits][at++] = lane;
    }
  }
  return table;
}();
std::size_t compress_lanes(const float* values, std::uint32_t base, std::uint32_t bits, float* kept, std::uint32_t* ids) {
  const __m256i order = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kPermutations[bits].data()));
  _mm256_storeu_ps(kept, _mm256_permutevar8x32_ps(_mm256_loadu_ps(values), order));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(ids), _mm256_add_epi32(_mm256_set1_epi32(std::int32_t(base)), order));
  return std::size_t(std::popcount(bits));
}
#elif defined(__wasm_simd128__) || defined(__SSSE3__)
constexpr std::size_t kMaskLanes = 4;
// For each 4-bit pattern: the byte shuffle that packs the set lanes, and their lane numbers.
struct LaneShuffle {
  alignas(16) std::array<std::uint8_t, 16> bytes;
  alignas(16) std::array<std::int32_t, 4> lanes;
};
const auto kShuffles = [] {
  std::array<LaneShuffle, 16> table{};
  for (std::uint32_t bits = 0; bits < 16; ++bits) {
    std::size_t at = 0;
    for (std::uint8_t lane = 0; lane < 4; ++lane) {
      if (!(bits >> lane & 1u)) continue;
      for (std::uint8_t byte = 0; byte < 4; ++byte) table[bits].bytes[4 * at + byte] = std::uint8_t(4 * lane + byte);
      table[bits].lanes[at++] = lane;
    }
  }
  return table;
}();
std::size_t compress_lanes(const float* values, std::uint32_t base, std::uint32_t bits, float* kept, std::uint32_t* ids) {
  const LaneShuffle& shuffle = kShuffles[bits];
#if defined(__wasm_simd128__)
  wasm_v128_store(kept, wasm_i8x16_swizzle(wasm_v128_load(values), wasm_v128_load(shuffle.bytes.data())));
  wasm_v128_store(ids, wasm_i32x4_add(wasm_i32x4_splat(std::int32_t(base)), wasm_v128_load(shuffle.lanes.data())));
#else
  const __m128i order = _mm_load_si128(reinterpret_cast<const __m128i*>(shuffle.bytes.data()));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(kept), _mm_shuffle_epi8(_mm_castps_si128(_mm_loadu_ps(values)), order));
  const __m128i lanes = _mm_load_si128(reinterpret_cast<const __m128i*>(shuffle.lanes.data()));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(ids), _mm_add_epi32(_mm_set1_epi32(std::int32_t(base)), lanes));
#endif
  return std::size_t(std::popcount(bits));
}
#else
constexpr std::size_t kMaskLanes = 1;
std::size_t compress_lanes(const float* values, std::uint32_t base, std::uint32_t bits, float* kept, std::uint32_t* ids) {
  *kept = *values;
  *ids = base;
  return bits & 1u;
}
#endif

}  // namespace

namespace {
// gather_allowed's sweep; with kCheck, every value of a word is tested as the word is reached (in
// four accumulators, which one would serialise on its add latency), allowed or not.
template <bool kCheck>
CheckedCount gather_allowed_pass(std::span<const std::uint32_t> mask, std::span<const float> values,
                                 Buffer<std::uint32_t>& ids, Buffer<float>& kept) {
  using U32 = xsimd::batch<std::uint32_t>;
  // Room for a whole register past the last value: the copies store full registers.
  constexpr std::size_t kRoom = std::max(kMaskLanes, kLanes);
  ids.resize(values.size() + kRoom);
  kept.resize(values.size() + kRoom);
  const float* data = values.data();
  float* kept_out = kept.data();
  std::uint32_t* ids_out = ids.data();
  alignas(64) std::array<std::uint32_t, kLanes> lane_numbers;
  for (std::size_t lane = 0; lane < kLanes; ++lane) lane_numbers[lane] = std::uint32_t(lane);
  const U32 iota = U32::load_aligned(lane_numbers.data());
  std::size_t count = 0;
  std::array<Batch, 4> poison;
  poison.fill(Batch(0.0f));
  const std::size_t full_words = values.size() / 32;
  for (std::size_t w = 0; w < full_words; ++w) {
    const std::uint32_t word = mask[w];
    const std::size_t base = 32 * w;
    if constexpr (kCheck) {
      for (std::size_t lane = 0; lane < 32; lane += kLanes) {
        Batch& sum = poison[(lane / kLanes) % poison.size()];
        sum = poisoned(sum, Batch::load_unaligned(data + base + lane));
      }
    }
    if (word == 0) continue;
    // A grammar's mask inside a string allows nearly every token: half its words are full and
    // most others miss a few. The runs between the holes are copied a register at a time (the
    // last register of a run may read into the next word and write past it, which the next run
    // overwrites); the last word, which has no next one to read into, is compressed.
    if (std::popcount(~word) <= 4 && w + 1 < full_words) {
      std::uint32_t holes = ~word;
      for (std::size_t start = 0;;) {
        const std::size_t end = holes == 0 ? 32 : std::size_t(std::countr_zero(holes));
        for (std::size_t lane = start; lane < end; lane += kLanes) {
          Batch::load_unaligned(data + base + lane).store_unaligned(kept_out + count + lane - start);
          (U32(std::uint32_t(base + lane)) + iota).store_unaligned(ids_out + count + lane - start);
        }
        count += end - start;
        if (holes == 0) break;
        holes &= holes - 1;
        start = end + 1;
      }
      continue;
    }
    for (std::size_t lane = 0; lane < 32; lane += kMaskLanes) {
      const std::uint32_t bits = (word >> lane) & std::uint32_t((std::uint64_t{1} << kMaskLanes) - 1);
      count += compress_lanes(data + base + lane, std::uint32_t(base + lane), bits, kept_out + count, ids_out + count);
    }
  }
  bool finite = !std::isnan(xsimd::reduce_add((poison[0] + poison[1]) + (poison[2] + poison[3])));
  for (std::size_t i = 32 * full_words; i < values.size(); ++i) {
    ids_out[count] = std::uint32_t(i);
    kept_out[count] = data[i];
    count += mask[i / 32] >> (i % 32) & 1u;
    if constexpr (kCheck) finite = finite && std::isfinite(data[i]);
  }
  ids.resize(count);
  kept.resize(count);
  return {count, finite};
}
}  // namespace

std::size_t gather_allowed(std::span<const std::uint32_t> mask, std::span<const float> values, Buffer<std::uint32_t>& ids,
                           Buffer<float>& kept) {
  return gather_allowed_pass<false>(mask, values, ids, kept).count;
}

CheckedCount checked_gather_allowed(std::span<const std::uint32_t> mask, std::span<const float> values,
                                    Buffer<std::uint32_t>& ids, Buffer<float>& kept) {
  return gather_allowed_pass<true>(mask, values, ids, kept);
}

std::size_t next_above(std::span<const float> values, std::size_t start, float threshold) {
  const float* data = values.data();
  const Batch threshold_batch(threshold);
  std::size_t i = start;
  for (; i < values.size() && i % kLanes != 0; ++i) {
    if (data[i] > threshold) return i;
  }
  const auto above = [&](Batch x) { return x > threshold_batch; };
  for (; i + kScanStride <= values.size(); i += kScanStride) {
    if (any_in_four(data + i, above)) break;
  }
  for (const std::size_t end = simd_end(values.size()); i < end; i += kLanes) {
    if (xsimd::any(above(Batch::load_unaligned(data + i)))) break;
  }
  for (; i < values.size(); ++i) {
    if (data[i] > threshold) return i;
  }
  return values.size();
}

std::size_t inverse_cdf(std::span<const float> weights, double target) {
  std::vector<double> sums(block_count(weights.size()), 0.0);
  for (std::size_t i = 0; i < weights.size(); ++i) sums[i / kBlock] += weights[i];
  return inverse_cdf(weights, sums, target);
}

namespace {
// The inverse-CDF walk: whole blocks skipped on their sums, the one holding the target scanned in
// double over weights_of(b), its weights; never a zero-weight index.
template <typename BlockWeights>
std::size_t inverse_cdf_by_blocks(std::span<const double> block_sums, double target, BlockWeights weights_of) {
  double cumulative = 0.0;
  std::size_t last_positive = 0;
  for (std::size_t b = 0; b < block_sums.size(); ++b) {
    if (block_sums[b] > 0.0) last_positive = b;
    if (cumulative + block_sums[b] <= target) {
      cumulative += block_sums[b];
      continue;
    }
    const std::span<const float> block = weights_of(b);
    for (std::size_t i = 0; i < block.size(); ++i) {
      cumulative += block[i];
      if (block[i] > 0.0f && cumulative > target) return b * kBlock + i;
    }
  }
  // Rounding left the target past the total: the last token that can be drawn (a block with a
  // positive sum holds one).
  const std::span<const float> block = weights_of(last_positive);
  std::size_t last = block.size() - 1;
  while (last > 0 && block[last] <= 0.0f) --last;
  return last_positive * kBlock + last;
}
}  // namespace

std::size_t inverse_cdf_of_exps(std::span<const float> values, float shift, float scale, std::span<const double> block_sums,
                                double target) {
  alignas(64) std::array<float, kBlock> weights;
  // Block b's weights, from its own slice: the same lanes and scalar tail as the whole pass.
  return inverse_cdf_by_blocks(block_sums, target, [&](std::size_t b) {
    const auto block = values.subspan(b * kBlock, std::min(kBlock, values.size() - b * kBlock));
    exp_pass<true>(block, shift, scale, weights.data(), {});
    return std::span<const float>(weights.data(), block.size());
  });
}

std::size_t inverse_cdf(std::span<const float> weights, std::span<const double> block_sums, double target) {
  return inverse_cdf_by_blocks(block_sums, target, [&](std::size_t b) {
    return weights.subspan(b * kBlock, std::min(kBlock, weights.size() - b * kBlock));
  });
}

void race_candidates(std::span<const std::uint32_t> words, std::span<const float> weights, float bound,
                     std::vector<std::uint32_t>& out) {
  using U32 = xsimd::batch<std::uint32_t>;
  const std::size_t end = simd_end(words.size());
  const Batch bound_batch(bound);
  // 1 − U = (2^32 − 1 − w + ½) / 2^32, and ~w = 2^32 − 1 − w.
  const auto candidates = [&](U32 w, Batch weight) {
    const Batch distance = (xsimd::batch_cast<float>(~w) + Batch(0.5f)) * Batch(0x1p-32f);
    return distance < bound_batch * weight;
  };
  for (std::size_t i = 0; i < end; i += kLanes) {
    const auto mask = candidates(U32::load_unaligned(words.data() + i), Batch::load_unaligned(weights.data() + i));
    if (!xsimd::any(mask)) continue;
    alignas(64) std::array<bool, kLanes> lanes;
    mask.store_aligned(lanes.data());
    for (std::size_t lane = 0; lane < kLanes; ++lane) {
      if (lanes[lane]) out.push_back(std::uint32_t(i + lane));
    }
  }
  for (std::size_t i = end; i < words.size(); ++i) {
    const float distance = (float(~words[i]) + 0.5f) * 0x1p-32f;
    if (distance < bound * weights[i]) out.push_back(std::uint32_t(i));
  }
}

void bucket_indices(std::span<const float> keys, float top, float scale, std::uint32_t last,
                    std::span<std::uint32_t> out) {
  const std::size_t end = simd_end(keys.size());
  const Batch top_batch(top), scale_batch(scale), last_batch = Batch(float(last));
  for (std::size_t i = 0; i < end; i += kLanes) {
    const Batch position = xsimd::min((top_batch - Batch::load_unaligned(keys.data() + i)) * scale_batch, last_batch);
    xsimd::bitwise_cast<std::uint32_t>(xsimd::batch_cast<std::int32_t>(position)).store_unaligned(out.data() + i);
  }
  for (std::size_t i = end; i < keys.size(); ++i) {
    out[i] = std::uint32_t(std::min((top - keys[i]) * scale, float(last)));
  }
}

void find_equal(std::span<const std::uint32_t> values, std::uint32_t wanted, std::vector<std::uint32_t>& out) {
  using U32 = xsimd::batch<std::uint32_t>;
  const std::size_t end = simd_end(values.size());
  const U32 wanted_batch(wanted);
  for (std::size_t i = 0; i < end; i += kLanes) {
    if (!xsimd::any(U32::load_unaligned(values.data() + i) == wanted_batch)) continue;
    for (std::size_t j = i; j < i + kLanes; ++j) {
      if (values[j] == wanted) out.push_back(std::uint32_t(j));
    }
  }
  for (std::size_t i = end; i < values.size(); ++i) {
    if (values[i] == wanted) out.push_back(std::uint32_t(i));
  }
}

BandSplit band_split(std::span<const float> keys, std::span<const float> weights, float low, float high,
                     Buffer<std::uint32_t>& band_bits, Buffer<std::uint32_t>& ids, Buffer<float>& band_keys,
                     Buffer<float>& band_weights, std::size_t limit) {
  const float* k = keys.data();
  const float* w = weights.data();
  const Batch low_batch(low), high_batch(high), zero(0.0f);
  std::size_t above_count = 0;
  const std::size_t stop = keys.size() - keys.size() % kStride;
  BandSplit split{};
  split.above = compensated_sum(0, stop, [&](std::size_t at) {
    const auto above = Batch::load_unaligned(k + at) > high_batch;
    above_count += std::size_t(std::popcount(above.mask()));
    return xsimd::select(above, Batch::load_unaligned(w + at), zero);
  });
  for (std::size_t i = stop; i < keys.size(); ++i) {
    if (k[i] > high) split.above += w[i], ++above_count;
  }
  split.above_count = above_count;
  band_bits.resize(marked_words(keys.size()));
  mark_within(keys, low, high, band_bits.data());
  for (std::size_t word = 0; word < band_bits.size(); ++word) split.band_count += std::size_t(std::popcount(band_bits[word]));
  split.complete = split.band_count <= limit;
  // Room for a word's members past the limit (uninitialised), trimmed after.
  ids.resize(limit + 32);
  band_keys.resize(limit + 32);
  band_weights.resize(limit + 32);
  list_marked(band_bits.data(), keys.size(), k, ids.data(), band_keys.data(), limit + 1);
  const std::size_t kept = std::min(split.band_count, limit);
  for (std::size_t j = 0; j < kept; ++j) band_weights[j] = w[ids[j]];
  ids.resize(kept);
  band_keys.resize(kept);
  band_weights.resize(kept);
  // One key: from the list, or (a band past the limit: a flat tail, ties) by counting that key.
  if (kept > 0) {
    const float first = band_keys.front();
    if (split.complete) {
      const auto extent = min_max(band_keys);
      split.one_key = extent.min == extent.max;
    } else {
      const float above_first = std::nextafter(first, std::numeric_limits<float>::infinity());
      split.one_key = count_at_least(keys, first) - count_at_least(keys, above_first) == split.band_count;
    }
  }
  return split;
}

BucketExtent bucket_extent(std::span<const std::uint32_t> buckets, std::uint32_t bucket, std::span<const float> keys,
                           std::span<const float> weights) {
  using U32 = xsimd::batch<std::uint32_t>;
  const bool weighed = !weights.empty();
  const float inf = std::numeric_limits<float>::infinity();
  const Batch high(inf), low(-inf);
  Batch key_min = high, key_max = low, weight_min = high, weight_max = low;
  const U32 wanted(bucket);
  const std::size_t end = simd_end(keys.size());
  for (std::size_t i = 0; i < end; i += kLanes) {
    const auto in = xsimd::batch_bool_cast<float>(U32::load_unaligned(buckets.data() + i) == wanted);
    const Batch key = Batch::load_unaligned(keys.data() + i);
    key_min = xsimd::min(key_min, xsimd::select(in, key, high));
    key_max = xsimd::max(key_max, xsimd::select(in, key, low));
    if (weighed) {
      const Batch weight = Batch::load_unaligned(weights.data() + i);
      weight_min = xsimd::min(weight_min, xsimd::select(in, weight, high));
      weight_max = xsimd::max(weight_max, xsimd::select(in, weight, low));
    }
  }
  BucketExtent extent{xsimd::reduce_min(key_min), xsimd::reduce_max(key_max), xsimd::reduce_min(weight_min),
                      xsimd::reduce_max(weight_max)};
  for (std::size_t i = end; i < keys.size(); ++i) {
    if (buckets[i] != bucket) continue;
    extent.key_min = std::min(extent.key_min, keys[i]);
    extent.key_max = std::max(extent.key_max, keys[i]);
    if (weighed) {
      extent.weight_min = std::min(extent.weight_min, weights[i]);
      extent.weight_max = std::max(extent.weight_max, weights[i]);
    }
  }
  if (!weighed) extent.weight_min = extent.weight_max = 0.0f;
  return extent;
}

std::size_t after_nth_equal(std::span<const float> values, float key, std::size_t n) {
  if (n == 0) return 0;
  // Whole blocks of kBlock are counted in SIMD (float lane counts are exact there); the block
  // holding the n-th is walked.
  const Batch key_batch(key), one(1.0f), zero(0.0f);
  std::size_t seen = 0;
  std::size_t begin = 0;
  for (; begin + kBlock <= values.size(); begin += kBlock) {
    Batch counts(0.0f);
    for (std::size_t i = begin; i < begin + kBlock; i += kLanes) {
      counts += xsimd::select(Batch::load_unaligned(values.data() + i) == key_batch, one, zero);
    }
    const auto in_block = std::size_t(xsimd::reduce_add(counts));
    if (seen + in_block >= n) break;
    seen += in_block;
  }
  std::size_t i = begin;
  while (seen < n) seen += values[i++] == key;  // the caller's n is at most the values equal to key
  return i;
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

namespace {

using U32 = xsimd::batch<std::uint32_t>;
using U64 = xsimd::batch<std::uint64_t>;

struct HiLo {
  U32 hi;
  U32 lo;
};

// The 64-bit products a · m of every lane, split into high and low words: Philox's one operation
// that SIMD sets do not share, so each back end gets its own.
HiLo mul_hi_lo(U32 a, std::uint32_t m) {
#if defined(__wasm_simd128__)
  const v128_t factor = wasm_i32x4_splat(std::int32_t(m));
  const v128_t low_lanes = wasm_u64x2_extmul_low_u32x4(a, factor);
  const v128_t high_lanes = wasm_u64x2_extmul_high_u32x4(a, factor);
  return {wasm_i32x4_shuffle(low_lanes, high_lanes, 1, 3, 5, 7), wasm_i32x4_shuffle(low_lanes, high_lanes, 0, 2, 4, 6)};
#else
  // x86's mul_epu32 multiplies the low words of 64-bit lanes: the even lanes, then the odd ones.
  const auto multiply = [m](U64 x) -> U64 {
#if defined(__AVX512F__)
    return _mm512_mul_epu32(x, _mm512_set1_epi64(m));
#elif defined(__AVX2__)
    return _mm256_mul_epu32(x, _mm256_set1_epi64x(m));
#elif defined(__SSE2__)
    return _mm_mul_epu32(x, _mm_set1_epi64x(m));
#else
    return (x & U64(0xffffffffu)) * U64(m);
#endif
  };
  const U64 wide = xsimd::bitwise_cast<std::uint64_t>(a);
  const U64 even = multiply(wide);
  const U64 odd = multiply(wide >> 32);
  const U64 low_word(0xffffffffu);
  return {xsimd::bitwise_cast<std::uint32_t>((even >> 32) | (odd & ~low_word)),
          xsimd::bitwise_cast<std::uint32_t>((even & low_word) | (odd << 32))};
#endif
}

}  // namespace

void philox_words(PhiloxKey key, std::uint64_t stream, std::uint64_t first, std::span<std::uint32_t> out) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  constexpr std::size_t kLanesPerGroup = U32::size;  // one block per lane
  // Two independent groups per round keep the multipliers busy (each round waits on the last).
  constexpr std::size_t kGroups = 2;
  constexpr std::size_t kBlocks = kGroups * kLanesPerGroup;
  std::uint64_t block = first / 4;
  std::size_t i = 0;
  alignas(64) std::array<std::uint32_t, kLanesPerGroup> lane_offsets;
  for (std::size_t lane = 0; lane < kLanesPerGroup; ++lane) lane_offsets[lane] = std::uint32_t(lane);
  const U32 offsets = U32::load_aligned(lane_offsets.data());
  for (; i + 4 * kBlocks <= out.size(); i += 4 * kBlocks, block += kBlocks) {
    // Counter words of consecutive blocks, one block per lane, with the carry into word 1.
    std::array<U32, kGroups> c0, c1, c2, c3;
    for (std::size_t g = 0; g < kGroups; ++g) {
      const std::uint64_t start = block + g * kLanesPerGroup;
      c0[g] = U32(std::uint32_t(start)) + offsets;
      c1[g] = U32(std::uint32_t(start >> 32)) + xsimd::select(c0[g] < U32(std::uint32_t(start)), U32(1u), U32(0u));
      c2[g] = U32(std::uint32_t(stream));
      c3[g] = U32(std::uint32_t(stream >> 32));
    }
    std::uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
      for (std::size_t g = 0; g < kGroups; ++g) {
        const HiLo p0 = mul_hi_lo(c0[g], kMultiplier0);
        const HiLo p1 = mul_hi_lo(c2[g], kMultiplier1);
        c0[g] = p1.hi ^ c1[g] ^ U32(k0);
        c1[g] = p1.lo;
        c2[g] = p0.hi ^ c3[g] ^ U32(k1);
        c3[g] = p0.lo;
      }
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    // Lane b holds block b's four words in c0 … c3: interleave them into stream order.
    for (std::size_t g = 0; g < kGroups; ++g) {
      const U64 a_low = xsimd::bitwise_cast<std::uint64_t>(xsimd::zip_lo(c0[g], c1[g]));
      const U64 a_high = xsimd::bitwise_cast<std::uint64_t>(xsimd::zip_hi(c0[g], c1[g]));
      const U64 b_low = xsimd::bitwise_cast<std::uint64_t>(xsimd::zip_lo(c2[g], c3[g]));
      const U64 b_high = xsimd::bitwise_cast<std::uint64_t>(xsimd::zip_hi(c2[g], c3[g]));
      std::uint32_t* to = out.data() + i + g * 4 * kLanesPerGroup;
      xsimd::bitwise_cast<std::uint32_t>(xsimd::zip_lo(a_low, b_low)).store_unaligned(to);
      xsimd::bitwise_cast<std::uint32_t>(xsimd::zip_hi(a_low, b_low)).store_unaligned(to + kLanesPerGroup);
      xsimd::bitwise_cast<std::uint32_t>(xsimd::zip_lo(a_high, b_high)).store_unaligned(to + 2 * kLanesPerGroup);
      xsimd::bitwise_cast<std::uint32_t>(xsimd::zip_hi(a_high, b_high)).store_unaligned(to + 3 * kLanesPerGroup);
    }
  }
  for (; i < out.size(); i += 4, ++block) {
    const auto words = philox4x32_10({std::uint32_t(block), std::uint32_t(block >> 32), std::uint32_t(stream),
                                      std::uint32_t(stream >> 32)}, key);
    std::copy(words.begin(), words.end(), out.begin() + std::ptrdiff_t(i));
  }
}

}  // namespace sampling_lab::kernels
