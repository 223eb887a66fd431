// The boundary between the WebAssembly modules and JavaScript, declared once. bindings.cpp and
// experiment_bindings.cpp bind every row with embind, and scripts/generate-types.mjs writes the
// modules' TypeScript declarations (wasm/src/generated/core-module.d.ts) from the same rows, so
// the bound API, its types and the limits JavaScript reads cannot drift apart.
//
// Embind calls take exactly their declared arguments: an optional one is `T | undefined`.
// Rows: a method or function is X(jsName, cppName, "TypeScript signature", "doc"); a constant is
// X(jsName, value, "doc"); a value object's field is F(jsName, cppField, "TypeScript type");
// classes, enums and value objects say their rows' macro.
// TypeScript names used here (CoreError, CoreEnum, FilterStage, StageName, BulkType) are declared
// by the generator's preamble.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <span>
#include <string>

#include "sampling_lab/error.hpp"
#include "sampling_lab/progress.hpp"

// clang-format off
#define SAMPLING_LAB_CONSTANTS(X)                                                                      \
  X(maxVocabulary, sampling_lab::kMaxVocabulary, "Most entries in a row of logits or probabilities.") \
  X(maxBatchRows, sampling_lab::kMaxBatchRows, "Most rows in one sampleBatch call.")                  \
  X(maxHistory, sampling_lab::kMaxHistory, "Most token ids in a history (generatedIds).")             \
  X(maxDraftTokens, sampling_lab::kMaxDraftTokens, "Most draft tokens (gamma) a speculative step verifies, per draft.") \
  X(maxDrafts, sampling_lab::kMaxDrafts, "Most drafts a speculative step verifies together.")       \
  X(maxLookupContext, sampling_lab::kMaxLookupContext, "Most tokens of context prompt lookup searches.") \
  X(maxBeams, sampling_lab::kMaxBeams, "Most beams in a beam search.")                                \
  X(maxEosTokens, sampling_lab::kMaxEosTokens, "Most end-of-sequence ids.")                           \
  X(maxNewTokens, sampling_lab::kMaxNewTokens, "Most new tokens of one decoding run.")                \
  X(maxLogprobs, sampling_lab::kMaxLogprobs, "Most top logprobs listed with a token.")               \
  X(maxSamples, sampling_lab::kMaxSamples, "Most draws of one sample call.")                          \
  X(qwen3Vocabulary, sampling_lab::kQwen3Vocabulary, "Qwen3's vocabulary size (151,936).")            \
  X(scalarOptions, sampling_lab::kScalarOptions, "The option table's scalar options, per row.")       \
  X(listOptions, sampling_lab::kListOptions, "The option table's id lists, per row.")                 \
  X(numberListOptions, sampling_lab::kNumberListOptions, "The option table's number lists, per row.")

#define SAMPLING_LAB_DISTRIBUTION_FIELDS(F) \
  F(probs, probs, "Float32Array") F(kept, kept, "number") F(keptMass, kept_mass, "number") \
  F(entropyBits, entropy_bits, "number") F(topProb, top_prob, "number")
#define SAMPLING_LAB_DISTANCE_FIELDS(F) F(tv, tv, "number") F(kl, kl, "number") F(overlap, overlap, "number")
#define SAMPLING_LAB_RANGE_FIELDS(F) F(min, min, "number") F(max, max, "number")
#define SAMPLING_LAB_MEMORY_FIELDS(F) F(heapInUse, heap_in_use, "number") F(memoryBytes, memory_bytes, "number")
#define SAMPLING_LAB_SPECULATIVE_FIELDS(F) \
  F(tokens, tokens, "Int32Array") F(acceptance, acceptance, "Float64Array") F(accepted, accepted, "number") \
  F(token, token, "number") F(fromResidual, from_residual, "boolean") F(draft, draft, "number")
#define SAMPLING_LAB_BEAM_STEP_FIELDS(F) \
  F(beamIndices, beam_indices, "Int32Array") F(tokens, tokens, "Int32Array") F(done, done, "boolean")
#define SAMPLING_LAB_HYPOTHESIS_FIELDS(F) F(tokens, tokens, "Int32Array") F(logProb, log_prob, "number") F(score, score, "number")
#define SAMPLING_LAB_BEAM_PARAMS_FIELDS(F) \
  F(numBeams, num_beams, "number") F(lengthPenalty, length_penalty, "number") \
  F(numReturnSequences, num_return_sequences, "number") F(earlyStopping, early_stopping, "boolean") \
  F(stochastic, stochastic, "boolean") F(seed, seed, "number") F(stream, stream, "number") \
  F(maxNewTokens, max_new_tokens, "number")

