// The chapter's later experiments: sequences, speculative sampling, importance sampling and
// sample sizes. Registered in experiments.cpp.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "experiments_internal.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/importance.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/sequence.hpp"
#include "sampling_lab/speculative.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

Json path_json(const Path& path) {
  return {{"path", path.tokens}, {"prob", std::exp(path.log_prob)}};
}

// Ties with the best count as found.
bool misses(const Path& found, const Path& best) { return found.log_prob < best.log_prob - 1e-12; }

// Powers of two up to V^(depth−1), the width at which beam search becomes exhaustive.
std::vector<double> default_widths(std::size_t vocabulary, std::size_t depth) {
  std::vector<double> widths;
  const double exhaustive = std::pow(double(vocabulary), double(depth - 1));
  for (double w = 1; w < exhaustive; w *= 2) widths.push_back(w);
  widths.push_back(exhaustive);
  return widths;
}

std::vector<float> softmax_of(std::span<const double> logits) {
  std::vector<float> z(logits.begin(), logits.end());
  std::vector<float> p(z.size());
  softmax(z, 1.0, p);
  return p;
}

// 10 evenly spaced values from lo to hi, as torch.linspace.
std::vector<double> linspace10(double lo, double hi) {
  std::vector<double> values(10);
  for (std::size_t i = 0; i < 10; ++i) values[i] = lo + (hi - lo) * double(i) / 9.0;
  return values;
}

struct Spread {
  double mean, bias, std, mse;
};

Spread spread_of(std::span<const double> estimates, double truth) {
  const double mean = std::accumulate(estimates.begin(), estimates.end(), 0.0) / double(estimates.size());
  double mse = 0.0;
  for (const double e : estimates) mse += (e - truth) * (e - truth);
  return {mean, mean - truth, sample_std(estimates), mse / double(estimates.size())};
}

Json spread_json(const Spread& s) {
  return {{"mean", s.mean}, {"bias", s.bias}, {"std", s.std}, {"mse", s.mse}};
}

}  // namespace

