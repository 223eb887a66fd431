// Monte-Carlo error: the spread of a frequency over repeated runs, and the error bars of an
// accuracy measured on a finite evaluation set.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../registry.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

constexpr double kMaxMonteCarloDraws = 1e8;
// Simulated answers per eval-error run (two models' each): about 40 ms in WebAssembly.
constexpr double kMaxSimulatedAnswers = 1e7;
// Estimates per row returned one by one, for a reader to watch them fall.
constexpr std::size_t kShownEstimates = 100;

// The slope of y against x by least squares: the exponent of std ∝ n^slope on log-log axes
// (−½ by the 1/√n law). Null without two distinct x.
Json least_squares_slope(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || *std::min_element(x.begin(), x.end()) == *std::max_element(x.begin(), x.end())) return nullptr;
  const double n = double(x.size());
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double covariance = 0.0, variance = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    covariance += (x[i] - mean_x) * (y[i] - mean_y);
    variance += (x[i] - mean_x) * (x[i] - mean_x);
  }
  return covariance / variance;
}

// Hits among n Bernoulli(p) draws: a draw hits when its 32-bit Philox word is below p·2^32 (SIMD
// words, no conversion). P(hit) is p rounded to a multiple of 2^-32, far inside the standard
// errors measured here; p = 1 always hits.
std::uint64_t bernoulli_hits(Philox& rng, std::uint64_t n, double p, std::vector<std::uint32_t>& words) {
  const auto threshold = std::llround(p * 0x1p32);
  const bool always = threshold > 0xffffffffLL;
  const auto below = std::uint32_t(always ? 0 : threshold);
  std::uint64_t hits = 0;
  for (std::uint64_t i = 0; i < n; i += words.size()) {
    const auto chunk = std::span(words).first(std::size_t(std::min<std::uint64_t>(words.size(), n - i)));
    rng.fill(chunk);
    if (always) {
      hits += chunk.size();
      continue;
    }
    for (const std::uint32_t word : chunk) hits += word < below;
  }
  return hits;
}

// The chapter's Monte-Carlo error experiment.
Json mc_error(Params& params, const Progress& progress) {
  const double p = params.number("p");
  const std::vector<double> ns = params.numbers("ns");
  const std::int64_t repeats = params.integer("repeats");
  const std::uint64_t seed = params.seed("seed");
  double draws = 0.0;
  for (const double n : ns) draws += n * double(repeats);
  if (draws > kMaxMonteCarloDraws) return reject(params, {"ns", "ns × repeats asks for more than 1e8 draws"});

  std::vector<double> estimates(static_cast<std::size_t>(repeats));
  std::vector<std::uint32_t> words(4096);
  Json rows = Json::array();
  std::vector<double> log_n, log_std;
  double done = 0.0;
  for (std::size_t row = 0; row < ns.size(); ++row) {
    const auto n = std::uint64_t(ns[row]);
    Philox rng{seed, row};
    for (auto& estimate : estimates) {
      estimate = double(bernoulli_hits(rng, n, p, words)) / double(n);
      done += double(n);
      if ((&estimate - estimates.data()) % 64 == 0 && !keep_going(progress, done / draws)) return cancelled(params);
    }
    const double std = sample_std(estimates);
    const double theory = standard_error(p, double(n));
    // The first runs' estimates in the order drawn, each a dot to plot, and the envelope
    // p ± 2·SE with the share of all runs outside it (about 5 % by the normal approximation).
    const std::vector<double> first(estimates.begin(), estimates.begin() + std::ptrdiff_t(std::min<std::size_t>(kShownEstimates, estimates.size())));
    const double low = p - 2 * theory, high = p + 2 * theory;
    const auto outside = std::count_if(estimates.begin(), estimates.end(), [&](double e) { return e < low || e > high; });
    // Where the estimates fell: the 5th, 25th, 50th, 75th and 95th percentiles.
    std::sort(estimates.begin(), estimates.end());
    std::vector<double> spread;
    for (const double q : {0.05, 0.25, 0.5, 0.75, 0.95}) spread.push_back(estimates[std::size_t(q * double(estimates.size() - 1) + 0.5)]);
    rows.push_back({{"n", n}, {"std", std}, {"theory", theory}, {"ratio", std / theory}, {"spread", spread},
                    {"estimates", first}, {"envelope", {low, high}}, {"outside", double(outside) / double(estimates.size())}});
    // A row with no spread at all (p far below 1/n) has no place on log-log axes.
    if (std > 0) {
      log_n.push_back(std::log(double(n)));
      log_std.push_back(std::log(std));
    }
  }
  return {{"p", p}, {"repeats", repeats}, {"rows", rows}, {"slope", least_squares_slope(log_n, log_std)}};
}

