#include "sampling_lab/filters.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "selection.hpp"
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

std::span<const float> penalised(std::span<const float> logits, const Penalties& penalties,
                                 Workspace& workspace) {
  const bool active = !penalties.generated_ids.empty() &&
      (penalties.repetition != 1.0 || penalties.presence != 0.0 || penalties.frequency != 0.0);
  if (!active) return logits;
  workspace.keys.assign(logits.begin(), logits.end());
  apply_penalties(workspace.keys, penalties, workspace);
  return workspace.keys;
}

FilterResult filter_distribution(std::span<const float> input_logits, const FilterParams& params,
                                 std::span<float> probs, Workspace& workspace) {
  const auto logits = penalised(input_logits, params.penalties, workspace);
  std::fill(probs.begin(), probs.end(), 0.0f);
  if (params.temperature == 0.0) {
    probs[argmax(logits)] = 1.0f;
    return {1, 1.0, 0.0, 1.0};
  }
  const auto selection = detail::select_kept(logits, params, workspace);
  const double total = std::isnan(selection.total_weight)
      ? kernels::exp_sum(logits, selection.max_logit, selection.inverse_temperature)
      : selection.total_weight;
  // H = ln W − Σ w ln w / W with ln w = (z − max) / T: no log per token.
  double weighted_log_weight = 0.0;
  const auto& weights = workspace.candidate_weights;
  for (std::size_t j = 0; j < selection.kept; ++j) {
    const std::size_t id = selection.everything ? j : workspace.candidate_ids[j];
    probs[id] = float(weights[j] / selection.kept_weight);
    weighted_log_weight +=
        double(weights[j]) * (double(logits[id]) - selection.max_logit) * selection.inverse_temperature;
  }
  const double entropy_nats = std::log(selection.kept_weight) - weighted_log_weight / selection.kept_weight;
  const double kept_mass = selection.kept == logits.size() ? 1.0 : selection.kept_weight / total;
  // The top token always survives and has weight exp(0) = 1.
  return {selection.kept, kept_mass, entropy_nats / std::numbers::ln2, 1.0 / selection.kept_weight};
}

}  // namespace sampling_lab