Json sequence(ParamReader& params, const Progress& progress) {
  const std::string mode = params.choice("mode", {"handbook", "random"});
  const std::vector<double> tree = params.numbers("tree");
  const auto vocab_given = params.is_null("vocab") ? 0 : params.integer("vocab");
  const auto depth_given = params.is_null("depth") ? 0 : params.integer("depth");
  std::vector<double> widths = params.numbers_or_empty("widths");
  const double sharpness = params.number("sharpness");
  const std::int64_t models = params.integer("models");
  const std::int64_t seed = params.integer("seed");
  if (params.error()) return nullptr;
  const bool handbook = mode == "handbook";
  const std::size_t vocabulary = std::size_t(vocab_given ? vocab_given : handbook ? 2 : 3);
  const std::size_t depth = std::size_t(depth_given ? depth_given : handbook ? 2 : 4);
  if (vocabulary < 2 || vocabulary > 16) return reject(params, {"vocab", "vocab must be in [2, 16]"});
  if (depth < 1 || depth > 10 || std::pow(double(vocabulary), double(depth)) > 1e5) {
    return reject(params, {"depth", "depth must be >= 1 with vocab^depth <= 100000"});
  }
  if (widths.empty()) widths = handbook ? std::vector<double>{1, 2} : default_widths(vocabulary, depth);
  for (const double w : widths) {
    if (w < 1 || w != std::floor(w) || w > 1e5) return reject(params, {"widths", "widths must be integers in [1, 100000]"});
  }
  if (seed < 0) return reject(params, {"seed", "seed must be an integer >= 0"});

  if (handbook) {
    const std::size_t nodes = tree_nodes(vocabulary, depth);
    if (tree.size() != nodes * vocabulary) {
      return reject(params, {"tree", "tree must hold " + std::to_string(nodes) + " distributions of " +
                                         std::to_string(vocabulary) + " (breadth-first)"});
    }
    std::vector<float> distributions(tree.begin(), tree.end());
    for (std::size_t node = 0; node < nodes; ++node) {
      if (auto error = check_probabilities(std::span(distributions).subspan(node * vocabulary, vocabulary), "tree")) {
        return reject(params, {"tree", "node " + std::to_string(node) + ": " + error->message});
      }
    }
    const SequenceModel model(vocabulary, depth, std::move(distributions));
    Json beams = Json::array();
    for (const double w : widths) {
      const auto found = beam_search(model, std::size_t(w));
      beams.push_back({{"width", w}, {"path", found.front().tokens}, {"prob", std::exp(found.front().log_prob)}});
    }
    return {{"mode", mode}, {"vocab", vocabulary}, {"depth", depth},
            {"best", path_json(exhaustive_best(model))}, {"greedy", path_json(greedy(model))},
            {"beams", beams}};
  }

  if (!(sharpness > 0.0 && sharpness <= 100.0)) return reject(params, {"sharpness", "sharpness must be in (0, 100]"});
  if (models < 1 || models > 10000) return reject(params, {"models", "models must be in [1, 10000]"});
  std::size_t greedy_misses = 0;
  std::vector<std::size_t> beam_misses(widths.size(), 0);
  std::vector<double> beam_ratio(widths.size(), 0.0);
  for (std::int64_t m = 0; m < models; ++m) {
    Philox rng{std::uint64_t(seed), std::uint64_t(m)};
    const auto model = SequenceModel::random(vocabulary, depth, sharpness, rng);
    const auto best = exhaustive_best(model);
    greedy_misses += misses(greedy(model), best);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const auto found = beam_search(model, std::size_t(widths[i])).front();
      beam_misses[i] += misses(found, best);
      beam_ratio[i] += std::exp(found.log_prob - best.log_prob);
    }
    if (progress && m % 16 == 0) progress(double(m + 1) / double(models));
  }
  Json beams = Json::array();
  Json closing = nullptr;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    beams.push_back({{"width", widths[i]}, {"misses", beam_misses[i]},
                     {"missRate", double(beam_misses[i]) / double(models)},
                     {"meanProbRatio", beam_ratio[i] / double(models)}});
    if (closing.is_null() && beam_misses[i] == 0) closing = widths[i];
  }
  return {{"mode", mode}, {"vocab", vocabulary}, {"depth", depth}, {"sharpness", sharpness},
          {"models", models}, {"greedyMisses", greedy_misses},
          {"greedyMissRate", double(greedy_misses) / double(models)}, {"beams", beams},
          {"closingWidth", closing}};
}

