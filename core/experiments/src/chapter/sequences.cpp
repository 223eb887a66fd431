// Sequence probability: the handbook's tree, where greedy misses the most probable sequence, and
// random models, where wider beams close the gap.
#include <algorithm>
#include <cmath>

#include "../integer_power.hpp"
#include "../registry.hpp"
#include "sampling_lab/sequence.hpp"

namespace sampling_lab::detail {

namespace {

// Node expansions allowed per run: at most about a second in WebAssembly.
constexpr double kMaxExpansions = 1e7;
constexpr double kMaxListedLeaves = 4096;
// Models beam-steps searches for one where greedy misses (fewer where they are large).
constexpr std::uint64_t kModelsSearched = 200;

Json path_json(const Path& path) {
  return {{"path", path.tokens}, {"prob", std::exp(path.log_prob)}};
}

// Ties with the best count as found.
bool misses(const Path& found, const Path& best) { return found.log_prob < best.log_prob - 1e-12; }

// Powers of two up to V^(depth−1), the width at which beam search becomes exhaustive.
std::vector<double> default_widths(std::size_t vocabulary, std::size_t depth) {
  std::vector<double> widths;
  const double exhaustive = integer_power(double(vocabulary), depth - 1);
  for (double w = 1; w < exhaustive; w *= 2) widths.push_back(w);
  widths.push_back(exhaustive);
  return widths;
}

// Every sequence with its probability, the frequency with which `samples` ancestral draws
// produced it, and `draws` sequences sampled without replacement by Gumbel-top-k.
// Null when `progress` stopped the run.
Json leaves_json(const SequenceModel& model, std::int64_t samples, std::int64_t draws, std::uint64_t seed,
                 const Progress& progress) {
  Philox rng{seed, 0};
  const auto leaf_count = std::size_t(integer_power(double(model.vocabulary()), model.depth()));
  std::vector<std::uint64_t> sampled(leaf_count, 0);
  for (std::int64_t i = 0; i < samples; ++i) {
    ++sampled[ancestral_leaf(model, rng)];
    if (i % 65536 == 0 && !keep_going(progress, double(i) / double(samples))) return nullptr;
  }
  Json leaves = Json::array();
  for (const auto& leaf : beam_search(model, leaf_count)) {
    std::size_t index = 0;
    for (const auto token : leaf.tokens) index = index * model.vocabulary() + std::size_t(token);
    Json json = path_json(leaf);
    json["sampled"] = samples > 0 ? double(sampled[index]) / double(samples) : 0.0;
    leaves.push_back(std::move(json));
  }
  Json without_replacement = Json::array();
  for (const auto& path : gumbel_top_k(model, std::size_t(draws), rng)) without_replacement.push_back(path_json(path));
  return {{"leaves", leaves}, {"withoutReplacement", without_replacement}};
}

// Expansions of beam search at each width over `depth` steps, which the expansions budget counts:
// at step t the beam holds min(w, V^t) prefixes, each expanded into V.
double beam_work(const std::vector<double>& widths, std::size_t vocabulary, std::size_t depth) {
  double work = 0.0;
  for (const double w : widths) {
    for (std::size_t t = 0; t < depth; ++t) work += std::min(w, integer_power(double(vocabulary), t)) * double(vocabulary);
  }
  return work;
}

Json handbook_tree(Params& params, const Progress& progress, std::size_t vocabulary, std::size_t depth,
                   const std::vector<double>& widths) {
  const double leaves = integer_power(double(vocabulary), depth);
  // An ancestral sample walks `depth` distributions of `vocabulary` probabilities.
  const double work = beam_work(widths, vocabulary, depth) +
                      double(params.integer("samples")) * double(depth) * double(vocabulary + 8) + leaves * double(depth);
  if (work > kMaxExpansions) {
    return reject(params, {"samples", "samples × depth + beam work must be at most 1e7 expansions; use fewer samples or widths"});
  }
  const std::vector<double> tree = params.numbers("tree");
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
    Json beam = path_json(beam_search(model, std::size_t(w)).front());
    beam["width"] = w;
    beams.push_back(std::move(beam));
  }
  Json result = {{"mode", "handbook"}, {"vocab", vocabulary}, {"depth", depth},
                 {"best", path_json(exhaustive_best(model))}, {"greedy", path_json(greedy(model))},
                 {"beams", beams}};
  Json listed = leaves_json(model, params.integer("samples"), params.integer("draws"), params.seed("seed"), progress);
  if (listed.is_null()) return cancelled(params);
  result.update(listed);
  return result;
}

Json random_models(Params& params, const Progress& progress, std::size_t vocabulary, std::size_t depth,
                   const std::vector<double>& widths) {
  const double sharpness = params.number("sharpness");
  const std::int64_t models = params.integer("models");
  const std::uint64_t seed = params.seed("seed");
  // A model's generation and its exhaustive search each visit every node's distribution.
  const double nodes = double(tree_nodes(vocabulary, depth)) * double(vocabulary);
  const double expansions_per_model = 2 * nodes + beam_work(widths, vocabulary, depth);
  if (double(models) * expansions_per_model > kMaxExpansions) {
    return reject(params, {"models", "models × (beam work per model) must be at most 1e7 expansions; use fewer models, widths or a smaller tree"});
  }
  std::size_t greedy_misses = 0;
  std::vector<std::size_t> beam_misses(widths.size(), 0);
  std::vector<double> beam_ratio(widths.size(), 0.0);
  for (std::int64_t m = 0; m < models; ++m) {
    Philox rng{seed, std::uint64_t(m)};
    const auto model = SequenceModel::random(vocabulary, depth, sharpness, rng);
    const auto best = exhaustive_best(model);
    greedy_misses += misses(greedy(model), best);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const auto found = beam_search(model, std::size_t(widths[i])).front();
      beam_misses[i] += misses(found, best);
      beam_ratio[i] += std::exp(found.log_prob - best.log_prob);
    }
    if (!keep_going(progress, double(m + 1) / double(models))) return cancelled(params);
  }
  Json beams = Json::array();
  Json closing = nullptr;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    beams.push_back({{"width", widths[i]}, {"misses", beam_misses[i]},
                     {"missRate", double(beam_misses[i]) / double(models)},
                     {"meanProbRatio", beam_ratio[i] / double(models)}});
    if (closing.is_null() && beam_misses[i] == 0) closing = widths[i];
  }
  return {{"mode", "random"}, {"vocab", vocabulary}, {"depth", depth}, {"sharpness", sharpness},
          {"models", models}, {"greedyMisses", greedy_misses},
          {"greedyMissRate", double(greedy_misses) / double(models)}, {"beams", beams},
          {"closingWidth", closing}};
}

