// The per-token path on outside data: raw logits (NaN and ±∞ included) and raw option values go
// through the checks; whatever passes must give a finite distribution summing to 1 and a token
// the filters kept, the same with the penalties' counts and n-grams kept by a TokenHistory.
#include <cmath>
#include <limits>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_options.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/history.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/samplers.hpp"

namespace sl = sampling_lab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const std::size_t vocabulary = 1 + input.read<std::uint16_t>() % 4096;
  const FuzzOptions fuzzed(input, vocabulary);
  std::vector<float> raw_logits(vocabulary);
  for (float& z : raw_logits) z = input.remaining() >= 4 ? input.read<float>() : float(input.read<std::uint8_t>()) - 128.0f;

  auto parsed = sl::options_from_raw(fuzzed.raw());
  if (std::holds_alternative<sl::ArgumentError>(parsed)) return 0;
  if (sl::check_options(std::get<sl::SamplingOptions>(parsed), vocabulary)) return 0;
  // −∞ logits and biases become masked tokens, as every entry of the bindings masks them.
  sl::MaskScratch scratch;
  const auto masked = sl::mask_negative_infinity(raw_logits, std::get<sl::SamplingOptions>(parsed), scratch);
  if (std::holds_alternative<sl::ArgumentError>(masked)) return 0;
  const auto& [logits, options] = std::get<sl::MaskedLogits>(masked);

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
  for (std::size_t i = 0; i < vocabulary; ++i) FUZZ_EXPECT(raw_logits[i] != -std::numeric_limits<float>::infinity() || probs[i] == 0.0f);
  const std::int32_t token = sl::sample_token(logits, options, workspace);
  FUZZ_EXPECT(token >= 0 && std::size_t(token) < vocabulary && probs[std::size_t(token)] > 0.0f);
  std::vector<std::uint8_t> cut_by(vocabulary);
  for (const auto& stage : sl::filter_stages(logits, options, workspace, cut_by)) FUZZ_EXPECT(stage.kept >= 1);
  for (const std::uint8_t code : cut_by) FUZZ_EXPECT(code <= sl::kMasksCode);
  const auto logprobs = sl::sample_token_logprobs(logits, options, 5, sl::LogprobsMode::kProcessed, workspace);
  FUZZ_EXPECT(logprobs.token == token && logprobs.logprob <= 0.0 && logprobs.rank >= 1);
  // Scoring the drawn token reports what its draw did.
  const auto scored = sl::token_logprobs(logits, options, token, 5, sl::LogprobsMode::kProcessed, workspace);
  FUZZ_EXPECT(scored.logprob == logprobs.logprob && scored.rank == logprobs.rank && scored.top.size() == logprobs.top.size());
  FUZZ_EXPECT(result.entropy_bits >= 0.0);

  // A stateful sampler's history keeps the penalties' counts and the n-grams as tokens arrive:
  // the same token.
  sl::TokenHistory history(options.penalty_last_n, options.no_repeat_ngram_size);
  history.assign(options.generated_ids);
  sl::SamplingOptions kept = options;
  history.apply_to(kept);
  FUZZ_EXPECT(sl::sample_token(logits, kept, workspace) == token);

  sl::CoverWorkspace cover;
  const double temperature = options.temperature == 0.0 ? 1.0 : options.temperature;
  const std::size_t count = sl::cover_count_logits(logits, temperature, 0.9, cover);
  FUZZ_EXPECT(count >= 1 && count <= vocabulary);
  FUZZ_EXPECT(!std::isnan(sl::log_sum_exp(logits, temperature)));
  return 0;
}
