#include "sampling_lab/samplers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/values.hpp"
#include "chain.hpp"
#include "fast_input.hpp"
#include "clocks.hpp"
#include "selection.hpp"

namespace sampling_lab {

namespace {

constexpr std::string_view kMethodNames[] = {"inverse-cdf", "gumbel-max", "exponential-race",
                                              "alias"};
// Draws between progress reports of the O(1)-per-draw methods, and tokens between reports of
// the O(V)-per-draw ones.
constexpr std::size_t kDrawsPerReport = 1 << 16;
constexpr std::size_t kTokensPerReport = 1 << 18;

// Calls draw(d, first word, second word) for every draw, the words made a chunk at a time.
template <typename Draw>
bool with_two_words(Philox& rng, std::span<std::int32_t> out, SamplerWorkspace& workspace,
                    const Progress& progress, Draw draw) {
  constexpr std::size_t kChunk = 2048;
  for (std::size_t first = 0; first < out.size(); first += kChunk) {
    const std::size_t draws = std::min(kChunk, out.size() - first);
    workspace.words.resize(2 * draws);
    rng.fill(workspace.words);
    for (std::size_t d = 0; d < draws; ++d) {
      out[first + d] = std::int32_t(draw(workspace.words[2 * d], workspace.words[2 * d + 1]));
    }
    if (progress && (first / kChunk) % (kDrawsPerReport / kChunk) == 0 && !progress(double(first + draws) / double(out.size()))) {
      return false;
    }
  }
  return true;
}

// cdf[i] = p_0 + … + p_i in double; returns the total.
double cumulative_sums(std::span<const float> probs, std::vector<double>& cdf) {
  cdf.resize(probs.size());
  double total = 0.0;
  for (std::size_t i = 0; i < probs.size(); ++i) cdf[i] = total += probs[i];
  return total;
}

// The inverse CDF's token for `target` (u · total): the first index whose running sum exceeds
// it (the last one if none does), walked to from any start.
std::size_t settle(std::span<const double> cdf, double target, std::size_t i) {
  while (i > 0 && cdf[i - 1] > target) --i;
  while (i + 1 < cdf.size() && cdf[i] <= target) ++i;
  return i;
}

// The small-vocabulary race's winner among arrivals E_i · (1 / w_i): the earliest, ties to the lower token.
std::size_t first_arrival(const float* arrivals, std::size_t v) {
  std::size_t winner = 0;
  for (std::size_t i = 1; i < v; ++i) winner = arrivals[i] < arrivals[winner] ? i : winner;
  return winner;
}

// Many draws from one distribution: kernels::inverse_cdf's rule (the first index whose running
// sum exceeds u · total) on prefix sums computed once, found through a guide table (Chen & Asau
// 1974): guide[j] is that index for the target j·total/m (m buckets, at least V), where the
// search for any target in [j·total/m, (j+1)·total/m) starts, so a draw reads about two entries
// instead of a binary search's log2 V, each likely a cache miss on a large vocabulary. The same
// index either way.
bool inverse_cdf(std::span<const float> probs, Philox& rng, std::span<std::int32_t> out,
                 SamplerWorkspace& workspace, const Progress& progress) {
  auto& cdf = workspace.cumulative;
  const std::size_t v = probs.size();
  const double total = cumulative_sums(probs, cdf);
  // Up to 1,024 buckets on a small vocabulary, as many draws allow paying for: nearly every bucket
  // then lies within one token's share, where settle does not walk (each walk a mispredicted
  // branch). A few draws (a speculative chain's) keep V buckets, the table's cost theirs.
  const std::size_t buckets = std::max<std::size_t>(v, std::min<std::size_t>(1024, out.size()));
  auto& guide = workspace.alias;
  guide.resize(buckets);
  const double per_bucket = total / double(buckets);
  for (std::size_t j = 0, i = 0; j < buckets; ++j) {
    while (i + 1 < v && cdf[i] <= double(j) * per_bucket) ++i;
    guide[j] = std::uint32_t(i);
  }
  const double buckets_per_total = double(buckets) / total;
  return with_two_words(rng, out, workspace, progress, [&](std::uint32_t a, std::uint32_t b) {
    const double target = to_open_unit(a, b) * total;
    // The product may round into a neighbouring bucket: settle walks back as well as forward.
    return std::ptrdiff_t(settle(cdf, target, guide[std::min(buckets - 1, std::size_t(target * buckets_per_total))]));
  });
}

// The exponential race (Gumbel 1954 in the form of competing clocks): argmin_i E_i / w_i over
// weights w whose largest is 1, E_i the Exp(1) variate of the draw's word i, V words per draw.
// Gumbel-max is this same race: argmax z_i − ln E_i = argmax e^{z_i} / E_i, since −ln decreases.
bool exponential_race(std::span<const float> weights, Philox& rng, std::span<std::int32_t> out,
                      SamplerWorkspace& workspace, const Progress& progress) {
  constexpr std::size_t kChunk = 4096;
  const std::size_t v = weights.size();
  detail::Clocks clocks(rng, workspace);
  std::size_t next_report = kTokensPerReport;
  const auto report = [&](std::size_t tokens) {
    if (!progress || tokens < next_report) return true;
    next_report = tokens + kTokensPerReport;
    return progress(double(tokens) / double(out.size() * v));
  };
  if (v <= kChunk) {
    // Small vocabularies: every clock of several draws at once, arrivals E_i · (1 / w_i).
    const std::size_t per_chunk = kChunk / v;
    auto& inverse = workspace.inverse_weights;
    inverse.resize(per_chunk * v);
    for (std::size_t j = 0; j < inverse.size(); ++j) inverse[j] = 1.0f / weights[j % v];
    for (std::size_t d = 0; d < out.size(); d += per_chunk) {
      const std::size_t draws = std::min(per_chunk, out.size() - d);
      workspace.words.resize(draws * v);
      rng.fill(workspace.words);
      const std::span<float> arrivals = clocks.of(workspace.words, d * v);
      for (std::size_t j = 0; j < arrivals.size(); ++j) arrivals[j] *= inverse[j];
      for (std::size_t k = 0; k < draws; ++k) {
        out[d + k] = std::int32_t(first_arrival(arrivals.data() + k * v, v));
      }
      if (!report((d + draws) * v)) return false;
    }
    return true;
  }
  // Vocabulary-sized draws: the heaviest token's clock first, then only the tokens whose clock
  // can still arrive earlier (kernels::race_candidates) get one.
  const std::size_t heaviest = kernels::argmax(weights);
  auto& candidates = workspace.candidates;
  auto& gathered = workspace.gathered;
  for (std::size_t d = 0; d < out.size(); ++d) {
    const std::uint64_t base = std::uint64_t(d) * v;
    const std::uint32_t heaviest_word = clocks.word(base + heaviest);
    float best = clocks.of(std::span(&heaviest_word, 1), base + heaviest)[0] / weights[heaviest];
    std::size_t winner = heaviest;
    for (std::size_t first = 0; first < v; first += kChunk) {
      const std::size_t length = std::min(kChunk, v - first);
      workspace.words.resize(length);
      rng.fill(workspace.words);
      candidates.clear();
      // The bound's float rounding is far below this margin.
      kernels::race_candidates(workspace.words, weights.subspan(first, length), best * (1.0f + 1e-5f), candidates);
      gathered.resize(candidates.size());
      for (std::size_t c = 0; c < candidates.size(); ++c) gathered[c] = workspace.words[candidates[c]];
      const auto e = clocks.of(gathered, base + first, candidates);
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const std::size_t token = first + candidates[c];
        const float arrival = e[c] / weights[token];
        if (arrival < best || (arrival == best && token < winner)) {
          best = arrival;
          winner = token;
        }
      }
      if (!report(base + first + length)) return false;
    }
    out[d] = std::int32_t(winner);
  }
  return true;
}


// Vose (1991), "A linear algorithm for generating random numbers with a given distribution":
// workspace.cumulative gets each column's threshold, workspace.alias its alias and
// workspace.coin_thresholds the threshold as the 64-bit integer the coin is compared with.
void build_alias(std::span<const float> probs, SamplerWorkspace& workspace) {
  const std::size_t v = probs.size();
  auto& threshold = workspace.cumulative;
  auto& alias_of = workspace.alias;
  auto& small = workspace.small;
  auto& large = workspace.large;
  threshold.resize(v);
  alias_of.resize(v);
  small.clear();
  large.clear();
  double total = 0.0;
  for (const float p : probs) total += p;
  for (std::size_t i = 0; i < v; ++i) {
    threshold[i] = double(probs[i]) * double(v) / total;
    (threshold[i] < 1.0 ? small : large).push_back(std::uint32_t(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t less = small.back();
    small.pop_back();
    const std::uint32_t more = large.back();
    alias_of[less] = more;
    threshold[more] -= 1.0 - threshold[less];
    if (threshold[more] < 1.0) {
      large.pop_back();
      small.push_back(more);
    }
  }
  // Leftovers are 1 up to rounding (mass conservation rules out a zero-probability leftover).
  for (const auto i : large) threshold[i] = 1.0, alias_of[i] = i;
  for (const auto i : small) threshold[i] = 1.0, alias_of[i] = i;
  // The coin compares as integers: keep the column when fraction < threshold · 2^64.
  auto& keep_below = workspace.coin_thresholds;
  keep_below.resize(v);
  for (std::size_t i = 0; i < v; ++i) {
    keep_below[i] = threshold[i] >= 1.0 ? ~std::uint64_t{0} : std::uint64_t(threshold[i] * 0x1p64);
  }
}

struct AliasPick {
  std::size_t column;
  std::uint64_t fraction;  // the coin, as a 64-bit fraction of 1
  std::size_t token;
};

// One 64-bit uniform w per draw: the column is ⌊w · V / 2^64⌋ and the coin its fractional part
// (w · V mod 2^64) / 2^64, uniform given the column (Lemire 2019): each column and each coin is
// off from exact by at most V · 2^-64.
AliasPick alias_pick(std::uint32_t a, std::uint32_t b, const SamplerWorkspace& workspace) {
  const std::size_t v = workspace.alias.size();
  const std::uint64_t high = std::uint64_t{a} * v;
  const std::uint64_t low = std::uint64_t{b} * v;
  const std::uint64_t middle = (high & 0xffffffffu) + (low >> 32);
  const std::size_t column = std::size_t((high >> 32) + (middle >> 32));
  const std::uint64_t fraction = (middle << 32) | (low & 0xffffffffu);
  const std::uint64_t keep_below = workspace.coin_thresholds[column];
  return {column, fraction, fraction < keep_below || keep_below == ~std::uint64_t{0} ? column : workspace.alias[column]};
}

bool alias(std::span<const float> probs, Philox& rng, std::span<std::int32_t> out,
           SamplerWorkspace& workspace, const Progress& progress) {
  build_alias(probs, workspace);
  return with_two_words(rng, out, workspace, progress,
                        [&](std::uint32_t a, std::uint32_t b) { return std::int64_t(alias_pick(a, b, workspace).token); });
}

// The race's weights p_i / max p, so that the heaviest clock runs at rate 1.
std::span<const float> race_weights(std::span<const float> probs, SamplerWorkspace& workspace) {
  auto& weights = workspace.scores;
  const float largest = kernels::min_max(probs).max;
  weights.resize(probs.size());
  for (std::size_t i = 0; i < probs.size(); ++i) weights[i] = probs[i] / largest;
  return weights;
}

}  // namespace

std::string_view method_name(SamplingMethod method) { return kMethodNames[int(method)]; }

std::optional<SamplingMethod> parse_method(std::string_view name) {
  for (const auto method : kSamplingMethods) {
    if (method_name(method) == name) return method;
  }
  return std::nullopt;
}

Check check_draws(double n, std::size_t vocabulary, SamplingMethod method) {
  if (auto error = check_scalar(n, Kind::kInteger, closed(1, double(kMaxSamples)), "n")) return error;
  const bool per_token = method == SamplingMethod::kGumbelMax || method == SamplingMethod::kExponentialRace;
  if (per_token && n * double(vocabulary) > kMaxNoiseVariates) {
    return ArgumentError{"n", "n × vocabulary must be at most 1.25e8 for " + std::string(method_name(method)) +
                                  " (one variate per token per draw); use fewer draws, or inverse-cdf or alias"};
  }
  if (!per_token && n * double(vocabulary) > kMaxTableReads) {
    return ArgumentError{"n", "n × vocabulary must be at most 2^42 for " + std::string(method_name(method)) +
                                  " (a draw reads a table too large for the caches); use fewer draws"};
  }
  return std::nullopt;
}

bool sample_probs(std::span<const float> probs, SamplingMethod method, RandomKey key,
                  std::span<std::int32_t> out, SamplerWorkspace& workspace, const Progress& progress) {
  Philox rng(key.seed, key.stream);
  switch (method) {
    case SamplingMethod::kInverseCdf:
      return inverse_cdf(probs, rng, out, workspace, progress);
    case SamplingMethod::kGumbelMax:
    case SamplingMethod::kExponentialRace:
      return exponential_race(race_weights(probs, workspace), rng, out, workspace, progress);
    case SamplingMethod::kAlias:
      return alias(probs, rng, out, workspace, progress);
  }
  return true;
}

AliasTable alias_table(std::span<const float> probs, SamplerWorkspace& workspace) {
  build_alias(probs, workspace);
  return {workspace.cumulative, workspace.alias};
}

void trace_draws(std::span<const float> probs, SamplingMethod method, RandomKey key, std::uint64_t first,
                 std::span<DrawTrace> out, SamplerWorkspace& workspace) {
  const std::size_t v = probs.size();
  Philox rng(key.seed, key.stream);
  std::uint32_t words[2];
  switch (method) {
    case SamplingMethod::kInverseCdf: {
      // Draw d reads words 2d and 2d + 1, as with_two_words hands them out.
      const double total = cumulative_sums(probs, workspace.cumulative);
      rng.seek_word(2 * first);
      for (auto& draw : out) {
        rng.fill(words);
        draw.uniform = to_open_unit(words[0], words[1]);
        draw.token = std::int32_t(settle(workspace.cumulative, draw.uniform * total, 0));
      }
      return;
    }
    case SamplingMethod::kAlias: {
      build_alias(probs, workspace);
      rng.seek_word(2 * first);
      for (auto& draw : out) {
        rng.fill(words);
        const AliasPick pick = alias_pick(words[0], words[1], workspace);
        draw.column = std::uint32_t(pick.column);
        draw.coin = double(pick.fraction) * 0x1p-64;
        draw.token = std::int32_t(pick.token);
      }
      return;
    }
    case SamplingMethod::kGumbelMax:
    case SamplingMethod::kExponentialRace: {
      // Draw d reads words d·V … d·V + V − 1, as the small-vocabulary race does.
      std::vector<float> inverse(v);
      const auto weights = race_weights(probs, workspace);
      for (std::size_t i = 0; i < v; ++i) inverse[i] = 1.0f / weights[i];
      detail::Clocks clocks(rng, workspace);
      std::vector<std::uint32_t> draw_words(v);
      for (std::size_t j = 0; j < out.size(); ++j) {
        const std::uint64_t base = (first + j) * v;
        rng.seek_word(base);
        rng.fill(draw_words);
        const auto e = clocks.of(draw_words, base);
        out[j].clocks.assign(e.begin(), e.end());
        for (std::size_t i = 0; i < v; ++i) e[i] *= inverse[i];
        out[j].token = std::int32_t(first_arrival(e.data(), v));
      }
      return;
    }
  }
}

bool sample_logits(std::span<const float> logits, double temperature, SamplingMethod method,
                   RandomKey key, std::span<std::int32_t> out, SamplerWorkspace& workspace,
                   const Progress& progress) {
  if (temperature == 0.0) {
    std::fill(out.begin(), out.end(), std::int32_t(argmax(logits)));
    return true;
  }
  auto& probs = workspace.probs;
  probs.resize(logits.size());
  softmax(logits, temperature, probs);
  return sample_probs(probs, method, key, out, workspace, progress);
}

double head_depth(std::size_t vocabulary) { return std::max(1.0, std::log(double(vocabulary) / 50.0)); }

double top_p_head_depth(std::size_t vocabulary) { return 1.5 * head_depth(vocabulary); }

TokenUniforms token_uniforms(const SamplingOptions& options) {
  Philox rng(options.seed, options.stream);
  rng.seek(options.step);
  const double token = rng.uniform();
  return {token, rng.uniform()};
}

namespace {

// One token drawn through the chain, with the selection it came from.
struct Drawn {
  std::int32_t token;
  std::optional<detail::Selection> kept;  // none for greedy on the fast path
  std::size_t position = 0;               // of the token in kept->ids
  std::optional<double> before_adaptive_p = std::nullopt;  // its probability before adaptive-p's transform, when drawn by rejection
};

Drawn draw(std::span<const float> input_logits, const SamplingOptions& options, FilterWorkspace& workspace,
           bool draw_only);

// Greedy or temperature alone under a mask it reads as it goes (fast_input's `fold`). Logprobs
// then find the token among the allowed ones, gathered.
Drawn draw_folded(std::span<const float> input_logits, const SamplingOptions& options, const detail::FastInput& input,
                  FilterWorkspace& workspace, bool draw_only) {
  const bool greedy = input.options.temperature == 0.0;
  const auto token = greedy ? detail::masked_argmax(input.logits, input.mask).index
                            : detail::draw_untruncated(input.logits, input.options, workspace, input.mask).index;
  if (draw_only || greedy) return {std::int32_t(token), std::nullopt};
  const auto kept = detail::kept_tokens(input_logits, options, workspace, false);
  const auto at = std::lower_bound(kept.ids.begin(), kept.ids.end(), std::uint32_t(token));
  return {std::int32_t(token), kept, std::size_t(at - kept.ids.begin())};
}

// `draw_only`: the caller reads only the token and its weight, not the kept set.
Drawn draw(std::span<const float> input_logits, const SamplingOptions& options, FilterWorkspace& workspace,
           bool draw_only) {
  if (const auto input = detail::fast_input(input_logits, options, workspace, false, true)) {
    if (!input->mask.empty()) return draw_folded(input_logits, options, *input, workspace, draw_only);
    Drawn drawn = draw(input->logits, input->options, workspace, draw_only);
    drawn.token = detail::token_at(*input, std::size_t(drawn.token));
    if (drawn.kept) drawn.kept = detail::with_token_ids(*drawn.kept, *input, workspace);
    return drawn;
  }
  // Adaptive-p draws from the kept set before its transform (T 0 leaves one token to the chain).
  if (options.adaptive_p_target && (options.temperature > 0.0 || options.dynatemp_range > 0.0)) {
    SamplingOptions before = options;
    before.adaptive_p_target.reset();
    const auto kept = detail::kept_tokens(input_logits, before, workspace, false);
    const auto drawn = detail::draw_adaptive_p(kept, options, workspace.chain);
    const auto token = std::int32_t(kept.ids[drawn.position]);
    if (draw_only) return {token, kept, drawn.position, drawn.probability};
    // Logprobs read the distribution after the transform, which keeps the same tokens.
    const auto adapted = detail::kept_tokens(input_logits, options, workspace, false);
    const auto at = std::find(adapted.ids.begin(), adapted.ids.end(), std::uint32_t(token));
    return {token, adapted, std::size_t(at - adapted.ids.begin()), drawn.probability};
  }
  const bool fast = !detail::needs_general_chain(options);
  if (fast && options.temperature == 0.0) {
    return {std::int32_t(argmax(penalised(input_logits, options, workspace.penalties))), std::nullopt};
  }
  if (fast && !detail::cuts(options, input_logits.size())) {
    const auto token = detail::draw_untruncated(penalised(input_logits, options, workspace.penalties), options, workspace).index;
    if (draw_only) return {std::int32_t(token), std::nullopt};
    // Logprobs read every token's weight: the whole vocabulary, ids in order, so position = token.
    return {std::int32_t(token), detail::kept_tokens(input_logits, options, workspace, false), token};
  }
  const auto kept = detail::kept_tokens(input_logits, options, workspace, draw_only);
  const double target = token_uniforms(options).token * kept.kept_weight;
  const std::size_t at = kernels::inverse_cdf(kept.weights, kept.block_sums, target);
  return {std::int32_t(kept.ids[at]), kept, at};
}

// μ ← μ − η (surprise − τ), the surprise −log2 p of the token in the distribution it was drawn from.
std::optional<double> next_mirostat_mu(const SamplingOptions& options, const Drawn& drawn) {
  if (options.mirostat_version == 0) return std::nullopt;
  const auto& kept = *drawn.kept;
  const double surprise = -std::log2(double(kept.weights[drawn.position]) / kept.kept_weight);
  return detail::mirostat_mu(options) - options.mirostat_eta * (surprise - options.mirostat_tau);
}

// average ← (1 − decay) p + decay · average, p the token's probability before adaptive-p's transform
// (llama.cpp's weighted_sum / total_weight, whose total stays at its start 1 / (1 − decay)).
std::optional<double> next_adaptive_p_average(const SamplingOptions& options, const Drawn& drawn,
                                              const FilterWorkspace& workspace) {
  if (!options.adaptive_p_target) return std::nullopt;
  const double p = drawn.before_adaptive_p.value_or(workspace.chain.adaptive_probs[drawn.position]);
  return (1.0 - options.adaptive_p_decay) * p + options.adaptive_p_decay * detail::adaptive_p_average(options);
}

// Rank (from 1) of position `at` in the ranking of `keys` (descending, ties to the lower position).
std::size_t rank_of(std::span<const float> keys, std::size_t at) {
  std::size_t before = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) before += keys[i] > keys[at] || (keys[i] == keys[at] && i < at);
  return before + 1;
}

}  // namespace

TokenDraw draw_token(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace) {
  const Drawn drawn = draw(logits, options, workspace, true);
  return {drawn.token, next_mirostat_mu(options, drawn), next_adaptive_p_average(options, drawn, workspace)};
}

namespace {

// checked_draw_token on logits that may not be finite: none when they are not (the fast paths
// test them in their first pass).
std::optional<std::variant<TokenDraw, ArgumentError>> draw_if_finite(std::span<const float> logits, const SamplingOptions& options,
                                                                     FilterWorkspace& workspace) {
  const std::nullopt_t bad_logits = std::nullopt;
  if (const auto input = detail::fast_input(logits, options, workspace, true, true)) {
    if (!input->finite) return bad_logits;
    if (!input->mask.empty()) {
      const auto drawn = input->options.temperature == 0.0 ? detail::masked_argmax(input->logits, input->mask)
                                                           : detail::draw_untruncated(input->logits, input->options, workspace, input->mask);
      if (!drawn.finite) return bad_logits;
      return TokenDraw{std::int32_t(drawn.index), std::nullopt, std::nullopt};
    }
    // The vocabulary's logits (penalised, or at T'): the checked fast path, whose first pass tests them.
    if (input->ids.empty()) return draw_if_finite(input->logits, input->options, workspace);
    const Drawn drawn = draw(input->logits, input->options, workspace, true);
    return TokenDraw{detail::token_at(*input, std::size_t(drawn.token)), std::nullopt, std::nullopt};
  }
  if (detail::needs_general_chain(options)) {
    // Its stages make several passes; a check of its own is a small part of them.
    if (kernels::first_non_finite(logits) < logits.size()) return bad_logits;
    const TokenDraw drawn = draw_token(logits, options, workspace);
    if (auto error = check_bans_left_a_token(options, workspace)) return *error;
    return drawn;
  }
  std::span<const float> input = logits;
  if (modifies_logits(options)) {
    auto& copy = workspace.penalties.logits;
    copy.resize(logits.size());
    if (!kernels::checked_copy(logits, copy)) return bad_logits;
    apply_penalties(copy, options, workspace.penalties);
    input = copy;
  }
  if (options.temperature == 0.0) {
    const auto top = kernels::checked_argmax(input);
    if (!top.finite) return bad_logits;
    return TokenDraw{std::int32_t(top.index), std::nullopt, std::nullopt};
  }
  if (!detail::cuts(options, input.size())) {
    const auto drawn = detail::draw_untruncated(input, options, workspace);
    if (!drawn.finite) return bad_logits;
    return TokenDraw{std::int32_t(drawn.index), std::nullopt, std::nullopt};
  }
  const auto kept = detail::checked_select_kept(input, options, workspace, true);
  if (!kept) return bad_logits;
  const double target = token_uniforms(options).token * kept->kept_weight;
  return TokenDraw{std::int32_t(kept->ids[kernels::inverse_cdf(kept->weights, kept->block_sums, target)]), std::nullopt, std::nullopt};
}

}  // namespace

std::variant<TokenDraw, ArgumentError> checked_draw_token(std::span<const float> logits, const SamplingOptions& options,
                                                          FilterWorkspace& workspace, const std::string& argument) {
  if (!bias_masks(options)) {
    if (auto drawn = draw_if_finite(logits, options, workspace)) return *drawn;
  }
  // Some logit is not finite (or a bias is −∞): −∞ tokens are masked, NaN and +∞ refused.
  const auto masked = mask_negative_infinity(logits, options, workspace.masked, argument);
  if (const auto* error = std::get_if<ArgumentError>(&masked)) return *error;
  const auto& input = std::get<MaskedLogits>(masked);
  return *draw_if_finite(input.logits, input.options, workspace);
}

std::int32_t sample_token(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace) {
  return draw(logits, options, workspace, true).token;
}

namespace {

// The log-probabilities of `token` in the distribution whose kept set `drawn` holds (processed)
// or in the raw logits; `position` is the token's place in drawn.kept (none when the chain cut it).
TokenLogprobs logprobs_of(const Drawn& drawn, std::int32_t token, std::optional<std::size_t> position, std::size_t count,
                          LogprobsMode mode, FilterWorkspace& workspace, std::span<const float> raw) {
  TokenLogprobs result{token, 0.0, 1, {}, std::nullopt, std::nullopt};
  auto& best = workspace.chain.top;
  constexpr double kCut = -std::numeric_limits<double>::infinity();
  if (mode == LogprobsMode::kRaw) {
    const double log_total = log_sum_exp(raw, 1.0);
    result.logprob = std::min(0.0, double(raw[std::size_t(token)]) - log_total);
    result.rank = rank_of(raw, std::size_t(token));
    detail::best_ranked(raw, std::min(count, raw.size()), best);
    for (const auto& entry : best) {
      // A masked (−∞) token is listed by no one, as cut tokens are not in `processed`.
      if (entry.key == -std::numeric_limits<float>::infinity()) break;
      result.top.push_back({std::int32_t(entry.id), std::min(0.0, double(entry.key) - log_total)});
    }
    return result;
  }
  if (!drawn.kept) {  // greedy: all the mass on one token
    if (token != drawn.token) result = {token, kCut, 2, {}, std::nullopt, std::nullopt};
    if (count > 0) result.top.push_back({drawn.token, 0.0});
    return result;
  }
  // ln p_i = (z_i − max) / T − ln W over the kept tokens; every other token has −∞.
  const auto& kept = *drawn.kept;
  const double log_total = std::log(kept.kept_weight);
  // At most 0: the kept weight's rounding could otherwise put a lone token's log-probability above it.
  const auto logprob = [&](std::size_t j) {
    return std::min(0.0, (double(kept.keys[j]) - kept.max_logit) * kept.inverse_temperature - log_total);
  };
  result.logprob = position ? logprob(*position) : kCut;
  result.rank = position ? rank_of(kept.keys, *position) : kept.ids.size() + 1;
  detail::best_ranked(kept.keys, std::min(count, kept.keys.size()), best);
  for (const auto& entry : best) result.top.push_back({std::int32_t(kept.ids[entry.id]), logprob(entry.id)});
  return result;
}

}  // namespace

// vLLM's logprobs: `raw` from the model's logits, `processed` from the distribution drawn from.
TokenLogprobs sample_token_logprobs(std::span<const float> logits, const SamplingOptions& options, std::size_t count,
                                    LogprobsMode mode, FilterWorkspace& workspace, std::span<const float> raw) {
  const Drawn drawn = draw(logits, options, workspace, false);
  TokenLogprobs result = logprobs_of(drawn, drawn.token, drawn.position, count, mode, workspace, raw.empty() ? logits : raw);
  result.mirostat_mu = next_mirostat_mu(options, drawn);
  result.adaptive_p_average = next_adaptive_p_average(options, drawn, workspace);
  return result;
}

TokenLogprobs token_logprobs(std::span<const float> logits, const SamplingOptions& options, std::int32_t token, std::size_t count,
                             LogprobsMode mode, FilterWorkspace& workspace, std::span<const float> raw) {
  if (mode == LogprobsMode::kRaw) return logprobs_of(Drawn{token, std::nullopt}, token, std::nullopt, count, mode, workspace, raw.empty() ? logits : raw);
  const Drawn drawn = draw(logits, options, workspace, false);
  std::optional<std::size_t> position;
  if (drawn.kept) {
    const auto& ids = drawn.kept->ids;
    // Ascending: a binary search.
    if (const auto at = std::lower_bound(ids.begin(), ids.end(), std::uint32_t(token)); at != ids.end() && *at == std::uint32_t(token)) {
      position = std::size_t(at - ids.begin());
    }
  }
  return logprobs_of(drawn, token, position, count, mode, workspace, raw);
}

}  // namespace sampling_lab
