#include "selection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>

#include "chain.hpp"
#include "prefix_select.hpp"
#include "ranking.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"

namespace sampling_lab::detail {

namespace {

constexpr float kNoThreshold = -std::numeric_limits<float>::infinity();

// The filters that are on for one call, and the numbers each needs.
struct Chain {
  float max_logit;
  float min_logit;
  double temperature;
  float inverse_temperature;
  std::size_t top_k;      // 0 = off
  double top_p;           // 1 = off
  float min_p_threshold;  // kNoThreshold = off
  double epsilon;         // 0 = off
  std::optional<double> total_weight;
  bool finite;  // every logit, as the min/max pass found

  bool cuts() const { return top_k > 0 || top_p < 1.0 || min_p_threshold > kNoThreshold || epsilon > 0.0; }
  bool only_epsilon() const { return epsilon > 0.0 && top_k == 0 && top_p == 1.0 && min_p_threshold == kNoThreshold; }
};

Chain plan(std::span<const float> logits, const SamplingOptions& options) {
  const auto range = kernels::min_max(logits);
  const float max_logit = range.max;
  Chain chain{max_logit, range.min, options.temperature, inverse_temperature(options.temperature), 0, options.top_p,
              kNoThreshold, options.epsilon_cutoff, {}, range.finite};
  if (options.top_k > 0 && std::size_t(options.top_k) < logits.size()) chain.top_k = std::size_t(options.top_k);
  // p_i >= min_p · p_max  <=>  z_i >= max + T ln(min_p): a logit threshold, no exp needed.
  if (options.min_p > 0.0) chain.min_p_threshold = float(max_logit + options.temperature * std::log(options.min_p));
  return chain;
}

// p_i = w_i / mass >= epsilon  <=>  z_i >= max + T ln(epsilon · mass), with w = exp((z − max) / T).
float epsilon_threshold(const Chain& chain, double mass) {
  return float(chain.max_logit + chain.temperature * std::log(chain.epsilon * mass));
}

// The k best tokens by the ranking, left in id order; false when the heap ran over its budget.
// The ids alone are sorted (a sort of integers the module has anyway) and the keys read again.
bool gather_top_k(std::span<const float> logits, std::size_t k, CandidateScratch& candidates) {
  auto& heap = candidates.heap;
  if (!best_ranked_within_budget(logits, k, heap)) return false;
  auto& ids = candidates.ids;
  ids.resize(heap.size());
  std::transform(heap.begin(), heap.end(), ids.begin(), [](const RankedToken& token) { return token.id; });
  sort_ids(ids);
  candidates.keys.resize(ids.size());
  std::transform(ids.begin(), ids.end(), candidates.keys.begin(), [&](std::uint32_t id) { return logits[id]; });
  return true;
}

// A logit below the k-th largest: a bucket under the one holding rank k in a histogram of the
// logits (radix select), so that every token of the top k lies above it.
float top_k_bound(std::span<const float> logits, const Chain& chain, PrefixScratch& scratch) {
  constexpr std::uint32_t kBuckets = kPrefixBuckets;
  const float scale = bucket_scale(chain.max_logit, chain.min_logit, kBuckets);
  if (scale == 0.0f) return kNoThreshold;
  auto& bucket_of = scratch.bucket_of;
  bucket_of.resize(logits.size());
  kernels::bucket_indices(logits, chain.max_logit, scale, kBuckets - 1, bucket_of);
  auto& counts = scratch.bucket_counts;
  counts.assign(kBuckets, 0);
  for (const std::uint32_t bucket : bucket_of) ++counts[bucket];
  std::size_t above = 0;
  std::uint32_t bucket = 0;
  while (above + counts[bucket] < chain.top_k) above += counts[bucket++];
  return chain.max_logit - float(bucket + 2) / scale;
}

// In a random order the i-th of V tokens enters a top-k heap with probability k / i: about
// k ln(V / k) in all. A heap takes at most 1/64 of the keys (best_ranked_within_budget).
double expected_heap_entries(std::size_t k, std::size_t vocabulary) {
  return double(k) * std::log(double(vocabulary) / double(std::max<std::size_t>(k, 1)) + 1.0);
}
std::size_t heap_entry_cap(std::size_t vocabulary) { return std::max<std::size_t>(vocabulary / 64, 256); }

// Whether a random order would send a top-k heap past its budget.
bool heap_would_overflow(std::size_t k, std::size_t vocabulary) {
  return expected_heap_entries(k, vocabulary) > double(heap_entry_cap(vocabulary));
}

// Step 1: a candidate set, in id order, holding every token the chain can keep.
void gather_candidates(std::span<const float> logits, Chain& chain, FilterWorkspace& workspace) {
  auto& candidates = workspace.candidates;
  std::optional<float> sampled_bound;
  if (chain.top_k > 0) {
    // A large k: a sampled bound first, which costs two reads where a random order would send the
    // heap past its budget; ties and flat tails, which send the heap almost nothing, fail it.
    const bool sampled_first = heap_would_overflow(chain.top_k, logits.size());
    if (sampled_first) sampled_bound = sampled_top_k_bound(logits, chain.top_k, workspace.prefix);
    if (!sampled_bound && chain.top_k <= kHeapTopKLimit) {
      if (gather_top_k(logits, chain.top_k, candidates)) return;
      // An order that sent the heap every token (ascending): the sampled bound, if not tried yet.
      if (!sampled_first) sampled_bound = sampled_top_k_bound(logits, chain.top_k, workspace.prefix);
    }
  }
  // With top-k and top-p both on, top-p needs the mass of the whole top-k set, so min-p may not
  // thin the candidates first.
  float threshold = chain.top_k > 0 && chain.top_p < 1.0 ? kNoThreshold : chain.min_p_threshold;
  if (chain.top_k > 0) threshold = std::max(threshold, sampled_bound ? *sampled_bound : top_k_bound(logits, chain, workspace.prefix));
  if (chain.only_epsilon()) {
    // Epsilon alone: the whole vocabulary's mass first, then only the tokens it keeps.
    chain.total_weight = kernels::exp_sum(logits, chain.max_logit, chain.inverse_temperature);
    threshold = std::min(epsilon_threshold(chain, *chain.total_weight), chain.max_logit);  // at least one token
  }
  if (chain.top_p < 1.0 && chain.top_k == 0) {
    // Tokens lighter than θ = (1 − p) S / V weigh less than (1 − p) S together, so the top-p set
    // lies within w >= θ; half of θ leaves room for rounding. (top_p_by_bounds may have summed S.)
    if (!chain.total_weight) chain.total_weight = kernels::exp_sum(logits, chain.max_logit, chain.inverse_temperature);
    const double theta = 0.5 * (1.0 - chain.top_p) * *chain.total_weight / double(logits.size());
    threshold = std::max(threshold, float(chain.max_logit + chain.temperature * std::log(theta)));
  }
  kernels::gather_at_least(logits, threshold, candidates.ids, candidates.keys);
}

// The candidates' ranking, histogrammed only when a filter first asks for a prefix of it.
class CandidateRanking {
 public:
  CandidateRanking(const CandidateScratch& candidates, float max_logit, PrefixScratch& scratch)
      : candidates_(candidates), max_logit_(max_logit), scratch_(scratch) {}

