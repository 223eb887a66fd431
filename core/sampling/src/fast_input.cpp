#include "fast_input.hpp"

#include <algorithm>
#include <limits>

#include "chain.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/kernels.hpp"

namespace sampling_lab::detail {

namespace {

bool masks_on(const SamplingOptions& o) {
  return !o.allowed_mask.empty() || !o.allowed_tokens.empty() || !o.banned_tokens.empty() || o.no_repeat_ngram_size > 0 ||
         !o.bad_words_ids.empty();
}

// The options with the masks and dynatemp off.
SamplingOptions plain(const SamplingOptions& o) {
  SamplingOptions p = o;
  p.allowed_mask = {};
  p.allowed_tokens = {};
  p.banned_tokens = {};
  p.no_repeat_ngram_size = 0;
  p.ngram_banned.reset();
  p.bad_words_ids = {};
  p.bad_words_lengths = {};
  p.dynatemp_range = 0.0;
  return p;
}

void clear_bit(Buffer<std::uint32_t>& words, std::int32_t id) { words[std::size_t(id) / 32] &= ~(1u << (std::size_t(id) % 32)); }

// The input's penalties are applied: its options forget the ids they read (the generated ids and
// counts, and the prompt's), which also index the whole vocabulary, not the input's tokens.
void clear_history(SamplingOptions& options) {
  options.generated_ids = {};
  options.generated_counts.reset();
  options.prompt_ids = {};
  // The bias is in the input's logits too.
  options.logit_bias_ids = {};
  options.logit_bias_values = {};
}

// The logit bias, the three penalties, then DRY, on the gathered logits, each token found by id.
void penalise_gathered(std::span<const std::uint32_t> ids, std::span<float> logits, std::size_t vocabulary,
                       const SamplingOptions& options, PenaltyScratch& scratch) {
  modify_logits(options, vocabulary, scratch, [&](std::int32_t token) -> float* {
    const auto at = std::lower_bound(ids.begin(), ids.end(), std::uint32_t(token));
    return at == ids.end() || *at != std::uint32_t(token) ? nullptr : &logits[std::size_t(at - ids.begin())];
  });
}

// The input's logits with the penalties, in a copy that tests them as it is made (the fast paths'
// first pass tests the logits they are given, where a penalty could have clamped a ±∞).
void penalise_copy(std::span<const float> logits, const SamplingOptions& options, PenaltyScratch& scratch, bool check,
                   FastInput& input) {
  if (!modifies_logits(options)) return;
  auto& copy = scratch.logits;
  copy.resize(logits.size());
  input.finite = kernels::checked_copy(logits, copy) || !check;
  apply_penalties(copy, options, scratch);
  input.logits = copy;
}

// bannedTokens and `bans` as a mask (empty when they ban nothing), and the tokens it allows.
std::span<const std::uint32_t> ban_mask(std::span<const std::int32_t> banned, std::span<const std::int32_t> bans,
                                        std::size_t vocabulary, ChainScratch& chain, std::size_t& allowed) {
  allowed = vocabulary;
  if (banned.empty() && bans.empty()) return {};
  auto& words = chain.ban_words;
  // Another vocabulary's words are made anew (a vocabulary of the same word count reuses them:
  // bits past the vocabulary are all ones either way).
  if (words.size() != mask_words(vocabulary)) {
    words.assign(mask_words(vocabulary), ~0u);
  } else {
    for (const auto id : chain.cleared) words[std::size_t(id) / 32] |= 1u << (std::size_t(id) % 32);
  }
  chain.cleared.clear();
  const auto ban = [&](std::int32_t id) {
    std::uint32_t& word = words[std::size_t(id) / 32];
    const std::uint32_t bit = 1u << (std::size_t(id) % 32);
    if ((word & bit) == 0) return;  // banned twice
    word &= ~bit;
    chain.cleared.push_back(id);
    --allowed;
  };
  for (const auto id : banned) ban(id);
  for (const auto id : bans) {
    if (std::size_t(id) < vocabulary) ban(id);  // history ids are checked against the largest vocabulary only
  }
  return words;
}

}  // namespace

std::span<const std::uint32_t> combined_mask(const SamplingOptions& o, std::span<const std::int32_t> bans,
                                             std::size_t vocabulary, Buffer<std::uint32_t>& words) {
  if (o.allowed_tokens.empty() && o.banned_tokens.empty() && bans.empty()) return o.allowed_mask;
  if (!o.allowed_tokens.empty()) {
    words.assign(mask_words(vocabulary), 0u);
    for (const auto id : o.allowed_tokens) words[std::size_t(id) / 32] |= 1u << (std::size_t(id) % 32);
    for (std::size_t w = 0; w < o.allowed_mask.size(); ++w) words[w] &= o.allowed_mask[w];
  } else if (!o.allowed_mask.empty()) {
    words.assign(o.allowed_mask.begin(), o.allowed_mask.end());
  } else {
    words.assign(mask_words(vocabulary), ~0u);
  }
  for (const auto id : o.banned_tokens) clear_bit(words, id);
  for (const auto id : bans) {
    if (std::size_t(id) < vocabulary) clear_bit(words, id);  // history ids are checked against the largest vocabulary only
  }
  return words;
}

std::optional<FastInput> fast_input(std::span<const float> logits, const SamplingOptions& options,
                                    FilterWorkspace& workspace, bool check, bool fold) {
  const bool masked = masks_on(options);
  if (!masked && !(options.dynatemp_range > 0.0)) return std::nullopt;
  FastInput input{{}, {}, logits, plain(options)};
  if (needs_general_chain(input.options)) return std::nullopt;
  auto& chain = workspace.chain;
  // No mask and no bans this step (an empty mask) allow everything.
  std::span<const std::uint32_t> mask;
  std::optional<std::size_t> allowed;  // counted only if asked for, unless the mask is bans alone
  if (masked) {
    const auto& bans = history_bans(options, chain);
    if (options.allowed_mask.empty() && options.allowed_tokens.empty()) {
      mask = ban_mask(options.banned_tokens, bans, logits.size(), chain, allowed.emplace());
    } else {
      mask = combined_mask(options, bans, logits.size(), chain.allowed_words);
    }
  }
  chain.banned_everything = false;
  if (!mask.empty()) {
    const bool greedy_or_whole = input.options.temperature == 0.0 || !cuts(input.options, logits.size());
    const auto allowed_count = [&] { return allowed ? *allowed : kernels::mask_count(mask, logits.size()); };
    if (fold && greedy_or_whole && !(options.dynatemp_range > 0.0) && 2 * allowed_count() >= logits.size()) {
      input.mask = mask;
      penalise_copy(logits, options, workspace.penalties, check, input);
      clear_history(input.options);
      return input;
    }
    const auto gathered = check ? kernels::checked_gather_allowed(mask, logits, chain.allowed_ids, chain.allowed_logits)
                                : kernels::CheckedCount{kernels::gather_allowed(mask, logits, chain.allowed_ids, chain.allowed_logits), true};
    input.finite = gathered.finite;
    if (!input.finite) return input;
    // The options are checked: only the history's bans can leave no token.
    chain.banned_everything = gathered.count == 0;
    if (chain.banned_everything) return std::nullopt;
    if (modifies_logits(options)) penalise_gathered(chain.allowed_ids, chain.allowed_logits, logits.size(), options, workspace.penalties);
    input.ids = chain.allowed_ids;
    input.logits = chain.allowed_logits;
  } else {
    penalise_copy(logits, options, workspace.penalties, check, input);
    if (!input.finite) return input;
  }
  clear_history(input.options);
  // One token left has nothing to scale (as the chain leaves it).
  if (options.dynatemp_range > 0.0) {
    input.options.temperature = input.logits.size() > 1 ? dynamic_temperature(input.logits, options) : 1.0;
  }
  return input;
}

std::int32_t token_at(const FastInput& input, std::size_t position) {
  return std::int32_t(input.ids.empty() ? position : input.ids[position]);
}

Selection with_token_ids(Selection kept, const FastInput& input, FilterWorkspace& workspace) {
  if (input.ids.empty()) return kept;
  if (kept.ids.data() == workspace.identity.data()) {
    kept.ids = input.ids.first(kept.ids.size());
    return kept;
  }
  // Otherwise the selection views the candidates' ids, here positions in the input.
  auto& positions = workspace.candidates.ids;
  for (std::size_t j = 0; j < kept.ids.size(); ++j) positions[j] = input.ids[positions[j]];
  return kept;
}

}  // namespace sampling_lab::detail
