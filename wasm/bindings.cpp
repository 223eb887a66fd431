// The sampler module's bindings (sampling-lab-core), with embind: every row of boundary.hpp is
// bound here, typed arrays in and out as views of the module's memory. They only translate;
// every check and every number comes from core/. No experiments: those are
// experiment_bindings.cpp's, linked only into sampling-lab-experiments.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <optional>
#include <vector>

#include "boundary.hpp"
#include "sampling_lab/beam_search.hpp"
#include "sampling_lab/distribution.hpp"
#include "sampling_lab/filters.hpp"
#include "sampling_lab/history.hpp"
#include "sampling_lab/kernels.hpp"
#include "sampling_lab/masked_logits.hpp"
#include "sampling_lab/options.hpp"
#include "sampling_lab/rng.hpp"
#include "sampling_lab/samplers.hpp"
#include "sampling_lab/speculative_decoding.hpp"
#include "sampling_lab/synthetic.hpp"

// embind's __getTypeName names a type it cannot name (this build has no RTTI) by its address, with
// sprintf("%p"): the only text this module formats with printf. Defined here (as each name LLVM
// may call it by), musl's printf (3.1 KB of the module) is not linked. Other formats write nothing.
namespace {
int address_text(char* out, const char* format, va_list arguments) {
  out[0] = '\0';
  if (format[0] != '%' || format[1] != 'p' || format[2] != '\0') return 0;
  auto address = std::uintptr_t(va_arg(arguments, void*));
  char digits[2 * sizeof address];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[address & 15];
    address >>= 4;
  } while (address != 0);
  int length = 0;
  out[length++] = '0';
  out[length++] = 'x';
  while (count > 0) out[length++] = digits[--count];
  out[length] = '\0';
  return length;
}
}  // namespace

#define SAMPLING_LAB_ADDRESS_SPRINTF(name)                 \
  extern "C" int name(char* out, const char* format, ...) { \
    va_list arguments;                                      \
    va_start(arguments, format);                            \
    const int length = address_text(out, format, arguments); \
    va_end(arguments);                                      \
    return length;                                          \
  }
SAMPLING_LAB_ADDRESS_SPRINTF(sprintf)
SAMPLING_LAB_ADDRESS_SPRINTF(siprintf)
SAMPLING_LAB_ADDRESS_SPRINTF(__small_sprintf)
#undef SAMPLING_LAB_ADDRESS_SPRINTF

namespace {

using emscripten::val;
using sampling_lab::boundary::failure;
using sampling_lab::boundary::ok;
using sampling_lab::boundary::view;
using sampling_lab::ArgumentError;
using sampling_lab::Kind;

struct ScalarCheck {
  double value;
  Kind kind;
  sampling_lab::Range range;
  const char* name;
};

// The first of `checks` to fail; none when all pass.
sampling_lab::Check check_scalars(std::initializer_list<ScalarCheck> checks) {
  for (const auto& [value, kind, range, name] : checks) {
    if (auto error = sampling_lab::check_scalar(value, kind, range, name)) return error;
  }
  return std::nullopt;
}

sampling_lab::Check check_count(double value, const char* name, double max) {
  return sampling_lab::check_scalar(value, Kind::kInteger, sampling_lab::closed(1, max), name);
}

// Where the wrapper writes vocabulary-sized inputs: the logits (or p), a second distribution q,
// and the caller's resident logits buffer.
enum InputSlot { kPrimary, kSecondary, kResident, kInputSlots };
// Where it writes the options' lists: token ids, their offsets, and the offsets of the number
// lists (whose values go to numberLists()); and a call's own tokens (drafts, end-of-sequence ids).
enum IdSlot { kIds, kIdOffsets, kNumberOffsets, kTokens, kIdSlots };

// An object with one field.
val named(const char* name, const val& value) {
  val out = val::object();
  out.set(name, value);
  return out;
}

// Sets `name` on `out` when the value is set.
void set_optional(val& out, const char* name, const std::optional<double>& value) {
  if (value) out.set(name, *value);
}

// The results with named fields (boundary.hpp's value objects).
// val has no default constructor, which value_object needs.
struct DistributionReply {
  val probs = val::undefined();
  double kept, kept_mass, entropy_bits, top_prob;
};
struct DistanceReply {
  double tv, kl, overlap;
};
struct RangeReply {
  double min, max;
};
struct MemoryStats {
  double heap_in_use, memory_bytes;
};
struct SpeculativeReply {
  val tokens = val::undefined(), acceptance = val::undefined();
  double accepted, token;
  bool from_residual;
  double draft;
};
struct BeamStepReply {
  val beam_indices = val::undefined(), tokens = val::undefined();
  bool done;
};
struct HypothesisReply {
  val tokens = val::undefined();
  double log_prob, score;
};
struct BeamParams {
  double num_beams, length_penalty, num_return_sequences;
  bool early_stopping, stochastic;
  double seed, stream, max_new_tokens;
};

// A stateful sampler's history in WebAssembly memory (sampling_lab::TokenHistory): tokens are
// appended one at a time, so a step never copies the history.
class History {
 public:
  // Both as the options give them (checked by the caller's options).
  History(double penalty_last_n, double ngram_size) : history_(std::int64_t(penalty_last_n), std::int64_t(ngram_size)) {}

