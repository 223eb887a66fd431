import type { StageName } from './generated/tables.js';
import type { CoreEngine, CoreEnum, CoreError, CoreHistory, CoreModule, FilterStage } from './sampling-lab-core.js';
import { SamplingLabError } from './errors.js';
import { LabBeamSearch, type BeamSearch, type BeamSearchOptions, type SpeculativeOptions, type SpeculativeVerification } from './decoding.js';
import { OPTION_TABLE, STAGE_TABLE } from './generated/tables.js';
import type { FilterOptions, RandomKeyOptions } from './generated/types.js';
import type { IntegerArray, NumericArray, OptionSpec } from './schema.js';

export type { FilterOptions, RandomKeyOptions } from './generated/types.js';
export type { StageName } from './generated/tables.js';
export type { FilterStage } from './sampling-lab-core.js';
export type { BeamHypothesis, BeamSearch, BeamSearchOptions, BeamStep, SpeculativeOptions, SpeculativeVerification } from './decoding.js';

export interface DistributionResult {
  /** The filtered, renormalised distribution (a copy owned by the caller). */
  probs: Float32Array;
  kept: number;
  /** Mass of the kept tokens under the tempered, untruncated distribution. */
  keptMass: number;
  entropyBits: number;
  topProb: number;
}

export type SamplingMethod = 'inverse-cdf' | 'gumbel-max' | 'exponential-race' | 'alias';

export interface SampleOptions extends Pick<RandomKeyOptions, 'seed' | 'stream'>, RunOptions {
  method?: SamplingMethod;
  /** Number of draws. Default 1. */
  n?: number;
  temperature?: number;
  /** The input holds probabilities rather than logits. */
  isProbs?: boolean;
}

/** Options of one generation step: the filters and the random key. */
export interface SampleTokenOptions extends FilterOptions, RandomKeyOptions {}

/**
 * Options of a batch, one row each: an array of per-row option objects, or one object whose
 * values are either shared by every row or per-row arrays (parallel typed arrays).
 */
export type BatchOptions = readonly SampleTokenOptions[] | {
  [K in keyof SampleTokenOptions]?: K extends 'generatedIds' ? readonly IntegerArray[] | IntegerArray : number | ArrayLike<number>;
};

export interface CoverCountOptions {
  temperature?: number;
  /** The input holds probabilities rather than logits. */
  isProbs?: boolean;
}

export interface Distances {
  tv: number;
  kl: number;
  overlap: number;
}

export interface RunOptions {
  /**
   * Hears the fraction done of long runs (called synchronously, during the run). Returning false
   * stops the run, which then throws a SamplingLabError for "onProgress"; an exception thrown here
   * stops it too and is rethrown once the run has released its memory.
   */
  onProgress?: (fraction: number) => boolean | void;
}

type Group = OptionSpec['group'];
// The distribution takes the random key too: XTC's draw comes from it, as in sampleToken.
const TOKEN_GROUPS: readonly Group[] = ['filter', 'mask', 'history', 'randomKey'];

/** Log-probabilities of one drawn token, as vLLM returns them. */
export interface TokenLogprobs {
  token: number;
  /** Natural log of its probability. */
  logprob: number;
  /** 1 = the most probable (ties to the lower id). */
  rank: number;
  /** The `logprobs` most probable tokens, best first. */
  top: { token: number; logprob: number }[];
}

export interface LogprobsOptions {
  /** How many of the most probable tokens to list, 0–20. */
  logprobs: number;
  /** 'raw': log-softmax of the unmodified logits (default); 'processed': of the distribution sampled from (−∞ for cut tokens). */
  logprobsMode?: 'raw' | 'processed';
}

/** Where each token of a distribution left the chain. */
export interface StagesResult {
  /** The stages that were on, in order, with the tokens left after each. */
  stages: FilterStage[];
  /** Per token: 0 = kept, else 1 + its cutting stage's index in `lab.stageNames` (`lab.masksCode` for the masks). */
  cutBy: Uint8Array;
}

/** A stateful sampler's state: plain JSON that `lab.createSampler(options, state)` restores exactly. */
export interface SamplerState {
  /** Tokens accepted so far (after options.generatedIds), which the penalties and DRY see. */
  history: number[];
  /** The random key's step of the next token. */
  step: number;
  /** Mirostat's μ for the next token; null before the first. */
  mirostatMu: number | null;
  /** Adaptive-p's moving average for the next token; null before the first (absent in older states). */
  adaptivePAverage?: number | null;
}

/** llama.cpp-style sampler: keeps the history, mirostat's μ and the step between tokens. */
export interface Sampler {
  /** Draws the next token and accepts it. */
  sample(logits: NumericArray): number;
  /** Appends a token chosen elsewhere (a prompt token, a speculative accept) to the history. */
  accept(token: number): void;
  /** Back to where the options start it (generatedIds, step, mirostat.mu), even if it was created from a saved state. */
  reset(): void;
  /** An independent copy with the same state. */
  clone(): Sampler;
  readonly state: SamplerState;
}

// An allow-list or mask that is given allows some token: empty, it would allow none (vLLM and
// transformers refuse an empty allow-list too); to allow every token, leave it out.
function allowingSome<T extends ArrayLike<number>>(list: T, name: string): T {
  if (list.length === 0) throw new SamplingLabError(name, `${name} is empty, so it allows no token; leave it out to allow every token`);
  return list;
}

// 53 random bits: seeds cross as doubles (integers up to 2^53 − 1).
function freshSeed(): number {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (words[0] & 0x1fffff) * 2 ** 32 + words[1];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

export function checkKeys(options: unknown, allowed: readonly string[], name = 'options'): asserts options is Record<string, unknown> {
  if (!isObject(options)) throw new SamplingLabError(name, `${name} must be an object`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${allowed.join(', ')}`);
    }
  }
}

export function unwrap<T extends object>(result: CoreError | T): T {
  if ('error' in result) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/** The module takes one call at a time: a call made from a run's progress report would take
 * that run's buffers (and its callback) while it still uses them. */
function checkIdle(core: CoreModule): void {
  if (core.reporting()) {
    throw new SamplingLabError('onProgress', 'no call into the lab can be made inside onProgress: make it once the run returns');
  }
}

function isError(result: object): result is CoreError {
  return 'error' in result && !ArrayBuffer.isView(result);
}

/** A typed-array view the core handed out, or its error. */
function view<T extends ArrayBufferView>(result: CoreError | T): T {
  if (isError(result)) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/**
 * A Float32Array, a Float64Array, or an array of at most `maxLength` entries each a number (no
 * holes, no BigInt); the length is checked before any entry is read.
 */
function checkNumbers(values: unknown, name: string, maxLength: number): asserts values is NumericArray {
  if (values instanceof Float32Array || values instanceof Float64Array) return;
  if (!Array.isArray(values)) throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
  checkLength(values, name, maxLength);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(values, i)}, not a number`);
  }
}

function checkLength(values: ArrayLike<unknown>, name: string, maxLength: number): void {
  if (values.length > maxLength) {
    throw new SamplingLabError(name, `${name} has ${values.length} entries; at most ${maxLength} are supported`);
  }
}

export const describe = (values: ArrayLike<unknown>, i: number) => (i in values ? typeof values[i] : 'a hole');

/** An id list as an Int32Array can carry it (no holes, whole numbers below 2^31); ranges are the core's to check. */
function idList(value: unknown, name: string, maxLength: number): IntegerArray {
  if (!(value instanceof Int32Array) && !Array.isArray(value)) {
    throw new SamplingLabError(name, `${name} must be an Int32Array or an array of integer token ids`);
  }
  checkLength(value, name, maxLength);
  if (value instanceof Int32Array) return value;
  for (let i = 0; i < value.length; i++) {
    const id = value[i];
    if (!Number.isInteger(id) || Math.abs(id) >= 2 ** 31) {
      throw new SamplingLabError(name, `${name}[${i}] is ${typeof id === 'number' ? id : describe(value, i)}, not an integer token id`);
    }
  }
  return value;
}

