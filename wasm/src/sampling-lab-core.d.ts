// The sampler module built from wasm/bindings.cpp (no experiments, no JSON): its C ABI, and the
// objects core-abi.ts makes of it for the Lab.
export interface CoreError {
  error: { argument: string; message: string };
}

/** An input or id slot. */
export interface CoreEnum { readonly value: number }

import type { StageName } from './generated/tables.js';

export type { StageName };

export interface FilterStage {
  /** The stage's name; 'masks' for allowedTokens and bannedTokens. */
  filter: StageName | 'masks';
  kept: number;
}

/** A stateful sampler's history in WebAssembly memory (delete() frees it). */
export interface CoreHistory {
  /** A view of `length` ids to fill with a starting history, which start() then takes. */
  startBuffer(length: number): CoreError | Int32Array;
  start(): void;
  /** An error when the history is full or cannot grow. */
  accept(token: number): CoreError | object;
  /** Becomes a copy of another history, inside WebAssembly. */
  copyFrom(other: CoreHistory): CoreError | object;
  /** The history, valid until the next accept. */
  tokens(): Int32Array;
  delete(): void;
}

/** A beam search in WebAssembly memory (delete() frees it); the engine starts and steps it. */
export interface CoreBeamSearch {
  /** The best hypotheses, best first; each tokens view is valid until the next finish(). */
  finish(): CoreError | { hypotheses: { tokens: Int32Array; logProb: number; score: number }[] };
  delete(): void;
}

export interface CoreEngine {
  /** A view of `length` floats in an input slot, or an error naming `name` if that is too many. */
  floats(slot: CoreEnum, length: number, name: string): CoreError | Float32Array;
  ints(slot: CoreEnum, length: number, name: string): CoreError | Int32Array;
  /** rows × (scalar options) doubles, laid out by the option table's slots. */
  optionValues(rows: number): CoreError | Float64Array;
  /** The number lists' values (logitBias), every row's back to back. */
  numberLists(length: number): CoreError | Float32Array;
  /** The resident logits buffer, with every buffer reserved for `vocabulary` tokens. */
  resident(vocabulary: number): CoreError | Float32Array;
  use(slot: CoreEnum): void;
  logSumExp(temperature: number): CoreError | { value: number };
  /** The written options checked for a vocabulary of `vocabulary` tokens. */
  checkOptions(vocabulary: number): CoreError | object;
  distribution(): CoreError | { probs: Float32Array; kept: number; keptMass: number; entropyBits: number; topProb: number };
  sampleToken(): CoreError | { token: number; mirostatMu?: number };
  /** The token, or −1 with lastError() set; keeps the options for sampleTokenAtStep. */
  sampleTokenNumber(): number;
  /** The last options of sampleTokenNumber with another step: the token, or −1. */
  sampleTokenAtStep(step: number): number;
  lastError(): CoreError;
  /** sampleToken with a stateful sampler's history as generatedIds. */
  sampleWithHistory(history: CoreHistory): CoreError | { token: number; mirostatMu?: number; adaptivePAverage?: number };
  /** Changes whenever the option buffers are handed back: views of them are stale then. */
  epoch(): Uint32Array;
  sampleTokenLogprobs(count: number, processed: boolean): CoreError | {
    token: number; logprob: number; rank: number; top: { token: number; logprob: number }[]; mirostatMu?: number;
  };
  sampleBatch(rows: number): CoreError | { tokens: Int32Array };
  /** Whether n draws of `method` from `vocabulary` values are within the limits. */
  checkDraws(method: string, n: number, vocabulary: number): CoreError | object;
  sample(method: string, n: number, isProbs: boolean, onProgress?: (fraction: number) => boolean): CoreError | { draws: Int32Array };
  randomWords(seed: number, stream: number, n: number): CoreError | { words: Uint32Array };
  coverCount(mass: number, temperature: number, isProbs: boolean): CoreError | { count: number };
  distance(): CoreError | { tv: number; kl: number; overlap: number };
  range(): CoreError | { min: number; max: number };
  stages(): CoreError | { stages: FilterStage[]; cutBy: Uint8Array };
  ranking(): CoreError | { order: Uint32Array };
  syntheticLogits(vocabSize: number, seed: number): CoreError | { logits: Float32Array };
  /**
   * Verifies the draft tokens in ints(IdSlot.tokens): γ + 1 target rows in the primary input, γ
   * draft rows in the secondary one, the options as one row; draftStream NaN = the default.
   */
  speculativeVerify(draftStream: number): CoreError | {
    accepted: number; token: number; tokens: Int32Array; acceptance: Float64Array; fromResidual: boolean;
  };
  /** Starts a search with the end-of-sequence ids in ints(IdSlot.tokens); lengthPenalty NaN = unset. */
  startBeamSearch(search: CoreBeamSearch, numBeams: number, lengthPenalty: number, numReturnSequences: number,
                  earlyStopping: boolean, stochastic: boolean, seed: number, stream: number, maxNewTokens: number): CoreError | object;
  /** One step on the rows in the primary input; the views are valid until the search's next step. */
  beamStep(search: CoreBeamSearch): CoreError | { beamIndices: Int32Array; tokens: Int32Array; done: boolean };
}

export interface CoreModule {
  /** Throws a SamplingLabError for onProgress while a run reports progress: the module takes one call at a time. */
  checkIdle(): void;
  Engine: new () => CoreEngine;
  History: new (penaltyLastN: number, noRepeatNgramSize: number) => CoreHistory;
  InputSlot: { primary: CoreEnum; secondary: CoreEnum; resident: CoreEnum };
  IdSlot: { ids: CoreEnum; offsets: CoreEnum; numberOffsets: CoreEnum; tokens: CoreEnum };
  BeamSearch: new () => CoreBeamSearch;
  /** stream XOR 2^52: the stream a draft samples on. */
  draftStream(stream: number): CoreError | { value: number };
  memoryStats(): { heapInUse: number; memoryBytes: number };
  maxVocabulary: number;
  maxBatchRows: number;
  maxHistory: number;
  maxDraftTokens: number;
  maxBeams: number;
  maxEosTokens: number;
  maxNewTokens: number;
  qwen3Vocabulary: number;
  /** The option table's shape: its scalar options, id lists and number lists. */
  scalarOptions: number;
  listOptions: number;
  numberListOptions: number;
}

/** The module as instantiate.ts hands it over: the exports of wasm/binding_support.hpp's ABI and the memory. */
export interface AbiModule {
  HEAPU8: Uint8Array;
  /** The callback sl_report_progress asks, during a call that reports progress. */
  onProgress?: (fraction: number) => boolean;
  [name: `_sl_${string}`]: (...args: number[]) => number;
}
