#pragma once
// Speculative decoding's verification of one draft (Leviathan et al. 2023, "Fast inference from
// transformers via speculative decoding"; Chen et al. 2023, "Accelerating large language model
// decoding with speculative sampling"): draft token x_i, drawn from q_i, is accepted with
// probability min(1, p_i(x_i) / q_i(x_i)); the first rejected one is replaced by a draw from
// norm(max(0, p_i − q_i)); when all γ are accepted a bonus token comes from the last target row.
// The emitted tokens then follow the target exactly. p_i and q_i are the distributions
// sample_token draws from with the same options, so filters and penalties act on both sides.
// Several drafts are verified together by recursive rejection sampling (SpecInfer, Miao et al.
// 2024; SpecTr, Sun et al. 2023): at each position the drafts that still agree with the accepted
// prefix are tried one after another, each against the residual the previous rejections left.
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

// Draft tokens verified at once at most, per draft.
inline constexpr std::size_t kMaxDraftTokens = 64;
// Drafts verified together at most.
inline constexpr std::size_t kMaxDrafts = 16;

// The draft proposes on (seed, stream XOR 2^52) and the verifier draws its own uniforms from
// (seed, stream XOR 2^51): neither reuses a word of the target's stream.
inline constexpr std::uint64_t kDraftStreamBit = std::uint64_t{1} << 52;
inline constexpr std::uint64_t kVerifierStreamBit = std::uint64_t{1} << 51;
constexpr std::uint64_t draft_stream(std::uint64_t stream) { return stream ^ kDraftStreamBit; }
// Draft j of several draws on its stream XOR j·2^44, and its verification trial on the verifier's
// stream XOR j·2^44: draft 0 is the single draft's.
inline constexpr unsigned kDraftIndexShift = 44;
constexpr std::uint64_t nth_draft_stream(std::uint64_t stream, std::size_t draft) { return stream ^ (std::uint64_t(draft) << kDraftIndexShift); }

// With k drafts every part holds k blocks, draft by draft: target rows k·(γ + 1), draft rows k·γ,
// tokens k·γ; draft j's rows are those its own sequence gave.
struct SpeculativeInput {
  std::span<const float> target_rows;          // γ + 1 rows of V target logits, back to back
  std::span<const float> draft_rows;           // γ rows of V draft logits (none for point drafts)
  std::span<const std::int32_t> draft_tokens;  // γ proposals; token i drawn from draft row i
  std::uint64_t draft_stream;                  // the stream the draft sampled on (draft j: nth_draft_stream)
  // Proposals made without a distribution (prompt lookup): q_i is all on x_i, so x_i is accepted
  // with probability p_i(x_i) and a rejection redraws from p_i without x_i, renormalised.
  bool point_drafts = false;
  std::size_t drafts = 1;  // k, at most kMaxDrafts
};

struct SpeculativeResult {
  std::size_t accepted;              // drafts accepted, 0 … γ
  std::int32_t token;                // the residual draw at the first rejection, else the bonus
  std::vector<std::int32_t> tokens;  // the accepted drafts, then token
  std::vector<double> acceptance;    // min(1, r(x) / q(x)) of each trial, position by position
  bool from_residual;                // token replaced a rejected draft
  std::size_t draft = 0;             // the draft whose first `accepted` tokens were emitted
};

// Prompt lookup decoding's proposal (Saxena 2023; transformers' PromptLookupCandidateGenerator):
// for n from ngram_max down to ngram_min, the earliest earlier occurrence of the last n tokens whose
// continuation is not empty proposes up to max_tokens tokens of that continuation. None when no
// n-gram recurs. With several drafts, the next occurrences in the same order (longer n first, then
// earlier) propose too, each continuation distinct from those before it.
struct LookupMatch {
  std::size_t from = 0;   // the proposal is context[from, from + count)
  std::size_t count = 0;  // 1 … max_tokens
  std::size_t ngram = 0;  // n of the matched n-gram
  std::size_t at = 0;     // where the matched occurrence starts in `context`
};
struct PromptLookup {
  std::vector<LookupMatch> matches;  // the best first; empty when nothing matched
  std::vector<std::uint32_t> agree;  // scratch, kept between calls
  std::vector<std::uint64_t> hashes;
};
// Most tokens of context prompt_lookup searches (Qwen3's longest context, 131,072).
inline constexpr std::size_t kMaxLookupContext = std::size_t{1} << 17;
// Linear in the context (one Z-function pass, and with several drafts one pass per n): ngram_min
// >= 1, ngram_max >= ngram_min, both and max_tokens at most kMaxDraftTokens, drafts in [1,
// kMaxDrafts], context at most kMaxLookupContext (checked by the caller).
void prompt_lookup(std::span<const std::int32_t> context, std::size_t ngram_max, std::size_t ngram_min, std::size_t max_tokens,
                   PromptLookup& out, std::size_t drafts = 1);

