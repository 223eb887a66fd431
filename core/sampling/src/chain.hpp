#pragma once
// The general filter chain: every stage of the option table in any order, on an explicit
// candidate set. select_kept (selection.hpp) is the fast path for the handbook order when only
// top-k, top-p, min-p, ε and the penalties are on; both return the same Selection.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"
#include "selection.hpp"

namespace sampling_lab::detail {

// Whether the options need the general chain rather than select_kept: something that is not a
// stage (an order, minKeep, bias, masks, bans), or a stage of `stages` that is on and that the
// fast path does not implement (each stage's row says; a test passes a table with one more).
bool needs_general_chain(const SamplingOptions& options, std::span<const StageSpec> stages = kStageSpecs);

// Where each token left the chain, for the filters widget and the distribution.
struct ChainTrace {
  std::span<std::uint8_t> cut_by;        // empty, or vocabulary-sized: 0 = kept, else the cutter's code (filters.hpp)
  std::vector<std::string_view> stages;  // the stages that were on, in order ("masks" first when on)
  std::vector<std::size_t> kept;         // tokens left after each of them
  double kept_mass = 1.0;                // of the kept tokens, under the tempered distribution the first
                                         // truncating stage saw
};

// Runs bias, masks and the stages in the options' order on the input logits (not penalised
// yet). With `draw_only` the caller only draws from the result, which may then hold tokens of
// weight 0 (a last XTC zeroes them rather than copying the rest). Expects checked options.
Selection run_chain(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                    ChainTrace* trace = nullptr, bool draw_only = false);

// The kept set sample_token draws from: run_chain, or select_kept on the penalised logits (the
// fast path, which needs T > 0). `draw_only` as in run_chain.
Selection kept_tokens(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace,
                      bool draw_only);

// Mirostat's μ for this token: the option, else its start 2τ.
double mirostat_mu(const SamplingOptions& options);

// Adaptive-p's moving average for this token: the option, else its start, the target.
double adaptive_p_average(const SamplingOptions& options);

// noRepeatNgramSize's and badWords' banned ids for this step (an id may repeat), in scratch.bans.
const std::vector<std::int32_t>& history_bans(const SamplingOptions& options, ChainScratch& scratch);

// Dynamic temperature's T' for these logits (more than one), from their entropy at T 1.
double dynamic_temperature(std::span<const float> logits, const SamplingOptions& options);

}  // namespace sampling_lab::detail