Json sequence(Params& params, const Progress& progress) {
  const bool handbook = params.choice("mode") == "handbook";
  const auto vocabulary = std::size_t(params.given("vocab") ? params.integer("vocab") : handbook ? 2 : 3);
  const auto depth = std::size_t(params.given("depth") ? params.integer("depth") : handbook ? 2 : 4);
  const double leaves = integer_power(double(vocabulary), depth);
  if (leaves > 1e5) return reject(params, {"depth", "vocab^depth must be at most 100000"});
  // Each listed leaf is a JSON object, about 400 times an expansion's cost.
  if (handbook && leaves > kMaxListedLeaves) {
    return reject(params, {"depth", "handbook mode lists every leaf: vocab^depth must be at most 4096"});
  }
  const std::vector<double> widths = params.given("widths") ? params.numbers("widths")
      : handbook ? std::vector<double>{1, 2} : default_widths(vocabulary, depth);
  return handbook ? handbook_tree(params, progress, vocabulary, depth, widths)
                  : random_models(params, progress, vocabulary, depth, widths);
}

// One random model of the random mode (model `model`, as that mode numbers them) searched by beam
// search of one width, step by step: each step's candidates best first, kept or pruned, beside
// greedy's path with its log-probability after each step, and the most probable sequence.
Json beam_steps(Params& params, const Progress&) {
  const auto vocabulary = std::size_t(params.integer("vocab"));
  const auto depth = std::size_t(params.integer("depth"));
  const auto width = std::size_t(params.integer("width"));
  if (integer_power(double(vocabulary), depth) > 1e5) return reject(params, {"depth", "vocab^depth must be at most 100000"});
  const double sharpness = params.number("sharpness");
  const std::uint64_t seed = params.seed("seed");
  const auto model_numbered = [&](std::uint64_t m) {
    Philox rng{seed, m};
    return SequenceModel::random(vocabulary, depth, sharpness, rng);
  };
  // Unnamed, the first model where greedy misses the most probable sequence: the case to watch
  // (model 0 when none of those searched does).
  std::uint64_t number = params.given("model") ? std::uint64_t(params.integer("model")) : 0;
  auto model = model_numbered(number);
  if (!params.given("model")) {
    // Each model tried costs its generation and an exhaustive search: within the expansion budget.
    const double per_model = double(tree_nodes(vocabulary, depth) * vocabulary) +
                             integer_power(double(vocabulary), depth) * double(depth);
    const auto searched = std::min(kModelsSearched, std::uint64_t(std::max(1.0, kMaxExpansions / per_model)));
    for (std::uint64_t m = 0; m < searched; ++m) {
      auto candidate = m == 0 ? model : model_numbered(m);
      if (misses(greedy(candidate), exhaustive_best(candidate))) {
        number = m;
        model = std::move(candidate);
        break;
      }
    }
  }
  std::vector<BeamFrontier> frontiers;
  const auto found = beam_search(model, width, &frontiers).front();
  Json steps = Json::array();
  for (const auto& frontier : frontiers) {
    Json candidates = Json::array();
    for (const auto& candidate : frontier) {
      // A continuation of probability 0 (underflowed at a large sharpness) has log P −∞: null.
      const Json log_prob = std::isfinite(candidate.log_prob) ? Json(candidate.log_prob) : Json(nullptr);
      candidates.push_back({{"path", candidate.tokens}, {"logProb", log_prob}, {"kept", candidate.kept}});
    }
    steps.push_back({{"candidates", std::move(candidates)}});
  }
  const auto greedy_path = greedy(model);
  std::vector<double> greedy_log_probs;
  for (std::size_t t = 1; t <= depth; ++t) {
    greedy_log_probs.push_back(log_probability(model, std::span(greedy_path.tokens).first(t)));
  }
  Json greedy_json = path_json(greedy_path);
  greedy_json["logProbs"] = greedy_log_probs;
  return {{"vocab", vocabulary}, {"depth", depth}, {"width", width}, {"model", number}, {"steps", steps}, {"beam", path_json(found)},
          {"greedy", greedy_json}, {"best", path_json(exhaustive_best(model))}};
}

