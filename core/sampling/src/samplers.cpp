#include "sampling_lab/samplers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/rng.hpp"
#include "selection.hpp"

namespace sampling_lab {

namespace {

constexpr std::string_view kMethodNames[] = {"inverse-cdf", "gumbel-max", "exponential-race",
                                              "alias"};

// Many draws from one distribution: kernels::inverse_cdf's rule (the first index whose running
// sum exceeds u · total) on prefix sums computed once, by binary search.
void inverse_cdf(std::span<const float> probs, Philox& rng, std::span<std::int32_t> out,
                 SamplerWorkspace& workspace) {
  auto& cdf = workspace.cumulative;
  cdf.resize(probs.size());
  double total = 0.0;
  for (std::size_t i = 0; i < probs.size(); ++i) cdf[i] = total += probs[i];
  for (auto& token : out) {
    const auto found = std::upper_bound(cdf.begin(), cdf.end(), rng.uniform() * total);
    token = std::int32_t(std::min<std::ptrdiff_t>(found - cdf.begin(), std::ptrdiff_t(probs.size()) - 1));
  }
}

// Gumbel-max and the exponential race need V variates per draw: they are made in chunks of
// draws, the Philox words first, then one SIMD pass of logs.
template <typename Noise, typename Better>
void argmax_with_noise(std::span<const float> values, Philox& rng, std::span<std::int32_t> out,
                       SamplerWorkspace& workspace, Noise make_noise, Better score) {
  constexpr std::size_t kChunkValues = 4096;
  const std::size_t v = values.size();
  const std::size_t per_chunk = std::max<std::size_t>(1, kChunkValues / v);
  for (std::size_t first = 0; first < out.size(); first += per_chunk) {
    const std::size_t draws = std::min(per_chunk, out.size() - first);
    workspace.words.resize(draws * v);
    workspace.noise.resize(draws * v);
    rng.fill(workspace.words);
    make_noise(workspace.words, workspace.noise);
    for (std::size_t d = 0; d < draws; ++d) {
      const float* noise = workspace.noise.data() + d * v;
      float best = -std::numeric_limits<float>::infinity();
      std::size_t best_index = 0;
      for (std::size_t i = 0; i < v; ++i) {
        const float candidate = score(values[i], noise[i]);
        if (candidate > best) {
          best = candidate;
          best_index = i;
        }
      }
      out[first + d] = std::int32_t(best_index);
    }
  }
}

// argmax_i(score_i + G_i) with G_i standard Gumbel; -inf scores never win.
void gumbel_max(std::span<const float> scores, Philox& rng, std::span<std::int32_t> out,
                SamplerWorkspace& workspace) {
  argmax_with_noise(scores, rng, out, workspace, kernels::gumbel_noise,
                    [](float score, float gumbel) { return score + gumbel; });
}

// argmax_i(w_i / E_i) with E_i ~ Exp(1): E_i / w_i is the arrival time of clock i.
void exponential_race(std::span<const float> weights, Philox& rng, std::span<std::int32_t> out,
                      SamplerWorkspace& workspace) {
  argmax_with_noise(weights, rng, out, workspace, kernels::exponential_noise,
                    [](float weight, float exponential) { return weight / exponential; });
}

// Vose (1991), "A linear algorithm for generating random numbers with a given distribution".
void alias(std::span<const float> probs, Philox& rng, std::span<std::int32_t> out,
           SamplerWorkspace& workspace) {
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
  for (const auto i : large) threshold[i] = 1.0;
  for (const auto i : small) threshold[i] = 1.0;
  for (auto& token : out) {
    const auto column = std::min<std::size_t>(std::size_t(rng.uniform() * double(v)), v - 1);
    token = std::int32_t(rng.uniform() < threshold[column] ? column : alias_of[column]);
  }
}

}  // namespace

std::string_view method_name(SamplingMethod method) { return kMethodNames[int(method)]; }

std::optional<SamplingMethod> parse_method(std::string_view name) {
  for (const auto method : kSamplingMethods) {
    if (method_name(method) == name) return method;
  }
  return std::nullopt;
}

Check check_sample_count(std::size_t n) {
  if (n == 0 || n > kMaxSamples) {
    return ArgumentError{"n", "n must be an integer in [1, " + std::to_string(kMaxSamples) + "]"};
  }
  return std::nullopt;
}

void sample_probs(std::span<const float> probs, SamplingMethod method, RandomKey key,
                  std::span<std::int32_t> out, SamplerWorkspace& workspace) {
  Philox rng(key.seed, key.stream);
  switch (method) {
    case SamplingMethod::kInverseCdf:
      return inverse_cdf(probs, rng, out, workspace);
    case SamplingMethod::kGumbelMax: {
      auto& log_probs = workspace.scores;
      log_probs.resize(probs.size());
      for (std::size_t i = 0; i < probs.size(); ++i) log_probs[i] = std::log(probs[i]);
      return gumbel_max(log_probs, rng, out, workspace);
    }
    case SamplingMethod::kExponentialRace:
      return exponential_race(probs, rng, out, workspace);
    case SamplingMethod::kAlias:
      return alias(probs, rng, out, workspace);
  }
}

void sample_logits(std::span<const float> logits, double temperature, SamplingMethod method,
                   RandomKey key, std::span<std::int32_t> out, SamplerWorkspace& workspace) {
  if (temperature == 0.0) {
    std::fill(out.begin(), out.end(), std::int32_t(argmax(logits)));
    return;
  }
  if (method == SamplingMethod::kGumbelMax) {
    auto& scaled = workspace.scores;
    scaled.resize(logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i) scaled[i] = float(logits[i] / temperature);
    Philox rng(key.seed, key.stream);
    return gumbel_max(scaled, rng, out, workspace);
  }
  auto& probs = workspace.probs;
  probs.resize(logits.size());
  softmax(logits, temperature, probs);
  sample_probs(probs, method, key, out, workspace);
}

std::int32_t sample_token(std::span<const float> input_logits, const SamplingOptions& options,
                          FilterWorkspace& workspace) {
  const auto logits = penalised(input_logits, options, workspace.penalties);
  if (options.temperature == 0.0) return std::int32_t(argmax(logits));
  const auto kept = detail::select_kept(logits, options, workspace);
  Philox rng(options.seed, options.stream);
  rng.seek(options.step);
  return std::int32_t(kept.ids[kernels::inverse_cdf(kept.weights, rng.uniform() * kept.kept_weight)]);
}

}  // namespace sampling_lab
