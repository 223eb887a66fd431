#pragma once
// Exact draws from a discrete distribution, four ways, and the per-token sampler.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sampling_lab/error.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/progress.hpp"
#include "sampling_lab/workspace.hpp"

namespace sampling_lab {

// Each draw's randomness: inverse CDF and alias take 52-bit uniforms (two Philox words each);
// Gumbel-max and the race take one word per token, and a second for the few within 2^-11 of
// either end of (0, 1) (see kernels::exponential_noise).
enum class SamplingMethod {
  kInverseCdf,        // prefix sums + binary search on one uniform
  kGumbelMax,         // argmax(z/T + Gumbel) (Gumbel 1954; Maddison et al. 2014)
  kExponentialRace,   // argmax(p / Exp(1)): the first of competing exponential clocks
  kAlias,             // Vose's alias method (Vose 1991): O(V) table, O(1) per draw
};

inline constexpr SamplingMethod kSamplingMethods[] = {
    SamplingMethod::kInverseCdf, SamplingMethod::kGumbelMax, SamplingMethod::kExponentialRace,
    SamplingMethod::kAlias};

std::string_view method_name(SamplingMethod method);  // "inverse-cdf", "gumbel-max", ...
std::optional<SamplingMethod> parse_method(std::string_view name);

struct RandomKey {
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;  // e.g. a request id: distinct streams are independent
};

// Draws out.size() tokens i.i.d. from `probs` (checked probabilities). Returns false when
// `progress` stopped it (out is then incomplete).
bool sample_probs(std::span<const float> probs, SamplingMethod method, RandomKey key,
                  std::span<std::int32_t> out, SamplerWorkspace& workspace, const Progress& progress = {});

// One draw of sample_probs retraced from the very words it uses: what the method computes on the
// way to its token, for showing the mechanism. Only the fields of `method` are filled.
struct DrawTrace {
  std::int32_t token = 0;
  double uniform = 0;             // inverse CDF: u in (0, 1); the token is the first whose CDF exceeds u
  std::vector<float> clocks;      // Gumbel-max and race: E_i ~ Exp(1) per token (G_i = −ln E_i)
  std::uint32_t column = 0;       // alias: the column the uniform picks
  double coin = 0;                // alias: the coin in [0, 1); the column's own token when below its threshold
};

// The alias table of `probs` (Vose 1991): each column keeps its own token with probability
// threshold[i] and otherwise gives alias[i].
struct AliasTable {
  std::vector<double> threshold;
  std::vector<std::uint32_t> alias;
};
AliasTable alias_table(std::span<const float> probs, SamplerWorkspace& workspace);

// The largest vocabulary trace_draws takes: the samplers' small-vocabulary path, one chunk of clocks.
inline constexpr std::size_t kMaxTraceVocabulary = 4096;

// Draws first … first + out.size() − 1 of sample_probs(probs, method, key, …), each with its
// trace; out[j].token is the token sample_probs draws at index first + j. probs.size() ≤
// kMaxTraceVocabulary.
void trace_draws(std::span<const float> probs, SamplingMethod method, RandomKey key, std::uint64_t first,
                 std::span<DrawTrace> out, SamplerWorkspace& workspace);

// The same from softmax(logits / T); T = 0 always gives the argmax. Gumbel-max perturbs the
// scaled logits directly; the other methods go through the probabilities.
bool sample_logits(std::span<const float> logits, double temperature, SamplingMethod method,
                   RandomKey key, std::span<std::int32_t> out, SamplerWorkspace& workspace,
                   const Progress& progress = {});

// One token: the filter chain, then the inverse-CDF draw over the survivors on the first uniform
// of Philox block `options.step` of (seed, stream), so a request's token depends only on its own
// key and step. Temperature 0 gives the argmax. Expects checked inputs; allocates nothing once
// warm.
std::int32_t sample_token(std::span<const float> logits, const SamplingOptions& options,
                          FilterWorkspace& workspace);

// How far below the largest logit, in units of T, sample_token weighs tokens when no filter cuts:
// max(1, ln(V / 50)), so that the tail's envelope mass is at most 50 times the head's, which
// holds the maximum at weight 1, whatever the logits.
double head_depth(std::size_t vocabulary);

// How far top-p alone weighs tokens for a draw: 1.5 · head_depth, so that the bounds on the rest's
// mass are close enough to decide the kept prefix (at head_depth, on the synthetic logits, they
// straddle top-p 0.9's boundary and every token is weighed).
double top_p_head_depth(std::size_t vocabulary);

// The two uniforms of a token's Philox block `options.step` of (seed, stream): the first draws
// the token, the second decides whether XTC acts (when it is below xtc.probability).
struct TokenUniforms {
  double token;
  double xtc;
};
TokenUniforms token_uniforms(const SamplingOptions& options);

// A token and mirostat's μ for the next one (when mirostat is on): what a stateful sampler keeps.
struct TokenDraw {
  std::int32_t token;
  std::optional<double> mirostat_mu;
  std::optional<double> adaptive_p_average;  // the average after this token, with adaptive-p on
};
TokenDraw draw_token(std::span<const float> logits, const SamplingOptions& options, FilterWorkspace& workspace);

// draw_token on logits not yet checked (options checked): the logits' finiteness is tested in the
// first pass the path makes anyway (min/max, argmax or the penalties' copy), so the check costs
// no pass of its own; an ArgumentError naming `argument` when one is NaN or ±∞.
std::variant<TokenDraw, ArgumentError> checked_draw_token(std::span<const float> logits, const SamplingOptions& options,
                                                          FilterWorkspace& workspace, const std::string& argument = "logits");

inline constexpr std::size_t kMaxLogprobs = 20;

struct TokenLogprob {
  std::int32_t token;
  double logprob;
};

// vLLM's two kinds: of the model's logits, or of the distribution the token was drawn from.
enum class LogprobsMode { kRaw, kProcessed };

struct TokenLogprobs {
  std::int32_t token;
  double logprob;                  // natural log; −∞ never occurs for the drawn token
  std::size_t rank;                // 1 = the most probable, ties to the lower id
  std::vector<TokenLogprob> top;   // the `count` most probable, best first
  std::optional<double> mirostat_mu;
  std::optional<double> adaptive_p_average;
};

// sample_token's token (the same draw), with its log-probability, rank and the `count` (at most
// kMaxLogprobs) most probable tokens: `raw` = log-softmax of the unmodified logits, `processed`
// = of the distribution sampled from (tokens cut by the chain have −∞ and never appear). `raw`,
// when given, holds the logits before mask_negative_infinity replaced their −∞ entries.
TokenLogprobs sample_token_logprobs(std::span<const float> logits, const SamplingOptions& options, std::size_t count,
                                    LogprobsMode mode, FilterWorkspace& workspace, std::span<const float> raw = {});

// The same log-probabilities for a given `token` instead of a drawn one (scoring, as vLLM's prompt
// logprobs): −∞ and rank (kept tokens + 1) when the chain cut it; mirostat's state does not move.
TokenLogprobs token_logprobs(std::span<const float> logits, const SamplingOptions& options, std::int32_t token, std::size_t count,
                             LogprobsMode mode, FilterWorkspace& workspace, std::span<const float> raw = {});

// n in [1, kMaxSamples], and n · V within kMaxNoiseVariates for the methods that draw a variate
// per token.
Check check_draws(double n, std::size_t vocabulary, SamplingMethod method);

}  // namespace sampling_lab