// X(jsName, C++ struct, fields macro, "doc")
#define SAMPLING_LAB_VALUE_OBJECTS(X)                                                              \
  X(CoreDistribution, DistributionReply, SAMPLING_LAB_DISTRIBUTION_FIELDS, "probs is valid until the next call.") \
  X(CoreDistance, DistanceReply, SAMPLING_LAB_DISTANCE_FIELDS, "Total variation, KL(p‖q) in nats, overlap Σ min(p, q).") \
  X(CoreRange, RangeReply, SAMPLING_LAB_RANGE_FIELDS, "The smallest and largest value.")           \
  X(CoreMemoryStats, MemoryStats, SAMPLING_LAB_MEMORY_FIELDS, "Bytes the allocator holds for live objects; the memory's size.") \
  X(CoreSpeculative, SpeculativeReply, SAMPLING_LAB_SPECULATIVE_FIELDS, "Views valid until the next verification.") \
  X(CoreBeamStep, BeamStepReply, SAMPLING_LAB_BEAM_STEP_FIELDS, "Views valid until the search's next step.") \
  X(CoreHypothesis, HypothesisReply, SAMPLING_LAB_HYPOTHESIS_FIELDS, "tokens is valid until the next finish().") \
  X(CoreBeamParams, BeamParams, SAMPLING_LAB_BEAM_PARAMS_FIELDS, "lengthPenalty NaN = unset.")

// X(jsName, C++ enum, values macro, "doc"); a value is V(jsName, C++ enumerator).
#define SAMPLING_LAB_INPUT_SLOTS(V) V(primary, kPrimary) V(secondary, kSecondary) V(resident, kResident)
#define SAMPLING_LAB_ID_SLOTS(V) V(ids, kIds) V(offsets, kIdOffsets) V(numberOffsets, kNumberOffsets) V(tokens, kTokens)
#define SAMPLING_LAB_ENUMS(X)                                                                          \
  X(InputSlot, InputSlot, SAMPLING_LAB_INPUT_SLOTS, "Where vocabulary-sized inputs go: the logits (or p), a second distribution q, the resident logits buffer.") \
  X(IdSlot, IdSlot, SAMPLING_LAB_ID_SLOTS, "Where id lists go: the options' ids, their offsets, the number lists' offsets, a call's own tokens.")

// X(jsName, C++ class, methods macro, (constructor's C++ types), "constructor's TypeScript parameters", "doc")
#define SAMPLING_LAB_CLASSES(X)                                                                        \
  X(History, History, SAMPLING_LAB_HISTORY_METHODS, (double, double), "(penaltyLastN: number, noRepeatNgramSize: number)", "A stateful sampler's history in WebAssembly memory (delete() frees it).") \
  X(BeamSearch, BeamSearchHandle, SAMPLING_LAB_BEAM_METHODS, (), "()", "A beam search in WebAssembly memory (delete() frees it); the engine starts and steps it.") \
  X(Engine, Engine, SAMPLING_LAB_ENGINE_METHODS, (), "()", "The sampler: its input buffers, workspaces and every call on them.")
#define SAMPLING_LAB_EXPERIMENT_CLASSES(X) \
  X(Experiments, Experiments, SAMPLING_LAB_EXPERIMENTS_METHODS, (), "()", "One experiment at a time, prepared, run and released.")

#define SAMPLING_LAB_MODULE_FUNCTIONS(X)                                                                 \
  X(draftStream, draft_stream, "(stream: number): CoreError | { value: number }", "stream XOR 2^52: the stream a draft samples on.") \
  X(expectedTokens, expected_tokens, "(alpha: number, gamma: number): CoreError | { value: number }", "(1 − α^(γ+1))/(1 − α): tokens per verification with γ drafts accepted i.i.d. with probability α.") \
  X(nthDraftStream, nth_draft_stream, "(draftStream: number, j: number): CoreError | { value: number }", "draftStream XOR j·2^44: draft j's stream among several.") \
  X(memoryStats, memory_stats, "(): CoreMemoryStats", "What the allocator holds and the memory's size.") \
  X(reporting, reporting, "(): boolean", "Whether a run is inside its onProgress callback (the module takes one call at a time).")

#define SAMPLING_LAB_HISTORY_METHODS(X)                                                                  \
  X(startBuffer, start_buffer, "(length: number): CoreError | Int32Array", "A view of `length` ids to fill with a starting history, which start() then takes.") \
  X(start, start, "(): void", "Takes the ids written into startBuffer.")                                \
  X(accept, accept, "(token: number): CoreError | object", "Appends a token; an error when the history is full or cannot grow.") \
  X(copyFrom, copy_from, "(other: CoreHistory): CoreError | object", "Becomes a copy of another history, inside WebAssembly.") \
  X(tokens, tokens, "(): Int32Array", "The history, valid until the next accept.")

