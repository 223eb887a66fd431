// The shape of a next-token distribution: the filter chain on one distribution, and the
// chapter's temperature experiment (top probability and tokens for 90 % at several T).
#include <cmath>
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
  return single(array(number(0, closed_or_masked(-kFloatMax, kFloatMax)), std::move(default_value), 1, kMaxExperimentArray));
}

// The surprisal's moments from its mean and variance, in bits.
Json moments_json(double mean, double variance) {
  return {{"mean", mean}, {"meanSquare", variance + mean * mean}, {"variance", variance}, {"standardDeviation", std::sqrt(variance)}};
}

Check filters_lengths(const Params& params) {
  return check_option_lengths(params.length("logitBias.ids"), params.length("logitBias.values"), params.length("allowedMask"),
                              params.length("badWords.ids"),
                              params.length("logits"));
}

Json filters(Params& params, const Progress&) {
  std::vector<float> storage;
  const std::span<const float> given = params.floats("logits", storage);
  if (auto error = check_options(params.options(), given.size())) return reject(params, *error);
  FilterWorkspace filter_workspace;
  const auto masked = mask_negative_infinity(given, params.options(), filter_workspace.masked);
  if (const auto* error = std::get_if<ArgumentError>(&masked)) return reject(params, *error);
  const auto& [logits, options] = std::get<MaskedLogits>(masked);

  // Written whole before they are read: not zeroed first.
  Buffer<float> probs(logits.size());
  Buffer<float> tempered(logits.size());
  Buffer<std::uint8_t> codes(logits.size());
  CoverWorkspace cover_workspace;
  StageTrace stages;
  const FilterResult result = filter_distribution(logits, options, probs, filter_workspace, codes, stages);
  // From the given row: its −∞ tokens weigh 0 (the masked copy would weigh them at its minimum).
  const TemperedResult untruncated = tempered_distribution(given, options, 0.9, tempered, filter_workspace.penalties, cover_workspace);
  Json stage_list = Json::array();
  for (const auto& stage : stages) stage_list.push_back({{"filter", stage.filter}, {"kept", stage.kept}});
  Json out = {{"stages", stage_list},
              {"kept", result.kept},
              {"keptMass", result.kept_mass},
              {"entropyBits", result.entropy_bits},
              {"topProb", result.top_prob},
              {"tokensFor90", untruncated.tokens_for_mass},
              // The surprisal −log2 p of a drawn token, before and after the cuts: E is the entropy.
              {"surprisal", {{"kept", moments_json(result.entropy_bits, result.surprisal_variance_bits)},
                             {"tempered", moments_json(untruncated.entropy_bits, untruncated.surprisal_variance_bits)}}}};
  // Moved in: an initializer list would copy each vocabulary-sized array once more.
  out["probs"] = bulk(probs);
  out["cutBy"] = bulk(codes);
  out["tempered"] = bulk(tempered);
  return out;
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