  // A view of `length` ids to fill with a starting history, which start() then takes.
  val start_buffer(double length) {
    if (auto error = sampling_lab::check_length(length, "history", double(sampling_lab::kMaxHistory))) return failure(*error);
    if (auto error = sampling_lab::check_memory(std::size_t(length) * 2 * sizeof(std::int32_t), "history")) {
      return failure(*error);
    }
    pending_.assign(std::size_t(length), 0);
    return view(pending_);
  }

  void start() {
    history_.assign(pending_);
    std::vector<std::int32_t>().swap(pending_);
  }

  // Token ids are checked by the caller (integers in [0, maxVocabulary)).
  val accept(double token) {
    if (auto error = history_.accept(std::int32_t(token))) return failure(*error);
    return ok();
  }

  // Becomes a copy of `other` (history and counts), without the history crossing to JavaScript.
  val copy_from(const History& other) {
    const std::size_t bytes = (other.history_.tokens().size() + other.history_.counts().size() * 2) * sizeof(std::int32_t);
    if (auto error = sampling_lab::check_memory(bytes, "history")) return failure(*error);
    history_ = other.history_;
    return ok();
  }

  // The whole history, valid until the next accept.
  val tokens() const { return view(history_.tokens()); }

  const sampling_lab::TokenHistory& history() const { return history_; }

 private:
  sampling_lab::TokenHistory history_;
  std::vector<std::int32_t> pending_;
};

// A beam search in WebAssembly memory (sampling_lab::BeamSearch): the engine starts it and feeds
// it rows; finish() answers from here.
class BeamSearchHandle {
 public:
  // The best hypotheses as (tokens view, logProb, score), each view valid until the next finish().
  val finish() {
    if (!search_) return failure({"search", "the search was not started"});
    auto finished = search_->finish();
    if (auto* error = std::get_if<ArgumentError>(&finished)) return failure(*error);
    hypotheses_ = std::move(std::get<std::vector<sampling_lab::Hypothesis>>(finished));
    val list = val::array();
    for (auto& hypothesis : hypotheses_) {
      list.call<void>("push", HypothesisReply{view(hypothesis.tokens), hypothesis.log_prob, hypothesis.score});
    }
    val out = val::object();
    out.set("hypotheses", list);
    return out;
  }

  std::optional<sampling_lab::BeamSearch>& search() { return search_; }

 private:
  std::optional<sampling_lab::BeamSearch> search_;
  std::vector<sampling_lab::Hypothesis> hypotheses_;
};

// One engine per module instance. The wrapper writes inputs straight into its buffers through
// typed-array views, so vocabulary-sized arrays cross the boundary with a single copy.
//
// Sampling options of `rows` calls cross as the option table lays them out (optionTable()):
// option_values() holds rows × kScalarOptions doubles, ints(kIds) every row's id lists back to
// back and ints(kIdOffsets) their rows × kListOptions + 1 offsets; number_lists() and
// ints(kNumberOffsets) the same for the number lists.
class Engine {
 public:
  // A view of `length` floats in an input slot, or an error naming `name` when that is too many.
  // Views are detached by memory growth: the caller fills them before any other call.
  val floats(InputSlot slot, double length, const std::string& name) {
    // The same large input again (a batch's rows, a row that is no logitsBuffer) keeps its memory:
    // handing it back and growing it again zeroed tens of megabytes a call.
    if (slot == kPrimary && length != double(inputs_[kPrimary].size())) release_large_buffers();
    return view_of(inputs_[slot], length, name);
  }

  // Id lists of every option and row together: up to a vocabulary per list.
  val ints(IdSlot slot, double length, const std::string& name) {
    const double most = double(sampling_lab::kMaxVocabulary) * (slot == kIds ? double(sampling_lab::kListOptions) : 1.0);
    return view_of(int_inputs_[slot], length, name, most);
  }

  val option_values(double rows) {
    if (auto error = check_count(rows, "options", double(sampling_lab::kMaxBatchRows))) return failure(*error);
    return view_of(option_values_, rows * double(sampling_lab::kScalarOptions), "options");
  }

  // A count that changes whenever the option buffers are handed back to the allocator: views of
  // them the caller kept are valid only while it is unchanged (and the memory has not grown).
  val epoch() { return view(std::span(&epoch_, 1)); }

  val number_lists(double length) { return view_of(number_lists_, length, "logitBias"); }

