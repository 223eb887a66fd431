#include "selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "prefix_select.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab::detail {

namespace {

// Above this k a heap loses to a threshold pass plus histogram selection.
constexpr std::size_t kHeapTopKLimit = 4096;

// The k best tokens by (logit desc, id asc), kept in a heap whose top is the worst of them
// (Williams 1964); returned in id order.
void gather_top_k(std::span<const float> logits, std::size_t k, Workspace& workspace) {
  auto& heap = workspace.boundary;
  heap.clear();
  const auto ranks_higher = [](const RankedToken& a, const RankedToken& b) {
    return a.key > b.key || (a.key == b.key && a.index < b.index);
  };
  for (std::size_t i = 0; i < k; ++i) heap.push_back({logits[i], std::uint32_t(i), 0.0f});
  std::make_heap(heap.begin(), heap.end(), ranks_higher);
  // Later ids lose ties, so only a strictly larger logit gets in; SIMD skips the rest.
  for (std::size_t i = kernels::next_above(logits, k, heap.front().key); i < logits.size();
       i = kernels::next_above(logits, i + 1, heap.front().key)) {
    std::pop_heap(heap.begin(), heap.end(), ranks_higher);
    heap.back() = {logits[i], std::uint32_t(i), 0.0f};
    std::push_heap(heap.begin(), heap.end(), ranks_higher);
  }
  std::sort(heap.begin(), heap.end(),
            [](const RankedToken& a, const RankedToken& b) { return a.index < b.index; });
  workspace.candidate_ids.clear();
  workspace.candidate_keys.clear();
  for (const auto& token : heap) {
    workspace.candidate_ids.push_back(token.index);
    workspace.candidate_keys.push_back(token.key);
  }
}

}  // namespace

Selection select_kept(std::span<const float> logits, const FilterParams& params,
                      Workspace& workspace) {
  const std::size_t vocabulary = logits.size();
  const auto range = kernels::min_max(logits);
  const float inverse_temperature = float(1.0 / params.temperature);
  Selection selection{0, 0.0, std::numeric_limits<double>::quiet_NaN(), range.max,
                      inverse_temperature, false};

  const bool top_k = params.top_k > 0 && std::size_t(params.top_k) < vocabulary;
  const bool top_p = params.top_p < 1.0;
  // p_i >= min_p * p_max  <=>  z_i >= max + T ln(min_p): a logit threshold, no exp needed.
  const float min_p_threshold = params.min_p > 0.0
      ? float(range.max + params.temperature * std::log(params.min_p))
      : -std::numeric_limits<float>::infinity();

  if (!top_k && !top_p && params.min_p == 0.0) {
    // Nothing to cut: the weights of the whole vocabulary, with no candidate list.
    workspace.candidate_weights.resize(vocabulary);
    selection.kept = vocabulary;
    selection.kept_weight =
        kernels::exp_shifted(logits, range.max, inverse_temperature, workspace.candidate_weights);
    selection.total_weight = selection.kept_weight;
    selection.everything = true;
    return selection;
  }
  if (top_k && std::size_t(params.top_k) <= kHeapTopKLimit) {
    gather_top_k(logits, std::size_t(params.top_k), workspace);
  } else {
    // With top-k and top-p both active, top-p needs the mass of the whole top-k set, so min-p
    // may not thin the candidates first.
    float threshold = top_k && top_p ? -std::numeric_limits<float>::infinity() : min_p_threshold;
    if (top_p && !top_k) {
      // Tokens lighter than θ = (1 − p) S / V weigh less than (1 − p) S together, so the top-p
      // set lies within w >= θ; half of θ leaves room for rounding.
      selection.total_weight = kernels::exp_sum(logits, range.max, inverse_temperature);
      const double theta = 0.5 * (1.0 - params.top_p) * selection.total_weight / double(vocabulary);
      threshold = std::max(threshold, float(range.max + params.temperature * std::log(theta)));
    }
    kernels::gather_at_least(logits, threshold, workspace.candidate_ids, workspace.candidate_keys);
  }

  auto& keys = workspace.candidate_keys;
  auto& weights = workspace.candidate_weights;
  weights.resize(keys.size());
  const double candidate_weight =
      kernels::exp_shifted(keys, range.max, inverse_temperature, weights);

  std::size_t keep = keys.size();
  std::optional<PrefixSelector> ranking;
  const auto ranked = [&]() -> PrefixSelector& {
    if (!ranking) ranking.emplace(keys, weights, range.max, kernels::min_max(keys).min, workspace);
    return *ranking;
  };
  double top_p_base = top_k ? candidate_weight : selection.total_weight;
  if (top_k && std::size_t(params.top_k) < keep) {
    const auto top = ranked().first(std::size_t(params.top_k));
    keep = top.count;
    top_p_base = top.mass;
  }
  if (top_p) keep = std::min(keep, ranked().reaching_mass(params.top_p * top_p_base).count);
  if (params.min_p > 0.0) keep = std::min(keep, kernels::count_at_least(keys, min_p_threshold));

  // Compact the candidates to the first `keep` of the ranking.
  std::size_t kept = 0;
  double kept_weight = 0.0;
  const auto retain = [&](std::size_t position) {
    workspace.candidate_ids[kept] = workspace.candidate_ids[position];
    keys[kept] = keys[position];
    weights[kept] = weights[position];
    kept_weight += weights[kept];
    ++kept;
  };
  if (keep == keys.size()) {
    selection.kept = keep;
    selection.kept_weight = candidate_weight;
    return selection;
  }
  for_each_token(keys, ranked().first(keep), [&](std::size_t position, bool in_prefix) {
    if (in_prefix) retain(position);
  });
  workspace.candidate_ids.resize(kept);
  keys.resize(kept);
  weights.resize(kept);
  selection.kept = kept;
  selection.kept_weight = kept_weight;
  return selection;
}

}  // namespace sampling_lab::detail
