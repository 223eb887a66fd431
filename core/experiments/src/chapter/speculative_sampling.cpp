// Speculative sampling: acceptance = Σ min(p, q) = 1 − TV, the output distributed as p, tokens
// per verification; the top-k exercise and its pitfall.
#include <algorithm>
#include <cmath>

#include "../registry.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

// A rejection scans the vocabulary for the residual: bound draws × vocabulary.
constexpr double kMaxScannedTokens = 1e8;

Json speculative(Params& params, const Progress& progress) {
  const bool exact = params.choice("mode") == "exact";
  const std::vector<float> p_full = params.floats("p");
  const std::vector<float> q_given = params.given("q") ? params.floats("q")
                                                       : std::vector<float>(p_full.size(), 1.0f / float(p_full.size()));
  const double closeness = params.number("closeness");
  const std::int64_t n = params.integer("n");
  const std::uint64_t seed = params.seed("seed");
  const auto g = std::size_t(params.integer("gamma"));
  const auto top_k = std::size_t(params.integer("topK"));
  if (auto error = check_probabilities(p_full, "p")) return reject(params, *error);
  if (auto error = check_probabilities(q_given, "q")) return reject(params, *error);
  // The draft moved towards the target: (1 − λ) q + λ p, a draft that gets better continuously.
  const auto mix = [&](double lambda) {
    std::vector<float> mixed(p_full.size());
    for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] = float((1.0 - lambda) * q_given[i] + lambda * p_full[i]);
    return mixed;
  };
  const std::vector<float> q_full = mix(closeness);
  const std::size_t v = p_full.size();

  // Exercise 1: both distributions truncated to top-k. The pitfall drafts from the truncated q
  // but verifies with the untruncated one.
  std::vector<float> p(v), q(v);
  truncate_top_k(p_full, top_k, p);
  truncate_top_k(q_full, top_k, q);
  const std::span<const float> q_verify = exact ? std::span<const float>(q) : q_full;

  Philox rng{seed, 0};
  SamplerWorkspace workspace;
  std::vector<std::int32_t> drafts(static_cast<std::size_t>(n));
  sample_probs(q, SamplingMethod::kInverseCdf, {seed, 1}, drafts, workspace);
  std::vector<std::int32_t> outputs(drafts.size());
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const auto outcome = verify(p, q_verify, drafts[i], rng);
    accepted += outcome.accepted;
    outputs[i] = outcome.token;
    if (i % 65536 == 0 && !keep_going(progress, 0.5 * double(i) / double(drafts.size()))) return cancelled(params);
  }
  const auto observed = counts(outputs, v);
  const auto fit = chi_square(observed, p);
  const double empirical = double(accepted) / double(n);
  const double theory = acceptance_probability(p, q);

  // Chains of γ drafts against the same p and q at every position.
  const std::size_t chains = std::max<std::size_t>(1, std::size_t(n) / (g + 1));
  std::vector<std::int32_t> chain_drafts(g);
  double tokens = 0.0;
  for (std::size_t c = 0; c < chains; ++c) {
    sample_probs(q, SamplingMethod::kInverseCdf, {seed, 2 + c}, chain_drafts, workspace);
    tokens += double(verify_chain(p, q, chain_drafts, rng).accepted + 1);
    if (c % 16384 == 0 && !keep_going(progress, 0.5 + 0.5 * double(c) / double(chains))) return cancelled(params);
  }
  // Acceptance against 1 − TV as the draft closes in on p: simulated points on the diagonal.
  constexpr int kSweepPoints = 11;
  const std::size_t sweep_draws = std::min<std::size_t>(std::size_t(n), 20000);
  Json sweep = Json::array();
  for (int k = 0; k < kSweepPoints; ++k) {
    const double lambda = double(k) / double(kSweepPoints - 1);
    std::vector<float> q_sweep(v);
    truncate_top_k(mix(lambda), top_k, q_sweep);
    std::vector<std::int32_t> sweep_drafts(sweep_draws);
    sample_probs(q_sweep, SamplingMethod::kInverseCdf, {seed, (std::uint64_t{1} << 40) + std::uint64_t(k)}, sweep_drafts, workspace);  // apart from the chains' streams
    std::size_t sweep_accepted = 0;
    for (const std::int32_t d : sweep_drafts) sweep_accepted += verify(p, q_sweep, d, rng).accepted;
    sweep.push_back({{"closeness", lambda},
                     {"oneMinusTV", 1.0 - distances(p, q_sweep).tv},
                     {"simulated", double(sweep_accepted) / double(sweep_draws)}});
  }
  std::vector<float> residual(v);
  double residual_mass = 0.0;
  for (std::size_t i = 0; i < v; ++i) residual_mass += residual[i] = std::max(0.0f, p[i] - q[i]);
  for (float& r : residual) r = residual_mass > 0.0 ? float(r / residual_mass) : 0.0f;
  return {{"mode", exact ? "exact" : "pitfall"},
          {"n", n},
          {"target", bulk(p)},
          {"draft", bulk(q)},
          {"residual", bulk(residual)},
          {"sweep", sweep},
          {"acceptance", {{"empirical", empirical},
                          {"theory", theory},
                          {"oneMinusTV", 1.0 - distances(p, q).tv},
                          {"standardError", standard_error(theory, double(n))},
                          // Exercise 1 compares the truncated pair's acceptance with this one.
                          {"untruncated", acceptance_probability(p_full, q_full)}}},
          {"output", {{"frequencies", bulk(frequencies(observed))},
                      {"chiSquare", {{"statistic", fit.statistic}, {"dof", fit.dof}, {"pValue", fit.p_value}}}}},
          {"expectedTokens", {{"alpha", theory}, {"gamma", g},
                              {"formula", expected_tokens(theory, g)},
                              {"simulated", tokens / double(chains)}, {"verifications", chains}}}};
}