  // The caller's resident logits: sizes the buffers for `vocabulary` tokens first, so sampling
  // then never grows memory (and never detaches this view).
  val resident(double vocabulary) {
    if (sampling_lab::boundary::reporting()) return failure(sampling_lab::boundary::kReentered);
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return failure(*error);
    const auto size = std::size_t(vocabulary);
    // About 44 bytes a token: the logits, the probabilities, the filters' and cover counts' scratch.
    if (size > reserved_) {
      if (auto error = sampling_lab::check_memory(size * 44, "vocabSize")) return failure(*error);
    }
    reserved_ = size;
    release_large_buffers();
    inputs_[kResident].reserve(size);
    output_.reserve(size);
    filter_workspace_.reserve(size);
    cover_workspace_.reserve(size);
    inputs_[kResident].resize(size);
    return view(inputs_[kResident]);
  }

  // Later calls read their logits from this input slot.
  void use(InputSlot slot) {
    if (slot == kResident) release_large_buffers();
    current_ = &inputs_[slot];
  }

  // −∞ entries add nothing.
  val log_sum_exp(double temperature) {
    if (auto error = sampling_lab::check_maskable_logits(*current_, "logits")) return failure(*error);
    if (auto error = sampling_lab::check_scalar(temperature, Kind::kNumber, sampling_lab::above(0), "temperature")) {
      return failure(*error);
    }
    val out = val::object();
    out.set("value", sampling_lab::log_sum_exp(*current_, temperature));
    return out;
  }

  // The current logits and the options written for them as a batch of one row, with the −∞
  // logits masked (valid until the next call).
  std::variant<sampling_lab::MaskedLogits, ArgumentError> single_row_input() {
    if (auto error = sampling_lab::check_entries(current_->size(), "logits")) return *error;
    auto options = row_options(0, 1, current_->size());
    if (auto* error = std::get_if<ArgumentError>(&options)) return *error;
    return sampling_lab::mask_negative_infinity(*current_, std::get<sampling_lab::SamplingOptions>(options),
                                                filter_workspace_.masked, "logits");
  }

  // The options of one row for a draw that tests the logits' finiteness itself (checked_draw_token).
  std::variant<sampling_lab::SamplingOptions, ArgumentError> draw_options() {
    if (auto error = sampling_lab::check_entries(current_->size(), "logits")) return *error;
    return row_options(0, 1, current_->size());
  }

  // token, mirostatMu, adaptivePAverage (NaN when unset).
  static val token_reply(const std::variant<sampling_lab::TokenDraw, ArgumentError>& outcome) {
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return failure(*error);
    const auto& drawn = std::get<sampling_lab::TokenDraw>(outcome);
    val out = val::object();
    out.set("token", drawn.token);
    set_optional(out, "mirostatMu", drawn.mirostat_mu);
    set_optional(out, "adaptivePAverage", drawn.adaptive_p_average);
    return out;
  }

  // The options written as a batch of one row, checked for a vocabulary of `vocabulary` tokens.
  val check_options(double vocabulary) {
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return failure(*error);
    auto options = row_options(0, 1, std::size_t(vocabulary));
    if (auto* error = std::get_if<ArgumentError>(&options)) return failure(*error);
    return ok();
  }

  // probs view, kept, keptMass, entropyBits, topProb.
  val distribution() {
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return failure(*error);
    const auto& [logits, options] = std::get<sampling_lab::MaskedLogits>(input);
    output_.resize(logits.size());
    const auto result = sampling_lab::filter_distribution(logits, options, output_, filter_workspace_);
    if (auto error = sampling_lab::check_bans_left_a_token(options, filter_workspace_)) return failure(*error);
    return val(DistributionReply{view(output_), double(result.kept), result.kept_mass, result.entropy_bits, result.top_prob});
  }

  // The cutBy view, then each stage that is on as (filter text, kept); cutBy[i] names the stage
  // that cut token i (0 = kept, else 1 + its index in stageTable().stages; masks = masksCode).
  val stages() {
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return failure(*error);
    const auto& [logits, options] = std::get<sampling_lab::MaskedLogits>(input);
    cut_by_.resize(logits.size());
    const auto trace = sampling_lab::filter_stages(logits, options, filter_workspace_, cut_by_);
    val stages = val::array();
    for (const auto& stage : trace) {
      val entry = val::object();
      entry.set("filter", std::string(stage.filter));
      entry.set("kept", double(stage.kept));
      stages.call<void>("push", entry);
    }
    val out = val::object();
    out.set("cutBy", view(cut_by_));
    out.set("stages", stages);
    return out;
  }

  val sample_token() {
    auto options = draw_options();
    if (auto* error = std::get_if<ArgumentError>(&options)) return failure(*error);
    return token_reply(sampling_lab::checked_draw_token(*current_, std::get<sampling_lab::SamplingOptions>(options), filter_workspace_));
  }

  // The per-token path, with nothing built per call: the token as a number, or −1 with the
  // error kept for lastError(). The options read here are kept for sample_token_at_step.
  double sample_token_number() {
    auto options = draw_options();
    step_options_.reset();
    if (auto* error = std::get_if<ArgumentError>(&options)) return failed(*error);
    step_options_ = std::get<sampling_lab::SamplingOptions>(options);
    return drawn_number(sampling_lab::checked_draw_token(*current_, *step_options_, filter_workspace_));
  }

