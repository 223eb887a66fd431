#pragma once
// The per-token sampler's options, each written once in SAMPLING_LAB_OPTIONS. The struct
// SamplingOptions, the argument checks, the table the WebAssembly bindings publish (and the
// TypeScript types, CLI flags and widget sliders generated from it) all come from that list:
// a new option is one line here plus the code that uses it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <variant>

#include "sampling_lab/error.hpp"
#include "sampling_lab/values.hpp"

namespace sampling_lab {

// What an option acts on: the filters (the logits alone), the masks and bias (the logits alone,
// before every stage), the history (an option that reads the tokens so far: a decoder passes
// generatedIds whenever one of these is set), or the random key of the draw.
enum class OptionGroup { kFilter, kMask, kHistory, kRandomKey };

// The stages after logit bias and masks, which `order` arranges: one row each, read by the enum,
// the names, stage_on, the fast path's choice (needs_general_chain) and the table the bindings
// publish (names, presets, the widgets' abbreviations). A stage is named by the option that turns
// it on ("penalties" stands for the three penalties).
// X(id, public name, widget abbreviation, on: when the options turn it on, fast: whether select_kept
//   (the fast path) implements it with these options; both expressions of the options `o`). DRY
//   (as the logit bias) is fast where a cut follows (a_cut_follows): untruncated, the fast path
//   draws by the race, the general chain by the inverse CDF, and DRY alone keeps the chain's tokens.
#define SAMPLING_LAB_STAGES(X)                                                                        \
  X(kPenalties, "penalties", "pen",                                                                   \
    o.penalty_last_n != 0 && ((!o.generated_ids.empty() &&                                            \
                               (o.repetition_penalty != 1.0 || o.presence_penalty != 0.0 || o.frequency_penalty != 0.0)) || \
                              (!o.prompt_ids.empty() && o.repetition_penalty != 1.0)),                \
    true)                                                                                             \
  X(kDry, "dry", "D", o.dry_multiplier > 0.0 && o.dry_penalty_last_n != 0 && !o.generated_ids.empty(),     \
    a_cut_follows(o))                                                                                 \
  X(kTemperature, "temperature", "T", o.temperature != 1.0 || o.dynatemp_range > 0.0, !(o.dynatemp_range > 0.0)) \
  X(kTopK, "topK", "k", o.top_k > 0, true)                                                            \
  X(kTopP, "topP", "p", o.top_p < 1.0, true)                                                          \
  X(kMinP, "minP", "m", o.min_p > 0.0, true)                                                          \
  X(kTypicalP, "typicalP", "τ", o.typical_p < 1.0, false)                                             \
  X(kTopNSigma, "topNSigma", "σ", o.top_n_sigma > 0.0, false)                                         \
  X(kEpsilonCutoff, "epsilonCutoff", "ε", o.epsilon_cutoff > 0.0, true)                               \
  X(kEtaCutoff, "etaCutoff", "η", o.eta_cutoff > 0.0, false)                                          \
  X(kPLess, "pLess", "L", o.p_less > 0, false)                                                        \
  X(kXtc, "xtc", "X", o.xtc_probability > 0.0, false)                                                 \
  X(kMirostat, "mirostat", "μ", o.mirostat_version > 0, false)                                        \
  X(kAdaptiveP, "adaptiveP", "a", o.adaptive_p_target.has_value(), false)

enum class Stage : std::uint8_t {
#define SAMPLING_LAB_STAGE_ENUM(id, name, abbreviation, on, fast) id,
  SAMPLING_LAB_STAGES(SAMPLING_LAB_STAGE_ENUM)
#undef SAMPLING_LAB_STAGE_ENUM
};

inline constexpr std::string_view kStageNames[] = {
#define SAMPLING_LAB_STAGE_NAME(id, name, abbreviation, on, fast) name,
    SAMPLING_LAB_STAGES(SAMPLING_LAB_STAGE_NAME)
#undef SAMPLING_LAB_STAGE_NAME
};
inline constexpr std::size_t kStageCount = std::size(kStageNames);

// The decoding chapter's order (the default), and llama.cpp's default sampler order
// (common/sampling: penalties, DRY, top-nσ, top-k, typical, top-p, min-p, XTC, temperature; it
// has no ε, η or p-less, placed here after min-p; mirostat or adaptive-p, when on, samples last).
inline constexpr Stage kHandbookOrder[] = {
    Stage::kPenalties, Stage::kDry, Stage::kTemperature, Stage::kTopK, Stage::kTopP, Stage::kMinP,
    Stage::kTypicalP, Stage::kTopNSigma, Stage::kEpsilonCutoff, Stage::kEtaCutoff, Stage::kPLess, Stage::kXtc, Stage::kMirostat,
    Stage::kAdaptiveP};
inline constexpr Stage kLlamaCppOrder[] = {
    Stage::kPenalties, Stage::kDry, Stage::kTopNSigma, Stage::kTopK, Stage::kTypicalP, Stage::kTopP, Stage::kMinP,
    Stage::kEpsilonCutoff, Stage::kEtaCutoff, Stage::kPLess, Stage::kXtc, Stage::kTemperature, Stage::kMirostat,
    Stage::kAdaptiveP};

// The range of a list of token ids (each also below the vocabulary size).
inline constexpr Range kTokenIds = closed(0, double(kMaxVocabulary - 1));
// noRepeatNgramSize at most; badWords' ids in all at most (each step compares them with the history's end).
inline constexpr std::int64_t kMaxNgramSize = 1024;
inline constexpr std::size_t kMaxBadWordIds = std::size_t{1} << 16;

// X(field, public name, kind, group, default, range of the value or of each list entry,
//   widget slider, doc)
#define SAMPLING_LAB_OPTIONS(X)                                                                    \
  X(temperature, "temperature", kNumber, kFilter, 1.0, at_least(0), (SliderHint{0, 2, 0.05}),      \
    "Divides the logits before the softmax; 0 = greedy (argmax, ties to the lowest id)")          \
  X(dynatemp_range, "dynatemp.range", kNumber, kFilter, 0.0, closed(0, 1e4), (SliderHint{0, 2, 0.05}), \
    "Dynamic temperature (llama.cpp dynatemp_range): T moves from max(0, T - range) to T + range with (H / ln n)^exponent, H the entropy of the n tokens left at T 1; 0 = off") \
  X(dynatemp_exponent, "dynatemp.exponent", kNumber, kFilter, 1.0, closed(0, 100), (SliderHint{0, 4, 0.1}), \
    "Dynamic temperature's exponent on the normalised entropy H / ln n")                          \
  X(top_k, "topK", kInteger, kFilter, 0, closed(0, double(kMaxVocabulary)), (SliderHint{0, 200, 1}), \
    "Keeps the k most probable tokens; 0 = off")                                                   \
  X(top_p, "topP", kProbability, kFilter, 1.0, open_closed(0, 1), (SliderHint{0.1, 1, 0.01}),      \
    "Nucleus sampling (Holtzman et al. 2020): keeps a token while the mass ranked before it is < p; 1 = off") \
  X(min_p, "minP", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 0.5, 0.01}),           \
    "Keeps tokens with p_i >= minP * p_max (Nguyen et al. 2024); 0 = off")                        \
  X(typical_p, "typicalP", kProbability, kFilter, 1.0, open_closed(0, 1), (SliderHint{0.1, 1, 0.01}), \
    "Locally typical sampling (Meister et al. 2022): keeps the tokens whose surprise -ln p_i is nearest the entropy H until their mass reaches typicalP; 1 = off") \
  X(top_n_sigma, "topNSigma", kNumber, kFilter, 0.0, closed(0, 1e4), (SliderHint{0, 5, 0.1}),      \
    "Top-n-sigma (Tang et al. 2024): keeps logits >= max - n * sigma, sigma the population standard deviation of the logits left; the same set at any temperature; 0 = off") \
  X(epsilon_cutoff, "epsilonCutoff", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 0.02, 0.0005}), \
    "Epsilon sampling (Hewitt et al. 2022): keeps p_i >= epsilon in the distribution left so far, at least one token; 0 = off") \
  X(eta_cutoff, "etaCutoff", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 0.02, 0.0005}), \
    "Eta sampling (Hewitt et al. 2022): keeps p_i >= min(eta, sqrt(eta) * exp(-H)), H the entropy in nats, at least one token; 0 = off") \
  X(xtc_probability, "xtc.probability", kProbability, kFilter, 0.0, closed(0, 1), (SliderHint{0, 1, 0.05}), \
    "XTC, exclude top choices (Weidmann 2024): the chance, drawn from the random key, that XTC acts on this token; 0 = off") \
  X(xtc_threshold, "xtc.threshold", kProbability, kFilter, 0.1, closed(0, 1), (SliderHint{0, 0.5, 0.01}), \
    "XTC removes every token with p_i >= threshold except the least probable of them, when at least two reach it") \
  X(min_keep, "minKeep", kInteger, kFilter, 1, closed(1, double(kMaxVocabulary)), kNoSlider, \
    "At least this many tokens survive every truncating stage (HF min_tokens_to_keep, llama.cpp min_keep); XTC does not act when it would leave fewer") \
  X(mirostat_version, "mirostat.version", kInteger, kFilter, 0, closed(0, 2), (SliderHint{0, 2, 1}), \
    "Mirostat (Basu et al. 2021), version 1 or 2, as in llama.cpp: truncates to a target surprise and samples; 0 = off") \
  X(mirostat_tau, "mirostat.tau", kNumber, kFilter, 5.0, closed(0, 100), (SliderHint{0, 10, 0.1}), \
    "Mirostat's target surprise, in bits")                                                         \
  X(mirostat_eta, "mirostat.eta", kNumber, kFilter, 0.1, closed(0, 1), (SliderHint{0, 1, 0.01}),   \
    "Mirostat's learning rate: mu <- mu - eta * (surprise - tau) after each token")              \
  X(mirostat_mu, "mirostat.mu", kOptional, kFilter, kUnset, closed(0, 1e4), kNoSlider,             \
    "Mirostat's surprise bound mu in bits; null = 2 * tau, its start (a stateful sampler keeps it)") \
  X(p_less, "pLess", kInteger, kFilter, 0, closed(0, 1), (SliderHint{0, 1, 1}),                   \
    "p-less sampling (Tan et al. 2025): keeps p_i >= sum of p_j^2, the collision probability of the distribution left; 1 = on, 0 = off") \
  X(adaptive_p_target, "adaptiveP.target", kOptional, kFilter, kUnset, closed(0, 1), kNoSlider,   \
    "Adaptive-p (llama.cpp PR 17927): samples last from logits 5 - 10 d^2 / (1 + d), d = |p_i - target'| / 0.3, target' = 2 target - average clamped to [0, 1]; null = off") \
  X(adaptive_p_decay, "adaptiveP.decay", kNumber, kFilter, 0.9, closed(0, 0.99), (SliderHint{0, 0.99, 0.01}), \
    "Adaptive-p's EMA decay: average <- (1 - decay) * p + decay * average, p the drawn token's probability before the transform") \
  X(adaptive_p_average, "adaptiveP.average", kOptional, kFilter, kUnset, closed(0, 1), kNoSlider, \
    "Adaptive-p's moving average of drawn probabilities; null = target, its start (a stateful sampler keeps it)") \
  X(order, "order", kArray, kFilter, kNoIds, closed(0, double(kStageCount - 1)), kNoSlider,         \
    "The stages after logit bias and masks, in the order they run; empty = the handbook order")  \
  X(logit_bias_ids, "logitBias.ids", kArray, kMask, kNoIds, kTokenIds, kNoSlider,               \
    "Tokens whose logits get a bias, before every other stage (OpenAI logit_bias)")              \
  X(logit_bias_values, "logitBias.values", kNumberArray, kMask, kNoNumbers, closed_or_masked(-1e4, 1e4), kNoSlider, \
    "The bias added to each of logitBias.ids; -Infinity masks the token, as a -Infinity logit does")                                                    \
  X(allowed_tokens, "allowedTokens", kArray, kMask, kNoIds, kTokenIds, kNoSlider,               \
    "Only these tokens can be drawn (given, it must not be empty); applied after the bias, before every filter") \
  X(allowed_mask, "allowedMask", kBitmask, kMask, kNoMask, closed(-2147483648.0, 4294967295.0), kNoSlider,  \
    "ceil(V / 32) words (Uint32Array or Int32Array, xgrammar's layout): only tokens whose bit is set can be drawn (given, it must allow some token); with allowedTokens") \
  X(banned_tokens, "bannedTokens", kArray, kMask, kNoIds, kTokenIds, kNoSlider,                 \
    "Tokens that are never drawn; applied after the bias, before every filter")                  \
  X(repetition_penalty, "repetitionPenalty", kNumber, kHistory, 1.0, open_closed(0, 1e4), (SliderHint{1, 2, 0.05}), \
    "CTRL (Keskar et al. 2019): divides positive, multiplies negative logits of generated tokens; 1 = off") \
  X(presence_penalty, "presencePenalty", kNumber, kHistory, 0.0, closed(-1e4, 1e4), (SliderHint{-2, 2, 0.1}), \
    "Subtracted once from the logit of every generated token (OpenAI)")                           \
  X(frequency_penalty, "frequencyPenalty", kNumber, kHistory, 0.0, closed(-1e4, 1e4), (SliderHint{-2, 2, 0.1}), \
    "Subtracted once per occurrence of a generated token (OpenAI)")                                \
  X(penalty_last_n, "penaltyLastN", kInteger, kHistory, -1, closed(-1, double(kMaxVocabulary)), kNoSlider, \
    "How many of the last generatedIds the three penalties see, as llama.cpp's penalty_last_n: -1 = all of them, 0 = the penalties are off") \
  X(prompt_ids, "promptIds", kArray, kHistory, kNoIds, kTokenIds, kNoSlider, \
    "The prompt's token ids, with vLLM's scopes: repetitionPenalty also penalises them, presence and frequency count generatedIds only")                        \
  X(dry_multiplier, "dry.multiplier", kNumber, kHistory, 0.0, closed(0, 1e4), (SliderHint{0, 2, 0.05}), \
    "DRY (Weidmann 2024), as in llama.cpp: subtracts multiplier * base^(n - allowedLength) from a token that would extend a repeat of n >= allowedLength tokens; 0 = off") \
  X(dry_base, "dry.base", kNumber, kHistory, 1.75, closed(1, 100), (SliderHint{1, 4, 0.05}),      \
    "DRY's growth per repeated token")                                                             \
  X(dry_allowed_length, "dry.allowedLength", kInteger, kHistory, 2, closed(0, double(kMaxVocabulary)), (SliderHint{0, 8, 1}), \
    "The longest repeat DRY leaves alone")                                                         \
  X(dry_penalty_last_n, "dry.penaltyLastN", kInteger, kHistory, -1, closed(-1, double(kMaxVocabulary)), kNoSlider, \
    "How many of the last generatedIds DRY searches, as llama.cpp's dry_penalty_last_n: -1 = all of them, 0 = DRY is off")                                   \
  X(dry_sequence_breakers, "dry.sequenceBreakers", kArray, kHistory, kNoIds, kTokenIds, kNoSlider, \
    "Token ids that end a repeat: DRY matches no repeat across them and never penalises them")   \
  X(no_repeat_ngram_size, "noRepeatNgramSize", kInteger, kHistory, 0, closed(0, double(kMaxNgramSize)), (SliderHint{0, 6, 1}), \
    "Bans every token that would complete an n-gram already in generatedIds (transformers no_repeat_ngram_size); 0 = off") \
  X(bad_words_ids, "badWords.ids", kArray, kHistory, kNoIds, kTokenIds, kNoSlider,                 \
    "Banned sequences, back to back: a sequence's last id is banned when generatedIds ends with the rest (transformers bad_words_ids)") \
  X(bad_words_lengths, "badWords.lengths", kArray, kHistory, kNoIds, closed(1, double(kMaxBadWordIds)), kNoSlider, \
    "The length of each badWords sequence")                                                       \
  X(generated_ids, "generatedIds", kArray, kHistory, kNoIds, kTokenIds, kNoSlider,                 \
    "Token ids generated so far, which the penalties and DRY see")                                \
  X(seed, "seed", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                             \
    "Philox4x32-10 key: the same seed, stream, step and logits give the same token everywhere")   \
  X(stream, "stream", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                         \
    "Independent stream under one seed, e.g. a request id")                                        \
  X(step, "step", kSeed, kRandomKey, 0, closed(0, kMaxSeed), kNoSlider,                             \
    "Position in the sequence: the token's uniform is Philox block `step` of (seed, stream)")