  PrefixSelector& operator()() {
    if (!selector_) {
      selector_.emplace(candidates_.keys, candidates_.weights, max_logit_,
                        kernels::min_max(candidates_.keys).min, scratch_);
    }
    return *selector_;
  }

 private:
  const CandidateScratch& candidates_;
  float max_logit_;
  PrefixScratch& scratch_;
  std::optional<PrefixSelector> selector_;
};

// Step 2: each filter's kept prefix of the ranking, in chain order; the shortest wins. Top-p
// applies to the top-k renormalised distribution.
std::size_t kept_prefix_length(const Chain& chain, double candidate_weight,
                               const CandidateScratch& candidates, CandidateRanking& ranking) {
  std::size_t keep = candidates.keys.size();
  double top_p_base = chain.top_k > 0 ? candidate_weight : chain.total_weight.value_or(candidate_weight);
  if (chain.top_k > 0 && chain.top_k < keep) {
    const Prefix top = ranking().first(chain.top_k);
    keep = top.count;
    top_p_base = top.mass;
  }
  if (chain.top_p < 1.0) keep = std::min(keep, ranking().reaching_mass(chain.top_p * top_p_base).count);
  if (chain.min_p_threshold > kNoThreshold) {
    keep = std::min(keep, kernels::count_at_least(candidates.keys, chain.min_p_threshold));
  }
  if (chain.epsilon > 0.0) {
    // Every stage so far kept a prefix that lies within the candidates, so its mass is known.
    const double mass = chain.only_epsilon() ? *chain.total_weight
                        : keep == candidates.keys.size() ? candidate_weight
                                                         : ranking().first(keep).mass;
    keep = std::clamp(kernels::count_at_least(candidates.keys, epsilon_threshold(chain, mass)), std::size_t{1}, keep);
  }
  return keep;
}

// Step 3: keeps the candidates in the first `keep` of the ranking, still in id order; returns
// their weight and sums it per block again. The copy is branchless (a kept set and its cut
// alternate unpredictably) and the sums are block_sum's, not one chain of dependent adds.
double compact_to_prefix(std::size_t keep, CandidateScratch& candidates, CandidateRanking& ranking) {
  const Prefix prefix = ranking().first(keep);
  std::uint32_t* ids = candidates.ids.data();
  float* keys = candidates.keys.data();
  float* weights = candidates.weights.data();
  std::size_t kept = 0;
  std::size_t ties_left = prefix.ties_at_key;
  for (std::size_t i = 0; i < candidates.keys.size(); ++i) {
    const float key = keys[i];
    const bool tie = key == prefix.last_key && ties_left > 0;  // the first ties, in id order, are in the prefix
    ties_left -= tie;
    ids[kept] = ids[i];
    keys[kept] = key;
    weights[kept] = weights[i];
    kept += std::size_t(key > prefix.last_key) | std::size_t(tie);
  }
  candidates.ids.resize(kept);
  candidates.keys.resize(kept);
  candidates.weights.resize(kept);
  candidates.block_sums.resize(kernels::block_count(kept));
  return kernels::block_sum(candidates.weights, candidates.block_sums);
}

// Step 3 for a draw, which reads only the weights: the candidates outside the first `keep` of
// the ranking weigh 0 where they are (no copy), and the weights are summed per block again.
double zero_outside_prefix(std::size_t keep, CandidateScratch& candidates, CandidateRanking& ranking) {
  return zero_outside(ranking().first(keep), candidates.keys, candidates.weights, candidates.block_sums);
}

// The tokens within T·top_p_head_depth(V) of the maximum, where top_p_by_bounds weighs them.
float top_p_head_threshold(std::size_t vocabulary, const Chain& chain) {
  return float(double(chain.max_logit) - sampling_lab::top_p_head_depth(vocabulary) * chain.temperature);
}

// Whether an evenly spaced sample of 1,024 logits puts a quarter of the vocabulary or more in
// that head (a high temperature, a flat tail, ties, Zipf logits): top_p_by_bounds would then
// gather a quarter of the vocabulary and bound the rest before giving up. (A quarter of 1,024
// draws has a standard error of 1.4 %.)
bool top_p_head_looks_large(std::span<const float> logits, const Chain& chain) {
  const std::size_t stride = std::max<std::size_t>(logits.size() / 1024, 1);
  const float threshold = top_p_head_threshold(logits.size(), chain);
  std::size_t sampled = 0;
  std::size_t in_head = 0;
  for (std::size_t i = 0; i < logits.size(); i += stride, ++sampled) in_head += logits[i] >= threshold;
  return in_head * 4 >= sampled;
}

// Top-p alone, for a draw, when the kept set may hold much of the vocabulary: every token weighed
// once, in place (no gather, no separate pass for the total), the cut placed from a sample (or,
// where the sample cannot place it, by the histogram over the whole vocabulary), and the tokens
// past the kept prefix weigh 0.
Selection top_p_over_vocabulary(std::span<const float> logits, Chain& chain, FilterWorkspace& workspace) {
  auto& weights = workspace.candidates.weights;
  auto& block_sums = workspace.candidates.block_sums;
  weights.resize(logits.size());
  block_sums.resize(kernels::block_count(logits.size()));
  const double total = kernels::exp_shifted(logits, chain.max_logit, chain.inverse_temperature, weights, block_sums);
  chain.total_weight = total;
  const Prefix prefix =
      prefix_reaching_fraction(logits, weights, chain.max_logit, chain.min_logit, chain.top_p, total, workspace.prefix);
  const double kept_weight = prefix.count < logits.size() ? zero_outside(prefix, logits, weights, block_sums) : total;
  return {identity_ids(logits.size(), workspace), logits, weights, block_sums, kept_weight, total, chain.max_logit,
          chain.inverse_temperature};
}

// Top-p alone, for a draw, without weighing the tail: the tokens within T·top_p_head_depth(V) of
// the maximum (the head) get their weights; the rest's mass is only bounded (kernels::tail_mass).
// The kept prefix is the shortest reaching p of the total, a total known to lie in
// [head + low, head + high]: where both ends give the same prefix, inside the head, it is the
// prefix. Where they straddle a boundary (a dense body of tokens at the cut, as a language model's
// logits have at T 1), the total is summed exactly, as the general path sums it, and the prefix is
// still taken from the head when it ends there. Otherwise (a top-p reaching into the tail, or a
// head of a quarter of the vocabulary), none: the caller weighs everything. After the bounds
// straddled a cut, the next few calls sum the total at once (FilterWorkspace::top_p_unbounded_calls).
std::optional<Selection> top_p_by_bounds(std::span<const float> logits, Chain& chain, FilterWorkspace& workspace) {
  const std::size_t v = logits.size();
  const float threshold = top_p_head_threshold(v, chain);
  auto& candidates = workspace.candidates;
  constexpr unsigned kUnboundedCalls = 8;
  const bool bounded = workspace.top_p_unbounded_calls == 0;
  kernels::MassBounds tail{};
  if (bounded) tail = kernels::tail_mass(logits, threshold, chain.max_logit, chain.inverse_temperature);
  else --workspace.top_p_unbounded_calls;
  kernels::gather_at_least(logits, threshold, candidates.ids, candidates.keys);
  const std::size_t head = candidates.ids.size();
  if (head * 4 >= v) return std::nullopt;
  candidates.weights.resize(head);
  candidates.block_sums.resize(kernels::block_count(head));
  const double head_weight = kernels::exp_shifted(candidates.keys, chain.max_logit, chain.inverse_temperature,
                                                  candidates.weights, candidates.block_sums);
  const double low = chain.top_p * (head_weight + tail.low);
  const double high = chain.top_p * (head_weight + tail.high);
  if (bounded && high > head_weight) return std::nullopt;
  CandidateRanking ranking(candidates, chain.max_logit, workspace.prefix);
  std::size_t keep = bounded ? ranking().reaching_mass(low).count : 0;
  if (!bounded || ranking().reaching_mass(high).count != keep) {
    if (bounded) workspace.top_p_unbounded_calls = kUnboundedCalls;
    chain.total_weight = kernels::exp_sum(logits, chain.max_logit, chain.inverse_temperature);
    const double target = chain.top_p * *chain.total_weight;
    // A target at the head's whole mass, to rounding, may end just past it: weigh everything then
    // (and bound the next call's tail again: the bounds tell that without the sum).
    if (target > head_weight * (1.0 - 1e-9)) {
      workspace.top_p_unbounded_calls = 0;
      return std::nullopt;
    }
    keep = ranking().reaching_mass(target).count;
  }
  const double kept_weight = keep < head ? zero_outside_prefix(keep, candidates, ranking) : head_weight;
  return Selection{candidates.ids, candidates.keys, candidates.weights, candidates.block_sums, kept_weight, chain.total_weight,
                   chain.max_logit, chain.inverse_temperature};
}

// No filter cuts: the weights of the whole vocabulary.
Selection whole_vocabulary(std::span<const float> logits, const Chain& chain, FilterWorkspace& workspace) {
  auto& weights = workspace.candidates.weights;
  auto& block_sums = workspace.candidates.block_sums;
  weights.resize(logits.size());
  block_sums.resize(kernels::block_count(logits.size()));
  const double total = kernels::exp_shifted(logits, chain.max_logit, chain.inverse_temperature, weights, block_sums);
  return {identity_ids(logits.size(), workspace), logits, weights, block_sums, total, total, chain.max_logit,
          chain.inverse_temperature};
}

}  // namespace

// A logit at or below the k-th largest, placed from an evenly spaced sample of S logits (its
// r-th largest, r = kS/V + 4√(kS/V) + 8: four standard deviations of a sampled rank beyond k) and
// checked by one counting pass: at least k tokens lie at or above it, so the top k do, and at most
// 8k + 4,096, so gathering them is cheap.
// None when the sample misleads (ties or a flat tail put far more tokens at the bound; an order
// chosen against the stride): the heap or the histogram decides then.
std::optional<float> sampled_top_k_bound(std::span<const float> logits, std::size_t k, PrefixScratch& scratch) {
  const std::size_t v = logits.size();
  const std::size_t stride = std::max<std::size_t>(v / kTopKSample, 1);
  auto& sample = scratch.sample;
  sample.clear();
  for (std::size_t i = 0; i < v && sample.size() < kTopKSample; i += stride) sample.push_back(logits[i]);
  const double expected = double(k) * double(sample.size()) / double(v);
  const std::size_t rank = std::min(sample.size() - 1, std::size_t(expected + 4.0 * std::sqrt(expected)) + 8);
  std::nth_element(sample.begin(), sample.begin() + std::ptrdiff_t(rank), sample.end(), std::greater<float>());
  const float bound = sample[rank];
  // A bound tied with much of the sample (a flat tail, ties) would keep most of the vocabulary:
  // the heap takes those without the counting pass.
  if (std::size_t(std::count(sample.begin(), sample.end(), bound)) * 8 > sample.size()) return std::nullopt;
  const std::size_t above = kernels::count_at_least(logits, bound);
  if (above < k || above > 8 * k + 4096) return std::nullopt;
  return bound;
}


namespace {
// A heap whose top is the worst of the k best so far (Williams 1964), taking at most
// `max_entries` tokens after the first k.
bool heap_select(std::span<const float> keys, std::size_t k, std::vector<RankedToken>& out, std::size_t max_entries) {
  out.clear();
  if (k == 0) return true;
  for (std::size_t i = 0; i < k; ++i) out.push_back({keys[i], std::uint32_t(i), 0.0f});
  std::make_heap(out.begin(), out.end(), ranks_before);
  std::size_t entries = 0;
  // Later ids lose ties, so only a strictly larger key gets in; SIMD skips the rest.
  for (std::size_t i = kernels::next_above(keys, k, out.front().key); i < keys.size();
       i = kernels::next_above(keys, i + 1, out.front().key)) {
    if (++entries > max_entries) return false;
    std::pop_heap(out.begin(), out.end(), ranks_before);
    out.back() = {keys[i], std::uint32_t(i), 0.0f};
    std::push_heap(out.begin(), out.end(), ranks_before);
  }
  std::sort_heap(out.begin(), out.end(), ranks_before);
  return true;
}
}  // namespace

void best_ranked(std::span<const float> keys, std::size_t k, std::vector<RankedToken>& out) {
  heap_select(keys, k, out, keys.size());
}

bool best_ranked_within_budget(std::span<const float> keys, std::size_t k, std::vector<RankedToken>& out) {
  const double expected = expected_heap_entries(k, keys.size());
  return heap_select(keys, k, out, std::min(std::size_t(2.0 * expected) + 256, heap_entry_cap(keys.size())));
}

std::span<const std::uint32_t> identity_ids(std::size_t size, FilterWorkspace& workspace) {
  auto& identity = workspace.identity;
  if (identity.size() < size) {
    const std::size_t known = identity.size();
    identity.resize(size);
    std::iota(identity.begin() + std::ptrdiff_t(known), identity.end(), std::uint32_t(known));
  }
  return std::span(identity).first(size);
}

Selection select_kept(std::span<const float> logits, const SamplingOptions& options,
                      FilterWorkspace& workspace, bool draw_only) {
  return *checked_select_kept(logits, options, workspace, draw_only);  // finite by contract
}

bool cuts(const SamplingOptions& o, std::size_t vocabulary) {
  return (o.top_k > 0 && std::size_t(o.top_k) < vocabulary) || o.top_p < 1.0 || o.min_p > 0.0 || o.epsilon_cutoff > 0.0;
}

namespace {
// The stream, under the same seed, of every uniform a rejected draw needs beyond the token's own.
constexpr std::uint64_t kRejectionStreamBit = std::uint64_t{1} << 50;
// Blocks of that stream each step may use: step · 2^10 stays below 2^63 for every step < 2^53.
constexpr int kRejectionBlockBits = 10;
// Three uniforms an attempt, two a block: 512 attempts and the fallback's uniform stay inside the
// step's 2^10 blocks, so that no step reads another's.
constexpr int kMaxAttempts = 512;

// The inverse-CDF draw over every token's weight (every token the mask allows, gathered, when
// there is one), as when a filter needs them all. Without a mask the weights are summed per block
// and not stored: only the block the draw lands in is weighed again.
std::size_t weigh_everything(std::span<const float> logits, float max, float scale, double u, FilterWorkspace& workspace,
                             std::span<const std::uint32_t> mask) {
  auto& candidates = workspace.candidates;
  auto& block_sums = candidates.block_sums;
  if (mask.empty()) {
    block_sums.resize(kernels::block_count(logits.size()));
    const double total = kernels::exp_block_sums(logits, max, scale, block_sums);
    return kernels::inverse_cdf_of_exps(logits, max, scale, block_sums, u * total);
  }
  kernels::gather_allowed(mask, logits, candidates.ids, candidates.keys);
  auto& weights = candidates.weights;
  weights.resize(candidates.keys.size());
  block_sums.resize(kernels::block_count(candidates.keys.size()));
  const double total = kernels::exp_shifted(candidates.keys, max, scale, weights, block_sums);
  return candidates.ids[kernels::inverse_cdf(weights, block_sums, u * total)];
}

bool allowed_by(std::span<const std::uint32_t> mask, std::size_t token) {
  return mask.empty() || (mask[token / 32] >> (token % 32) & 1u) != 0;
}
}  // namespace

// Exact rejection sampling (von Neumann 1951) from an envelope that weighs only the head of the
// distribution. Tokens with z >= max − T·head_depth(V) get their weights w = e^{(z − max)/T};
// every token below gets the envelope e, the weight at that threshold, above its own. A draw
// picks a head token by the inverse CDF, or, in proportion to the envelope mass B = V · e of a
// uniform proposal over the vocabulary (at most 50 times the head's), proposes a uniform token,
// kept when it lies in the tail with probability w / e; anything else draws again, with fresh
// uniforms. Each token comes out with probability w / W exactly. An attempt succeeds with
// probability at least 1/51 and costs a few nanoseconds, while the head is seldom more than a
// few hundred tokens. When it is a quarter of the vocabulary or more (a high temperature), every
// token is weighed instead. Under a mask the masked tokens leave the head and a masked token
// proposed is redrawn, so each allowed token comes out with probability w / W over the allowed
// ones, exactly; the shift stays the maximum of every logit (an envelope over the allowed ones
// as well), so the first pass reads no bits. Should the mask leave the head light (it cut the
// top tokens), the envelope's mass check below weighs every allowed token instead.
kernels::CheckedIndex draw_untruncated(std::span<const float> logits, const SamplingOptions& options,
                                       FilterWorkspace& workspace, std::span<const std::uint32_t> mask) {
  const auto range = kernels::min_max(logits);
  if (!range.finite) return {0, false};
  const std::size_t v = logits.size();
  const float scale = inverse_temperature(options.temperature);
  const float threshold = float(double(range.max) - sampling_lab::head_depth(v) / double(scale));
  const double u = token_uniforms(options).token;
  auto& candidates = workspace.candidates;
  // A head of a quarter of the vocabulary is weighed whole: its gather stops there.
  const std::size_t quarter = (v + 3) / 4;
  const std::size_t head = mask.empty()
      ? kernels::gather_at_least(logits, threshold, candidates.ids, candidates.keys, quarter)
      : kernels::gather_allowed_at_least(mask, logits, threshold, candidates.ids, candidates.keys, quarter);
  if (head * 4 >= v) return {weigh_everything(logits, range.max, scale, u, workspace, mask), true};
  auto& weights = candidates.weights;
  weights.resize(head);
  candidates.block_sums.resize(kernels::block_count(head));
  const double head_weight = kernels::exp_shifted(candidates.keys, range.max, scale, weights, candidates.block_sums);
  // A tail token's weight, in double: below the envelope for every z < threshold, with room for rounding.
  const auto tail_weight = [&](float z) { return std::exp((double(z) - double(range.max)) * double(scale)); };
  const double envelope = tail_weight(threshold) * (1.0 + 1e-12);
  // Proposals are uniform over all V tokens (a head token proposed is redrawn), so each tail
  // token is proposed with mass e, as the head tokens' weights are drawn.
  const double tail_bound = double(v) * envelope;
  // The envelope holds at most 50 head masses unless float rounding left the threshold at the
  // maximum (a temperature near 0), where it says nothing, or the mask cut the head's heaviest
  // tokens: every token is weighed then.
  if (tail_bound > 64.0 * head_weight) return {weigh_everything(logits, range.max, scale, u, workspace, mask), true};
  Philox extra(options.seed, options.stream ^ kRejectionStreamBit);
  extra.seek(options.step << kRejectionBlockBits);
  double proposal = u;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const double x = proposal * (head_weight + tail_bound);
    if (x < head_weight) return {candidates.ids[kernels::inverse_cdf(weights, candidates.block_sums, x)], true};
    const std::size_t j = std::min(v - 1, std::size_t(extra.uniform() * double(v)));
    const double coin = extra.uniform();
    if (logits[j] < threshold && allowed_by(mask, j) && coin * envelope < tail_weight(logits[j])) return {j, true};
    proposal = extra.uniform();
  }
  // (50/51)^512 ≈ 4e-5 at worst ((64/65)^512 ≈ 4e-4 under a mask): then every token is
  // weighed, on a uniform of its own, so that the rejections before cannot bias it.
  return {weigh_everything(logits, range.max, scale, extra.uniform(), workspace, mask), true};
}

