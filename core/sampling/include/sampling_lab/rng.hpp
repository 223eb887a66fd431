#pragma once
// Counter-based random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers:
// as easy as 1, 2, 3", SC 2011), the generator of cuRAND, JAX and FlashInfer.
#include <array>
#include <cstdint>
#include <span>

namespace sampling_lab {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

// One Philox4x32-10 block: ten rounds of the bijection keyed by `key`.
PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key);

// Two words to (k + ½) / 2^52, k their top 52 bits: uniform strictly inside (0, 1) (the largest,
// 1 − 2^-53, is still a double below 1), so no inverse-CDF cell is off by more than 2^-52.
constexpr double to_open_unit(std::uint32_t first, std::uint32_t second) {
  return (double((std::uint64_t{first} << 20) | (second >> 12)) + 0.5) * 0x1p-52;
}

// Exp(1) from the 64-bit uniform U = (w + ½) / 2^64, w = first · 2^32 + second: −ln U below ½ and
// −log1p(−(1 − U)) above, each from U's distance to the nearer end, so that E keeps full relative
// precision both near 0 (where the tail tokens of the exponential race win) and far out.
double exponential_from(std::uint32_t first, std::uint32_t second);

// Gumbel-max and the race draw one word per token and a second only when the first lies within
// 2^-11 of 0 or 1; the second word of word i comes from word i of this sibling stream
// (stream | 2^63; the streams a caller can pass stay below 2^53).
inline constexpr std::uint64_t kExtensionStream = std::uint64_t{1} << 63;

// A stream of 32-bit words keyed by (seed, stream): the same pair gives the same words on
// every platform, and distinct pairs give independent streams.
class Philox {
 public:
  explicit Philox(std::uint64_t seed, std::uint64_t stream = 0);

  // Continues from block `block` of the stream (4 words per block).
  void seek(std::uint64_t block);
  // Continues from word `word` of the stream.
  void seek_word(std::uint64_t word);

  std::uint32_t next_u32();
  // The next words.size() words, as next_u32 would give them, a block at a time.
  void fill(std::span<std::uint32_t> words);
  // Uniform in the open interval (0, 1) with 52 bits (two words): safe to take logs of.
  double uniform();
  double exponential();  // Exp(1), from two words by exponential_from
  double gumbel();       // standard Gumbel, -log(Exp(1))
  double normal();       // standard normal (Box-Muller)

  PhiloxKey key() const { return key_; }
  std::uint64_t stream() const { return std::uint64_t{counter_[2]} | std::uint64_t{counter_[3]} << 32; }

 private:
  PhiloxKey key_;
  PhiloxCounter counter_;
  PhiloxCounter block_{};
  unsigned used_ = 4;
};

}  // namespace sampling_lab