inline constexpr std::span<const std::int32_t> kNoIds{};
inline constexpr std::span<const float> kNoNumbers{};
inline constexpr std::span<const std::uint32_t> kNoMask{};
inline constexpr std::optional<double> kUnset{};

template <Kind> struct OptionValue;
template <> struct OptionValue<Kind::kNumber> { using type = double; };
template <> struct OptionValue<Kind::kProbability> { using type = double; };
template <> struct OptionValue<Kind::kInteger> { using type = std::int64_t; };
template <> struct OptionValue<Kind::kSeed> { using type = std::uint64_t; };
template <> struct OptionValue<Kind::kArray> { using type = std::span<const std::int32_t>; };
template <> struct OptionValue<Kind::kNumberArray> { using type = std::span<const float>; };
template <> struct OptionValue<Kind::kOptional> { using type = std::optional<double>; };
template <> struct OptionValue<Kind::kBitmask> { using type = std::span<const std::uint32_t>; };

// A distinct token of the penalties' window and how often it occurs there.
struct TokenCount {
  std::int32_t token;
  std::uint32_t count;
};

struct SamplingOptions {
#define SAMPLING_LAB_FIELD(field, name, kind, group, default_value, range, slider, doc) \
  OptionValue<Kind::kind>::type field = default_value;
  SAMPLING_LAB_OPTIONS(SAMPLING_LAB_FIELD)
#undef SAMPLING_LAB_FIELD
  // The counts of penalty_window(generated_ids, penalty_last_n), when the caller keeps them as
  // tokens arrive (TokenHistory); otherwise the penalties count generated_ids on each call.
  std::optional<std::span<const TokenCount>> generated_counts;
  // The tokens noRepeatNgramSize bans after generated_ids, when the caller indexes them as tokens
  // arrive (TokenHistory); otherwise they are searched for in generated_ids on each call.
  std::optional<std::span<const std::int32_t>> ngram_banned;
};

