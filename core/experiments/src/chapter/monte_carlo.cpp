// Monte-Carlo error: the spread of a frequency over repeated runs, and the error bars of an
// accuracy measured on a finite evaluation set.
#include <cmath>

#include "../registry.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/statistics.hpp"

namespace sampling_lab::detail {

namespace {

constexpr double kMaxDraws = 1e8;

// The chapter's Monte-Carlo error experiment.
Json mc_error(Params& params, const Progress& progress) {
  const double p = params.number("p");
  const std::vector<double> ns = params.numbers("ns");
  const std::int64_t repeats = params.integer("repeats");
  const std::uint64_t seed = params.seed("seed");
  double draws = 0.0;
  for (const double n : ns) draws += n * double(repeats);
  if (draws > kMaxDraws) return reject(params, {"ns", "ns × repeats asks for more than 1e8 draws"});

  std::vector<double> estimates(static_cast<std::size_t>(repeats));
  Json rows = Json::array();
  double done = 0.0;
  for (std::size_t row = 0; row < ns.size(); ++row) {
    const auto n = std::uint64_t(ns[row]);
    Philox rng{seed, row};
    for (auto& estimate : estimates) {
      std::uint64_t hits = 0;
      for (std::uint64_t i = 0; i < n; ++i) hits += rng.uniform() < p;
      estimate = double(hits) / double(n);
      done += double(n);
      if ((&estimate - estimates.data()) % 64 == 0 && !keep_going(progress, done / draws)) return cancelled(params);
    }
    rows.push_back({{"n", n}, {"std", sample_std(estimates)}, {"theory", standard_error(p, double(n))}});
  }
  return {{"p", p}, {"repeats", repeats}, {"rows", rows}};
}

// Standard error and Wilson interval of an accuracy measured on a finite evaluation set.
Json eval_error(Params& params, const Progress&) {
  constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile
  const std::int64_t questions = params.integer("questions");
  const double accuracy = params.number("accuracy");
  const auto interval = wilson_interval(accuracy * double(questions), double(questions), kZ95);
  return {{"questions", questions},
          {"accuracy", accuracy},
          {"standardError", standard_error(accuracy, double(questions))},
          {"interval95", {interval.low, interval.high}}};
}

}  // namespace

std::vector<Experiment> monte_carlo_experiments() {
  return {
      {{"mc-error",
        "Standard deviation of a frequency over repeated runs of n Bernoulli(p) draws against "
        "sqrt(p(1-p)/n)",
        {{"p", probability(0.3, open(0, 1)), "The probability being estimated"},
         {"ns", array(integer(0, closed(1, 1e8)), {100, 10000}, 1, 32), "Draws per run, one row each"},
         {"repeats", integer(2000, closed(2, 1e6)), "Runs per n", {100, 5000, 100}},
         {"seed", seed(), "Philox seed; row i uses stream i"}}},
       mc_error},
      {{"eval-error",
        "Standard error and Wilson 95% interval of an accuracy measured on a finite eval set",
        {{"questions", integer(200, closed(1, 1e9)), "Questions in the eval set", {50, 5000, 50}},
         {"accuracy", probability(0.7), "Measured accuracy", {0.5, 0.99, 0.01}}}},
       eval_error},
  };
}

}  // namespace sampling_lab::detail
