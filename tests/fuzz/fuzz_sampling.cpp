// The per-token path on outside data: raw logits (NaN and ±∞ included) and raw option values go
// through the checks; whatever passes must give a finite distribution summing to 1 and a token
// the filters kept.
#include <array>
#include <cmath>
#include <vector>

#include "fuzz_input.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/samplers.hpp"

namespace sl = sampling_lab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const std::size_t vocabulary = 1 + input.read<std::uint16_t>() % 4096;
  std::array<double, sl::kScalarOptions> scalars;
  for (double& value : scalars) {
    // Half the time a small, valid-looking value, so that the checks do not reject everything.
    const auto raw = input.read<double>();
    value = input.read<std::uint8_t>() % 2 ? raw : double(input.read<std::uint8_t>()) / 64.0;
  }
  std::vector<std::int32_t> ids(input.read<std::uint8_t>() % 16);
  for (auto& id : ids) id = input.read<std::int32_t>() % std::int32_t(vocabulary + 2);
  std::vector<float> logits(vocabulary);
  for (float& z : logits) z = input.remaining() >= 4 ? input.read<float>() : float(input.read<std::uint8_t>()) - 128.0f;

  const std::span<const std::int32_t> lists[] = {ids};
  auto parsed = sl::options_from_raw({scalars, lists});
  if (std::holds_alternative<sl::ArgumentError>(parsed)) return 0;
  const auto& options = std::get<sl::SamplingOptions>(parsed);
  if (sl::check_options(options, vocabulary) || sl::check_logits(logits, "logits")) return 0;

  sl::FilterWorkspace workspace;
  std::vector<float> probs(vocabulary);
  const auto result = sl::filter_distribution(logits, options, probs, workspace);
  double total = 0.0;
  for (const float p : probs) {
    FUZZ_EXPECT(std::isfinite(p) && p >= 0.0f);
    total += p;
  }
  FUZZ_EXPECT(std::abs(total - 1.0) < 1e-3);
  FUZZ_EXPECT(result.kept >= 1 && result.kept <= vocabulary);
  const std::int32_t token = sl::sample_token(logits, options, workspace);
  FUZZ_EXPECT(token >= 0 && std::size_t(token) < vocabulary && probs[std::size_t(token)] > 0.0f);

  sl::CoverWorkspace cover;
  const double temperature = options.temperature == 0.0 ? 1.0 : options.temperature;
  const std::size_t count = sl::cover_count_logits(logits, temperature, 0.9, cover);
  FUZZ_EXPECT(count >= 1 && count <= vocabulary);
  FUZZ_EXPECT(!std::isnan(sl::log_sum_exp(logits, temperature)));
  return 0;
}