kernels::CheckedIndex masked_argmax(std::span<const float> logits, std::span<const std::uint32_t> mask) {
  // Mostly the maximum of every logit is allowed: then it is the one (ties go to the lowest id).
  const auto top = kernels::checked_argmax(logits);
  if (!top.finite || allowed_by(mask, top.index)) return top;
  const float best = kernels::masked_max(mask, logits);
  std::size_t i = 0;
  while (!(logits[i] == best && allowed_by(mask, i))) ++i;  // the mask allows some token
  return {i, true};
}

// Adaptive-p's transform gives token i the logit 5 − 10 d²/(1 + d), d = |p_i − t| / 0.3, t =
// clamp(2·target − average, 0, 1): the weight g(p_i) = exp(−10 d²/(1 + d)) <= 1, drawn here by
// rejection sampling as in draw_untruncated, so that only the head p_i >= 10^-3 (at most 1,000
// tokens) is weighed. g rises up to t and falls after it, so every tail token weighs at most the
// envelope g(min(t, p_tail)), p_tail the tail's bound, and at least e^(−1/30) of it (|dg/dp| <=
// 10/0.3 · g): an attempt succeeds with probability above 0.96.
AdaptiveDraw draw_adaptive_p(const Selection& kept, const SamplingOptions& options, ChainScratch& scratch) {
  constexpr double kHeadProbability = 1e-3;
  const double adapted = std::clamp(2.0 * *options.adaptive_p_target - adaptive_p_average(options), 0.0, 1.0);
  const double total = kept.kept_weight;
  const auto probability = [&](std::size_t j) { return double(kept.weights[j]) / total; };
  const auto weight = [&](double p) {
    const double d = std::abs(p - adapted) / 0.3;
    return std::exp(-10.0 * d * d / (1.0 + d));
  };
  const float head_bound = float(kHeadProbability * total);
  auto& head = scratch.positions;
  kernels::gather_at_least(kept.weights, head_bound, head, scratch.survivor_keys);
  auto& cumulative = scratch.adaptive_cumulative;
  cumulative.resize(head.size());
  double head_weight = 0.0;
  for (std::size_t j = 0; j < head.size(); ++j) cumulative[j] = head_weight += weight(probability(head[j]));
  // A tail token's weight is below head_bound, so its p below p_tail; room for rounding.
  const double tail_p = double(head_bound) / total;
  const double envelope = (adapted <= tail_p ? 1.0 : weight(tail_p)) * (1.0 + 1e-12);
  const std::size_t n = kept.ids.size();
  const double tail_bound = double(n) * envelope;
  Philox extra(options.seed, options.stream ^ kRejectionStreamBit);
  extra.seek(options.step << kRejectionBlockBits);
  const auto pick = [&](double target) {
    return std::size_t(std::upper_bound(cumulative.begin(), cumulative.end(), target) - cumulative.begin());
  };
  double proposal = token_uniforms(options).token;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const double x = proposal * (head_weight + tail_bound);
    if (x < head_weight) {
      const std::size_t at = head[std::min(head.size() - 1, pick(x))];
      return {at, probability(at)};
    }
    const std::size_t j = std::min(n - 1, std::size_t(extra.uniform() * double(n)));
    const double coin = extra.uniform();
    if (kept.weights[j] < head_bound && coin * envelope < weight(probability(j))) return {j, probability(j)};
    proposal = extra.uniform();
  }
  // As in draw_untruncated: every token weighed, on a uniform of its own.
  cumulative.resize(n);
  double mass = 0.0;
  for (std::size_t j = 0; j < n; ++j) cumulative[j] = mass += weight(probability(j));
  const std::size_t at = std::min(n - 1, pick(extra.uniform() * mass));
  return {at, probability(at)};
}

