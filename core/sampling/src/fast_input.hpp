#pragma once
// What the fast paths (greedy, temperature alone, top-k, top-p, min-p, ε) draw from when the token
// masks or dynamic temperature are on and nothing else needs the general chain: allowedMask,
// allowedTokens, bannedTokens and the history's bans (noRepeatNgramSize, badWords) become one
// bitmask whose logits are gathered once (kernels::gather_allowed) and penalised, and dynamic
// temperature's T' is computed on them in one pass; the fast paths then run on them as on a
// vocabulary of their own.
#include <cstdint>
#include <optional>
#include <span>

#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"
#include "selection.hpp"

namespace sampling_lab::detail {

struct FastInput {
  std::span<const std::uint32_t> ids;  // the logits' token ids, ascending; empty: the logits are the vocabulary
  std::span<const std::uint32_t> mask;  // with `fold`: the tokens of the vocabulary's logits that may be drawn
  std::span<const float> logits;       // penalised
  SamplingOptions options;             // without the masks, the penalties and dynatemp (T' is the temperature)
  bool finite = true;                  // with `check`: whether every logit of the vocabulary is finite
};

// None when the options need the general chain or need nothing of this, or when the history's
// bans left no token (chain.banned_everything then says so; the general chain keeps the top one).
// With `check` the logits are tested where the input copies or gathers them (`finite`; the rest
// is then only meaningful when they are finite); an input of the vocabulary's logits leaves the
// test to the fast path's first pass. With `fold`, a draw that is greedy or by temperature
// alone under a mask allowing half the vocabulary or more gets the mask instead of a gather, for
// draw_untruncated and masked_argmax: `finite` then waits for their first pass.
std::optional<FastInput> fast_input(std::span<const float> logits, const SamplingOptions& options,
                                    FilterWorkspace& workspace, bool check = false, bool fold = false);

// One mask of the tokens allowedMask and allowedTokens allow, less bannedTokens and `bans`, in
// `words` (or allowedMask itself when there is nothing to take from it).
std::span<const std::uint32_t> combined_mask(const SamplingOptions& options, std::span<const std::int32_t> bans,
                                             std::size_t vocabulary, Buffer<std::uint32_t>& words);

// The token id at `position` of the input's logits.
std::int32_t token_at(const FastInput& input, std::size_t position);

// A selection made on the input's logits, with token ids in place of positions.
Selection with_token_ids(Selection kept, const FastInput& input, FilterWorkspace& workspace);

}  // namespace sampling_lab::detail
