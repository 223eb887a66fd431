// Distances and cover counts on outside probabilities.
#include <cmath>
#include <vector>

#include "fuzz_input.hpp"
#include "sampling_lab/distribution.hpp"

namespace sl = sampling_lab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const std::size_t p_size = 1 + input.read<std::uint16_t>() % 4096;
  const std::size_t q_size = input.read<std::uint8_t>() % 2 ? p_size : 1 + input.read<std::uint16_t>() % 4096;
  std::vector<float> p(p_size), q(q_size);
  // Raw floats, or a normalised distribution of the same bytes.
  const bool normalise = input.read<std::uint8_t>() % 2;
  for (auto* values : {&p, &q}) {
    double total = 0.0;
    for (float& x : *values) total += x = normalise ? float(input.read<std::uint8_t>()) : input.read<float>();
    if (normalise && total > 0.0) for (float& x : *values) x = float(x / total);
  }
  if (sl::check_distance_inputs(p, q)) return 0;
  const auto d = sl::distances(p, q);
  FUZZ_EXPECT(d.tv >= -1e-6 && d.tv <= 1.0 + 1e-6);
  FUZZ_EXPECT(std::abs(d.tv + d.overlap - 1.0) < 1e-3);
  FUZZ_EXPECT(d.kl >= -1e-6);
  sl::CoverWorkspace workspace;
  const double mass = 0.01 + double(input.read<std::uint8_t>()) / 256.0;
  const std::size_t count = sl::cover_count(p, std::min(mass, 1.0), workspace);
  FUZZ_EXPECT(count >= 1 && count <= p.size());
  return 0;
}