std::optional<Selection> checked_select_kept(std::span<const float> logits, const SamplingOptions& options,
                                             FilterWorkspace& workspace, bool draw_only) {
  Chain chain = plan(logits, options);
  if (!chain.finite) return std::nullopt;
  if (!chain.cuts()) return whole_vocabulary(logits, chain, workspace);
  const bool top_p_alone = chain.top_p < 1.0 && chain.top_k == 0 && chain.min_p_threshold == kNoThreshold && chain.epsilon == 0.0;
  if (draw_only && top_p_alone) {
    // A small head is weighed alone when the bounds on the rest decide the cut; otherwise (a cut
    // in a heavy tail, top-p 0.999) every token is weighed.
    if (!top_p_head_looks_large(logits, chain)) {
      if (auto kept = top_p_by_bounds(logits, chain, workspace)) return kept;
    }
    return top_p_over_vocabulary(logits, chain, workspace);
  }
  auto& candidates = workspace.candidates;
  gather_candidates(logits, chain, workspace);
  candidates.weights.resize(candidates.keys.size());
  candidates.block_sums.resize(kernels::block_count(candidates.keys.size()));
  double kept_weight = kernels::exp_shifted(candidates.keys, chain.max_logit, chain.inverse_temperature,
                                            candidates.weights, candidates.block_sums);
  CandidateRanking ranking(candidates, chain.max_logit, workspace.prefix);
  const std::size_t keep = kept_prefix_length(chain, kept_weight, candidates, ranking);
  if (keep < candidates.keys.size()) {
    kept_weight = draw_only ? zero_outside_prefix(keep, candidates, ranking) : compact_to_prefix(keep, candidates, ranking);
  }
  return Selection{candidates.ids, candidates.keys, candidates.weights, candidates.block_sums, kept_weight, chain.total_weight,
          chain.max_logit, chain.inverse_temperature};
}

}  // namespace sampling_lab::detail