  // The last options again with another step, for generation loops: the caller promises that
  // only the step changed and that the options hold no lists (so no vocabulary check changes).
  double sample_token_at_step(double step) {
    if (!step_options_) return failed({"options", "no options to reuse"});
    if (auto error = sampling_lab::check_entries(current_->size(), "logits")) return failed(*error);
    if (auto error = sampling_lab::check_scalar(step, Kind::kSeed, {}, "step")) return failed(*error);
    step_options_->step = std::uint64_t(step);
    return drawn_number(sampling_lab::checked_draw_token(*current_, *step_options_, filter_workspace_));
  }

  val last_error() const { return failure(last_error_); }

  // sample_token with a stateful sampler's history as generatedIds (and its penalty counts).
  val sample_with_history(const History& history) {
    const std::vector<float>& logits = *current_;
    auto parsed = draw_options();
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return failure(*error);
    auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    history.history().apply_to(options);
    // The history's ids are checked as they arrive, but only against the largest vocabulary.
    if (const auto largest = history.history().largest_token(); largest >= 0 && std::size_t(largest) >= logits.size()) {
      return failure({"logits", "the sampler's history holds token " + std::to_string(largest) + ", outside these " +
                                 std::to_string(logits.size()) + " logits"});
    }
    return token_reply(sampling_lab::checked_draw_token(logits, options, filter_workspace_));
  }

  // The token with vLLM-style logprobs: `count` in [0, 20]; `processed` or raw; `token` −1 for the
  // drawn token, else that token's (scored, no draw). Replies token, logprob, rank, mirostatMu,
  // adaptivePAverage, then (token, logprob) of each top entry.
  val sample_token_logprobs(double count, bool processed, double token) {
    const std::vector<float>& logits = *current_;
    if (auto error = sampling_lab::check_scalar(count, Kind::kInteger, sampling_lab::closed(0, double(sampling_lab::kMaxLogprobs)), "logprobs")) {
      return failure(*error);
    }
    if (auto error = sampling_lab::check_scalar(token, Kind::kInteger, sampling_lab::closed(-1, double(logits.size()) - 1), "token")) {
      return failure(*error);
    }
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return failure(*error);
    const auto& masked = std::get<sampling_lab::MaskedLogits>(input);
    const auto mode = processed ? sampling_lab::LogprobsMode::kProcessed : sampling_lab::LogprobsMode::kRaw;
    return logprobs_reply(token < 0 ? sampling_lab::sample_token_logprobs(masked.logits, masked.options, std::size_t(count), mode, filter_workspace_, logits)
                                    : sampling_lab::token_logprobs(masked.logits, masked.options, std::int32_t(token), std::size_t(count), mode,
                                                                   filter_workspace_, logits));
  }

  static val logprobs_reply(const sampling_lab::TokenLogprobs& drawn) {
    val out = val::object();
    out.set("token", drawn.token);
    out.set("logprob", drawn.logprob);
    out.set("rank", double(drawn.rank));
    set_optional(out, "mirostatMu", drawn.mirostat_mu);
    set_optional(out, "adaptivePAverage", drawn.adaptive_p_average);
    val top = val::array();
    for (const auto& entry : drawn.top) {
      val item = val::object();
      item.set("token", entry.token);
      item.set("logprob", entry.logprob);
      top.call<void>("push", item);
    }
    out.set("top", top);
    return out;
  }

  // Rows of equal length, back to back in the current input.
  val sample_batch(double rows) {
    const std::vector<float>& logits = *current_;
    if (auto error = check_count(rows, "logitsRows", double(sampling_lab::kMaxBatchRows))) return failure(*error);
    const auto row_count = std::size_t(rows);
    if (logits.size() % row_count != 0) return failure({"logitsRows", "logitsRows must all have the same length"});
    const std::size_t vocabulary = logits.size() / row_count;
    tokens_.resize(row_count);
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::span<const float> row_logits(logits.data() + r * vocabulary, vocabulary);
      const auto in_row = [r](const ArgumentError& error) {
        return failure({error.argument, "row " + std::to_string(r) + ": " + error.message});
      };
      if (auto error = sampling_lab::check_entries(vocabulary, "logitsRows")) return in_row(*error);
      auto options = row_options(r, row_count, vocabulary);
      if (auto* error = std::get_if<ArgumentError>(&options)) return in_row(*error);
      const auto drawn = sampling_lab::checked_draw_token(row_logits, std::get<sampling_lab::SamplingOptions>(options),
                                                          filter_workspace_, "logitsRows");
      if (auto* error = std::get_if<ArgumentError>(&drawn)) return in_row(*error);
      tokens_[r] = std::get<sampling_lab::TokenDraw>(drawn).token;
    }
    return named("tokens", view(tokens_));
  }

  // Whether n draws of `method` from `vocabulary` values are within the limits: before any copy.
  val check_draws(const std::string& method_name, double n, double vocabulary) {
    const auto method = sampling_lab::parse_method(method_name);
    if (!method) return failure({"method", "method must be inverse-cdf, gumbel-max, exponential-race or alias"});
    if (auto error = sampling_lab::check_draws(n, std::size_t(vocabulary), *method)) return failure(*error);
    return ok();
  }

