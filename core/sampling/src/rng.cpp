#include "sampling_lab/rng.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

namespace {
constexpr std::uint32_t kMultiplier0 = 0xD2511F53;
constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9;  // golden ratio
constexpr std::uint32_t kWeyl1 = 0xBB67AE85;  // sqrt(3) - 1
}  // namespace

PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  // Plain locals rather than arrays, so that every round stays in registers (WebAssembly locals).
  std::uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  std::uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t product0 = std::uint64_t{kMultiplier0} * c0;
    const std::uint64_t product1 = std::uint64_t{kMultiplier1} * c2;
    const auto hi0 = std::uint32_t(product0 >> 32), lo0 = std::uint32_t(product0);
    const auto hi1 = std::uint32_t(product1 >> 32), lo1 = std::uint32_t(product1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return {c0, c1, c2, c3};
}

// Counter layout: words 0-1 count blocks, words 2-3 hold the stream id.
Philox::Philox(std::uint64_t seed, std::uint64_t stream)
    : key_{std::uint32_t(seed), std::uint32_t(seed >> 32)},
      counter_{0, 0, std::uint32_t(stream), std::uint32_t(stream >> 32)} {}

void Philox::seek(std::uint64_t block) {
  counter_[0] = std::uint32_t(block);
  counter_[1] = std::uint32_t(block >> 32);
  used_ = 4;
}

void Philox::seek_word(std::uint64_t word) {
  seek(word / 4);
  for (std::uint64_t skip = word % 4; skip > 0; --skip) next_u32();
}

std::uint32_t Philox::next_u32() {
  if (used_ == 4) {
    block_ = philox4x32_10(counter_, key_);
    if (++counter_[0] == 0) ++counter_[1];
    used_ = 0;
  }
  return block_[used_++];
}

void Philox::fill(std::span<std::uint32_t> words) {
  std::size_t i = 0;
  while (i < words.size() && used_ < 4) words[i++] = block_[used_++];
  const std::size_t whole = (words.size() - i) / 4 * 4;
  const std::uint64_t block = std::uint64_t{counter_[0]} | std::uint64_t{counter_[1]} << 32;
  kernels::philox_words(key_, stream(), block * 4, words.subspan(i, whole));
  seek(block + whole / 4);
  for (i += whole; i < words.size(); ++i) words[i] = next_u32();
}

double Philox::uniform() {
  const std::uint32_t first = next_u32();
  return to_open_unit(first, next_u32());
}

double exponential_from(std::uint32_t first, std::uint32_t second) {
  const std::uint64_t w = std::uint64_t{first} << 32 | second;
  const bool below_half = first < 0x80000000u;
  // Distance of U to the nearer end, exactly: w or 2^64 − 1 − w, plus the cell's half.
  const double nearer_end = (double(below_half ? w : ~w) + 0.5) * 0x1p-64;
  return below_half ? -std::log(nearer_end) : -std::log1p(-nearer_end);
}

double Philox::exponential() {
  const std::uint32_t first = next_u32();
  return exponential_from(first, next_u32());
}

double Philox::gumbel() { return -std::log(exponential()); }

namespace {

// fdlibm's kernels for |x| <= π/4 (k_cos.c, k_sin.c; Sun Microsystems 1993), error below 1 ulp.
double kernel_cos(double x) {
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  const double z = x * x, w = z * z;
  const double r = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
  const double half_z = 0.5 * z, one_minus = 1.0 - half_z;
  return one_minus + (((1.0 - one_minus) - half_z) + z * r);
}

double kernel_sin(double x) {
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  const double z = x * x, w = z * z;
  const double r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  return x + z * x * (s1 + z * r);
}

// cos(2πu) for u in [0, 1]: the quarter turn from u exactly, then a kernel on |2π·r| <= π/4.
// std::cos would link musl's reduction of huge arguments and its 2.7 KB table of 2/π, which
// never runs here, and would round differently from glibc's natively.
double cos_two_pi(double u) {
  const double quarter = std::nearbyint(4.0 * u);
  const double x = 2.0 * std::numbers::pi * (u - 0.25 * quarter);  // the difference is exact
  switch (int(quarter) & 3) {
    case 0: return kernel_cos(x);
    case 1: return -kernel_sin(x);
    case 2: return -kernel_cos(x);
    default: return kernel_sin(x);
  }
}

}  // namespace

double Philox::normal() {
  const double radius = std::sqrt(-2.0 * std::log(uniform()));
  return radius * cos_two_pi(uniform());
}

}  // namespace sampling_lab
