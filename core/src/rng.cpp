#include "sampling_lab/rng.hpp"

#include <cmath>
#include <numbers>

namespace sampling_lab {

namespace {
constexpr std::uint32_t kMultiplier0 = 0xD2511F53;
constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9;  // golden ratio
constexpr std::uint32_t kWeyl1 = 0xBB67AE85;  // sqrt(3) - 1

PhiloxCounter philox_round(PhiloxCounter c, PhiloxKey k) {
  const std::uint64_t product0 = std::uint64_t{kMultiplier0} * c[0];
  const std::uint64_t product1 = std::uint64_t{kMultiplier1} * c[2];
  const auto hi0 = std::uint32_t(product0 >> 32), lo0 = std::uint32_t(product0);
  const auto hi1 = std::uint32_t(product1 >> 32), lo1 = std::uint32_t(product1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}
}  // namespace

PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) key = {key[0] + kWeyl0, key[1] + kWeyl1};
    counter = philox_round(counter, key);
  }
  return counter;
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

std::uint32_t Philox::next_u32() {
  if (used_ == 4) {
    block_ = philox4x32_10(counter_, key_);
    if (++counter_[0] == 0) ++counter_[1];
    used_ = 0;
  }
  return block_[used_++];
}

double Philox::uniform() { return to_open_unit(next_u32()); }

double Philox::exponential() { return -std::log(uniform()); }

double Philox::gumbel() { return -std::log(exponential()); }

double Philox::normal() {
  const double radius = std::sqrt(-2.0 * std::log(uniform()));
  return radius * std::cos(2.0 * std::numbers::pi * uniform());
}

}  // namespace sampling_lab
