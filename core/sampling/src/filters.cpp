#include "sampling_lab/filters.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"
#include "selection.hpp"

namespace sampling_lab {

void apply_penalties(std::span<float> logits, const SamplingOptions& options, PenaltyScratch& scratch) {
  auto& ids = scratch.sorted_ids;
  ids.assign(options.generated_ids.begin(), options.generated_ids.end());
  std::sort(ids.begin(), ids.end());
  for (std::size_t start = 0; start < ids.size();) {
    std::size_t end = start;
    while (end < ids.size() && ids[end] == ids[start]) ++end;
    // In double, then saturated to float's range: a penalty can push a logit far down (or up),
    // never to ±∞, where the softmax would turn to NaN.
    double logit = logits[std::size_t(ids[start])];
    if (options.repetition_penalty != 1.0) {
      logit = logit > 0.0 ? logit / options.repetition_penalty : logit * options.repetition_penalty;
    }
    logit -= options.presence_penalty + options.frequency_penalty * double(end - start);
    constexpr double kFloatMax = std::numeric_limits<float>::max();
    logits[std::size_t(ids[start])] = float(std::clamp(logit, -kFloatMax, kFloatMax));
    start = end;
  }
}

std::span<const float> penalised(std::span<const float> logits, const SamplingOptions& options,
                                 PenaltyScratch& scratch) {
  const bool active = !options.generated_ids.empty() &&
      (options.repetition_penalty != 1.0 || options.presence_penalty != 0.0 || options.frequency_penalty != 0.0);
  if (!active) return logits;
  scratch.logits.assign(logits.begin(), logits.end());
  apply_penalties(scratch.logits, options, scratch);
  return scratch.logits;
}

void tempered_distribution(std::span<const float> logits, const SamplingOptions& options,
                           std::span<float> probs, PenaltyScratch& scratch) {
  softmax(penalised(logits, options, scratch), options.temperature, probs);
}

FilterResult filter_distribution(std::span<const float> input_logits, const SamplingOptions& options,
                                 std::span<float> probs, FilterWorkspace& workspace) {
  const auto logits = penalised(input_logits, options, workspace.penalties);
  std::fill(probs.begin(), probs.end(), 0.0f);
  if (options.temperature == 0.0) {
    probs[argmax(logits)] = 1.0f;
    return {1, 1.0, 0.0, 1.0};
  }
  const auto kept = detail::select_kept(logits, options, workspace);
  const double total = kept.total_weight
      ? *kept.total_weight
      : kernels::exp_sum(logits, kept.max_logit, kept.inverse_temperature);
  // H = ln W − Σ w ln w / W with ln w = (z − max) / T: no log per token.
  // Normalised as softmax does, so an uncut distribution equals the tempered one exactly.
  const float inverse_weight = float(1.0 / kept.kept_weight);
  double weighted_log_weight = 0.0;
  for (std::size_t j = 0; j < kept.ids.size(); ++j) {
    const std::uint32_t id = kept.ids[j];
    probs[id] = kept.weights[j] * inverse_weight;
    weighted_log_weight += double(kept.weights[j]) * (double(logits[id]) - kept.max_logit) * kept.inverse_temperature;
  }
  const double entropy_nats = std::log(kept.kept_weight) - weighted_log_weight / kept.kept_weight;
  const double kept_mass = kept.ids.size() == logits.size() ? 1.0 : kept.kept_weight / total;
  // The top token always survives and has weight exp(0) = 1.
  return {kept.ids.size(), kept_mass, entropy_nats / std::numbers::ln2, 1.0 / kept.kept_weight};
}

namespace {

// The truncating filters in chain order: whether one is on, and the option turning it on.
struct Truncation {
  std::string_view name;
  bool (*on)(const SamplingOptions&);
  void (*take)(SamplingOptions& into, const SamplingOptions& from);
};

constexpr Truncation kTruncations[] = {
    {"topK", [](const SamplingOptions& o) { return o.top_k > 0; }, [](SamplingOptions& i, const SamplingOptions& f) { i.top_k = f.top_k; }},
    {"topP", [](const SamplingOptions& o) { return o.top_p < 1.0; }, [](SamplingOptions& i, const SamplingOptions& f) { i.top_p = f.top_p; }},
    {"minP", [](const SamplingOptions& o) { return o.min_p > 0.0; }, [](SamplingOptions& i, const SamplingOptions& f) { i.min_p = f.min_p; }},
    {"epsilonCutoff", [](const SamplingOptions& o) { return o.epsilon_cutoff > 0.0; },
     [](SamplingOptions& i, const SamplingOptions& f) { i.epsilon_cutoff = f.epsilon_cutoff; }},
};

}  // namespace

std::vector<FilterStage> filter_stages(std::span<const float> input_logits, const SamplingOptions& options,
                                       FilterWorkspace& workspace) {
  const auto logits = penalised(input_logits, options, workspace.penalties);
  SamplingOptions cumulative = options;
  cumulative.top_k = 0;
  cumulative.top_p = 1.0;
  cumulative.min_p = 0.0;
  cumulative.epsilon_cutoff = 0.0;
  std::vector<FilterStage> stages;
  for (const auto& truncation : kTruncations) {
    if (!truncation.on(options)) continue;
    truncation.take(cumulative, options);
    const std::size_t kept = options.temperature == 0.0 ? 1 : detail::select_kept(logits, cumulative, workspace).ids.size();
    stages.push_back({truncation.name, kept});
  }
  return stages;
}

}  // namespace sampling_lab
