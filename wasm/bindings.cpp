// The sampler module's bindings (sampling-lab-core), as a plain C ABI (binding_support.hpp):
// typed arrays in, results out. They only translate; every check and every number comes from
// core/. No JSON, no experiments: those are experiment_bindings.cpp's, linked only into
// sampling-lab-experiments.
#include <emscripten/em_js.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "binding_support.hpp"
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

EM_JS(int, sl_report_progress, (double fraction), { return Module["onProgress"](fraction); });

namespace {

using namespace sampling_lab::bindings;
using sampling_lab::ArgumentError;
using sampling_lab::Kind;

sampling_lab::Check check_count(double value, const char* name, double max) {
  return sampling_lab::check_scalar(value, Kind::kInteger, sampling_lab::closed(1, max), name);
}

// Where the wrapper writes vocabulary-sized inputs: the logits (or p), a second distribution q,
// and the caller's resident logits buffer.
enum InputSlot { kPrimary, kSecondary, kResident, kInputSlots };
// Where it writes the options' lists: token ids, their offsets, and the offsets of the number
// lists (whose values go to numberLists()); and a call's own tokens (drafts, end-of-sequence ids).
enum IdSlot { kIds, kIdOffsets, kNumberOffsets, kTokens, kIdSlots };

// A reply holding an optional number, NaN when unset.
Reply& optional_number(Reply& out, const std::optional<double>& value) { return out.number(value.value_or(NAN)); }

// A stateful sampler's history in WebAssembly memory (sampling_lab::TokenHistory): tokens are
// appended one at a time, so a step never copies the history.
class History {
 public:
  // Both as the options give them (checked by the caller's options).
  History(double penalty_last_n, double ngram_size) : history_(std::int64_t(penalty_last_n), std::int64_t(ngram_size)) {}

  // A view of `length` ids to fill with a starting history, which start() then takes.
  int start_buffer(double length) {
    if (auto error = sampling_lab::check_length(length, "history", double(sampling_lab::kMaxHistory))) return fail(*error);
    if (auto error = sampling_lab::check_memory(std::size_t(length) * 2 * sizeof(std::int32_t), "history")) {
      return fail(*error);
    }
    pending_.assign(std::size_t(length), 0);
    return done(answer().view(pending_));
  }

  void start() {
    history_.assign(pending_);
    std::vector<std::int32_t>().swap(pending_);
  }

  // Token ids are checked by the caller (integers in [0, maxVocabulary)).
  int accept(double token) {
    if (auto error = history_.accept(std::int32_t(token))) return fail(*error);
    return done(answer());
  }

  // Becomes a copy of `other` (history and counts), without the history crossing to JavaScript.
  int copy_from(const History& other) {
    const std::size_t bytes = (other.history_.tokens().size() + other.history_.counts().size() * 2) * sizeof(std::int32_t);
    if (auto error = sampling_lab::check_memory(bytes, "history")) return fail(*error);
    history_ = other.history_;
    return done(answer());
  }