// Why sequence probabilities live in log space: `length` tokens of probability tokenProb each,
// multiplied in float32 and in float64 (both reach 0 through the subnormals) against the sum of
// their logs, which stays an ordinary number.
Json log_space(Params& params, const Progress&) {
  const double p = params.number("tokenProb");
  const std::int64_t length = params.integer("length");
  float single = 1.0f;
  double product = 1.0;
  double log_sum = 0.0;
  Json single_zero_at = nullptr;
  Json double_zero_at = nullptr;
  Json series = Json::array();
  const std::int64_t stride = std::max<std::int64_t>(1, length / 50);
  for (std::int64_t step = 1; step <= length; ++step) {
    single *= float(p);
    product *= p;
    log_sum += std::log(p);
    if (single == 0.0f && single_zero_at.is_null()) single_zero_at = step;
    if (product == 0.0 && double_zero_at.is_null()) double_zero_at = step;
    if (step % stride == 0 || step == length) series.push_back({{"step", step}, {"float64", product}, {"logSum", log_sum}});
  }
  return {{"tokenProb", p}, {"length", length}, {"productFloat32", double(single)}, {"productFloat64", product},
          {"logSum", log_sum}, {"log10Prob", log_sum / std::log(10.0)}, {"float32ZeroAt", single_zero_at}, {"float64ZeroAt", double_zero_at},
          {"series", series}};
}

}  // namespace

std::vector<Experiment> sequence_experiments() {
  return {
      {{"sequence",
        "Chain-rule sequence probability: greedy, exhaustive best and beam search on the handbook "
        "tree (with every leaf, sampled frequencies and Gumbel-top-k draws), or how often greedy "
        "misses on random models",
        {{"mode", choice({"handbook", "random"}), "The handbook's tree, or many random models"},
         {"tree", array(probability(0), {0.6, 0.4, 0.5, 0.5, 0.9, 0.1}, 2, 131072),
          "Handbook mode: one distribution per tree node, breadth-first"},
         {"vocab", optional(integer(2, closed(2, 16))), "Tokens per step; null = 2 (handbook) or 3 (random)", {2, 5, 1}},
         {"depth", optional(integer(2, closed(1, 10))), "Sequence length; null = 2 (handbook) or 4 (random); vocab^depth at most 4096 (handbook) or 100000 (random)", {2, 5, 1}},
         {"widths", optional(array(integer(1, closed(1, 100000)), nullptr, 1, 32)),
          "Beam widths; null = 1 and 2 (handbook) or powers of two up to exhaustive (random)"},
         {"samples", integer(10000, closed(0, 1000000)), "Handbook mode: ancestral samples behind each leaf's sampled frequency"},
         {"draws", integer(2, closed(0, 64)), "Handbook mode: sequences drawn without replacement (Gumbel-top-k)"},
         {"sharpness", number(1, open_closed(0, 100)), "Random mode: logits are sharpness · N(0, 1)", {0.5, 4, 0.5}},
         {"models", integer(200, closed(1, 10000)), "Random mode: models to average over"},
         {"seed", seed(), "Philox seed"}}},
       sequence},
      {{"beam-steps",
        "Beam search of one width on one random model, step by step: each step's candidates, kept or "
        "pruned, beside greedy and the most probable sequence",
        {{"vocab", integer(3, closed(2, 8)), "Tokens per step", {2, 5, 1}},
         {"depth", integer(4, closed(1, 8)), "Sequence length; vocab^depth at most 100000", {2, 5, 1}},
         {"width", integer(2, closed(1, 16)), "Beam width", {1, 4, 1}},
         {"sharpness", number(1, open_closed(0, 100)), "Logits are sharpness · N(0, 1)", {0.5, 4, 0.5}},
         {"model", optional(integer(0, closed(0, 1e9))), "Which random model: the random mode's model of that number; null = the first of up to 200 (fewer when vocab^depth is large) where greedy misses the most probable sequence (else 0)"},
         {"seed", seed(), "Philox seed"}}},
       beam_steps},
      {{"log-space",
        "A sequence's probability as a product of per-token probabilities in float32 and float64, "
        "which underflow to 0, against the sum of their logs",
        {{"tokenProb", probability(0.1, open_closed(0, 1)), "Each token's probability", {0.05, 0.9, 0.05}},
         {"length", integer(400, closed(1, 100000)), "Tokens in the sequence", {10, 1000, 10}}}},
       log_space},
  };
}

}  // namespace sampling_lab::detail