/** Options that cross among the lists: token ids, numbers, bitmasks. */
const isList = (spec: OptionSpec): boolean => spec.kind === 'array' || spec.kind === 'bitmask';

/** A bitmask's words as the id lists carry them: a Uint32Array read as an Int32Array, with no copy. */
function maskWords(value: unknown, name: string, maxLength: number): Int32Array {
  if (!(value instanceof Uint32Array) && !(value instanceof Int32Array)) {
    throw new SamplingLabError(name, `${name} must be a Uint32Array or Int32Array of 32-bit words (bit i of word i / 32 = token i)`);
  }
  checkLength(value, name, maxLength);
  return value instanceof Int32Array ? value : new Int32Array(value.buffer, value.byteOffset, value.length);
}

/** A list of numbers as a Float32Array can carry it (no holes); ranges are the core's to check. */
function numberList(value: unknown, name: string, maxLength: number): NumericArray {
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array) && !Array.isArray(value)) {
    throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
  }
  checkLength(value, name, maxLength);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(value, i)}, not a number`);
    }
  }
  return value;
}

const NO_ITEMS: readonly number[] = Object.freeze([]);
/** logitBias as an object holds at most this many tokens; [ids, biases] holds a vocabulary. */
const OBJECT_BIAS_KEYS = 65536;

/** Primary inputs up to this long keep their view between calls. */
const KEPT_VIEW = 1 << 16;

const isPrimitive = (value: unknown) => value === null || (typeof value !== 'object' && typeof value !== 'function');

/** Marks an option value that cannot be kept for comparison. */
const UNKEPT = Symbol('unkept');

/** The most list entries and object keys kept for comparison: longer lists are laid out again on every call. */
const KEPT_ENTRIES = 4096;

// The options as they are now, for a later call's to be compared with: primitives as they are;
// arrays, typed arrays and plain objects copied, as deep as badWords' lists of lists go, up to
// KEPT_ENTRIES in all; UNKEPT for anything else. A list or an object may change inside while
// staying the same object, hence the copy.
function snapshot(options: Record<string, unknown>): unknown {
  let left = KEPT_ENTRIES;
  const copy = (value: unknown, depth: number): unknown => {
    if (isPrimitive(value)) return value;
    if (depth === 3) return UNKEPT;
    if (value instanceof Int32Array || value instanceof Uint32Array || value instanceof Float32Array || value instanceof Float64Array) {
      return (left -= value.length) < 0 ? UNKEPT : value.slice();
    }
    if (Array.isArray(value)) {
      if ((left -= value.length) < 0) return UNKEPT;
      const items = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        if (!(i in value) || (items[i] = copy(value[i], depth + 1)) === UNKEPT) return UNKEPT;
      }
      return items;
    }
    if (Object.getPrototypeOf(value) !== Object.prototype) return UNKEPT;
    const fields: Record<string, unknown> = {};
    for (const key in value as object) {
      if (!Object.hasOwn(value as object, key) || --left < 0) return UNKEPT;
      if ((fields[key] = copy((value as Record<string, unknown>)[key], depth + 1)) === UNKEPT) return UNKEPT;
    }
    return fields;
  };
  return copy(options, 0);
}

/** Whether `value` equals `kept`, a snapshot, entry by entry (Object.is: −0 and NaN are values). */
function unchanged(kept: unknown, value: unknown): boolean {
  if (isPrimitive(kept)) return Object.is(kept, value);
  if (ArrayBuffer.isView(kept)) {
    const list = kept as unknown as ArrayLike<number>;
    if (!(value instanceof (kept.constructor as typeof Float32Array)) || (value as ArrayLike<number>).length !== list.length) return false;
    for (let i = 0; i < list.length; i++) if (!Object.is(list[i], (value as ArrayLike<number>)[i])) return false;
    return true;
  }
  if (Array.isArray(kept)) {
    if (!Array.isArray(value) || value.length !== kept.length) return false;
    for (let i = 0; i < kept.length; i++) {
      const entry = value[i];
      if (entry === undefined && !(i in value)) return false;  // a hole
      if (isPrimitive(kept[i]) ? !Object.is(kept[i], entry) : !unchanged(kept[i], entry)) return false;
    }
    return true;
  }
  if (!isObject(value) || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(kept as object);
  if (Object.keys(value).length !== keys.length) return false;
  return keys.every((key) => Object.hasOwn(value, key) && unchanged((kept as Record<string, unknown>)[key], value[key]));
}

/** Whether `options` has the cached options' keys and values, `step` aside. */
function sameButStep(cached: { options: Record<string, unknown>; keys: number }, options: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in options) {
    if (key !== 'step' && (!(key in cached.options) || !unchanged(cached.options[key], options[key]))) return false;
    keys++;
  }
  return keys === cached.keys;
}

/** Scalar arguments that must be numbers (their ranges are the core's to check). */
function checkScalars(values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'number') throw new SamplingLabError(name, `${name} must be a number, not ${typeof value}`);
  }
}

// The core hears progress through a callback that never throws into WebAssembly (an exception
// unwinding through it would skip the C++ destructors and leak): it returns false to stop,
// and the user's exception is rethrown after the core has returned.
export function withProgress<T>(onProgress: RunOptions['onProgress'], run: (progress?: (fraction: number) => boolean) => T): T {
  if (onProgress === undefined) return run();
  if (typeof onProgress !== 'function') throw new SamplingLabError('onProgress', 'onProgress must be a function');
  let thrown: { error: unknown } | undefined;
  const progress = (fraction: number) => {
    try {
      return onProgress(fraction) !== false;
    } catch (error) {
      thrown = { error };
      return false;
    }
  };
  let result: T;
  try {
    result = run(progress);
  } catch (error) {
    if (thrown) throw thrown.error;
    throw error;
  }
  // A report made as the run ended can throw too: the run's result is not returned then.
  if (thrown) throw thrown.error;
  return result;
}

/** badWords `[[ids…], …]` as the table's two lists: the ids back to back and each sequence's length. */
function badWordsLists(value: unknown, maxLength: number): [IntegerArray, number[]] {
  if (!Array.isArray(value)) throw new SamplingLabError('badWords', 'badWords must be an array of token-id sequences');
  checkLength(value, 'badWords', maxLength);
  const ids: number[] = [];
  const lengths: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const sequence = value[i];
    if (!(i in value) || (!Array.isArray(sequence) && !(sequence instanceof Int32Array))) {
      throw new SamplingLabError('badWords', `badWords[${i}] must be an array of token ids`);
    }
    if (sequence.length === 0) throw new SamplingLabError('badWords', `badWords[${i}] is empty`);
    if (ids.length + sequence.length > maxLength) throw new SamplingLabError('badWords', `badWords holds more than ${maxLength} ids`);
    for (const id of idList(sequence, 'badWords', maxLength)) ids.push(id);
    lengths.push(sequence.length);
  }
  return [ids, lengths];
}

/** `{ [tokenId]: bias }` or `[ids, biases]` as the table's two lists; keys are canonical ids ('7', not '07' or '0x7'). */
function logitBiasLists(value: unknown, maxLength: number): [IntegerArray, NumericArray] {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'object') {
    const [ids, biases] = value as [ArrayLike<unknown> | null, ArrayLike<unknown> | null];
    if (ids?.length !== biases?.length) {
      throw new SamplingLabError('logitBias', `logitBias has ${ids?.length} ids and ${biases?.length} biases; they must be as many`);
    }
    return [idList(ids, 'logitBias', maxLength), numberList(biases, 'logitBias', maxLength)];
  }
  if (!isObject(value) || value instanceof Map) {
    throw new SamplingLabError('logitBias', 'logitBias must be { [tokenId]: bias } or [ids, biases]');
  }
  // Counting an object's keys reads them all: the object form is for few tokens.
  const keys = Object.keys(value);
  checkLength(keys, 'logitBias', OBJECT_BIAS_KEYS);
  for (const key of keys) {
    if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new SamplingLabError('logitBias', `logitBias key '${key}' is not a token id`);
  }
  return [keys.map(Number), numberList(Object.values(value), 'logitBias', maxLength)];
}

/**
 * A loaded Sampling Lab sampler module. Methods are synchronous; create one per thread. The
 * chapter's experiments are ExperimentLab's (`sampling-lab/experiments`).
 */
export class Lab {
  /** Every sampling option: name, kind, default, range, group and slot (the experiments lab's also have docs and sliders). */
  readonly options: readonly OptionSpec[];
  readonly maxVocabulary: number;
  /** Rows of one sampleBatch call at most. */
  readonly maxBatchRows: number;
  /** Tokens a stateful sampler's history holds at most. */
  readonly maxHistory: number;
  /** Draft tokens speculativeVerify verifies at once at most. */
  readonly maxDraftTokens: number;
  /** A beam search's numBeams at most. */
  readonly maxBeams: number;
  /** A beam search's end-of-sequence ids at most. */
  readonly maxEosTokens: number;
  /** A beam search's maxNewTokens at most. */
  readonly maxNewTokens: number;
  /** 151,936: Qwen3's vocabulary, the size of the synthetic logits. */
  readonly qwen3Vocabulary: number;
  readonly #core: CoreModule;
  readonly #engine: CoreEngine;
  readonly #scalarCount: number;
  // The option table by name, its scalars' defaults (NaN for an unset optional) and list counts.
  readonly #layout: {
    byName: Map<string, OptionSpec>;
    scalarBySlot: OptionSpec[];
    defaults: Float64Array;
    idLists: number;
    numberLists: number;
  };
  readonly #stageTable = STAGE_TABLE;
  /** The stages `order` arranges, by index. */
  readonly stageNames: readonly StageName[];
  /** stages().cutBy's code of a token removed by allowedTokens or bannedTokens. */
  readonly masksCode: number;
  #resident?: Float32Array;
  // Draws without a seed use this lab's random seed and a step no other call of the lab uses.
  readonly #unseeded = { seed: freshSeed(), step: 0 };
  // Seeded draws without a step take the next step of their (seed, stream), as a generator would.
  readonly #nextSteps = new Map<number, Map<number, number>>();
  // Every view logitsBuffer handed out, to tell a detached one from an empty array.
  readonly #residents = new WeakSet<Float32Array>();

  constructor(core: CoreModule) {
    this.#core = core;
    this.#engine = new core.Engine();
    this.maxVocabulary = core.maxVocabulary;
    this.maxBatchRows = core.maxBatchRows;
    this.maxHistory = core.maxHistory;
    this.maxDraftTokens = core.maxDraftTokens;
    this.maxBeams = core.maxBeams;
    this.maxEosTokens = core.maxEosTokens;
    this.maxNewTokens = core.maxNewTokens;
    this.qwen3Vocabulary = core.qwen3Vocabulary;
    this.options = Object.freeze(OPTION_TABLE);
    this.#scalarCount = this.options.filter((o) => !isList(o)).length;
    const scalarBySlot: OptionSpec[] = [];
    const defaults = new Float64Array(this.#scalarCount);
    for (const spec of this.options) {
      if (isList(spec)) continue;
      scalarBySlot[spec.slot] = spec;
      defaults[spec.slot] = spec.kind === 'optional' ? NaN : (spec.default as number);
    }
    this.#layout = {
      byName: new Map(this.options.map((spec) => [spec.name, spec])),
      scalarBySlot,
      defaults,
      idLists: this.options.filter((o) => isList(o) && o.items?.kind !== 'number').length,
      numberLists: this.options.filter((o) => o.kind === 'array' && o.items?.kind === 'number').length,
    };
    const { idLists, numberLists } = this.#layout;
    if (core.scalarOptions !== this.#scalarCount || core.listOptions !== idLists || core.numberListOptions !== numberLists) {
      throw new Error('the WebAssembly module and generated/tables.ts describe different option tables: rebuild both');
    }
    this.stageNames = Object.freeze(this.#stageTable.stages);
    this.masksCode = this.#stageTable.masksCode;
  }

  /**
   * The distribution sampleToken draws from with the same options: logit bias and masks, then
   * the stages in `order` (default: penalties → DRY → temperature → top-k → top-p → min-p →
   * typical → top-nσ → ε → η → p-less → XTC → mirostat → adaptive-p), renormalised.
   */
  distribution(logits: NumericArray, options: SampleTokenOptions = {}): DistributionResult {
    const laid = this.#layOut([options]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.distribution());
    return { ...result, probs: result.probs.slice() };
  }

  /** The stages that are on, in order, the tokens left after each, and which stage cut each token. */
  stages(logits: NumericArray, options: SampleTokenOptions = {}): StagesResult {
    const laid = this.#layOut([options]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.stages());
    return { stages: result.stages, cutBy: result.cutBy.slice() };
  }

  /**
   * One token per call, for generation loops: bias, masks and the chain, then one seeded draw.
   * Temperature 0 is greedy. Allocates nothing in WebAssembly once warm. With `logprobs`, the
   * token comes with its log-probability, rank and the most probable alternatives.
   */
  sampleToken(logits: NumericArray, options: SampleTokenOptions & LogprobsOptions): TokenLogprobs;
  sampleToken(logits: NumericArray, options?: SampleTokenOptions): number;
  sampleToken(logits: NumericArray, options: SampleTokenOptions & Partial<LogprobsOptions> = {}): number | TokenLogprobs {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    if (!('logprobs' in options) && !('logprobsMode' in options)) return this.#sampleTokenNumber(logits, options);
    const { logprobs, logprobsMode, ...rest } = options;
    if (logprobs === undefined) {
      if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs');
      return this.#sampleTokenNumber(logits, rest);
    }
    const laid = this.#layOut([this.#keyed(rest, this.#step(rest))]);
    if (typeof logprobs !== 'number') throw new SamplingLabError('logprobs', 'logprobs must be a number');
    if (logprobsMode !== undefined && logprobsMode !== 'raw' && logprobsMode !== 'processed') {
      throw new SamplingLabError('logprobsMode', "logprobsMode must be 'raw' or 'processed'");
    }
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const { token, logprob, rank, top } = unwrap(this.#engine.sampleTokenLogprobs(logprobs, logprobsMode === 'processed'));
    return { token, logprob, rank, top };
  }

  // The per-token path with nothing built per call: the core returns the token as a number, and
  // options that differ from the last call's only in `step` (a generation loop's) are neither
  // laid out nor read again: the same values, lists and objects compared entry by entry with a
  // copy of the last call's.
  #sampleTokenNumber(logits: NumericArray, options: Record<string, unknown>): number {
    const step = this.#step(options);
    const cached = this.#stepOptions;
    if (cached && sameButStep(cached, options)) {
      if (typeof step !== 'number') throw new SamplingLabError('step', 'step must be a number');
      this.#input(logits, 'logits');
      // Taking the logits may have handed back the option buffers, which the kept options' lists view.
      if (this.#currentBuffers()) return this.#token(this.#engine.sampleTokenAtStep(step));
    }
    const laid = this.#layOut([this.#keyed(options, step)]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const token = this.#token(this.#engine.sampleTokenNumber());
    const kept = snapshot(options);
    if (kept !== UNKEPT) this.#stepOptions = { options: kept as Record<string, unknown>, keys: Object.keys(options).length };
    return token;
  }

  // The step of a draw: the given one with a seed, else the next of (seed, stream), or of the
  // lab's own random seed when there is no seed.
  #step(options: Record<string, unknown>): unknown {
    const { seed, stream = 0, step } = options;
    if (seed === undefined) {
      // Unused without a seed, but a bad one is still refused.
      if (step !== undefined && !(typeof step === 'number' && Number.isInteger(step) && step >= 0 && step <= Number.MAX_SAFE_INTEGER)) {
        throw new SamplingLabError('step', 'step must be an integer in [0, 2^53 − 1]');
      }
      return this.#unseeded.step++;
    }
    if (step !== undefined || typeof seed !== 'number' || typeof stream !== 'number') return step;
    let streams = this.#nextSteps.get(seed);
    if (!streams) this.#nextSteps.set(seed, streams = new Map());
    const next = streams.get(stream) ?? 0;
    streams.set(stream, next + 1);
    return next;
  }

  // The options with the random key that #step chose.
  #keyed(options: Record<string, unknown>, step: unknown): Record<string, unknown> {
    if (options.seed === undefined) return { ...options, seed: this.#unseeded.seed, step };
    return options.step === undefined ? { ...options, step } : options;
  }

  /**
   * A random seed (53 bits from crypto.getRandomValues): what a decoder uses for a run given no
   * seed, so that its draws are fresh from run to run and consistent within it.
   */
  freshSeed(): number {
    return freshSeed();
  }

  #token(token: number): number {
    if (token >= 0) return token;
    const { error } = this.#engine.lastError();
    throw new SamplingLabError(error.argument, error.message);
  }

  /**
   * A sampler that keeps state between tokens, as llama.cpp's do: the history the penalties and
   * DRY see (starting from options.generatedIds), mirostat's μ and the random key's step
   * (starting from options.step). `state`, from another sampler's `.state`, restores it exactly.
   * The history lives in WebAssembly and the penalties' counts are kept as tokens arrive, so a
   * token costs the same at any history length (DRY searches its window, dry.penaltyLastN).
   */
  createSampler(options: SampleTokenOptions = {}, state?: SamplerState): Sampler {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    // Checked once here, so that a bad option fails at creation rather than at the first token.
    this.checkOptions(options);
    const { generatedIds = [], step = 0, mirostat, adaptiveP, ...given } = options as SampleTokenOptions;
    // Without a seed the sampler draws on a fresh one, as every unseeded draw does.
    const fixed = given.seed === undefined ? { ...given, seed: freshSeed() } : given;
    const start: StartState = {
      history: Int32Array.from(generatedIds), step, mirostatMu: mirostat?.mu ?? null, adaptivePAverage: adaptiveP?.average ?? null,
    };
    if (state !== undefined) this.#checkSamplerState(state);
    const port: SamplerPort = {
      createHistory: () => new this.#core.History(fixed.penaltyLastN ?? -1, fixed.noRepeatNgramSize ?? 0),
      draw: (logits, stepOptions, history) => {
        const laid = this.#layOut([stepOptions]);
        this.#input(logits, 'logits');
        this.#writeOptions(laid);
        return unwrap(this.#engine.sampleWithHistory(history));
      },
      maxVocabulary: this.maxVocabulary,
    };
    return new StatefulSampler(port, fixed, { mirostat, adaptiveP }, start, state ?? start);
  }

  /**
   * Checks sampling options without sampling: kinds, ranges, and every token id below `vocabSize`
   * (default: the largest vocabulary accepted, or that allowedMask's words fit). Throws the SamplingLabError sampleToken would.
   */
  checkOptions(options: SampleTokenOptions, vocabSize = this.#largestVocabulary(options)): void {
    if (typeof vocabSize !== 'number') throw new SamplingLabError('vocabSize', 'vocabSize must be a number');
    this.#writeOptions(this.#layOut([options]));
    unwrap(this.#engine.checkOptions(vocabSize));
  }

  // The largest vocabulary options fit: an allowedMask of n words fits at most 32n tokens.
  #largestVocabulary(options: SampleTokenOptions): number {
    const mask = isObject(options) ? options.allowedMask : undefined;
    return mask instanceof Uint32Array || mask instanceof Int32Array ? Math.max(1, Math.min(this.maxVocabulary, 32 * mask.length)) : this.maxVocabulary;
  }

  /**
   * One token per row, each with its own options and random key. A row gives the same token
   * alone or inside any batch. Rows: an array of equal-length arrays, or one flat array.
   */
  sampleBatch(logitsRows: readonly NumericArray[] | Float32Array | Float64Array, options: BatchOptions): Int32Array {
    if (typeof logitsRows !== 'object' || logitsRows === null) {
      throw new SamplingLabError('logitsRows', 'logitsRows must be an array of rows or one flat Float32Array, Float64Array or number[]');
    }
    const matrix = Array.isArray(logitsRows) && logitsRows.length > 0 && typeof logitsRows[0] !== 'number'
      ? logitsRows as readonly NumericArray[] : undefined;
    if (matrix) {
      checkLength(matrix, 'logitsRows', this.maxBatchRows);
      const width = matrix[0]?.length;
      if (typeof width === 'number' && matrix.length * width > this.maxVocabulary) {
        throw new SamplingLabError('logitsRows', `logitsRows holds ${matrix.length} × ${width} logits; at most ${this.maxVocabulary} are supported`);
      }
      // Before 2^14 option objects are read: a ragged matrix is refused at once.
      const ragged = typeof width === 'number' && matrix.some((row) => typeof (row as NumericArray | undefined)?.length === 'number' && row.length !== width);
      if (ragged) throw new SamplingLabError('logitsRows', 'logitsRows must all have the same length');
    } else {
      checkLength(logitsRows as ArrayLike<unknown>, 'logitsRows', this.maxVocabulary);
    }
    const perRow = this.#rowsOf(options, matrix?.length);
    const rows = perRow.length;
    // The shapes first: reading 2^14 option objects takes longer than a rejection may.
    const length = (logitsRows as ArrayLike<unknown>)?.length;
    if (matrix && matrix.length !== rows) {
      throw new SamplingLabError('options', `options describe ${rows} rows for ${matrix.length} rows of logits`);
    }
    if (!matrix && typeof length === 'number' && length % rows !== 0) {
      throw new SamplingLabError('logitsRows', `logitsRows holds ${length} logits, not a whole number of rows for the ${rows} rows the options describe`);
    }
    const laid = this.#layOut(perRow.map((row) => this.#keyed(row as Record<string, unknown>, this.#step(row as Record<string, unknown>))));
    if (matrix) this.#writeRows(this.#core.InputSlot.primary, matrix, 'logitsRows');
    else this.#input(logitsRows as NumericArray, 'logitsRows');
    this.#writeOptions(laid);
    return unwrap(this.#engine.sampleBatch(rows)).tokens.slice();
  }

  /**
   * n i.i.d. draws by one of four exact methods, from probabilities or logits/T. Long runs report
   * progress to `onProgress`, which can stop them (see RunOptions).
   */
  sample(probsOrLogits: NumericArray, options: SampleOptions = {}): Int32Array {
    checkKeys(options, ['method', 'n', 'seed', 'stream', 'temperature', 'isProbs', 'onProgress']);
    const { method = 'inverse-cdf', n = 1, isProbs = false, onProgress, ...key } = options;
    if (typeof method !== 'string') throw new SamplingLabError('method', 'method must be a string');
    if (typeof n !== 'number') throw new SamplingLabError('n', 'n must be a number');
    if (typeof isProbs !== 'boolean') throw new SamplingLabError('isProbs', 'isProbs must be true or false');
    const name = isProbs ? 'probs' : 'logits';
    checkNumbers(probsOrLogits, name, this.maxVocabulary);
    // n and n × V are checked before the values are copied.
    unwrap(this.#engine.checkDraws(method, n, probsOrLogits.length));
    // A seed alone is a whole key here (draw i is Philox block i of (seed, stream)); none is a fresh one.
    const laid = this.#layOut([key.seed === undefined ? { ...key, seed: freshSeed() } : key]);
    this.#input(probsOrLogits, name);
    this.#writeOptions(laid);
    return withProgress(onProgress as RunOptions['onProgress'], (progress) => unwrap(this.#engine.sample(method, n, isProbs, progress)).draws.slice());
  }

  /**
   * Speculative decoding's verification (Leviathan et al. 2023; Chen et al. 2023): γ draft tokens,
   * each drawn from its draft row as `sampleToken(draftRows[i], { ...options, stream:
   * draftStream, step: step + i, generatedIds: [...generatedIds, ...drafts before it] })` would,
   * against the γ + 1 target rows: draft i is accepted with probability min(1, p_i/q_i), the first
   * rejected one is replaced by a draw from norm(max(0, p_i − q_i)), and when all are accepted a
   * bonus token is drawn from the last target row as sampleToken would at step + γ. p_i and q_i
   * are the distributions sampleToken draws from with these options; `step` is the first draft's
   * position and `generatedIds` the history before it. Rows: an array of rows or one flat array.
   */
  speculativeVerify(targetRows: readonly NumericArray[] | Float32Array | Float64Array,
                    draftRows: readonly NumericArray[] | Float32Array | Float64Array,
                    draftTokens: IntegerArray, options: SpeculativeOptions = {}): SpeculativeVerification {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    const { draftStream, ...rest } = options;
    // NaN is how "the default" crosses, so a NaN given here is refused rather than defaulted.
    if (draftStream !== undefined && (typeof draftStream !== 'number' || Number.isNaN(draftStream))) {
      throw new SamplingLabError('draftStream', 'draftStream must be a number');
    }
    const tokens = idList(draftTokens, 'draftTokens', this.maxDraftTokens);
    const laid = this.#layOut([rest.seed === undefined ? { ...rest, seed: freshSeed() } : rest]);
    const { InputSlot, IdSlot } = this.#core;
    const gamma = tokens.length;
    this.#writeRows(InputSlot.primary, targetRows, 'targetRows', { rows: gamma + 1, why: `γ = ${gamma} draft tokens` });
    this.#writeRows(InputSlot.secondary, draftRows, 'draftRows', { rows: gamma, why: `γ = ${gamma} draft tokens` });
    view(this.#engine.ints(IdSlot.tokens, tokens.length, 'draftTokens')).set(tokens);
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.speculativeVerify(draftStream ?? NaN));
    return { ...result, tokens: result.tokens.slice(), acceptance: result.acceptance.slice() };
  }

  /** The stream the draft samples on for a request's `stream`: stream XOR 2^52. */
  draftStream(stream: number): number {
    checkScalars({ stream });
    return unwrap(this.#core.draftStream(stream)).value;
  }

  /**
   * A beam search with the semantics of transformers' BeamSearchScorer, or stochastic beam search
   * (Kool et al. 2019), fed one forward pass of logits per step. It lives in WebAssembly until
   * the returned object is garbage-collected.
   */
  createBeamSearch(options: BeamSearchOptions): BeamSearch {
    checkKeys(options, ['numBeams', 'maxNewTokens', 'lengthPenalty', 'eosTokenIds', 'numReturnSequences', 'earlyStopping',
      'stochastic', 'seed', 'stream']);
    const { numBeams, maxNewTokens, lengthPenalty, eosTokenIds = NO_ITEMS, numReturnSequences = 1, earlyStopping = false,
      stochastic = false, seed = freshSeed(), stream = 0 } = options;
    checkScalars({ numBeams, maxNewTokens, numReturnSequences, seed, stream });
    if (lengthPenalty !== undefined && (typeof lengthPenalty !== 'number' || Number.isNaN(lengthPenalty))) {
      throw new SamplingLabError('lengthPenalty', 'lengthPenalty must be a number');
    }
    for (const [name, flag] of [['earlyStopping', earlyStopping], ['stochastic', stochastic]] as const) {
      if (typeof flag !== 'boolean') throw new SamplingLabError(name, `${name} must be true or false`);
    }
    const eos = idList(eosTokenIds, 'eosTokenIds', this.maxEosTokens);
    view(this.#engine.ints(this.#core.IdSlot.tokens, eos.length, 'eosTokenIds')).set(eos);
    const search = new this.#core.BeamSearch();
    const started = this.#engine.startBeamSearch(search, {
      numBeams, lengthPenalty: lengthPenalty ?? NaN, numReturnSequences, earlyStopping, stochastic, seed, stream, maxNewTokens,
    });
    if (isError(started)) {
      search.delete();
      throw new SamplingLabError(started.error.argument, started.error.message);
    }
    return new LabBeamSearch({
      step: (handle, logitsRows, first) => {
        this.#writeRows(this.#core.InputSlot.primary, logitsRows, 'logitsRows',
          first ? { rows: 1, why: 'the first step (the prompt)' } : { rows: numBeams, why: `numBeams = ${numBeams}` });
        const { beamIndices, tokens, done } = unwrap(this.#engine.beamStep(handle));
        return { beamIndices: beamIndices.slice(), tokens: tokens.slice(), done };
      },
      finish: (handle) => unwrap(handle.finish()).hypotheses.map(({ tokens, logProb, score }) => ({ tokens: Array.from(tokens), logProb, score })),
    }, search, numBeams);
  }

  /** The raw Philox4x32-10 words of (seed, stream): identical natively and in WebAssembly. */
  randomWords(seed: number, stream: number, n: number): Uint32Array {
    checkScalars({ seed, stream, n });
    return unwrap(this.#engine.randomWords(seed, stream, n)).words.slice();
  }

  /**
   * A Float32Array inside WebAssembly memory, sized for `vocabSize` logits: write a model's
   * output into it and pass it to `sampleToken`, `distribution`, `coverCount` or `logSumExp`
   * with no copy. It stays valid while calls need no more memory (buffers are reserved for
   * `vocabSize`); if it ever reads as length 0, ask for it again.
   */
  logitsBuffer(vocabSize: number): Float32Array {
    if (typeof vocabSize !== 'number') throw new SamplingLabError('vocabSize', 'vocabSize must be a number');
    this.#resident = view(this.#engine.resident(vocabSize));
    this.#residents.add(this.#resident);
    return this.#resident;
  }

  /** log Σ exp(z / T), with max subtraction; T > 0. */
  logSumExp(logits: NumericArray, temperature = 1): number {
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#input(logits, 'logits');
    return unwrap(this.#engine.logSumExp(temperature)).value;
  }

  /** How many of the most probable tokens reach cumulative probability `mass`. */
  coverCount(logitsOrProbs: NumericArray, mass: number, options: CoverCountOptions = {}): number {
    checkKeys(options, ['temperature', 'isProbs']);
    const { temperature = 1, isProbs = false } = options;
    if (typeof isProbs !== 'boolean') throw new SamplingLabError('isProbs', 'isProbs must be true or false');
    if (typeof mass !== 'number') throw new SamplingLabError('mass', 'mass must be a number');
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#input(logitsOrProbs, isProbs ? 'probs' : 'logits');
    return unwrap(this.#engine.coverCount(mass, temperature, isProbs === true)).count;
  }

  /** Total variation, KL(p‖q) in nats, and overlap Σ min(p, q) = 1 − TV. */
  distance(p: NumericArray, q: NumericArray): Distances {
    checkNumbers(p, 'p', this.maxVocabulary);
    checkNumbers(q, 'q', this.maxVocabulary);
    if (p.length !== q.length) throw new SamplingLabError('q', `q has ${q.length} entries and p ${p.length}; they must have as many`);
    this.#input(p, 'p');
    this.#write(this.#core.InputSlot.secondary, q, 'q');
    return unwrap(this.#engine.distance());
  }

  /** Bytes the module's allocator holds for live objects, and the WebAssembly memory's size. */
  memory(): { heapInUse: number; memoryBytes: number } {
    return this.#core.memoryStats();
  }

  /** The smallest and largest value, in one SIMD pass. */
  range(values: NumericArray): { min: number; max: number } {
    this.#input(values, 'values');
    return unwrap(this.#engine.range());
  }

  /** Token ids by descending value (ties: lower id first), the order filters keep prefixes of. */
  ranking(values: NumericArray): Uint32Array {
    this.#input(values, 'values');
    return unwrap(this.#engine.ranking()).order.slice();
  }

  /**
   * The documented synthetic logit vector (default: 151,936 tokens, Qwen3's vocabulary): a
   * Zipf-like head of 100 tokens over a Gaussian tail, reproducible from `seed`.
   */
  syntheticLogits(vocabSize = this.qwen3Vocabulary, seed = 0): Float32Array {
    checkScalars({ vocabSize, seed });
    return unwrap(this.#engine.syntheticLogits(vocabSize, seed)).logits.slice();
  }

  // One options object per row: the given array, or the columns of one object spread over its
  // rows (`logitsRows` rows of logits, when given, or 1, when no option is a column).
  #rowsOf(options: BatchOptions, logitsRows?: number): readonly SampleTokenOptions[] {
    let rows = logitsRows ?? 1;
    if (Array.isArray(options)) {
      if (options.length === 0) throw new SamplingLabError('options', 'options must describe at least one row');
      checkLength(options, 'options', this.maxBatchRows);
      for (let r = 0; r < options.length; r++) {
        if (!(r in options)) throw new SamplingLabError('options', `options[${r}] is a hole`);
      }
      return options;
    }
    checkKeys(options, this.#accepted(TOKEN_GROUPS).names);
    const entries = Object.entries(options as Record<string, unknown>);
    const isColumn = entries.map(([name, value]) => this.#isColumn(name, value));
    const columns = entries.filter((_, e) => isColumn[e]) as [string, ArrayLike<unknown>][];
    if (columns.length > 0) {
      const [first, { length }] = columns[0];
      checkLength(columns[0][1], first, this.maxBatchRows);
      if (length === 0) throw new SamplingLabError(first, `${first} must describe at least one row`);
      for (const [name, column] of columns) {
        if (column.length !== length) {
          throw new SamplingLabError(name, `${name} has ${column.length} entries for ${length} rows (${first} has ${length})`);
        }
        for (let r = 0; r < length; r++) if (!(r in column)) throw new SamplingLabError(name, `${name}[${r}] is a hole`);
      }
      if (logitsRows !== undefined && length !== logitsRows) {
        throw new SamplingLabError(first, `${first} has ${length} entries for ${logitsRows} rows of logits`);
      }
      rows = length;
    }
    return Array.from({ length: rows }, (_, r) => {
      const row: Record<string, unknown> = {};
      entries.forEach(([name, value], e) => { row[name] = isColumn[e] ? (value as ArrayLike<unknown>)[r] : value; });
      return row;
    });
  }

  // A per-row value: an array of numbers for a scalar option, an array of lists for a list.
  #isColumn(name: string, value: unknown): boolean {
    const spec = this.#layout.byName.get(name);
    if (spec === undefined) return false;  // nested options (xtc, dry, …) are shared by every row
    if (!isList(spec)) return typeof value === 'object' && value !== null && 'length' in value;
    return Array.isArray(value) && value.length > 0 && typeof value[0] === 'object';
  }

  // The table's flat names ("xtc.probability", "logitBias.ids", order as stage indices) of one
  // row's options, after checking its keys.
  #flatten(options: object, accepted: AcceptedNames): Record<string, unknown> {
    checkKeys(options, accepted.names);
    // Most calls give only flat options: they cross as given.
    if (!Object.keys(options).some((key) => key === 'logitBias' || key === 'badWords' || key === 'order' || accepted.nested.has(key))) return options;
    const flat: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      if (key === 'logitBias') {
        [flat['logitBias.ids'], flat['logitBias.values']] = logitBiasLists(value, this.#layout.byName.get('logitBias.ids')!.maxLength!);
      } else if (key === 'badWords') {
        // badWords' ids in all at most: the core's kMaxBadWordIds, the largest a sequence may be.
        [flat['badWords.ids'], flat['badWords.lengths']] = badWordsLists(value, this.#layout.byName.get('badWords.lengths')!.items!.max!);
      } else if (key === 'order') {
        flat.order = this.#stageIndices(value);
      } else if (accepted.nested.has(key)) {
        checkKeys(value, accepted.nested.get(key)!, key);
        for (const [field, inner] of Object.entries(value)) flat[`${key}.${field}`] = inner;
      } else {
        flat[key] = value;
      }
    }
    return flat;
  }

  #stageIndices(order: unknown): number[] {
    if (order === 'handbook') return [];
    const names = order === 'llama.cpp' ? this.#stageTable.presets['llama.cpp'] : order;
    if (!Array.isArray(names)) {
      throw new SamplingLabError('order', "order must be 'handbook', 'llama.cpp' or an array of stage names");
    }
    // An empty list would read as the default: the stages to run must be named.
    if (names.length === 0) throw new SamplingLabError('order', "order must name the stages to run, or be 'handbook' or 'llama.cpp'");
    checkLength(names, 'order', this.stageNames.length);
    return Array.from(names, (name, i) => {
      const index = this.stageNames.indexOf(name);
      if (index < 0) {
        throw new SamplingLabError('order', `order[${i}] is ${i in names ? `'${String(name)}'` : 'a hole'}, not a stage; stages: ${this.stageNames.join(', ')}`);
      }
      return index;
    });
  }

  // The options of each row as the core's option table lays them out, with every JavaScript
  // type and every list's length checked (the lists' total too) before anything is copied; the
  // core checks the values.
  #layOut(rows: readonly object[]): LaidOut {
    const accepted = this.#accepted(TOKEN_GROUPS);
    const { byName, idLists, numberLists: numberListCount } = this.#layout;
    const lists: IntegerArray[] = [];
    const numberLists: NumericArray[] = [];
    const rowScalars: [number, number, unknown][] = [];  // (row, spec slot, value) of the given scalars
    // Every list of every row crosses in one buffer of bounded size.
    const most = this.maxVocabulary * idLists;
    let ids = 0;
    let numbers = 0;
    rows.forEach((options, r) => {
      const rowLists: IntegerArray[] = new Array(idLists).fill(NO_ITEMS);
      const rowNumbers: NumericArray[] = new Array(numberListCount).fill(NO_ITEMS);
      // Only the given options are visited: the rest keep the defaults.
      for (const [name, value] of Object.entries(this.#flatten(options, accepted))) {
        const spec = byName.get(name)!;
        if (value === undefined) continue;
        if (spec.kind === 'bitmask') {
          ids += (rowLists[spec.slot] = allowingSome(maskWords(value, spec.name, spec.maxLength!), spec.name)).length;
        } else if (spec.kind !== 'array') {
          rowScalars.push([r, spec.slot, value]);
        } else if (spec.items?.kind === 'number') {
          numbers += (rowNumbers[spec.slot] = numberList(value, spec.name, spec.maxLength!)).length;
        } else {
          const list = idList(value, spec.name, spec.maxLength!);
          ids += (rowLists[spec.slot] = name === 'allowedTokens' ? allowingSome(list, name) : list).length;
        }
      }
      if (ids > most || numbers > most) {
        throw new SamplingLabError('options', `the options' lists hold more than ${most} entries in all (by row ${r})`);
      }
      lists.push(...rowLists);
      numberLists.push(...rowNumbers);
    });
    return { rows: rows.length, lists, numberLists, rowScalars };
  }

  // Writes laid-out options into the core's buffers.
  #writeOptions({ rows, lists, numberLists, rowScalars }: LaidOut): void {
    this.#stepOptions = undefined;  // the core no longer holds them
    const scalars = this.#scalarCount;
    const { defaults } = this.#layout;
    const offsets = [0];
    for (const list of lists) offsets.push(offsets[offsets.length - 1] + list.length);
    const numberOffsets = [0];
    for (const list of numberLists) numberOffsets.push(numberOffsets[numberOffsets.length - 1] + list.length);
    const buffers = this.#optionBuffers(rows, offsets[offsets.length - 1], offsets.length,
      numberOffsets[numberOffsets.length - 1], numberOffsets.length);
    const values = buffers.values;
    for (let r = 0; r < rows; r++) values.set(defaults, r * scalars);
    for (const [r, slot, value] of rowScalars) {
      const spec = this.#layout.scalarBySlot[slot];
      if (spec.kind === 'optional') {
        // NaN is how an unset value crosses, so a NaN given here is refused rather than unset.
        if (value !== null && (typeof value !== 'number' || Number.isNaN(value))) {
          throw new SamplingLabError(spec.name, `${spec.name} must be a number or null`);
        }
        values[r * scalars + slot] = value ?? NaN;
      } else {
        if (typeof value !== 'number') throw new SamplingLabError(spec.name, `${spec.name} must be a number`);
        values[r * scalars + slot] = value;
      }
    }
    buffers.offsets.set(offsets);
    buffers.numberOffsets.set(numberOffsets);
    let at = 0;
    for (const list of lists) {
      buffers.ids.set(list, at);
      at += list.length;
    }
    at = 0;
    for (const list of numberLists) {
      buffers.numbers.set(list, at);
      at += list.length;
    }
  }

  #acceptedByGroups = new Map<readonly Group[], AcceptedNames>();

  // The public names of the options of these groups: flat ones, and the objects (xtc, dry, …)
  // whose fields are the table's dotted names.
  #accepted(groups: readonly Group[]): AcceptedNames {
    let accepted = this.#acceptedByGroups.get(groups);
    if (!accepted) {
      const flat = this.options.filter((o) => groups.includes(o.group)).map((o) => o.name);
      const nested = new Map<string, string[]>();
      for (const name of flat) {
        const [outer, field] = name.split('.');
        if (field !== undefined && outer !== 'logitBias' && outer !== 'badWords') nested.set(outer, [...(nested.get(outer) ?? []), field]);
      }
      const names = [...new Set(flat.map((name) => name.split('.')[0]))];
      accepted = { names, nested };
      this.#acceptedByGroups.set(groups, accepted);
    }
    return accepted;
  }

  #buffers?: OptionBuffers & { epoch: number };
  // sampleToken's last options when the core keeps them for sampleTokenAtStep.
  #stepOptions?: { options: Record<string, unknown>; keys: number };
  // A small primary input's view, kept while calls give logits of its length; and the input slot
  // the core reads from.
  #primaryView?: Float32Array;
  #currentSlot?: CoreEnum;
  #epoch?: Uint32Array;

  // The kept views of the option buffers while valid: the core owns the buffers, so they are valid
  // while its epoch is the one they were taken at (it changes when the core hands buffers back)
  // and memory has not grown (a detached view, the epoch's included, reads as empty).
  #currentBuffers() {
    const cached = this.#buffers;
    return cached && this.#epoch?.[0] === cached.epoch ? cached : undefined;
  }

  // Views of the option buffers, kept across calls of the same shape: a generation loop then
  // crosses into WebAssembly only to sample. Memory growth detaches them (byteLength 0).
  #optionBuffers(rows: number, ids: number, offsets: number, numbers: number, numberOffsets: number) {
    const fits = (b: OptionBuffers) => b.values.length === rows * this.#scalarCount && b.ids.length === ids &&
      b.offsets.length === offsets && b.numbers.length === numbers && b.numberOffsets.length === numberOffsets;
    const cached = this.#currentBuffers();
    if (cached && fits(cached)) return cached;
    // Sizing resizes the core's buffers: until it has succeeded, no view is valid.
    this.#buffers = undefined;
    const { IdSlot } = this.#core;
    // Sizing a later buffer may grow memory and detach the earlier views; the second round
    // allocates nothing.
    for (;;) {
      const buffers = {
        values: view(this.#engine.optionValues(rows)),
        ids: view(this.#engine.ints(IdSlot.ids, ids, 'options')),
        offsets: view(this.#engine.ints(IdSlot.offsets, offsets, 'options')),
        numbers: view(this.#engine.numberLists(numbers)),
        numberOffsets: view(this.#engine.ints(IdSlot.numberOffsets, numberOffsets, 'options')),
      };
      const epoch = this.#engine.epoch();
      if (fits(buffers)) {
        this.#epoch = epoch;
        this.#buffers = { ...buffers, epoch: epoch[0] };
        return this.#buffers;
      }
    }
  }

  /** Sampler state as `.state` gives it, checked before a sampler takes it. */
  #checkSamplerState(state: unknown): asserts state is SamplerState {
    checkKeys(state, ['history', 'step', 'mirostatMu', 'adaptivePAverage'], 'state');
    const { history, step, mirostatMu, adaptivePAverage = null } = state;
    if (!Array.isArray(history)) throw new SamplingLabError('state.history', 'state.history must be an array of token ids');
    checkLength(history, 'state.history', this.maxHistory);
    for (let i = 0; i < history.length; i++) {
      const id = history[i];
      if (!Number.isInteger(id) || id < 0 || id >= this.maxVocabulary) {
        throw new SamplingLabError('state.history', `state.history[${i}] is ${typeof id === 'number' ? id : describe(history, i)}, not a token id in [0, ${this.maxVocabulary})`);
      }
    }
    if (!Number.isInteger(step) || (step as number) < 0 || (step as number) > Number.MAX_SAFE_INTEGER) {
      throw new SamplingLabError('state.step', 'state.step must be an integer in [0, 2^53 − 1]');
    }
    const mu = this.#layout.byName.get('mirostat.mu')!.of!;
    if (mirostatMu !== null && (typeof mirostatMu !== 'number' || !(mirostatMu >= mu.min! && mirostatMu <= mu.max!))) {
      throw new SamplingLabError('state.mirostatMu', `state.mirostatMu must be null or a number in [${mu.min}, ${mu.max}]`);
    }
    const average = this.#layout.byName.get('adaptiveP.average')!.of!;
    if (adaptivePAverage !== null && (typeof adaptivePAverage !== 'number' || !(adaptivePAverage >= average.min! && adaptivePAverage <= average.max!))) {
      throw new SamplingLabError('state.adaptivePAverage', `state.adaptivePAverage must be null or a number in [${average.min}, ${average.max}]`);
    }
  }

  /**
   * Rows of logits into an input slot, back to back: an array of equal-length rows (each checked,
   * every length before any copy; `count` of them when given), or one flat array.
   */
  #writeRows(slot: CoreEnum, rows: unknown, name: string, count?: { rows: number; why: string }): void {
    checkIdle(this.#core);
    const matrix = Array.isArray(rows) && rows.length > 0 && typeof rows[0] !== 'number' ? rows as unknown[] : undefined;
    if (!matrix) return this.#write(slot, rows as NumericArray, name);
    checkLength(matrix, name, this.maxVocabulary);
    if (count && matrix.length !== count.rows) {
      throw new SamplingLabError(name, `${name} has ${matrix.length} rows; ${count.why} needs ${count.rows}`);
    }
    for (let r = 0; r < matrix.length; r++) {
      if (!(r in matrix)) throw new SamplingLabError(name, `${name}[${r}] is a hole`);
      checkNumbers(matrix[r], `${name}[${r}]`, this.maxVocabulary);
    }
    const width = (matrix[0] as NumericArray).length;
    if (matrix.some((row) => (row as NumericArray).length !== width)) {
      throw new SamplingLabError(name, `${name} must all have the same length`);
    }
    if (matrix.length * width > this.maxVocabulary) {
      throw new SamplingLabError(name, `${name} holds ${matrix.length} × ${width} logits; at most ${this.maxVocabulary} are supported`);
    }
    const flat = view(this.#engine.floats(slot, matrix.length * width, name));
    matrix.forEach((row, r) => flat.set(row as NumericArray, r * width));
    if (slot === this.#core.InputSlot.primary) {
      this.#primaryView = undefined;
      this.#use(slot);
    }
  }

  /** Writes the call's main input (logits or probabilities) and reads from it. */
  #input(values: NumericArray, name: string): void {
    this.#write(this.#core.InputSlot.primary, values, name);
  }

  #write(slot: CoreEnum, values: NumericArray, name: string): void {
    checkIdle(this.#core);
    if (!(values instanceof Float32Array) && !(values instanceof Float64Array) && !Array.isArray(values)) {
      throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
    }
    checkLength(values, name, this.maxVocabulary);
    if (values instanceof Float32Array && this.#residents.has(values) && values.buffer.byteLength === 0) {
      throw new SamplingLabError(name, `${name} is a logitsBuffer view that WebAssembly memory growth detached; call lab.logitsBuffer(vocabSize) again`);
    }
    const { InputSlot } = this.#core;
    if (slot === InputSlot.primary && values === this.#resident && values.length > 0) {
      this.#use(InputSlot.resident);
      return;
    }
    // One copy into WebAssembly memory; the view is used before anything can grow memory. A
    // number[] is checked entry by entry as it is copied. A small primary view is reused: the
    // core hands back only large buffers, and memory growth empties the view, which is then
    // asked for again (as is any other length).
    const reuse = slot === InputSlot.primary && values.length > 0 && this.#primaryView?.length === values.length;
    const target = reuse ? this.#primaryView! : view(this.#engine.floats(slot, values.length, name));
    if (slot === InputSlot.primary) this.#primaryView = values.length <= KEPT_VIEW ? target : undefined;
    if (!Array.isArray(values)) {
      target.set(values);
    } else {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (typeof value !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(values, i)}, not a number`);
        target[i] = value;
      }
    }
    if (slot === InputSlot.primary) this.#use(InputSlot.primary);
  }

  #use(slot: CoreEnum): void {
    if (this.#currentSlot === slot) return;
    this.#engine.use(slot);
    this.#currentSlot = slot;
  }
}

interface LaidOut {
  rows: number;
  lists: IntegerArray[];
  numberLists: NumericArray[];
  rowScalars: [number, number, unknown][];
}

interface OptionBuffers {
  values: Float64Array;
  ids: Int32Array;
  offsets: Int32Array;
  numbers: Float32Array;
  numberOffsets: Int32Array;
}

interface AcceptedNames {
  /** Top-level keys a caller may give. */
  names: string[];
  /** Objects whose fields are dotted names: xtc, dry, mirostat. */
  nested: Map<string, string[]>;
}

/** A sampler's state as it starts: its history may be an Int32Array. */
interface StartState extends Omit<SamplerState, 'history'> {
  history: Int32Array | readonly number[];
}

/** What a stateful sampler needs of its lab: a history in WebAssembly, and a draw with it. */
interface SamplerPort {
  createHistory(): CoreHistory;
  draw(logits: NumericArray, options: SampleTokenOptions, history: CoreHistory):
    { token: number; mirostatMu?: number; adaptivePAverage?: number };
  maxVocabulary: number;
}

// Each sampler's history lives in WebAssembly memory until the sampler is garbage-collected.
const histories = new FinalizationRegistry<CoreHistory>((history) => history.delete());

class StatefulSampler implements Sampler {
  readonly #port: SamplerPort;
  readonly #fixed: SampleTokenOptions;
  // The options whose state moves with each token: mirostat's μ and adaptive-p's average.
  readonly #moving: Pick<SampleTokenOptions, 'mirostat' | 'adaptiveP'>;
  readonly #start: StartState;
  readonly #history: CoreHistory;
  #step = 0;
  #mu: number | null = null;
  #average: number | null = null;

  // `state` is a state to restore, or a sampler whose history is copied inside WebAssembly.
  constructor(port: SamplerPort, fixed: SampleTokenOptions, moving: Pick<SampleTokenOptions, 'mirostat' | 'adaptiveP'>,
              start: StartState, state: StartState | StatefulSampler) {
    this.#port = port;
    this.#fixed = fixed;
    this.#moving = moving;
    this.#start = start;
    this.#history = port.createHistory();
    histories.register(this, this.#history);
    if (state instanceof StatefulSampler) {
      unwrap(this.#history.copyFrom(state.#history));
      this.#step = state.#step;
      this.#mu = state.#mu;
      this.#average = state.#average;
    } else {
      this.#restore(state);
    }
  }

  sample(logits: NumericArray): number {
    const options: SampleTokenOptions = { ...this.#fixed, step: this.#step };
    const { mirostat, adaptiveP } = this.#moving;
    if (mirostat) options.mirostat = { ...mirostat, mu: this.#mu };
    if (adaptiveP) options.adaptiveP = { ...adaptiveP, average: this.#average };
    const { token, mirostatMu, adaptivePAverage } = this.#port.draw(logits, options, this.#history);
    this.accept(token);
    if (mirostatMu !== undefined) this.#mu = mirostatMu;
    if (adaptivePAverage !== undefined) this.#average = adaptivePAverage;
    return token;
  }

  accept(token: number): void {
    const most = this.#port.maxVocabulary;
    if (!Number.isInteger(token) || token < 0 || token >= most) {
      throw new SamplingLabError('token', `token must be a token id in [0, ${most}), not ${String(token)}`);
    }
    unwrap(this.#history.accept(token));
    this.#step += 1;
  }

  reset(): void {
    this.#restore(this.#start);
  }

  clone(): Sampler {
    return new StatefulSampler(this.#port, this.#fixed, this.#moving, this.#start, this);
  }

  get state(): SamplerState {
    const tokens = this.#history.tokens();
    // A plain loop: Array.from on a typed array of millions is several times slower.
    const history = new Array<number>(tokens.length);
    for (let i = 0; i < tokens.length; i++) history[i] = tokens[i];
    return { history, step: this.#step, mirostatMu: this.#mu, adaptivePAverage: this.#average };
  }

  #restore(state: StartState): void {
    view(this.#history.startBuffer(state.history.length)).set(state.history);
    this.#history.start();
    this.#step = state.step;
    this.#mu = state.mirostatMu;
    this.#average = state.adaptivePAverage ?? null;
  }
}