// Whether the fast path's cuts (or greedy) follow the logits' modifiers: its draw is then the
// general chain's, token for token, so that DRY and the logit bias may take it.
inline bool a_cut_follows(const SamplingOptions& o) {
  return o.top_k > 0 || o.top_p < 1.0 || o.min_p > 0.0 || o.epsilon_cutoff > 0.0 || o.temperature == 0.0;
}

// A stage's row (SAMPLING_LAB_STAGES).
struct StageSpec {
  Stage stage;
  std::string_view name;
  std::string_view abbreviation;  // the widgets' one-glyph label
  bool (*on)(const SamplingOptions&);
  bool (*fast)(const SamplingOptions&);
};

inline constexpr StageSpec kStageSpecs[] = {
#define SAMPLING_LAB_STAGE_SPEC(id, name, abbreviation, on, fast)                                  \
  StageSpec{Stage::id, name, abbreviation, [](const SamplingOptions& o) { return bool(on); }, \
            []([[maybe_unused]] const SamplingOptions& o) { return bool(fast); }},
    SAMPLING_LAB_STAGES(SAMPLING_LAB_STAGE_SPEC)
#undef SAMPLING_LAB_STAGE_SPEC
};

struct OptionSpec {
  std::string_view name;  // public camelCase name, e.g. "topP"
  Kind kind;              // kArray: a list of token ids (or stages); kNumberArray: of numbers
  OptionGroup group;
  double default_value;   // lists default to empty, optionals to unset (NaN)
  Range range;
  SliderHint slider;
  std::string_view doc;
};