  // n draws by one method; temperature, seed and stream come from the option values.
  val sample(const std::string& method_name, double n, bool is_probs, const val& on_progress) {
    const std::vector<float>& values = *current_;
    const auto method = sampling_lab::parse_method(method_name);
    if (!method) return failure({"method", "method must be inverse-cdf, gumbel-max, exponential-race or alias"});
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, "probs")
                              : sampling_lab::check_logits(values, "logits")) {
      return failure(*error);
    }
    auto parsed = row_options(0, 1, values.size());
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return failure(*error);
    const auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    if (auto error = sampling_lab::check_draws(n, values.size(), *method)) return failure(*error);
    if (auto error = sampling_lab::check_memory(std::size_t(n) * sizeof(std::int32_t), "n")) return failure(*error);
    tokens_.resize(std::size_t(n));
    const sampling_lab::RandomKey key{options.seed, options.stream};
    const auto progress = sampling_lab::boundary::progress_of(on_progress);
    const bool completed = is_probs
        ? sampling_lab::sample_probs(values, *method, key, tokens_, sampler_workspace_, progress)
        : sampling_lab::sample_logits(values, options.temperature, *method, key, tokens_, sampler_workspace_, progress);
    if (!completed) return failure(sampling_lab::boundary::kStopped);
    return named("draws", view(tokens_));
  }

  val random_words(double seed, double stream, double n) {
    for (const auto& [value, name] : {std::pair{seed, "seed"}, std::pair{stream, "stream"}}) {
      if (auto error = sampling_lab::check_scalar(value, Kind::kSeed, {}, name)) return failure(*error);
    }
    if (auto error = check_count(n, "n", double(sampling_lab::kMaxSamples))) return failure(*error);
    sampling_lab::Philox rng{std::uint64_t(seed), std::uint64_t(stream)};
    words_.resize(std::size_t(n));
    for (auto& word : words_) word = rng.next_u32();
    return named("words", view(words_));
  }

  val cover_count(double mass, double temperature, bool is_probs) {
    const std::vector<float>& values = *current_;
    const char* name = is_probs ? "probs" : "logits";
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, name)
                              : sampling_lab::check_logits(values, name)) {
      return failure(*error);
    }
    if (auto error = sampling_lab::check_mass(mass, "mass")) return failure(*error);
    if (auto error = sampling_lab::check_temperature(temperature)) return failure(*error);
    const std::size_t count =
        is_probs ? sampling_lab::cover_count(values, mass, cover_workspace_)
                 : sampling_lab::cover_count_logits(values, temperature, mass, cover_workspace_);
    return named("count", val(double(count)));
  }

  // Room for p and then q, `length` doubles each: distances are taken unrounded to float32.
  val distance_inputs(double length) {
    if (auto error = sampling_lab::check_length(length, "p")) return failure(*error);
    return view_of(distance_inputs_, 2.0 * length, "p", 2.0 * double(sampling_lab::kMaxVocabulary));
  }

  // tv, kl, overlap of the two halves of distance_inputs.
  val distance() {
    const std::span<const double> both = distance_inputs_;
    const auto p = both.first(both.size() / 2);
    const auto q = both.subspan(both.size() / 2);
    if (auto error = sampling_lab::check_distance_inputs(p, q)) return failure(*error);
    const auto d = sampling_lab::distances(p, q);
    return val(DistanceReply{d.tv, d.kl, d.overlap});
  }

  // min, max in one pass: min_max tests finiteness as it goes.
  val range() {
    if (auto error = sampling_lab::check_entries(current_->size(), "values")) return failure(*error);
    const auto range = sampling_lab::kernels::min_max(*current_);
    if (!range.finite) return failure(*sampling_lab::check_logits(*current_, "values"));
    return val(RangeReply{range.min, range.max});
  }

  // A number, not a reply object: the floor should cost one read and a call, nothing more.
  // (lab.sum has checked the length.)
  float sum() { return sampling_lab::kernels::lane_sum(*current_); }

  val ranking() {
    if (auto error = sampling_lab::check_logits(*current_, "values")) return failure(*error);
    // The radix sort's keys and ids, twice, and the result.
    if (auto error = sampling_lab::check_memory(current_->size() * 5 * sizeof(std::uint32_t), "values")) return failure(*error);
    ranking_ = sampling_lab::ranking(*current_);
    return named("order", view(ranking_));
  }

  // Speculative verification of k drafts: k·(γ + 1) target rows in the current input, k·γ draft
  // rows in the secondary one, the k·γ draft tokens in ints(kTokens), the options as one row;
  // draft_stream NaN = the default for the options' stream. Replies tokens, acceptance, accepted,
  // token, fromResidual, draft.
  val speculative_verify(double draft_stream, bool point_drafts, double drafts) {
    if (auto error = check_scalars({{drafts, Kind::kInteger, sampling_lab::closed(1, double(sampling_lab::kMaxDrafts)), "drafts"}})) {
      return failure(*error);
    }
    const sampling_lab::SpeculativeInput sizes{*current_, inputs_[kSecondary], int_inputs_[kTokens], 0, point_drafts, std::size_t(drafts)};
    const auto vocabulary = sampling_lab::speculative_vocabulary(sizes);
    if (auto* error = std::get_if<ArgumentError>(&vocabulary)) return failure(*error);
    auto parsed = row_options(0, 1, std::get<std::size_t>(vocabulary));
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return failure(*error);
    const auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    if (!std::isnan(draft_stream)) {
      if (auto error = sampling_lab::check_scalar(draft_stream, Kind::kSeed, {}, "draftStream")) return failure(*error);
    }
    sampling_lab::SpeculativeInput input = sizes;
    input.draft_stream = std::isnan(draft_stream) ? sampling_lab::draft_stream(options.stream) : std::uint64_t(draft_stream);
    auto verified = sampling_lab::speculative_verify(input, options, speculative_workspace_);
    if (auto* error = std::get_if<ArgumentError>(&verified)) return failure(*error);
    auto& result = speculative_result_ = std::move(std::get<sampling_lab::SpeculativeResult>(verified));
    return val(SpeculativeReply{view(result.tokens), view(result.acceptance), double(result.accepted), double(result.token),
                                result.from_residual, double(result.draft)});
  }

  // gamma 'auto''s choice: the timed target passes as (positions, cost) pairs in the secondary input.
  val best_gamma(double acceptance, double draft_cost, double max_gamma) {
    if (auto error = check_scalars({{acceptance, Kind::kProbability, sampling_lab::closed(0, 1), "acceptance"},
                                    {draft_cost, Kind::kNumber, sampling_lab::closed(0, 1e12), "draftCost"},
                                    {max_gamma, Kind::kInteger, sampling_lab::closed(1, double(sampling_lab::kMaxDraftTokens)), "maxGamma"}})) {
      return failure(*error);
    }
    const std::span<const float> passes = inputs_[kSecondary];
    if (passes.size() % 2 != 0 || passes.size() > 2 * sampling_lab::kMaxTimedPasses) {
      return failure({"passes", "passes must hold at most 1024 (positions, cost) pairs, back to back"});
    }
    for (std::size_t i = 0; i < passes.size(); i += 2) {
      if (!(passes[i] >= 1 && passes[i] <= 1e9 && passes[i + 1] >= 0 && passes[i + 1] <= 1e12)) {
        return failure({"passes", "pass " + std::to_string(i / 2) + " is not (positions ≥ 1, a finite cost ≥ 0)"});
      }
    }
    return named("value", val(double(sampling_lab::best_gamma(acceptance, draft_cost, passes, std::size_t(max_gamma)))));
  }

  // Prompt lookup over the context in ints(kTokens); n and the proposal's length in [1, kMaxDraftTokens],
  // drafts in [1, kMaxDrafts]. Replies the matches as (from, count, ngram, at), back to back.
  val prompt_lookup(double ngram_max, double ngram_min, double max_tokens, double drafts) {
    const auto limit = double(sampling_lab::kMaxDraftTokens);
    if (auto error = check_scalars({{ngram_min, Kind::kInteger, sampling_lab::closed(1, limit), "ngramMin"},
                                    {ngram_max, Kind::kInteger, sampling_lab::closed(ngram_min, limit), "ngramMax"},
                                    {max_tokens, Kind::kInteger, sampling_lab::closed(1, limit), "gamma"},
                                    {drafts, Kind::kInteger, sampling_lab::closed(1, double(sampling_lab::kMaxDrafts)), "drafts"}})) {
      return failure(*error);
    }
    const std::span<const std::int32_t> context = int_inputs_[kTokens];
    if (context.size() > sampling_lab::kMaxLookupContext) return failure({"context", "context must hold at most 131072 tokens"});
    sampling_lab::prompt_lookup(context, std::size_t(ngram_max), std::size_t(ngram_min), std::size_t(max_tokens), lookup_, std::size_t(drafts));
    lookup_matches_.clear();
    for (const auto& match : lookup_.matches) {
      lookup_matches_.insert(lookup_matches_.end(), {std::int32_t(match.from), std::int32_t(match.count), std::int32_t(match.ngram), std::int32_t(match.at)});
    }
    return named("matches", view(lookup_matches_));
  }

  // Starts `handle`'s search with these options and the end-of-sequence ids in ints(kTokens);
  // length_penalty NaN = unset.
  val start_beam_search(BeamSearchHandle& handle, const BeamParams& params) {
    sampling_lab::BeamSearchOptions options;
    options.num_beams = params.num_beams;
    if (!std::isnan(params.length_penalty)) options.length_penalty = params.length_penalty;
    options.eos_token_ids = int_inputs_[kTokens];
    options.num_return_sequences = params.num_return_sequences;
    options.early_stopping = params.early_stopping;
    options.stochastic = params.stochastic;
    options.seed = params.seed;
    options.stream = params.stream;
    options.max_new_tokens = params.max_new_tokens;
    auto created = sampling_lab::BeamSearch::create(options);
    if (auto* error = std::get_if<ArgumentError>(&created)) return failure(*error);
    handle.search().emplace(std::move(std::get<sampling_lab::BeamSearch>(created)));
    return ok();
  }

  // One step of `handle`'s search on the rows in the current input, or (`ending`) the last step's
  // beams at the places in ints(kTokens) ended there (finish_beams): beamIndices, tokens, done;
  // the views are valid until its next step.
  val beam_step(BeamSearchHandle& handle, bool ending) {
    if (!handle.search()) return failure({"search", "the search was not started"});
    const auto stepped = ending ? handle.search()->finish_beams(int_inputs_[kTokens]) : handle.search()->step(*current_);
    if (auto* error = std::get_if<ArgumentError>(&stepped)) return failure(*error);
    const auto& step = std::get<sampling_lab::BeamStep>(stepped);
    return val(BeamStepReply{view(step.beam_indices), view(step.tokens), step.done});
  }

  val synthetic_logits(double vocabulary, double seed) {
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return failure(*error);
    if (auto error = sampling_lab::check_scalar(seed, Kind::kSeed, {}, "seed")) return failure(*error);
    output_ = sampling_lab::synthetic_logits(std::size_t(vocabulary), std::uint64_t(seed));
    return named("logits", view(output_));
  }

 private:
  double failed(ArgumentError error) {
    last_error_ = std::move(error);
    return -1.0;
  }

  double drawn_number(const std::variant<sampling_lab::TokenDraw, ArgumentError>& outcome) {
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return failed(*error);
    return double(std::get<sampling_lab::TokenDraw>(outcome).token);
  }

  // A view of `length` elements of `buffer`, after checking the length and, where the buffer must
  // grow, that the memory is there.
  template <typename T>
  val view_of(std::vector<T>& buffer, double length, const std::string& name,
              double most = double(sampling_lab::kMaxVocabulary)) {
    if (sampling_lab::boundary::reporting()) return failure(sampling_lab::boundary::kReentered);
    if (auto error = sampling_lab::check_length(length, name, most)) return failure(*error);
    if (length > double(buffer.capacity())) {
      if (auto error = sampling_lab::check_memory(std::size_t(length) * sizeof(T), name)) return failure(*error);
    }
    buffer.resize(std::size_t(length));
    return view(buffer);
  }

  // Memory an unusually large call grew is handed back to the allocator before the next one, so
  // one big call cannot starve the later ones (WebAssembly memory itself never shrinks).
  void release_large_buffers() {
    const std::size_t keep = std::max(reserved_, kKeptElements);
    const auto release = [keep](auto& buffer) {
      if (buffer.capacity() <= keep) return false;
      std::remove_reference_t<decltype(buffer)>().swap(buffer);
      return true;
    };
    release(inputs_[kPrimary]);
    release(inputs_[kSecondary]);
    release(distance_inputs_);
    bool options_released = release(number_lists_) | release(option_values_);
    for (auto& ids : int_inputs_) options_released |= release(ids);
    if (options_released) {
      ++epoch_;
      step_options_.reset();  // its lists viewed the buffers
    }
    release(cut_by_);
    release(output_);
    release(tokens_);
    release(ranking_);
    release(words_);
    filter_workspace_.release_beyond(keep);
    sampler_workspace_.release_beyond(keep);
    speculative_workspace_.target.release_beyond(keep);
    speculative_workspace_.draft.release_beyond(keep);
    cover_workspace_.release_beyond(keep);
  }

  // The options of row `row` of `rows`, checked for a vocabulary of `vocabulary`.
  std::variant<sampling_lab::SamplingOptions, ArgumentError> row_options(std::size_t row, std::size_t rows,
                                                                         std::size_t vocabulary) const {
    constexpr std::size_t kLists = sampling_lab::kListOptions;
    constexpr std::size_t kNumberLists = sampling_lab::kNumberListOptions;
    if (option_values_.size() != rows * sampling_lab::kScalarOptions ||
        int_inputs_[kIdOffsets].size() != rows * kLists + 1 || int_inputs_[kNumberOffsets].size() != rows * kNumberLists + 1) {
      return ArgumentError{"options", "options must have one entry per row"};
    }
    std::array<std::span<const std::int32_t>, kLists> lists;
    std::array<std::span<const float>, kNumberLists> number_lists;
    if (!slice_lists(int_inputs_[kIds], int_inputs_[kIdOffsets], row, lists) ||
        !slice_lists(number_lists_, int_inputs_[kNumberOffsets], row, number_lists)) {
      return ArgumentError{"options", "option lists are inconsistent"};
    }
    auto options = sampling_lab::options_from_raw(
        {std::span(option_values_).subspan(row * sampling_lab::kScalarOptions, sampling_lab::kScalarOptions), lists,
         number_lists});
    if (auto* parsed = std::get_if<sampling_lab::SamplingOptions>(&options)) {
      if (auto error = sampling_lab::check_options(*parsed, vocabulary)) return *error;
    }
    return options;
  }

  // Row `row`'s lists, each [offsets[i], offsets[i + 1]) of `values`; false when inconsistent.
  template <typename Value, std::size_t N>
  static bool slice_lists(const std::vector<Value>& values, const std::vector<std::int32_t>& offsets, std::size_t row,
                          std::array<std::span<const Value>, N>& lists) {
    for (std::size_t l = 0; l < N; ++l) {
      const std::int32_t begin = offsets[row * N + l];
      const std::int32_t end = offsets[row * N + l + 1];
      if (begin < 0 || end < begin || std::size_t(end) > values.size()) return false;
      lists[l] = std::span(values).subspan(std::size_t(begin), std::size_t(end - begin));
    }
    return true;
  }

  // Buffers up to this many elements (or the resident vocabulary) are kept between calls.
  static constexpr std::size_t kKeptElements = std::size_t{1} << 20;
  std::size_t reserved_ = 0;
  std::array<std::vector<float>, kInputSlots> inputs_;
  std::vector<double> distance_inputs_;
  const std::vector<float>* current_ = &inputs_[kPrimary];
  std::array<std::vector<std::int32_t>, kIdSlots> int_inputs_;
  std::vector<double> option_values_;
  std::uint32_t epoch_ = 0;
  std::vector<float> number_lists_;
  std::vector<std::uint8_t> cut_by_;
  std::vector<float> output_;
  std::vector<std::int32_t> tokens_;
  std::vector<std::uint32_t> ranking_;
  std::vector<std::uint32_t> words_;
  sampling_lab::FilterWorkspace filter_workspace_;
  sampling_lab::SamplerWorkspace sampler_workspace_;
  sampling_lab::CoverWorkspace cover_workspace_;
  sampling_lab::SpeculativeWorkspace speculative_workspace_;
  sampling_lab::SpeculativeResult speculative_result_;
  sampling_lab::PromptLookup lookup_;
  std::vector<std::int32_t> lookup_matches_;
  std::optional<sampling_lab::SamplingOptions> step_options_;
  ArgumentError last_error_;
};

