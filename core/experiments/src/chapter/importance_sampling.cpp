// Importance sampling of E_p[x] from draws of q: estimates, effective sample size, and the
// truncations RL uses (TIS clipping, MIS masking) against self-normalised IS.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../registry.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/importance.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

constexpr double kMaxImportanceDraws = 1.5e7;
constexpr const char* kEstimators[] = {"none", "tis", "mis", "selfNormalised"};

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

Json spread_json(std::span<const double> estimates, double truth) {
  const double mean = std::accumulate(estimates.begin(), estimates.end(), 0.0) / double(estimates.size());
  double mse = 0.0;
  for (const double e : estimates) mse += (e - truth) * (e - truth);
  return {{"mean", mean}, {"bias", mean - truth}, {"std", sample_std(estimates)}, {"mse", mse / double(estimates.size())}};
}

// Counts of each estimator's estimates on `bins` bins over [lo, hi], shared by every shift so
// that their histograms can stand side by side on one axis.
Json histogram_json(const std::vector<std::vector<double>>& estimates, double lo, double hi, std::size_t bins) {
  const double width = hi > lo ? (hi - lo) / double(bins) : 1.0;
  std::vector<double> edges(bins + 1);
  for (std::size_t b = 0; b <= bins; ++b) edges[b] = lo + width * double(b);
  Json counts = Json::object();
  for (std::size_t e = 0; e < estimates.size(); ++e) {
    std::vector<std::size_t> count(bins, 0);
    for (const double x : estimates[e]) ++count[std::min(bins - 1, std::size_t((x - lo) / width))];
    counts[kEstimators[e]] = count;
  }
  return {{"edges", edges}, {"counts", counts}};
}

// One batch's weights w = p/q as a reader sees them: each token's w, the batch's weights sorted
// from the largest, the share of the total weight its top 1 % and 10 % of samples carry, and
// what clipping at `clip` cuts (the samples, and the share of the total weight).
Json batch_json(std::span<const float> p, std::span<const float> q, std::span<const std::int32_t> draws, double clip) {
  std::vector<double> token_weights(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) token_weights[i] = double(p[i]) / double(q[i]);
  std::vector<double> sorted(draws.size());
  for (std::size_t k = 0; k < draws.size(); ++k) sorted[k] = token_weights[std::size_t(draws[k])];
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double total = 0.0, cut = 0.0;
  std::size_t clipped = 0;
  for (const double w : sorted) {
    total += w;
    if (w > clip) {
      cut += w - clip;
      ++clipped;
    }
  }
  // The top share of the samples: at least one sample.
  const auto top_share = [&](double fraction) {
    const auto count = std::max<std::size_t>(1, std::size_t(std::ceil(fraction * double(sorted.size()))));
    return std::accumulate(sorted.begin(), sorted.begin() + std::ptrdiff_t(std::min(count, sorted.size())), 0.0) / total;
  };
  Json batch = {{"tokenWeights", token_weights}, {"top1", top_share(0.01)}, {"top10", top_share(0.1)},
                {"clippedSamples", clipped}, {"clippedWeight", cut / total}};
  batch["sortedWeights"] = bulk(std::span<const double>(sorted));
  return batch;
}

