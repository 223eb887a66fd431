#include "sampling_lab/masked_logits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

namespace {

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

ArgumentError not_a_logit(std::span<const float> logits, std::size_t i, const std::string& argument) {
  return ArgumentError{argument, argument + "[" + std::to_string(i) + "] is " + (std::isnan(logits[i]) ? "NaN" : "+∞") +
                                     "; logits must be finite or −∞ (a masked token)"};
}

// Calls visit(i, x) for each finite logit from `from` on (those before it are finite): the error
// for the first NaN or +∞, or for a row with no finite logit.
template <typename Visit>
Check each_finite(std::span<const float> logits, std::size_t from, const std::string& argument, Visit visit) {
  bool finite = from > 0;
  for (std::size_t i = from; i < logits.size(); ++i) {
    const float x = logits[i];
    if (x == kNegativeInfinity) continue;
    if (!(x < std::numeric_limits<float>::infinity())) return not_a_logit(logits, i, argument);
    visit(i, x);
    finite = true;
  }
  if (!finite) return ArgumentError{argument, argument + " has no finite logit: every token is masked"};
  return std::nullopt;
}

}  // namespace

bool bias_masks(const SamplingOptions& options) {
  const auto values = options.logit_bias_values;
  return std::find(values.begin(), values.end(), kNegativeInfinity) != values.end();
}

Check check_maskable_logits(std::span<const float> logits, const std::string& argument) {
  if (auto error = check_entries(logits.size(), argument)) return error;
  return each_finite(logits, kernels::first_non_finite(logits), argument, [](std::size_t, float) {});
}

std::variant<MaskedLogits, ArgumentError> mask_negative_infinity(std::span<const float> logits, const SamplingOptions& options,
                                                                 MaskScratch& scratch, const std::string& argument) {
  if (auto error = check_entries(logits.size(), argument)) return *error;
  const bool biased = bias_masks(options);
  const std::size_t first = kernels::first_non_finite(logits);
  if (first == logits.size() && !biased) return MaskedLogits{logits, options};
  const std::size_t vocabulary = logits.size();
  auto& words = scratch.words;
  words.assign(mask_words(vocabulary), 0u);
  float lowest = std::numeric_limits<float>::infinity();
  const auto error = each_finite(logits, 0, argument, [&](std::size_t i, float x) {
    words[i / 32] |= 1u << (i % 32);
    lowest = std::min(lowest, x);
  });
  if (error) return *error;
  SamplingOptions masked = options;
  std::span<const float> row = logits;
  if (first < vocabulary) {
    // The masked entries are never read; the finite minimum keeps every pass over the row finite.
    scratch.logits.resize(vocabulary);
    std::transform(logits.begin(), logits.end(), scratch.logits.begin(),
                   [lowest](float x) { return x == kNegativeInfinity ? lowest : x; });
    row = scratch.logits;
  }
  if (biased) {
    scratch.bias_ids.clear();
    scratch.bias_values.clear();
    for (std::size_t i = 0; i < options.logit_bias_ids.size(); ++i) {
      const auto id = options.logit_bias_ids[i];
      if (options.logit_bias_values[i] == kNegativeInfinity) {
        words[std::size_t(id) / 32] &= ~(1u << (std::size_t(id) % 32));
      } else {
        scratch.bias_ids.push_back(id);
        scratch.bias_values.push_back(options.logit_bias_values[i]);
      }
    }
    masked.logit_bias_ids = scratch.bias_ids;
    masked.logit_bias_values = scratch.bias_values;
  }
  for (std::size_t w = 0; w < options.allowed_mask.size(); ++w) words[w] &= options.allowed_mask[w];
  if (kernels::mask_count(words, vocabulary) == 0) {
    return ArgumentError{argument, "every token the masks allow has a −∞ logit or bias"};
  }
  masked.allowed_mask = words;
  // The lists' own checks passed; what the new mask leaves to allowedTokens, bannedTokens and the
  // history's bans is checked again.
  if (auto error = check_options(masked, vocabulary)) {
    return ArgumentError{error->argument, "with the −∞ logits masked, " + error->message};
  }
  return MaskedLogits{row, masked};
}

}  // namespace sampling_lab
