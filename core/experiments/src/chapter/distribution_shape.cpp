// The shape of a next-token distribution: the filter chain on one distribution, and the
// chapter's temperature experiment (top probability and tokens for 90 % at several T).
#include <limits>

#include "../registry.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/statistics.hpp"
#include "sampling_lab/synthetic.hpp"

namespace sampling_lab::detail {

namespace {

constexpr float kFloatMax = std::numeric_limits<float>::max();
// The decoding chapter's worked example.
const Json kDecodingExampleLogits = {3, 2.5, 2, 1, 0.5, 0, -1, -2};

ValueSpec logits_spec(Json default_value) {
  return array(number(0, closed_or_masked(-kFloatMax, kFloatMax)), std::move(default_value), 1, kMaxExperimentArray);
}

Json moments_json(const Moments& m) {
  return {{"mean", m.mean}, {"meanSquare", m.mean_square}, {"variance", m.variance}, {"standardDeviation", m.standard_deviation}};
}

Check filters_lengths(const Params& params) {
  return check_option_lengths(params.length("logitBias.ids"), params.length("logitBias.values"), params.length("allowedMask"),
                              params.length("badWords.ids"),
                              params.length("logits"));
}

Json filters(Params& params, const Progress&) {
  const std::vector<float> given = params.floats("logits");
  if (auto error = check_options(params.options(), given.size())) return reject(params, *error);
  FilterWorkspace filter_workspace;
  const auto masked = mask_negative_infinity(given, params.options(), filter_workspace.masked);
  if (const auto* error = std::get_if<ArgumentError>(&masked)) return reject(params, *error);
  const auto& [logits, options] = std::get<MaskedLogits>(masked);
  const bool has_masked = logits.data() != given.data();

  // Written whole before they are read: not zeroed first.
  Buffer<float> probs(logits.size());
  Buffer<float> tempered(logits.size());
  CoverWorkspace cover_workspace;
  const FilterResult result = filter_distribution(logits, options, probs, filter_workspace);
  // From the given row: its −∞ tokens weigh 0 (the masked copy would weigh them at its minimum).
  tempered_distribution(given, options, tempered, filter_workspace.penalties);
  Json stages = Json::array();
  Buffer<std::uint8_t> codes(logits.size());
  for (const auto& stage : filter_stages(logits, options, filter_workspace, codes)) {
    stages.push_back({{"filter", stage.filter}, {"kept", stage.kept}});
  }
  return {{"probs", bulk(probs)},
          {"stages", stages},
          {"cutBy", bulk(codes)},
          {"tempered", bulk(tempered)},
          {"kept", result.kept},
          {"keptMass", result.kept_mass},
          {"entropyBits", result.entropy_bits},
          {"topProb", result.top_prob},
          // Ranked by the penalised logits, which order the tempered distribution: no log per token.
          // A row with −∞ is ranked by its tempered probabilities, which give those tokens 0.
          {"tokensFor90", has_masked ? cover_count(tempered, 0.9, cover_workspace)
                                     : cover_count_logits(penalised(logits, options, filter_workspace.penalties), options.temperature,
                                                          0.9, cover_workspace)},
          // The surprisal −log2 p of a drawn token, before and after the cuts: E is the entropy.
          {"surprisal", {{"kept", moments_json(surprisal_moments(probs))}, {"tempered", moments_json(surprisal_moments(tempered))}}}};
}

Json temperature(Params& params, const Progress&) {
  const std::vector<float> logits = params.given("logits") ? params.floats("logits") : synthetic_logits();
  const std::vector<double> temperatures = params.numbers("temperatures");
  const double mass = params.number("mass");
  if (auto error = check_maskable_logits(logits, "logits")) return reject(params, *error);
  // −∞ tokens weigh 0 in the softmax; the cover count ranks such a row by its probabilities.
  const bool has_masked = kernels::first_non_finite(logits) < logits.size();

  std::vector<float> probs(logits.size());
  CoverWorkspace workspace;
  Json rows = Json::array();
  for (const double t : temperatures) {
    softmax(logits, t, probs);
    rows.push_back({{"temperature", t},
                    {"topProb", top_probability(probs)},
                    {"tokensForMass", has_masked ? cover_count(probs, mass, workspace) : cover_count_logits(logits, t, mass, workspace)},
                    {"entropyBits", entropy_bits(probs)}});
  }
  return {{"vocabSize", logits.size()}, {"mass", mass}, {"rows", rows}};
}

Schema filters_params() {
  Schema params = {{"logits", logits_spec(kDecodingExampleLogits), "Logits of one position (default: the decoding chapter's example)"}};
  for (auto& option : option_params({OptionGroup::kFilter, OptionGroup::kMask, OptionGroup::kHistory})) params.push_back(std::move(option));
  return params;
}

}  // namespace

std::vector<Experiment> distribution_shape_experiments() {
  return {
      {{"filters",
        "The sampling chain (penalties, DRY, temperature, top-k, top-p, min-p, typical, top-n-sigma, "
        "epsilon, eta, p-less, XTC, mirostat, adaptive-p, in the order `order` gives) on one distribution: "
        "the tempered and the kept distribution, kept mass, entropy, tokens for 90 %, and the "
        "expectation and variance of a drawn token's surprisal",
        filters_params()},
       filters, filters_lengths},
      {{"temperature",
        "Top probability, tokens for a mass and entropy at several temperatures (default logits: "
        "the synthetic 151,936-token vector)",
        {{"logits", optional(logits_spec(nullptr)), "Logits of one position; null = the synthetic 151,936-token vector"},
         {"temperatures", array(number(0, at_least(0)), {0.5, 1.0, 1.5}, 1, 16), "Temperatures, one row each"},
         {"mass", probability(0.9, open_closed(0, 1)), "The mass the tokens must reach", {0.5, 0.99, 0.01}}}},
       temperature},
  };
}

}  // namespace sampling_lab::detail