constexpr double default_number(double value) { return value; }
constexpr double default_number(std::span<const std::int32_t>) { return 0.0; }
constexpr double default_number(std::span<const float>) { return 0.0; }
constexpr double default_number(std::span<const std::uint32_t>) { return 0.0; }
constexpr double default_number(std::optional<double>) { return std::numeric_limits<double>::quiet_NaN(); }

#define SAMPLING_LAB_SPEC(field, name, kind, group, default_value, range, slider, doc) \
  OptionSpec{name, Kind::kind, OptionGroup::group, default_number(default_value), range, slider, doc},
inline constexpr OptionSpec kOptionSpecs[] = {SAMPLING_LAB_OPTIONS(SAMPLING_LAB_SPEC)};
#undef SAMPLING_LAB_SPEC

constexpr std::size_t count_options(Kind kind) {
  std::size_t count = 0;
  for (const auto& spec : kOptionSpecs) count += spec.kind == kind;
  return count;
}
// Scalars cross the boundary as one double each (NaN for an unset optional), id lists and
// bitmasks as one span of 32-bit words each and number lists as one span of floats each, each
// in table order.
inline constexpr std::size_t kListOptions = count_options(Kind::kArray) + count_options(Kind::kBitmask);
inline constexpr std::size_t kNumberListOptions = count_options(Kind::kNumberArray);
inline constexpr std::size_t kScalarOptions = std::size(kOptionSpecs) - kListOptions - kNumberListOptions;