Json speculative(ParamReader& params, const Progress& progress) {
  const std::string mode = params.choice("mode", {"exact", "pitfall"});
  const std::vector<float> p_full = params.floats("p");
  std::vector<float> q_full = params.floats("q");
  const std::int64_t n = params.integer("n");
  const std::int64_t seed = params.integer("seed");
  const std::int64_t gamma = params.integer("gamma");
  const std::int64_t top_k = params.integer("topK");
  if (params.error()) return nullptr;
  if (q_full.empty()) q_full.assign(p_full.size(), p_full.empty() ? 0.0f : 1.0f / float(p_full.size()));
  if (auto error = check_probabilities(p_full, "p")) return reject(params, *error);
  if (auto error = check_probabilities(q_full, "q")) return reject(params, *error);
  if (q_full.size() != p_full.size()) return reject(params, {"q", "q must have as many entries as p"});
  if (auto error = check_sample_count(std::size_t(std::max<std::int64_t>(n, 0)))) return reject(params, *error);
  if (seed < 0) return reject(params, {"seed", "seed must be an integer >= 0"});
  if (gamma < 1 || gamma > 64) return reject(params, {"gamma", "gamma must be in [1, 64]"});
  if (top_k < 0) return reject(params, {"topK", "topK must be >= 0 (0 = no truncation)"});

  // Exercise 1: both distributions truncated to top-k. The pitfall drafts from the truncated q
  // but verifies with the untruncated one.
  const std::size_t v = p_full.size();
  std::vector<float> p(v), q(v);
  truncate_top_k(p_full, std::size_t(top_k), p);
  truncate_top_k(q_full, std::size_t(top_k), q);
  const std::span<const float> q_verify = mode == "exact" ? std::span<const float>(q) : q_full;

  Philox rng{std::uint64_t(seed), 0};
  Workspace workspace;
  std::vector<std::int32_t> drafts(static_cast<std::size_t>(n));
  sample_probs(q, SamplingMethod::kInverseCdf, {std::uint64_t(seed), 1}, drafts, workspace);
  std::vector<std::int32_t> outputs(drafts.size());
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const auto outcome = verify(p, q_verify, drafts[i], rng);
    accepted += outcome.accepted;
    outputs[i] = outcome.token;
    if (progress && i % 65536 == 0) progress(0.5 * double(i) / double(drafts.size()));
  }
  const auto observed = counts(outputs, v);
  const auto fit = chi_square(observed, p);
  const double empirical = double(accepted) / double(n);
  const double theory = acceptance_probability(p, q);

  // Chains of γ drafts against the same p and q at every position.
  const auto g = std::size_t(gamma);
  std::vector<float> targets(v * (g + 1)), draft_rows(v * g);
  for (std::size_t i = 0; i <= g; ++i) std::copy(p.begin(), p.end(), targets.begin() + std::ptrdiff_t(i * v));
  for (std::size_t i = 0; i < g; ++i) std::copy(q.begin(), q.end(), draft_rows.begin() + std::ptrdiff_t(i * v));
  const std::size_t chains = std::max<std::size_t>(1, std::size_t(n) / (g + 1));
  std::vector<std::int32_t> chain_drafts(g);
  double tokens = 0.0;
  for (std::size_t c = 0; c < chains; ++c) {
    sample_probs(q, SamplingMethod::kInverseCdf, {std::uint64_t(seed), 2 + c}, chain_drafts, workspace);
    tokens += double(verify_chain(targets, draft_rows, chain_drafts, v, rng).accepted + 1);
    if (progress && c % 16384 == 0) progress(0.5 + 0.5 * double(c) / double(chains));
  }
  return {{"mode", mode},
          {"target", p},
          {"draft", q},
          {"acceptance", {{"empirical", empirical},
                          {"theory", theory},
                          {"oneMinusTV", 1.0 - distances(p, q).tv},
                          {"standardError", standard_error(theory, double(n))}}},
          {"output", {{"frequencies", frequencies(observed)},
                      {"chiSquare", {{"statistic", fit.statistic}, {"dof", fit.dof}, {"pValue", fit.p_value}}}}},
          {"expectedTokens", {{"alpha", theory}, {"gamma", gamma},
                              {"formula", expected_tokens(theory, g)},
                              {"simulated", tokens / double(chains)}, {"verifications", chains}}}};
}

