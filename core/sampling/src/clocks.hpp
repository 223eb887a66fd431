#pragma once
// The Exp(1) clocks of the exponential race and Gumbel-max, shared by the samplers and stochastic
// beam search, so that every Gumbel in the core comes from the same words the same way.
#include <cstdint>
#include <span>

#include "sampling_lab/kernels.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab::detail {

// Exp(1) variates of a stream's words, as kernels::exponential_noise makes them, with those
// within 2^-11 of an end of (0, 1) redone from their second word (kExtensionStream).
class Clocks {
 public:
  Clocks(const Philox& rng, SamplerWorkspace& workspace)
      : key_(rng.key()), extension_stream_(rng.stream() | kExtensionStream), workspace_(workspace) {}

  // E for words[j], the words at stream positions first + positions[j] (positions empty: j).
  std::span<float> of(std::span<const std::uint32_t> words, std::uint64_t first,
                      std::span<const std::uint32_t> positions = {}) {
    auto& clocks = workspace_.noise;
    clocks.resize(words.size());
    workspace_.extend.clear();
    kernels::exponential_noise(words, clocks, workspace_.extend);
    for (const std::uint32_t j : workspace_.extend) {
      clocks[j] = float(exponential_from(words[j], extension_word(first + (positions.empty() ? j : positions[j]))));
    }
    return clocks;
  }

  // Word `position` of the extension stream, or of the main one.
  std::uint32_t word(std::uint64_t position, bool extension = false) const {
    const std::uint64_t stream = extension ? extension_stream_ : main_stream();
    const std::uint64_t block = position / 4;
    return philox4x32_10({std::uint32_t(block), std::uint32_t(block >> 32), std::uint32_t(stream), std::uint32_t(stream >> 32)},
                         key_)[position % 4];
  }

 private:
  std::uint32_t extension_word(std::uint64_t position) const { return word(position, true); }
  std::uint64_t main_stream() const { return extension_stream_ & ~kExtensionStream; }

  PhiloxKey key_;
  std::uint64_t extension_stream_;
  SamplerWorkspace& workspace_;
};

}  // namespace sampling_lab::detail