#define SAMPLING_LAB_BEAM_METHODS(X) \
  X(finish, finish, "(): CoreError | { hypotheses: CoreHypothesis[] }", "The best hypotheses, best first.")

#define SAMPLING_LAB_ENGINE_METHODS(X)                                                                   \
  X(floats, floats, "(slot: CoreEnum, length: number, name: string): CoreError | Float32Array", "A view of `length` floats in an input slot, or an error naming `name` if that is too many.") \
  X(ints, ints, "(slot: CoreEnum, length: number, name: string): CoreError | Int32Array", "A view of `length` ids in an id slot.") \
  X(optionValues, option_values, "(rows: number): CoreError | Float64Array", "rows × scalarOptions doubles, laid out by the option table's slots.") \
  X(numberLists, number_lists, "(length: number): CoreError | Float32Array", "The number lists' values (logitBias), every row's back to back.") \
  X(resident, resident, "(vocabulary: number): CoreError | Float32Array", "The resident logits buffer, with every buffer reserved for `vocabulary` tokens.") \
  X(epoch, epoch, "(): Uint32Array", "Changes whenever the option buffers are handed back: views of them are stale then.") \
  X(use, use, "(slot: CoreEnum): void", "Later calls read their logits from this input slot.")            \
  X(logSumExp, log_sum_exp, "(temperature: number): CoreError | { value: number }", "log Σ exp(logit / T), −∞ entries adding nothing.") \
  X(checkOptions, check_options, "(vocabulary: number): CoreError | object", "The written options checked for a vocabulary of `vocabulary` tokens.") \
  X(distribution, distribution, "(): CoreError | CoreDistribution", "The filtered distribution of the current logits.") \
  X(stages, stages, "(): CoreError | { stages: FilterStage[]; cutBy: Uint8Array }", "Each stage that is on with what it kept; cutBy names the stage that cut each token.") \
  X(sampleToken, sample_token, "(): CoreError | { token: number; mirostatMu?: number; adaptivePAverage?: number }", "One token from the current logits and options.") \
  X(sampleTokenNumber, sample_token_number, "(): number", "The token, or −1 with lastError() set; keeps the options for sampleTokenAtStep.") \
  X(sampleTokenAtStep, sample_token_at_step, "(step: number): number", "The last options of sampleTokenNumber with another step: the token, or −1.") \
  X(lastError, last_error, "(): CoreError", "The error of the last −1.")                                 \
  X(sampleWithHistory, sample_with_history, "(history: CoreHistory): CoreError | { token: number; mirostatMu?: number; adaptivePAverage?: number }", "sampleToken with a stateful sampler's history as generatedIds.") \
  X(sampleTokenLogprobs, sample_token_logprobs, "(count: number, processed: boolean, token: number): CoreError | { token: number; logprob: number; rank: number; top: { token: number; logprob: number }[]; mirostatMu?: number; adaptivePAverage?: number }", "The drawn token (token −1) or a given one with vLLM-style logprobs.") \
  X(sampleBatch, sample_batch, "(rows: number): CoreError | { tokens: Int32Array }", "A token per row, rows back to back in the current input.") \
  X(checkDraws, check_draws, "(method: string, n: number, vocabulary: number): CoreError | object", "Whether n draws of `method` from `vocabulary` values are within the limits.") \
  X(sample, sample, "(method: string, n: number, isProbs: boolean, onProgress: ((fraction: number) => boolean) | undefined): CoreError | { draws: Int32Array }", "n draws by one method; onProgress returns false to stop.") \
  X(randomWords, random_words, "(seed: number, stream: number, n: number): CoreError | { words: Uint32Array }", "Philox-4x32-10's first n words of (seed, stream).") \
  X(coverCount, cover_count, "(mass: number, temperature: number, isProbs: boolean): CoreError | { count: number }", "How many top tokens cover `mass`.") \
  X(distanceInputs, distance_inputs, "(length: number): CoreError | Float64Array", "Room for p, then q: `length` doubles each, for distance().") \
  X(distance, distance, "(): CoreError | CoreDistance", "Distances between the two halves of distanceInputs.") \
  X(range, range, "(): CoreError | CoreRange", "The current input's smallest and largest value.")  \
  X(sum, sum, "(): number", "Σ of the current input in float SIMD lanes: one read, the benchmarks' floor.") \
  X(ranking, ranking, "(): CoreError | { order: Uint32Array }", "Token ids by value, largest first.")  \
  X(syntheticLogits, synthetic_logits, "(vocabSize: number, seed: number): CoreError | { logits: Float32Array }", "A language-model-like row of logits.") \
  X(bestGamma, best_gamma, "(acceptance: number, draftCost: number, maxGamma: number): CoreError | { value: number }", "gamma 'auto''s γ, from the timed target passes as (positions, cost) pairs in the secondary input.") \
  X(speculativeVerify, speculative_verify, "(draftStream: number, pointDrafts: boolean, drafts: number): CoreError | CoreSpeculative", "Verifies the k drafts of γ tokens in ints(IdSlot.tokens), draft by draft: k·(γ + 1) target rows in the primary input, k·γ draft rows in the secondary one (none for point drafts, which prompt lookup proposes); draftStream NaN = the default.") \
  X(promptLookup, prompt_lookup, "(ngramMax: number, ngramMin: number, maxTokens: number, drafts: number): CoreError | { matches: Int32Array }", "Prompt lookup's proposals from the context in ints(IdSlot.tokens), as (from, count, ngram, at) back to back, the best first: valid until the next lookup.") \
  X(startBeamSearch, start_beam_search, "(search: CoreBeamSearch, params: CoreBeamParams): CoreError | object", "Starts a search with the end-of-sequence ids in ints(IdSlot.tokens).") \
  X(beamStep, beam_step, "(search: CoreBeamSearch, ending: boolean): CoreError | CoreBeamStep", "One step on the rows in the primary input, or (ending) the last step's beams at the places in ints(IdSlot.tokens) ended there, their places refilled.")

