#pragma once
// −∞ is a masked token, as in PyTorch, transformers(.js), vLLM and llama.cpp: a −∞ logit or a −∞
// logitBias value takes the token out before any stage runs, exactly as bannedTokens would, so no
// stage counts it (top-nσ's σ, the n of dynamic temperature and mirostat, every entropy). NaN and
// +∞ stay errors.
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

struct MaskedLogits {
  std::span<const float> logits;
  SamplingOptions options;
};

// Whether some logitBias value is −∞.
bool bias_masks(const SamplingOptions& options);

// The logits and (checked) options to sample with: the same when no logit and no bias is −∞ (one
// SIMD pass tells), else a copy of the logits whose −∞ entries hold the finite minimum and options
// whose allowedMask leaves those tokens out (both in the scratch, valid until its next use).
// Errors name `argument`: NaN or +∞ at the first such index, or no token left to draw.
std::variant<MaskedLogits, ArgumentError> mask_negative_infinity(std::span<const float> logits, const SamplingOptions& options,
                                                                 MaskScratch& scratch, const std::string& argument = "logits");

// A row that holds no NaN and no +∞ and some finite logit: the check of an input that is masked later.
Check check_maskable_logits(std::span<const float> logits, const std::string& argument);

}  // namespace sampling_lab
