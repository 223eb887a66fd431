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

// Maps a 32-bit word to (w + 0.5) / 2^32: strictly inside (0, 1), so logs are finite.
constexpr double to_open_unit(std::uint32_t word) { return (double(word) + 0.5) * 0x1p-32; }

// A stream of 32-bit words keyed by (seed, stream): the same pair gives the same words on
// every platform, and distinct pairs give independent streams.
class Philox {
 public:
  explicit Philox(std::uint64_t seed, std::uint64_t stream = 0);

  // Continues from block `block` of the stream (4 words per block).
  void seek(std::uint64_t block);

  std::uint32_t next_u32();
  // The next words.size() words, as next_u32 would give them, a block at a time.
  void fill(std::span<std::uint32_t> words);
  // Uniform in the open interval (0, 1): safe to take logs of.
  double uniform();
  double exponential();  // Exp(1)
  double gumbel();       // standard Gumbel, -log(Exp(1))
  double normal();       // standard normal (Box-Muller)

 private:
  PhiloxKey key_;
  PhiloxCounter counter_;
  PhiloxCounter block_{};
  unsigned used_ = 4;
};

}  // namespace sampling_lab