#define SAMPLING_LAB_EXPERIMENTS_METHODS(X)                                                              \
  X(prepare, prepare, "(name: string, params: Record<string, number | string | boolean | null>, lengths: Record<string, number>): CoreError | { arrays: (Float32Array | Float64Array)[] }", "Checks an experiment's scalar parameters and its arrays' lengths, then sizes the arrays' buffers: their views, in the order of `lengths` (Float32Array where the experiment reads float32).") \
  X(run, run, "(onProgress: ((fraction: number) => boolean) | undefined): CoreError | { result: unknown }", "Runs the prepared experiment; its bulk arrays are typed-array views valid until release().") \
  X(release, release, "(): void", "Hands back the last experiment's memory.")

#define SAMPLING_LAB_EXPERIMENT_FUNCTIONS(X)                                                             \
  X(listExperiments, list_experiments, "(): ExperimentInfo[]", "Every experiment with its parameter schema.") \
  X(optionTable, option_table, "(): DocumentedOptionSpec[]", "Every sampling option with its documentation and slider.") \
  X(stageTable, stage_table, "(): StageTable", "The stages' names, presets and abbreviations.")
// clang-format on

#define SAMPLING_LAB_UNPARENTHESIZED(...) __VA_ARGS__

// How each kind of row is bound, inside EMSCRIPTEN_BINDINGS.
#define SAMPLING_LAB_BIND_FUNCTION(js, cpp, signature, doc) emscripten::function(#js, &cpp);
#define SAMPLING_LAB_BIND_METHOD(js, cpp, signature, doc) .function(#js, &Class::cpp)
#define SAMPLING_LAB_BIND_CLASS(js, cpp, methods, constructor_types, constructor_signature, doc)                  \
  {                                                                                                                \
    using Class = cpp;                                                                                             \
    emscripten::class_<cpp>(#js).constructor<SAMPLING_LAB_UNPARENTHESIZED constructor_types>() methods(SAMPLING_LAB_BIND_METHOD); \
  }

namespace sampling_lab::boundary {

// Whether a run is inside its progress callback: the module then refuses new input.
inline bool& reporting() {
  static bool inside = false;
  return inside;
}

inline emscripten::val failure(const ArgumentError& error) {
  emscripten::val detail = emscripten::val::object();
  detail.set("argument", error.argument);
  detail.set("message", error.message);
  emscripten::val out = emscripten::val::object();
  out.set("error", detail);
  return out;
}

inline const ArgumentError kReentered{"onProgress", "no call into the lab can be made inside onProgress: make it once the run returns"};
inline const ArgumentError kStopped{"onProgress", "the run was stopped by onProgress"};

// A typed array over `values` in WebAssembly memory: no copy, detached if the memory grows.
template <typename T>
emscripten::val view(std::span<T> values) {
  return emscripten::val(emscripten::typed_memory_view(values.size(), values.data()));
}
template <typename Container>
emscripten::val view(Container& values) {
  return view(std::span(values));
}

// An empty object: a call that succeeded with nothing to say.
inline emscripten::val ok() { return emscripten::val::object(); }

// The callback as the core's Progress (none when undefined). The wrapper's callback never
// throws (lab.ts's withProgress catches), so no exception unwinds through WebAssembly frames.
inline Progress progress_of(const emscripten::val& callback) {
  if (callback.isUndefined()) return {};
  return [callback](double fraction) {
    reporting() = true;
    const bool go_on = callback(fraction).as<bool>();
    reporting() = false;
    return go_on;
  };
}

}  // namespace sampling_lab::boundary
