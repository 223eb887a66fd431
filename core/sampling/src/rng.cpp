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

double Philox::normal() {
  const double radius = std::sqrt(-2.0 * std::log(uniform()));
  return radius * std::cos(2.0 * std::numbers::pi * uniform());
}

}  // namespace sampling_lab