// Each verification scans the vocabulary at worst, and costs a few tokens' worth on its own.
Check speculative_budget(const Params& params) {
  if (params.given("q") && params.length("q") != params.length("p")) return ArgumentError{"q", "q must have as many entries as p"};
  if (double(params.integer("n")) * (double(params.length("p")) + 16) <= kMaxScannedTokens) return std::nullopt;
  return ArgumentError{"n", "n × (len(p) + 16) must be at most 1e8"};
}

Check acceptance_lengths(const Params& params) {
  if (params.length("tv") == params.length("accept")) return std::nullopt;
  return ArgumentError{"tv", "tv must have one value per position, as accept does"};
}

// The chapter's real-model check, per position of a passage: Σ min(p, q) and 1 − TV between the
// target's and the draft's next-token distributions, summarised as the chapter prints them.
Json acceptance(Params& params, const Progress&) {
  std::vector<double> accept = params.numbers("accept");
  const std::vector<double> tv = params.numbers("tv");
  const auto bins = std::size_t(params.integer("bins"));
  double sum = 0.0, sum_one_minus_tv = 0.0, largest_gap = 0.0;
  for (std::size_t i = 0; i < accept.size(); ++i) {
    sum += accept[i];
    sum_one_minus_tv += 1.0 - tv[i];
    largest_gap = std::max(largest_gap, std::abs(accept[i] - (1.0 - tv[i])));
  }
  std::vector<std::size_t> counts(bins, 0);
  for (const double a : accept) ++counts[std::min(bins - 1, std::size_t(a * double(bins)))];
  std::vector<double> edges(bins + 1);
  for (std::size_t b = 0; b <= bins; ++b) edges[b] = double(b) / double(bins);
  const double n = double(accept.size());
  // The median as torch.median returns it: the lower of the two middle values.
  const auto middle = accept.begin() + std::ptrdiff_t((accept.size() - 1) / 2);
  std::nth_element(accept.begin(), middle, accept.end());
  const double median = *middle;
  return {{"positions", accept.size()},
          {"mean", sum / n},
          {"median", median},
          {"min", *std::min_element(accept.begin(), accept.end())},
          {"max", *std::max_element(accept.begin(), accept.end())},
          {"meanOneMinusTV", sum_one_minus_tv / n},
          {"maxDifference", largest_gap},
          {"histogram", {{"edges", edges}, {"counts", counts}}}};
}