// Module functions (boundary.hpp's SAMPLING_LAB_MODULE_FUNCTIONS).
MemoryStats memory_stats() { return {double(mallinfo().uordblks), double(emscripten_get_heap_size())}; }

val draft_stream(double stream) {
  if (auto error = sampling_lab::check_scalar(stream, Kind::kSeed, {}, "stream")) return failure(*error);
  return named("value", val(double(sampling_lab::draft_stream(std::uint64_t(stream)))));
}

val expected_tokens(double alpha, double gamma) {
  if (auto error = check_scalars({{alpha, Kind::kProbability, sampling_lab::closed(0, 1), "alpha"},
                                  {gamma, Kind::kInteger, sampling_lab::closed(0, double(sampling_lab::kMaxDraftTokens)), "gamma"}})) {
    return failure(*error);
  }
  return named("value", val(sampling_lab::expected_tokens(alpha, std::size_t(gamma))));
}

val nth_draft_stream(double draft_stream, double j) {
  if (auto error = check_scalars({{draft_stream, Kind::kSeed, {}, "draftStream"},
                                  {j, Kind::kInteger, sampling_lab::closed(0, double(sampling_lab::kMaxDrafts - 1)), "j"}})) {
    return failure(*error);
  }
  return named("value", val(double(sampling_lab::nth_draft_stream(std::uint64_t(draft_stream), std::size_t(j)))));
}