struct RawOptions {
  std::span<const double> scalars;  // kScalarOptions values
  std::span<const std::span<const std::int32_t>, kListOptions> lists;
  std::span<const std::span<const float>, kNumberListOptions> number_lists;
};

// Whether an option of this kind crosses among the id lists.
constexpr bool is_id_list(Kind kind) { return kind == Kind::kArray || kind == Kind::kBitmask; }

// Words of a bitmask over `vocabulary` tokens, and the most any mask holds.
constexpr std::size_t mask_words(std::size_t vocabulary) { return (vocabulary + 31) / 32; }
inline constexpr std::size_t kMaxMaskWords = mask_words(kMaxVocabulary);

// Options as they arrive from JavaScript: checks every value by its kind before narrowing it.
std::variant<SamplingOptions, ArgumentError> options_from_raw(RawOptions raw);

// Every option within its range, every listed id inside a vocabulary of `vocabulary`, as many
// bias values as biased ids, badWords' lengths adding up to its ids, some token left by the
// masks, and an order that names each stage once, holds every stage that is on and ends with the
// stage that samples (mirostat or adaptive-p) if it has one.
Check check_options(const SamplingOptions& options, std::size_t vocabulary);

// What the lists' lengths alone decide, before their values are read (so a mismatch of a million
// entries is refused without copying them): as many bias values as biased ids, an allowedMask of
// ceil(vocabulary / 32) words or none, and at most kMaxBadWordIds badWords ids.
Check check_option_lengths(std::size_t bias_ids, std::size_t bias_values, std::size_t mask_words, std::size_t bad_word_ids,
                           std::size_t vocabulary);

struct StageOrder {
  std::array<Stage, kStageCount> stages{};
  std::size_t size = 0;
  std::span<const Stage> view() const { return std::span(stages).first(size); }
};

// The order the options ask for: theirs, or the handbook's when they give none.
StageOrder stage_order(const SamplingOptions& options);

// Whether a stage does anything with these options.
bool stage_on(Stage stage, const SamplingOptions& options);

}  // namespace sampling_lab