  // The whole history, valid until the next accept.
  int tokens() const { return done(answer().view(history_.tokens())); }

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
  int finish() {
    if (!search_) return fail({"search", "the search was not started"});
    auto finished = search_->finish();
    if (auto* error = std::get_if<ArgumentError>(&finished)) return fail(*error);
    hypotheses_ = std::move(std::get<std::vector<sampling_lab::Hypothesis>>(finished));
    Reply& out = answer();
    for (auto& hypothesis : hypotheses_) out.view(hypothesis.tokens).number(hypothesis.log_prob).number(hypothesis.score);
    return done(out);
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
// ints(kNumberOffsets) the same for the number lists. Argument names arrive as text(0).
class Engine {
 public:
  // A view of `length` floats in an input slot, or an error naming `name` when that is too many.
  // Views are detached by memory growth: the caller fills them before any other call.
  int floats(int slot, double length, const std::string& name) {
    if (slot == kPrimary) release_large_buffers();
    return view_of(inputs_[slot], length, name);
  }

  // Id lists of every option and row together: up to a vocabulary per list.
  int ints(int slot, double length, const std::string& name) {
    const double most = double(sampling_lab::kMaxVocabulary) * (slot == kIds ? double(sampling_lab::kListOptions) : 1.0);
    return view_of(int_inputs_[slot], length, name, most);
  }

  int option_values(double rows) {
    if (auto error = check_count(rows, "options", double(sampling_lab::kMaxBatchRows))) return fail(*error);
    return view_of(option_values_, rows * double(sampling_lab::kScalarOptions), "options");
  }

  // A count that changes whenever the option buffers are handed back to the allocator: views of
  // them the caller kept are valid only while it is unchanged (and the memory has not grown).
  int epoch() { return done(answer().view(std::span(&epoch_, 1))); }

  int number_lists(double length) { return view_of(number_lists_, length, "logitBias"); }

  // The caller's resident logits: sizes the buffers for `vocabulary` tokens first, so sampling
  // then never grows memory (and never detaches this view).
  int resident(double vocabulary) {
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return fail(*error);
    const auto size = std::size_t(vocabulary);
    // About 44 bytes a token: the logits, the probabilities, the filters' and cover counts' scratch.
    if (size > reserved_) {
      if (auto error = sampling_lab::check_memory(size * 44, "vocabSize")) return fail(*error);
    }
    reserved_ = size;
    release_large_buffers();
    inputs_[kResident].reserve(size);
    output_.reserve(size);
    filter_workspace_.reserve(size);
    cover_workspace_.reserve(size);
    inputs_[kResident].resize(size);
    return done(answer().view(inputs_[kResident]));
  }

  // Later calls read their logits from this input slot.
  void use(int slot) {
    if (slot == kResident) release_large_buffers();
    current_ = &inputs_[slot];
  }

  // −∞ entries add nothing.
  int log_sum_exp(double temperature) {
    if (auto error = sampling_lab::check_maskable_logits(*current_, "logits")) return fail(*error);
    if (auto error = sampling_lab::check_scalar(temperature, Kind::kNumber, sampling_lab::above(0), "temperature")) {
      return fail(*error);
    }
    return done(answer().number(sampling_lab::log_sum_exp(*current_, temperature)));
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
  static int token_reply(const std::variant<sampling_lab::TokenDraw, ArgumentError>& outcome) {
    if (auto* error = std::get_if<ArgumentError>(&outcome)) return fail(*error);
    const auto& drawn = std::get<sampling_lab::TokenDraw>(outcome);
    Reply& out = answer().number(drawn.token);
    return done(optional_number(optional_number(out, drawn.mirostat_mu), drawn.adaptive_p_average));
  }

  // The options written as a batch of one row, checked for a vocabulary of `vocabulary` tokens.
  int check_options(double vocabulary) {
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return fail(*error);
    auto options = row_options(0, 1, std::size_t(vocabulary));
    if (auto* error = std::get_if<ArgumentError>(&options)) return fail(*error);
    return done(answer());
  }

  // probs view, kept, keptMass, entropyBits, topProb.
  int distribution() {
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return fail(*error);
    const auto& [logits, options] = std::get<sampling_lab::MaskedLogits>(input);
    output_.resize(logits.size());
    const auto result = sampling_lab::filter_distribution(logits, options, output_, filter_workspace_);
    if (auto error = sampling_lab::check_bans_left_a_token(options, filter_workspace_)) return fail(*error);
    return done(answer().view(output_).number(double(result.kept)).number(result.kept_mass).number(result.entropy_bits).number(result.top_prob));
  }

  // The cutBy view, then each stage that is on as (filter text, kept); cutBy[i] names the stage
  // that cut token i (0 = kept, else 1 + its index in stageTable().stages; masks = masksCode).
  int stages() {
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return fail(*error);
    const auto& [logits, options] = std::get<sampling_lab::MaskedLogits>(input);
    cut_by_.resize(logits.size());
    const auto trace = sampling_lab::filter_stages(logits, options, filter_workspace_, cut_by_);
    Reply& out = answer().view(cut_by_);
    for (const auto& stage : trace) out.text(std::string(stage.filter)).number(double(stage.kept));
    return done(out);
  }

  int sample_token() {
    auto options = draw_options();
    if (auto* error = std::get_if<ArgumentError>(&options)) return fail(*error);
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

  int last_error() const { return fail(last_error_); }

  // sample_token with a stateful sampler's history as generatedIds (and its penalty counts).
  int sample_with_history(const History& history) {
    const std::vector<float>& logits = *current_;
    auto parsed = draw_options();
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return fail(*error);
    auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    history.history().apply_to(options);
    // The history's ids are checked as they arrive, but only against the largest vocabulary.
    if (const auto largest = history.history().largest_token(); largest >= 0 && std::size_t(largest) >= logits.size()) {
      return fail({"logits", "the sampler's history holds token " + std::to_string(largest) + ", outside these " +
                                 std::to_string(logits.size()) + " logits"});
    }
    return token_reply(sampling_lab::checked_draw_token(logits, options, filter_workspace_));
  }

  // The token with vLLM-style logprobs: `count` in [0, 20]; `processed` or raw. Replies token,
  // logprob, rank, mirostatMu, adaptivePAverage, then (token, logprob) of each top entry.
  int sample_token_logprobs(double count, bool processed) {
    const std::vector<float>& logits = *current_;
    if (auto error = sampling_lab::check_scalar(count, Kind::kInteger, sampling_lab::closed(0, double(sampling_lab::kMaxLogprobs)), "logprobs")) {
      return fail(*error);
    }
    const auto input = single_row_input();
    if (auto* error = std::get_if<ArgumentError>(&input)) return fail(*error);
    const auto& masked = std::get<sampling_lab::MaskedLogits>(input);
    const auto mode = processed ? sampling_lab::LogprobsMode::kProcessed : sampling_lab::LogprobsMode::kRaw;
    const auto drawn = sampling_lab::sample_token_logprobs(masked.logits, masked.options, std::size_t(count), mode,
                                                           filter_workspace_, logits);
    Reply& out = answer().number(drawn.token).number(drawn.logprob).number(double(drawn.rank));
    optional_number(optional_number(out, drawn.mirostat_mu), drawn.adaptive_p_average);
    for (const auto& entry : drawn.top) out.number(entry.token).number(entry.logprob);
    return done(out);
  }

  // Rows of equal length, back to back in the current input.
  int sample_batch(double rows) {
    const std::vector<float>& logits = *current_;
    if (auto error = check_count(rows, "logitsRows", double(sampling_lab::kMaxBatchRows))) return fail(*error);
    const auto row_count = std::size_t(rows);
    if (logits.size() % row_count != 0) return fail({"logitsRows", "logitsRows must all have the same length"});
    const std::size_t vocabulary = logits.size() / row_count;
    tokens_.resize(row_count);
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::span<const float> row_logits(logits.data() + r * vocabulary, vocabulary);
      const auto in_row = [r](const ArgumentError& error) {
        return fail({error.argument, "row " + std::to_string(r) + ": " + error.message});
      };
      if (auto error = sampling_lab::check_entries(vocabulary, "logitsRows")) return in_row(*error);
      auto options = row_options(r, row_count, vocabulary);
      if (auto* error = std::get_if<ArgumentError>(&options)) return in_row(*error);
      const auto drawn = sampling_lab::checked_draw_token(row_logits, std::get<sampling_lab::SamplingOptions>(options),
                                                          filter_workspace_, "logitsRows");
      if (auto* error = std::get_if<ArgumentError>(&drawn)) return in_row(*error);
      tokens_[r] = std::get<sampling_lab::TokenDraw>(drawn).token;
    }
    return done(answer().view(tokens_));
  }

  // Whether n draws of `method` from `vocabulary` values are within the limits: before any copy.
  int check_draws(const std::string& method_name, double n, double vocabulary) {
    const auto method = sampling_lab::parse_method(method_name);
    if (!method) return fail({"method", "method must be inverse-cdf, gumbel-max, exponential-race or alias"});
    if (auto error = sampling_lab::check_draws(n, std::size_t(vocabulary), *method)) return fail(*error);
    return done(answer());
  }

  // n draws by one method; temperature, seed and stream come from the option values.
  int sample(const std::string& method_name, double n, bool is_probs, bool with_progress) {
    const std::vector<float>& values = *current_;
    const auto method = sampling_lab::parse_method(method_name);
    if (!method) return fail({"method", "method must be inverse-cdf, gumbel-max, exponential-race or alias"});
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, "probs")
                              : sampling_lab::check_logits(values, "logits")) {
      return fail(*error);
    }
    auto parsed = row_options(0, 1, values.size());
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return fail(*error);
    const auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    if (auto error = sampling_lab::check_draws(n, values.size(), *method)) return fail(*error);
    if (auto error = sampling_lab::check_memory(std::size_t(n) * sizeof(std::int32_t), "n")) return fail(*error);
    tokens_.resize(std::size_t(n));
    const sampling_lab::RandomKey key{options.seed, options.stream};
    const auto progress = progress_of(with_progress);
    const bool completed = is_probs
        ? sampling_lab::sample_probs(values, *method, key, tokens_, sampler_workspace_, progress)
        : sampling_lab::sample_logits(values, options.temperature, *method, key, tokens_, sampler_workspace_, progress);
    if (!completed) return fail(kStopped);
    return done(answer().view(tokens_));
  }

  int random_words(double seed, double stream, double n) {
    for (const auto& [value, name] : {std::pair{seed, "seed"}, std::pair{stream, "stream"}}) {
      if (auto error = sampling_lab::check_scalar(value, Kind::kSeed, {}, name)) return fail(*error);
    }
    if (auto error = check_count(n, "n", double(sampling_lab::kMaxSamples))) return fail(*error);
    sampling_lab::Philox rng{std::uint64_t(seed), std::uint64_t(stream)};
    words_.resize(std::size_t(n));
    for (auto& word : words_) word = rng.next_u32();
    return done(answer().view(words_));
  }

  int cover_count(double mass, double temperature, bool is_probs) {
    const std::vector<float>& values = *current_;
    const char* name = is_probs ? "probs" : "logits";
    if (auto error = is_probs ? sampling_lab::check_probabilities(values, name)
                              : sampling_lab::check_logits(values, name)) {
      return fail(*error);
    }
    if (auto error = sampling_lab::check_mass(mass, "mass")) return fail(*error);
    if (auto error = sampling_lab::check_temperature(temperature)) return fail(*error);
    const std::size_t count =
        is_probs ? sampling_lab::cover_count(values, mass, cover_workspace_)
                 : sampling_lab::cover_count_logits(values, temperature, mass, cover_workspace_);
    return done(answer().number(double(count)));
  }

  // tv, kl, overlap.
  int distance() {
    if (auto error = sampling_lab::check_distance_inputs(*current_, inputs_[kSecondary])) return fail(*error);
    const auto d = sampling_lab::distances(*current_, inputs_[kSecondary]);
    return done(answer().number(d.tv).number(d.kl).number(d.overlap));
  }

  // min, max in one pass: min_max tests finiteness as it goes.
  int range() {
    if (auto error = sampling_lab::check_entries(current_->size(), "values")) return fail(*error);
    const auto range = sampling_lab::kernels::min_max(*current_);
    if (!range.finite) return fail(*sampling_lab::check_logits(*current_, "values"));
    return done(answer().number(range.min).number(range.max));
  }

  int ranking() {
    if (auto error = sampling_lab::check_logits(*current_, "values")) return fail(*error);
    // The radix sort's keys and ids, twice, and the result.
    if (auto error = sampling_lab::check_memory(current_->size() * 5 * sizeof(std::uint32_t), "values")) return fail(*error);
    ranking_ = sampling_lab::ranking(*current_);
    return done(answer().view(ranking_));
  }

  // Speculative verification: γ + 1 target rows in the current input, γ draft rows in the
  // secondary one, the γ draft tokens in ints(kTokens), the options as one row; draft_stream NaN
  // = the default for the options' stream. Replies tokens, acceptance, accepted, token, fromResidual.
  int speculative_verify(double draft_stream) {
    const sampling_lab::SpeculativeInput sizes{*current_, inputs_[kSecondary], int_inputs_[kTokens], 0};
    const auto vocabulary = sampling_lab::speculative_vocabulary(sizes);
    if (auto* error = std::get_if<ArgumentError>(&vocabulary)) return fail(*error);
    auto parsed = row_options(0, 1, std::get<std::size_t>(vocabulary));
    if (auto* error = std::get_if<ArgumentError>(&parsed)) return fail(*error);
    const auto& options = std::get<sampling_lab::SamplingOptions>(parsed);
    if (!std::isnan(draft_stream)) {
      if (auto error = sampling_lab::check_scalar(draft_stream, Kind::kSeed, {}, "draftStream")) return fail(*error);
    }
    sampling_lab::SpeculativeInput input = sizes;
    input.draft_stream = std::isnan(draft_stream) ? sampling_lab::draft_stream(options.stream) : std::uint64_t(draft_stream);
    auto verified = sampling_lab::speculative_verify(input, options, speculative_workspace_);
    if (auto* error = std::get_if<ArgumentError>(&verified)) return fail(*error);
    auto& result = speculative_result_ = std::move(std::get<sampling_lab::SpeculativeResult>(verified));
    return done(answer().view(result.tokens).view(result.acceptance).number(double(result.accepted)).number(result.token)
                    .number(result.from_residual));
  }

  // Starts `handle`'s search with these options and the end-of-sequence ids in ints(kTokens);
  // length_penalty NaN = unset.
  int start_beam_search(BeamSearchHandle& handle, double num_beams, double length_penalty, double num_return_sequences,
                        bool early_stopping, bool stochastic, double seed, double stream, double max_new_tokens) {
    sampling_lab::BeamSearchOptions options;
    options.num_beams = num_beams;
    if (!std::isnan(length_penalty)) options.length_penalty = length_penalty;
    options.eos_token_ids = int_inputs_[kTokens];
    options.num_return_sequences = num_return_sequences;
    options.early_stopping = early_stopping;
    options.stochastic = stochastic;
    options.seed = seed;
    options.stream = stream;
    options.max_new_tokens = max_new_tokens;
    auto created = sampling_lab::BeamSearch::create(options);
    if (auto* error = std::get_if<ArgumentError>(&created)) return fail(*error);
    handle.search().emplace(std::move(std::get<sampling_lab::BeamSearch>(created)));
    return done(answer());
  }

  // One step of `handle`'s search on the rows in the current input: beamIndices, tokens, done;
  // the views are valid until its next step.
  int beam_step(BeamSearchHandle& handle) {
    if (!handle.search()) return fail({"search", "the search was not started"});
    const auto stepped = handle.search()->step(*current_);
    if (auto* error = std::get_if<ArgumentError>(&stepped)) return fail(*error);
    const auto& step = std::get<sampling_lab::BeamStep>(stepped);
    return done(answer().view(step.beam_indices).view(step.tokens).number(step.done));
  }

  int synthetic_logits(double vocabulary, double seed) {
    if (auto error = check_count(vocabulary, "vocabSize", double(sampling_lab::kMaxVocabulary))) return fail(*error);
    if (auto error = sampling_lab::check_scalar(seed, Kind::kSeed, {}, "seed")) return fail(*error);
    output_ = sampling_lab::synthetic_logits(std::size_t(vocabulary), std::uint64_t(seed));
    return done(answer().view(output_));
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
  int view_of(std::vector<T>& buffer, double length, const std::string& name,
              double most = double(sampling_lab::kMaxVocabulary)) {
    if (auto error = sampling_lab::check_length(length, name, most)) return fail(*error);
    if (length > double(buffer.capacity())) {
      if (auto error = sampling_lab::check_memory(std::size_t(length) * sizeof(T), name)) return fail(*error);
    }
    buffer.resize(std::size_t(length));
    return done(answer().view(buffer));
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
  std::optional<sampling_lab::SamplingOptions> step_options_;
  ArgumentError last_error_;
};

}  // namespace

// The exports wasm/src/core-abi.ts calls: each an Engine, History or BeamSearch method by name.
SL_EXPORT const double* sl_reply() { return sampling_lab::bindings::reply().data(); }
// A buffer of `bytes` for text slot `slot`, or null when there is no memory for it.
SL_EXPORT char* sl_text(int slot, double bytes) {
  if (sampling_lab::check_memory(std::size_t(bytes), "text")) return nullptr;
  text(slot).resize(std::size_t(bytes));
  return text(slot).data();
}

// maxVocabulary, maxBatchRows, maxHistory, maxDraftTokens, maxBeams, maxEosTokens, maxNewTokens,
// qwen3Vocabulary, and the option table's shape (scalar options, id lists, number lists), which
// the wrapper's copy of the table (generated from the core's) must match.
SL_EXPORT int sl_constants() {
  namespace lab = sampling_lab;
  Reply& out = answer();
  for (const double value : {double(lab::kMaxVocabulary), double(lab::kMaxBatchRows), double(lab::kMaxHistory),
                             double(lab::kMaxDraftTokens), double(lab::kMaxBeams), double(lab::kMaxEosTokens),
                             double(lab::kMaxNewTokens), double(lab::kQwen3Vocabulary), double(lab::kScalarOptions),
                             double(lab::kListOptions), double(lab::kNumberListOptions)}) {
    out.number(value);
  }
  return done(out);
}

// What the allocator holds for live objects, and the WebAssembly memory's size.
SL_EXPORT int sl_memory_stats() {
  return done(answer().number(double(mallinfo().uordblks)).number(double(emscripten_get_heap_size())));
}

// The stream a draft samples on for a request's stream (speculative_decoding.hpp).
SL_EXPORT int sl_draft_stream(double stream) {
  if (auto error = sampling_lab::check_scalar(stream, Kind::kSeed, {}, "stream")) return fail(*error);
  return done(answer().number(double(sampling_lab::draft_stream(std::uint64_t(stream)))));
}

SL_EXPORT History* sl_history_new(double penalty_last_n, double ngram_size) { return new History(penalty_last_n, ngram_size); }
SL_EXPORT void sl_history_delete(History* history) { delete history; }
SL_EXPORT int sl_history_start_buffer(History* history, double length) { return history->start_buffer(length); }
SL_EXPORT void sl_history_start(History* history) { history->start(); }
SL_EXPORT int sl_history_accept(History* history, double token) { return history->accept(token); }
SL_EXPORT int sl_history_copy_from(History* history, const History* other) { return history->copy_from(*other); }
SL_EXPORT int sl_history_tokens(const History* history) { return history->tokens(); }

SL_EXPORT BeamSearchHandle* sl_beam_new() { return new BeamSearchHandle(); }
SL_EXPORT void sl_beam_delete(BeamSearchHandle* search) { delete search; }
SL_EXPORT int sl_beam_finish(BeamSearchHandle* search) { return search->finish(); }

SL_EXPORT Engine* sl_engine_new() { return new Engine(); }
SL_EXPORT int sl_floats(Engine* engine, int slot, double length) { return engine->floats(slot, length, text(0)); }
SL_EXPORT int sl_ints(Engine* engine, int slot, double length) { return engine->ints(slot, length, text(0)); }
SL_EXPORT int sl_option_values(Engine* engine, double rows) { return engine->option_values(rows); }
SL_EXPORT int sl_epoch(Engine* engine) { return engine->epoch(); }
SL_EXPORT int sl_number_lists(Engine* engine, double length) { return engine->number_lists(length); }
SL_EXPORT int sl_resident(Engine* engine, double vocabulary) { return engine->resident(vocabulary); }
SL_EXPORT void sl_use(Engine* engine, int slot) { engine->use(slot); }
SL_EXPORT int sl_log_sum_exp(Engine* engine, double temperature) { return engine->log_sum_exp(temperature); }
SL_EXPORT int sl_check_options(Engine* engine, double vocabulary) { return engine->check_options(vocabulary); }
SL_EXPORT int sl_distribution(Engine* engine) { return engine->distribution(); }
SL_EXPORT int sl_stages(Engine* engine) { return engine->stages(); }
SL_EXPORT int sl_sample_token(Engine* engine) { return engine->sample_token(); }
SL_EXPORT double sl_sample_token_number(Engine* engine) { return engine->sample_token_number(); }
SL_EXPORT double sl_sample_token_at_step(Engine* engine, double step) { return engine->sample_token_at_step(step); }
SL_EXPORT int sl_last_error(Engine* engine) { return engine->last_error(); }
SL_EXPORT int sl_sample_with_history(Engine* engine, const History* history) { return engine->sample_with_history(*history); }
SL_EXPORT int sl_sample_token_logprobs(Engine* engine, double count, int processed) {
  return engine->sample_token_logprobs(count, processed != 0);
}
SL_EXPORT int sl_sample_batch(Engine* engine, double rows) { return engine->sample_batch(rows); }
SL_EXPORT int sl_check_draws(Engine* engine, double n, double vocabulary) { return engine->check_draws(text(0), n, vocabulary); }
SL_EXPORT int sl_sample(Engine* engine, double n, int is_probs, int with_progress) {
  return engine->sample(text(0), n, is_probs != 0, with_progress != 0);
}
SL_EXPORT int sl_random_words(Engine* engine, double seed, double stream, double n) { return engine->random_words(seed, stream, n); }
SL_EXPORT int sl_cover_count(Engine* engine, double mass, double temperature, int is_probs) {
  return engine->cover_count(mass, temperature, is_probs != 0);
}
SL_EXPORT int sl_distance(Engine* engine) { return engine->distance(); }
SL_EXPORT int sl_range(Engine* engine) { return engine->range(); }
SL_EXPORT int sl_ranking(Engine* engine) { return engine->ranking(); }
SL_EXPORT int sl_synthetic_logits(Engine* engine, double vocabulary, double seed) { return engine->synthetic_logits(vocabulary, seed); }
SL_EXPORT int sl_speculative_verify(Engine* engine, double draft_stream) { return engine->speculative_verify(draft_stream); }
SL_EXPORT int sl_start_beam_search(Engine* engine, BeamSearchHandle* search, double num_beams, double length_penalty,
                                   double num_return_sequences, int early_stopping, int stochastic, double seed, double stream,
                                   double max_new_tokens) {
  return engine->start_beam_search(*search, num_beams, length_penalty, num_return_sequences, early_stopping != 0, stochastic != 0,
                                   seed, stream, max_new_tokens);
}
SL_EXPORT int sl_beam_step(Engine* engine, BeamSearchHandle* search) { return engine->beam_step(*search); }