// `evals` runs of one eval of `questions` questions by both models, each question answered
// correctly with the model's accuracy (eval e uses stream e: a run with more evals repeats the
// first ones): each run's two measured accuracies, and how often B came out ahead, tied or behind.
Json simulated_evals(std::int64_t questions, double accuracy, double other, std::int64_t evals, std::uint64_t seed) {
  std::vector<std::uint32_t> words(4096);
  std::vector<double> first(static_cast<std::size_t>(evals)), second(static_cast<std::size_t>(evals));
  std::int64_t ahead = 0, tied = 0;
  for (std::int64_t e = 0; e < evals; ++e) {
    Philox rng{seed, std::uint64_t(e)};
    const auto a = bernoulli_hits(rng, std::uint64_t(questions), accuracy, words);
    const auto b = bernoulli_hits(rng, std::uint64_t(questions), other, words);
    first[std::size_t(e)] = double(a) / double(questions);
    second[std::size_t(e)] = double(b) / double(questions);
    ahead += b > a;
    tied += b == a;
  }
  return {{"first", bulk(std::span<const double>(first))}, {"second", bulk(std::span<const double>(second))},
          {"secondAhead", ahead}, {"tied", tied}, {"secondBehind", evals - ahead - tied}};
}

// Standard error and Wilson interval of an accuracy measured on a finite evaluation set.
// A second model `gap` better on the same questions: can this eval set tell them apart?
Json eval_error(Params& params, const Progress&) {
  constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile
  const std::int64_t questions = params.integer("questions");
  const double accuracy = params.number("accuracy");
  const double gap = params.number("gap");
  // No accuracy above 1: a gap past it would be scored as a smaller one.
  if (accuracy + gap > 1.0 + 1e-12) return reject(params, {"gap", "accuracy + gap must be at most 1"});
  const double other = std::min(1.0, accuracy + gap);
  const auto interval = wilson_interval(accuracy * double(questions), double(questions), kZ95);
  const auto other_interval = wilson_interval(other * double(questions), double(questions), kZ95);
  const double se = standard_error(accuracy, double(questions));
  const double se_other = standard_error(other, double(questions));
  const double se_difference = std::sqrt(se * se + se_other * se_other);
  // Questions for the gap to reach two standard errors of the difference: gap = 2·√(2·a(1−a)/n).
  const double variance = 0.5 * (accuracy * (1 - accuracy) + other * (1 - other));
  Json result = {{"questions", questions},
          {"accuracy", accuracy},
          {"standardError", se},
          {"interval95", {interval.low, interval.high}},
          {"other", {{"accuracy", other}, {"interval95", {other_interval.low, other_interval.high}}}},
          {"differenceStandardError", se_difference},
          {"z", se_difference > 0 ? (other - accuracy) / se_difference : 0.0},
          {"questionsForGap", gap > 0 ? std::ceil(8.0 * variance / (gap * gap)) : 0.0}};
  const std::int64_t evals = params.integer("evals");
  if (evals > 0) {
    if (double(evals) * double(questions) > kMaxSimulatedAnswers) {
      return reject(params, {"evals", "evals × questions must be at most 1e7 answers"});
    }
    result["simulated"] = simulated_evals(questions, accuracy, other, evals, params.seed("seed"));
  }
  return result;
}

}  // namespace

std::vector<Experiment> monte_carlo_experiments() {
  return {
      {{"mc-error",
        "Standard deviation of a frequency over repeated runs of n Bernoulli(p) draws against "
        "sqrt(p(1-p)/n)",
        {{"p", probability(0.3, closed(1e-9, 1 - 1e-9)), "The probability being estimated"},
         {"ns", array(integer(0, closed(1, 1e8)), {100, 10000}, 1, 32), "Draws per run, one row each"},
         {"repeats", integer(2000, closed(2, 1e6)), "Runs per n", {100, 5000, 100}},
         {"seed", seed(), "Philox seed; row i uses stream i"}}},
       mc_error},
      {{"eval-error",
        "Standard error and Wilson 95% interval of an accuracy measured on a finite eval set",
        {{"questions", integer(200, closed(1, 1e9)), "Questions in the eval set", {50, 5000, 50}},
         {"accuracy", probability(0.7), "Measured accuracy", {0.5, 0.99, 0.01}},
         {"gap", number(0.02, closed(0, 0.5)), "How much better a second model scores", {0, 0.1, 0.005}},
         {"evals", integer(0, closed(0, 10000)), "Simulated evals of both models (each of `questions` questions); evals × questions at most 1e7"},
         {"seed", seed(), "Philox seed; eval e uses stream e"}}},
       eval_error},
  };
}

}  // namespace sampling_lab::detail
