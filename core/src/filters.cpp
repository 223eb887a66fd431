#include "sampling_lab/filters.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "prefix_select.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab {

Check check_filter_params(const FilterParams& params, std::size_t vocabulary) {
  if (auto error = check_temperature(params.temperature)) return error;
  if (params.top_k < 0) return ArgumentError{"topK", "topK must be >= 0 (0 = no limit)"};
  if (auto error = check_mass(params.top_p, "topP")) return error;
  if (!(params.min_p >= 0.0 && params.min_p <= 1.0)) {
    return ArgumentError{"minP", "minP must be in [0, 1] (0 = off)"};
  }
  const Penalties& penalties = params.penalties;
  if (!std::isfinite(penalties.repetition) || penalties.repetition <= 0.0) {
    return ArgumentError{"repetitionPenalty", "repetitionPenalty must be a finite number > 0"};
  }
  if (!std::isfinite(penalties.presence)) {
    return ArgumentError{"presencePenalty", "presencePenalty must be finite"};
  }
  if (!std::isfinite(penalties.frequency)) {
    return ArgumentError{"frequencyPenalty", "frequencyPenalty must be finite"};
  }
  for (const std::int32_t id : penalties.generated_ids) {
    if (id < 0 || std::size_t(id) >= vocabulary) {
      return ArgumentError{"generatedIds", "generatedIds holds " + std::to_string(id) +
                                               ", outside [0, " + std::to_string(vocabulary) + ")"};
    }
  }
  return std::nullopt;
}

void apply_penalties(std::span<float> logits, const Penalties& penalties, Workspace& workspace) {
  auto& ids = workspace.ids;
  ids.assign(penalties.generated_ids.begin(), penalties.generated_ids.end());
  std::sort(ids.begin(), ids.end());
  for (std::size_t start = 0; start < ids.size();) {
    std::size_t end = start;
    while (end < ids.size() && ids[end] == ids[start]) ++end;
    float& logit = logits[std::size_t(ids[start])];
    if (penalties.repetition != 1.0) {
      logit = logit > 0.0f ? float(logit / penalties.repetition)
                           : float(logit * penalties.repetition);
    }
    logit -= float(penalties.presence + penalties.frequency * double(end - start));
    start = end;
  }
}

namespace {

bool has_penalties(const Penalties& penalties) {
  return !penalties.generated_ids.empty() &&
         (penalties.repetition != 1.0 || penalties.presence != 0.0 || penalties.frequency != 0.0);
}

FilterResult greedy(std::span<const float> logits, std::span<float> probs) {
  std::fill(probs.begin(), probs.end(), 0.0f);
  probs[argmax(logits)] = 1.0f;
  return {1, 1.0, 0.0, 1.0};
}

}  // namespace

FilterResult filter_distribution(std::span<const float> input_logits, const FilterParams& params,
                                 std::span<float> probs, Workspace& workspace) {
  std::span<const float> logits = input_logits;
  if (has_penalties(params.penalties)) {
    workspace.keys.assign(input_logits.begin(), input_logits.end());
    apply_penalties(workspace.keys, params.penalties, workspace);
    logits = workspace.keys;
  }
  if (params.temperature == 0.0) return greedy(logits, probs);

  const std::size_t vocabulary = logits.size();
  const auto range = kernels::min_max(logits);
  const float inverse_temperature = float(1.0 / params.temperature);
  // weights = exp((z - max) / T): the top token has weight 1, so p_i / p_max = weight_i.
  const double total = kernels::exp_shifted(logits, range.max, inverse_temperature, probs);

  std::size_t keep = vocabulary;
  std::optional<detail::PrefixSelector> selector;
  const auto ranking = [&]() -> detail::PrefixSelector& {
    if (!selector) selector.emplace(logits, probs, range.max, range.min, workspace);
    return *selector;
  };
  double candidate_mass = total;
  if (params.top_k > 0 && std::size_t(params.top_k) < vocabulary) {
    const auto top_k = ranking().first(std::size_t(params.top_k));
    keep = top_k.count;
    candidate_mass = top_k.mass;
  }
  if (params.top_p < 1.0) {
    keep = std::min(keep, ranking().reaching_mass(params.top_p * candidate_mass).count);
  }
  if (params.min_p > 0.0) {
    // p_i >= min_p * p_max  <=>  z_i >= max + T ln(min_p): a logit threshold, no exp needed.
    const float threshold = float(range.max + params.temperature * std::log(params.min_p));
    keep = std::min(keep, kernels::count_at_least(logits, threshold));
  }

  // Keep the first `keep` tokens of the ranking; the rest get probability 0.
  double kept_weight = 0.0;
  double weighted_log_weight = 0.0;  // Σ w ln w, so the entropy needs no log per token
  const auto accumulate = [&](std::size_t i) {
    kept_weight += probs[i];
    weighted_log_weight +=
        double(probs[i]) * (double(logits[i]) - range.max) * inverse_temperature;
  };
  if (keep == vocabulary) {
    for (std::size_t i = 0; i < vocabulary; ++i) accumulate(i);
  } else {
    detail::for_each_token(logits, ranking().first(keep), [&](std::size_t i, bool kept) {
      if (kept) {
        accumulate(i);
      } else {
        probs[i] = 0.0f;
      }
    });
  }
  const float normaliser = float(1.0 / kept_weight);
  for (float& p : probs) p *= normaliser;
  const double entropy_nats = std::log(kept_weight) - weighted_log_weight / kept_weight;
  const double kept_mass = keep == vocabulary ? 1.0 : kept_weight / total;
  return {keep, kept_mass, entropy_nats / std::numbers::ln2, 1.0 / kept_weight};
}

}  // namespace sampling_lab