Json importance(Params& params, const Progress& progress) {
  const std::vector<double> shifts = params.numbers("shifts");
  const std::int64_t n = params.integer("n");
  const double clip = params.number("clip");
  const std::uint64_t seed = params.seed("seed");
  const std::int64_t repeats = params.integer("repeats");
  const auto bins = std::size_t(params.integer("bins"));
  if (double(repeats) * double(n) * double(shifts.size()) > kMaxImportanceDraws) {
    return reject(params, {"repeats", "shifts × repeats × n must be at most 1.5e7"});
  }
  // The chapter's setup: f(x) = x on 10 values, p = softmax(linspace(0, 2, 10)).
  const auto base = linspace10(0.0, 2.0);
  const auto ramp = linspace10(0.0, 1.0);
  const std::vector<float> p = softmax_of(base);
  std::vector<double> f(10);
  std::iota(f.begin(), f.end(), 0.0);
  double true_mean = 0.0;
  for (std::size_t i = 0; i < 10; ++i) true_mean += double(p[i]) * f[i];

  SamplerWorkspace workspace;
  std::vector<std::int32_t> draws(static_cast<std::size_t>(n));
  Json rows = Json::array();
  // Every shift's estimates, for histograms on one shared axis that includes the true mean.
  std::vector<std::vector<std::vector<double>>> all_estimates;
  double lo = true_mean, hi = true_mean;
  for (std::size_t s = 0; s < shifts.size(); ++s) {
    std::vector<double> shifted(10);
    for (std::size_t i = 0; i < 10; ++i) shifted[i] = base[i] - shifts[s] * ramp[i];
    const std::vector<float> q = softmax_of(shifted);
    // One list per estimator, in kEstimators order.
    std::vector<std::vector<double>> estimates(4);
    std::vector<double> ess;
    Json batch;
    for (std::int64_t r = 0; r < repeats; ++r) {
      sample_probs(q, SamplingMethod::kInverseCdf, {seed, std::uint64_t(r) * shifts.size() + s}, draws, workspace);
      const auto e = importance_estimates(p, q, f, draws, clip);
      if (r == 0) batch = batch_json(p, q, draws, clip);
      estimates[0].push_back(e.ordinary);
      estimates[1].push_back(e.truncated);
      estimates[2].push_back(e.masked);
      estimates[3].push_back(e.self_normalised);
      ess.push_back(e.ess);
      if (r % 16 == 15 && !keep_going(progress, (double(s) + double(r + 1) / double(repeats)) / double(shifts.size()))) {
        return cancelled(params);
      }
    }
    Json row = {{"shift", shifts[s]}, {"q", q}, {"estimate", estimates[0][0]}, {"ess", ess[0]},
                {"clipped", estimates[1][0]}, {"masked", estimates[2][0]}, {"selfNormalised", estimates[3][0]}};
    row["batch"] = std::move(batch);
    if (repeats > 1) {
      row["estimators"] = Json::object();
      for (std::size_t e = 0; e < 4; ++e) row["estimators"][kEstimators[e]] = spread_json(estimates[e], true_mean);
      row["essMean"] = std::accumulate(ess.begin(), ess.end(), 0.0) / double(ess.size());
      row["essStd"] = sample_std(ess);
      for (const auto& list : estimates) {
        lo = std::min(lo, *std::min_element(list.begin(), list.end()));
        hi = std::max(hi, *std::max_element(list.begin(), list.end()));
      }
      all_estimates.push_back(std::move(estimates));
    }
    rows.push_back(std::move(row));
    if (!keep_going(progress, double(s + 1) / double(shifts.size()))) return cancelled(params);
  }
  for (std::size_t s = 0; s < all_estimates.size(); ++s) rows[s]["histogram"] = histogram_json(all_estimates[s], lo, hi, bins);
  return {{"trueMean", true_mean}, {"p", p}, {"n", n}, {"clip", clip}, {"repeats", repeats}, {"rows", rows}};
}

}  // namespace

std::vector<Experiment> importance_experiments() {
  return {
      {{"importance",
        "Importance sampling of E_p[x] from q: estimates, ESS, TIS clipping, MIS masking, "
        "self-normalised; bias/std/MSE and histograms over repeats",
        {{"shifts", array(number(0, closed(-10, 10)), {0.0, 1.0, 3.0}, 1, 50), "How far each q is shifted from p", {0, 4, 0.5}},
         {"n", integer(1000, closed(1, 1e7)), "Draws from q per estimate"},
         {"clip", number(2, open_closed(0, 1e6)), "TIS clips and MIS drops weights above this", {1, 6, 0.5}},
         {"seed", seed(), "Philox seed"},
         {"repeats", integer(1, closed(1, 10000)), "Estimates per shift, for bias / std / MSE and the histogram"},
         {"bins", integer(40, closed(1, 200)), "Histogram bins (repeats > 1)"}}},
       importance},
  };
}

}  // namespace sampling_lab::detail