// The chapter's rule one step at a time, for a reader to watch: each step drafts up to γ tokens
// from q, checks u < p/q for each, and at the first rejection draws from norm(max(0, p − q)) (a
// bonus from p when all are accepted). Beside it the wrong rule, which draws that token from p
// instead, on the same drafts and uniforms. The emitted tokens' frequencies after each step.
Json speculative_steps(Params& params, const Progress&) {
  const std::vector<float> p = params.floats("p");
  const std::vector<float> q = params.given("q") ? params.floats("q") : std::vector<float>(p.size(), 1.0f / float(p.size()));
  if (auto error = check_probabilities(p, "p")) return reject(params, *error);
  if (auto error = check_probabilities(q, "q")) return reject(params, *error);
  const auto gamma = std::size_t(params.integer("gamma"));
  const auto steps = std::size_t(params.integer("steps"));
  const std::size_t v = p.size();
  std::vector<float> residual(v);
  for (std::size_t i = 0; i < v; ++i) residual[i] = std::max(0.0f, p[i] - q[i]);
  const bool no_residual = std::all_of(residual.begin(), residual.end(), [](float r) { return r <= 0.0f; });
  Philox rng{params.seed("seed"), 0};
  std::vector<std::uint64_t> counts(v, 0), wrong_counts(v, 0);
  std::vector<double> cumulative, wrong_cumulative, totals;
  double emitted = 0.0;
  cumulative.reserve(steps * v);
  wrong_cumulative.reserve(steps * v);
  Json list = Json::array();
  for (std::size_t step = 0; step < steps; ++step) {
    Json drafts = Json::array();
    std::size_t accepted = 0;
    std::int32_t token = -1, wrong = -1;
    bool from_residual = false;
    for (std::size_t i = 0; i < gamma && token < 0; ++i) {
      const std::int32_t x = inverse_cdf_draw(q, rng.uniform());
      const double u = rng.uniform();
      const double ratio = std::min(1.0, double(p[std::size_t(x)]) / double(q[std::size_t(x)]));
      drafts.push_back({{"token", x}, {"u", u}, {"ratio", ratio}, {"accepted", u < ratio}});
      if (u < ratio) {
        ++accepted;
        counts[std::size_t(x)]++;
        wrong_counts[std::size_t(x)]++;
        continue;
      }
      const double w = rng.uniform();
      // p = q (no residual mass) never rejects; kept for rounding's sake.
      token = inverse_cdf_draw(no_residual ? std::span<const float>(p) : std::span<const float>(residual), w);
      wrong = inverse_cdf_draw(p, w);
      from_residual = true;
    }
    if (token < 0) token = wrong = inverse_cdf_draw(p, rng.uniform());
    counts[std::size_t(token)]++;
    wrong_counts[std::size_t(wrong)]++;
    emitted += double(accepted + 1);
    for (std::size_t i = 0; i < v; ++i) {
      cumulative.push_back(double(counts[i]) / emitted);
      wrong_cumulative.push_back(double(wrong_counts[i]) / emitted);
    }
    totals.push_back(emitted);
    list.push_back({{"drafts", drafts}, {"accepted", accepted}, {"token", token}, {"wrongToken", wrong}, {"fromResidual", from_residual}});
  }
  const auto fit = chi_square(counts, p);
  const auto wrong_fit = chi_square(wrong_counts, p);
  Json out = {{"gamma", gamma},
              {"steps", list},
              {"chiSquare", {{"statistic", fit.statistic}, {"dof", fit.dof}, {"pValue", fit.p_value}}},
              {"wrongChiSquare", {{"statistic", wrong_fit.statistic}, {"dof", wrong_fit.dof}, {"pValue", wrong_fit.p_value}}}};
  // Moved in, as vocabulary-sized arrays: row k holds the frequencies after step k.
  out["target"] = bulk(p);
  out["draft"] = bulk(q);
  out["frequencies"] = bulk(cumulative);
  out["wrongFrequencies"] = bulk(wrong_cumulative);
  out["emitted"] = bulk(totals);
  return out;
}

// A step's drafts, checks and counts, for every step asked.
Check speculative_steps_budget(const Params& params) {
  if (params.given("q") && params.length("q") != params.length("p")) return ArgumentError{"q", "q must have as many entries as p"};
  return std::nullopt;
}

}  // namespace

std::vector<Experiment> speculative_experiments() {
  return {
      {{"speculative",
        "Speculative sampling: acceptance = sum min(p, q) = 1 - TV, output distribution, residual, "
        "tokens per verification; top-k exercise and the mismatched-q pitfall",
        {{"p", single(array(probability(0), {0.5, 0.3, 0.15, 0.05}, 1, kMaxExperimentArray)), "Target distribution"},
         {"q", optional(single(array(probability(0), nullptr, 1, kMaxExperimentArray))), "Draft distribution; null = uniform"},
         {"n", integer(200000, closed(1, 1e7)), "Verifications simulated"},
         {"seed", seed(), "Philox seed"},
         {"gamma", integer(4, closed(1, 64)), "Draft tokens per verification γ", {1, 8, 1}},
         {"topK", integer(0, closed(0, double(kMaxVocabulary))), "Truncate p and q to their top k first (exercise 1); 0 = off"},
         {"mode", choice({"exact", "pitfall"}), "pitfall: verify against the untruncated q"},
         {"closeness", number(0, closed(0, 1)), "Draft moved towards the target: (1 - closeness) q + closeness p", {0, 1, 0.05}}}},
       speculative, speculative_budget},
      {{"speculative-steps",
        "Speculative sampling one verification at a time: each draft from q, its check u < p/q, the "
        "residual draw at the first rejection; the emitted tokens' counts after each step under the "
        "chapter's rule and under the wrong rule that redraws from p",
        {{"p", single(array(probability(0), {0.5, 0.3, 0.15, 0.05}, 1, 64)), "Target distribution"},
         {"q", optional(single(array(probability(0), nullptr, 1, 64))), "Draft distribution; null = uniform"},
         {"gamma", integer(3, closed(1, 8)), "Draft tokens per step γ", {1, 8, 1}},
         {"steps", integer(300, closed(1, 2000)), "Verifications"},
         {"seed", seed(), "Philox seed"}}},
       speculative_steps, speculative_steps_budget},
      {{"acceptance",
        "Acceptance of a draft model per position of a passage: mean, median and minimum of "
        "sum min(p, q), the mean of 1 - TV beside it, their largest difference, a histogram",
        {{"accept", array(probability(0), {0.9, 0.7, 0.4, 0.03}, 1, 1e6), "sum min(p, q) at each position"},
         {"tv", array(probability(0), {0.1, 0.3, 0.6, 0.97}, 1, 1e6), "TV(p, q) at the same positions"},
         {"bins", integer(20, closed(1, 200)), "Histogram bins over [0, 1]"}}},
       acceptance, acceptance_lengths},
  };
}

}  // namespace sampling_lab::detail
