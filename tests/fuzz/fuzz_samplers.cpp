// The four samplers on outside probabilities: raw floats go through the checks, and a normalised
// copy is drawn from; every draw must be a token of positive probability.
#include <cmath>
#include <vector>

#include "fuzz_input.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/samplers.hpp"

namespace sl = sampling_lab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const std::size_t vocabulary = 1 + input.read<std::uint16_t>() % 8192;
  const std::size_t n = 1 + input.read<std::uint8_t>() % 64;
  const sl::RandomKey key{input.read<std::uint64_t>() % (std::uint64_t{1} << 53), input.read<std::uint32_t>()};
  std::vector<float> raw(vocabulary);
  for (float& x : raw) x = input.read<float>();
  (void)sl::check_probabilities(raw, "probs");  // must answer, whatever the floats

  // A distribution from the same bytes: |x| of the finite ones, normalised.
  std::vector<double> weights(vocabulary);
  double total = 0.0;
  for (std::size_t i = 0; i < vocabulary; ++i) total += weights[i] = std::isfinite(raw[i]) ? std::abs(double(raw[i])) : 0.0;
  if (!(total > 0.0) || !std::isfinite(total)) return 0;
  std::vector<float> probs(vocabulary);
  for (std::size_t i = 0; i < vocabulary; ++i) probs[i] = float(weights[i] / total);
  if (sl::check_probabilities(probs, "probs")) return 0;

  sl::SamplerWorkspace workspace;
  std::vector<std::int32_t> draws(n);
  for (const auto method : sl::kSamplingMethods) {
    FUZZ_EXPECT(sl::sample_probs(probs, method, key, draws, workspace));
    for (const auto token : draws) FUZZ_EXPECT(token >= 0 && std::size_t(token) < vocabulary && probs[std::size_t(token)] > 0.0f);
  }
  // The same bytes as logits at a temperature from the input.
  std::vector<float> logits(vocabulary);
  for (std::size_t i = 0; i < vocabulary; ++i) logits[i] = std::isfinite(raw[i]) ? raw[i] : 0.0f;
  const double temperature = double(input.read<std::uint16_t>()) / 256.0;
  for (const auto method : sl::kSamplingMethods) {
    FUZZ_EXPECT(sl::sample_logits(logits, temperature, method, key, draws, workspace));
    for (const auto token : draws) FUZZ_EXPECT(token >= 0 && std::size_t(token) < vocabulary);
  }
  return 0;
}