bool reporting() { return sampling_lab::boundary::reporting(); }

}  // namespace

EMSCRIPTEN_BINDINGS(sampling_lab_core) {
  using namespace emscripten;
#define SAMPLING_LAB_CONSTANT(js, value, doc) constant(#js, double(value));
  SAMPLING_LAB_CONSTANTS(SAMPLING_LAB_CONSTANT)
#define SAMPLING_LAB_FIELD(js, cpp, type) .field(#js, &Struct::cpp)
#define SAMPLING_LAB_VALUE_OBJECT(js, cpp, fields, doc) \
  {                                                     \
    using Struct = cpp;                                 \
    value_object<cpp>(#js) fields(SAMPLING_LAB_FIELD);  \
  }
  SAMPLING_LAB_VALUE_OBJECTS(SAMPLING_LAB_VALUE_OBJECT)
#define SAMPLING_LAB_ENUM_VALUE(js, cpp) .value(#js, cpp)
#define SAMPLING_LAB_ENUM(js, cpp, values, doc) enum_<cpp>(#js) values(SAMPLING_LAB_ENUM_VALUE);
  SAMPLING_LAB_ENUMS(SAMPLING_LAB_ENUM)
  SAMPLING_LAB_MODULE_FUNCTIONS(SAMPLING_LAB_BIND_FUNCTION)
  SAMPLING_LAB_CLASSES(SAMPLING_LAB_BIND_CLASS)
}