// Tokens per verification with γ drafts accepted i.i.d. with probability α (Leviathan et al.
// 2023, eq. 1): (1 − α^(γ+1)) / (1 − α), and γ + 1 when α = 1.
double expected_tokens(double alpha, std::size_t gamma);

// Most timed target passes best_gamma fits its cost line to.
inline constexpr std::size_t kMaxTimedPasses = 1024;

// The γ in [1, max_gamma] with the most expected tokens per unit of time (Leviathan et al. 2023,
// §3.4, with the verification's cost measured, not taken as one step's): E(α, γ) tokens for γ
// draft passes of `draft_cost` and one target pass over γ + 1 positions, whose cost is the least-
// squares line through `passes`, (positions, cost) pairs back to back (flat with fewer than two
// distinct position counts, never falling with more positions). The smallest such γ on ties;
// max_gamma when nothing was timed. The caller checks the arguments (bindings: lab.bestGamma).
std::size_t best_gamma(double acceptance, double draft_cost, std::span<const float> passes, std::size_t max_gamma);


// Two workspaces, so that p_i and q_i can be held at once.
struct SpeculativeWorkspace {
  FilterWorkspace target;
  FilterWorkspace draft;
  std::vector<std::int32_t> context;  // generated_ids followed by the drafts
  // max(0, p − q) after a rejection, over p's kept tokens (residual_ids, ascending).
  std::vector<std::uint32_t> residual_ids;
  std::vector<float> residual, next_residual;
  std::vector<double> residual_blocks;
};

// V, from the rows' sizes, k and γ: k in [1, kMaxDrafts], γ <= kMaxDraftTokens, whole rows, each
// side at most kMaxVocabulary entries.
std::variant<std::size_t, ArgumentError> speculative_vocabulary(const SpeculativeInput& input);

// Verifies γ drafts. `options` (checked by check_options for V) hold the target's key: seed,
// stream, step = the first draft position's step, generated_ids = the history before it.
// Position i uses p_i = the kept distribution of target row i at (seed, stream, step + i) and
// q_i = that of draft row i at (seed, draft_stream, step + i), both with generated_ids followed by
// drafts[0, i) (generated_counts is not read). The acceptance uniform of position i is words 0–1,
// the residual's words 2–3, of Philox block step + i of (seed, stream XOR 2^51); the bonus token
// is sample_token(target row γ) at step + γ with every draft in the history. Temperature 0 is
// greedy: a draft is accepted while it is the target's token, which is then emitted. Point
// drafts (input.point_drafts) have no rows: x_i is accepted on u < p_i(x_i) and a rejection draws
// from p_i with x_i removed, on the same uniforms (Leviathan et al.'s rule with q_i one-hot). With
// k drafts, position i tries each draft whose first i tokens are the accepted ones, in index order:
// draft j is accepted with min(1, r(x) / q_j(x)), r = p_i for the first trial, and a rejection
// leaves r = norm(max(0, r − q_j)) (a point draft's: r without x); when every trial rejects, the
// token is drawn from r. Trial j's uniform is words 0–1 of block step + i of the verifier's stream
// XOR j·2^44; the residual draw's, words 2–3 of the position's first trial's. Position i's p_i is the target row of
// the first such draft, and q_j draft j's own row on its stream. One draft is the rule above. Checks the
// rows (finite), the tokens (in [0, V) and possible under q_i) and refuses mirostat, whose μ
// follows every emitted token.
std::variant<SpeculativeResult, ArgumentError> speculative_verify(const SpeculativeInput& input,
                                                                  const SamplingOptions& options,
                                                                  SpeculativeWorkspace& workspace);

}  // namespace sampling_lab