Json importance(ParamReader& params, const Progress& progress) {
  const std::vector<double> shifts = params.numbers("shifts");
  const std::int64_t n = params.integer("n");
  const double clip = params.number("clip");
  const std::int64_t seed = params.integer("seed");
  const std::int64_t repeats = params.integer("repeats");
  if (params.error()) return nullptr;
  if (shifts.empty() || shifts.size() > 50) return reject(params, {"shifts", "shifts must hold 1 to 50 numbers"});
  if (n < 1 || n > 10'000'000) return reject(params, {"n", "n must be in [1, 10000000]"});
  if (!(clip > 0.0)) return reject(params, {"clip", "clip must be > 0"});
  if (seed < 0) return reject(params, {"seed", "seed must be an integer >= 0"});
  if (repeats < 1 || repeats > 10000 || double(repeats) * double(n) * double(shifts.size()) > 2e8) {
    return reject(params, {"repeats", "repeats must be in [1, 10000] with shifts × repeats × n <= 2e8"});
  }
  // The chapter's setup: f(x) = x on 10 values, p = softmax(linspace(0, 2, 10)).
  const auto base = linspace10(0.0, 2.0);
  const auto ramp = linspace10(0.0, 1.0);
  const std::vector<float> p = softmax_of(base);
  std::vector<double> f(10);
  std::iota(f.begin(), f.end(), 0.0);
  double true_mean = 0.0;
  for (std::size_t i = 0; i < 10; ++i) true_mean += double(p[i]) * f[i];

  Workspace workspace;
  std::vector<std::int32_t> draws(static_cast<std::size_t>(n));
  Json rows = Json::array();
  for (std::size_t s = 0; s < shifts.size(); ++s) {
    std::vector<double> shifted(10);
    for (std::size_t i = 0; i < 10; ++i) shifted[i] = base[i] - shifts[s] * ramp[i];
    const std::vector<float> q = softmax_of(shifted);
    std::vector<double> ordinary, self_normalised, truncated, masked, ess;
    for (std::int64_t r = 0; r < repeats; ++r) {
      sample_probs(q, SamplingMethod::kInverseCdf,
                   {std::uint64_t(seed), std::uint64_t(r) * shifts.size() + s}, draws, workspace);
      const auto e = importance_estimates(p, q, f, draws, clip);
      ordinary.push_back(e.ordinary);
      self_normalised.push_back(e.self_normalised);
      truncated.push_back(e.truncated);
      masked.push_back(e.masked);
      ess.push_back(e.ess);
    }
    Json row = {{"shift", shifts[s]}, {"estimate", ordinary[0]}, {"ess", ess[0]},
                {"clipped", truncated[0]}, {"masked", masked[0]}, {"selfNormalised", self_normalised[0]}};
    if (repeats > 1) {
      row["estimators"] = {{"none", spread_json(spread_of(ordinary, true_mean))},
                           {"tis", spread_json(spread_of(truncated, true_mean))},
                           {"mis", spread_json(spread_of(masked, true_mean))},
                           {"selfNormalised", spread_json(spread_of(self_normalised, true_mean))}};
      row["estimates"] = {{"none", ordinary}, {"tis", truncated}, {"mis", masked}, {"selfNormalised", self_normalised}};
      row["essMean"] = std::accumulate(ess.begin(), ess.end(), 0.0) / double(ess.size());
    }
    rows.push_back(std::move(row));
    if (progress) progress(double(s + 1) / double(shifts.size()));
  }
  return {{"trueMean", true_mean}, {"n", n}, {"clip", clip}, {"repeats", repeats}, {"rows", rows}};
}

// The chapter's exercise 2: draws needed before a difference of `delta` exceeds z standard errors.
Json sample_size(ParamReader& params, const Progress&) {
  const std::string mode = params.choice("mode", {"means", "proportions"});
  const double delta = params.number("delta");
  const double std_dev = params.number("std");
  const double z = params.number("z");
  const double p1 = params.number("p1");
  const double p2 = params.number("p2");
  if (params.error()) return nullptr;
  if (!(z > 0.0)) return reject(params, {"z", "z must be > 0"});
  double n = 0.0;
  double standard_error_at_n = 0.0;
  if (mode == "means") {
    if (!(delta > 0.0)) return reject(params, {"delta", "delta must be > 0"});
    if (!(std_dev > 0.0)) return reject(params, {"std", "std must be > 0"});
    // SE of a difference of two means is sqrt(2) σ / sqrt(n); need delta > z SE.
    n = 2.0 * (z * std_dev / delta) * (z * std_dev / delta);
    standard_error_at_n = std::sqrt(2.0) * std_dev / std::sqrt(n);
  } else {
    if (!(p1 > 0.0 && p1 < 1.0)) return reject(params, {"p1", "p1 must be in (0, 1)"});
    if (!(p2 > 0.0 && p2 < 1.0)) return reject(params, {"p2", "p2 must be in (0, 1)"});
    if (p1 == p2) return reject(params, {"p2", "p2 must differ from p1"});
    const double variance = p1 * (1 - p1) + p2 * (1 - p2);
    n = z * z * variance / ((p1 - p2) * (p1 - p2));
    standard_error_at_n = std::sqrt(variance / n);
  }
  return {{"mode", mode}, {"n", n}, {"perConfiguration", std::ceil(n - 1e-9)},
          {"standardErrorAtN", standard_error_at_n}};
}

}  // namespace sampling_lab::detail
