import type { CoreEngine, CoreEnum, CoreError, CoreModule, FilterStage } from './sampling-lab-core.js';
import { SamplingLabError } from './errors.js';
import type { ExperimentName, ExperimentTypes } from './experiments.js';
import type { FilterOptions, RandomKeyOptions } from './generated/types.js';
import type { ExperimentInfo, IntegerArray, NumericArray, OptionSpec } from './schema.js';

export type { FilterOptions, RandomKeyOptions } from './generated/types.js';
export type { FilterStage } from './sampling-lab-core.js';

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
const FILTER_GROUPS: readonly Group[] = ['filter', 'penalty'];
const TOKEN_GROUPS: readonly Group[] = ['filter', 'penalty', 'randomKey'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

function checkKeys(options: unknown, allowed: readonly string[], name = 'options'): asserts options is Record<string, unknown> {
  if (!isObject(options)) throw new SamplingLabError(name, `${name} must be an object`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${allowed.join(', ')}`);
    }
  }
}

function unwrap<T extends object>(result: CoreError | T): T {
  if ('error' in result) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

function isError(result: object): result is CoreError {
  return 'error' in result && !ArrayBuffer.isView(result);
}

/** A typed-array view the core handed out, or its error. */
function view<T extends ArrayBufferView>(result: CoreError | T): T {
  if (isError(result)) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/** A Float32Array, a Float64Array, or an array whose every entry is a number (no holes, no BigInt). */
function checkNumbers(values: unknown, name: string): asserts values is NumericArray {
  if (values instanceof Float32Array || values instanceof Float64Array) return;
  if (!Array.isArray(values)) throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${typeof values[i]}, not a number`);
  }
}

/** An id list as an Int32Array can carry it; ranges are the core's to check. */
function idList(value: unknown, name: string): IntegerArray {
  if (value instanceof Int32Array) return value;
  if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id) && Math.abs(id) < 2 ** 31)) {
    throw new SamplingLabError(name, `${name} must be an Int32Array or an array of integer token ids`);
  }
  return value;
}

/** A loaded Sampling Lab module. Methods are synchronous; create one per thread. */
export class Lab {
  /** Every experiment with its parameter schema. */
  readonly experiments: readonly ExperimentInfo[];
  /** Every sampling option: name, kind, default, range, slider and documentation. */
  readonly options: readonly OptionSpec[];
  readonly maxVocabulary: number;
  /** 151,936: Qwen3's vocabulary, the size of the synthetic logits. */
  readonly qwen3Vocabulary: number;
  readonly #core: CoreModule;
  readonly #engine: CoreEngine;
  readonly #scalarCount: number;
  readonly #listCount: number;
  #resident?: Float32Array;
  // Every view logitsBuffer handed out, to tell a detached one from an empty array.
  readonly #residents = new WeakSet<Float32Array>();

  constructor(core: CoreModule) {
    this.#core = core;
    this.#engine = new core.Engine();
    this.maxVocabulary = core.maxVocabulary;
    this.qwen3Vocabulary = core.qwen3Vocabulary;
    this.experiments = Object.freeze(JSON.parse(core.listExperiments()) as ExperimentInfo[]);
    this.options = Object.freeze(JSON.parse(core.optionTable()) as OptionSpec[]);
    this.#listCount = this.options.filter((o) => o.kind === 'array').length;
    this.#scalarCount = this.options.length - this.#listCount;
  }

  /** Applies penalties, temperature, top-k, top-p and min-p (in that order) and renormalises. */
  distribution(logits: NumericArray, options: FilterOptions = {}): DistributionResult {
    this.#input(logits, 'logits');
    this.#writeOptions([options], FILTER_GROUPS);
    const result = unwrap(this.#engine.distribution());
    return { ...result, probs: result.probs.slice() };
  }

  /**
   * Where each active truncating filter cuts the ranking: tokens kept after it and the filters
   * before it, in chain order. A token of rank r is cut by the first stage with kept ≤ r.
   */
  stages(logits: NumericArray, options: FilterOptions = {}): FilterStage[] {
    this.#input(logits, 'logits');
    this.#writeOptions([options], FILTER_GROUPS);
    return unwrap(this.#engine.stages()).stages;
  }

  /**
   * One token per call, for generation loops: penalties and filters, then one seeded draw.
   * Temperature 0 is greedy. Allocates nothing in WebAssembly once warm.
   */
  sampleToken(logits: NumericArray, options: SampleTokenOptions = {}): number {
    this.#input(logits, 'logits');
    this.#writeOptions([options], TOKEN_GROUPS);
    return unwrap(this.#engine.sampleToken()).token;
  }

  /**
   * One token per row, each with its own options and random key. A row gives the same token
   * alone or inside any batch. Rows: an array of equal-length arrays, or one flat array.
   */
  sampleBatch(logitsRows: readonly NumericArray[] | Float32Array | Float64Array, options: BatchOptions): Int32Array {
    const perRow = this.#rowsOf(options);
    const rows = perRow.length;
    if (Array.isArray(logitsRows) && logitsRows.length > 0 && typeof logitsRows[0] !== 'number') {
      const matrix = logitsRows as readonly NumericArray[];
      matrix.forEach((row, r) => checkNumbers(row, `logitsRows[${r}]`));
      if (matrix.length !== rows) {
        throw new SamplingLabError('options', `options describe ${rows} rows for ${matrix.length} rows of logits`);
      }
      const width = matrix[0].length;
      if (matrix.some((row) => row.length !== width)) {
        throw new SamplingLabError('logitsRows', 'logitsRows must all have the same length');
      }
      const flat = view(this.#engine.floats(this.#core.InputSlot.primary, width * rows, 'logitsRows'));
      matrix.forEach((row, r) => flat.set(row, r * width));
      this.#engine.use(this.#core.InputSlot.primary);
    } else {
      this.#input(logitsRows as NumericArray, 'logitsRows');
    }
    this.#writeOptions(perRow, TOKEN_GROUPS);
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
    this.#input(probsOrLogits, isProbs ? 'probs' : 'logits');
    this.#writeOptions([key], TOKEN_GROUPS);
    return this.#withProgress(onProgress as RunOptions['onProgress'], (progress) => unwrap(this.#engine.sample(method, n, isProbs, progress)).draws.slice());
  }

  /** The raw Philox4x32-10 words of (seed, stream): identical natively and in WebAssembly. */
  randomWords(seed: number, stream: number, n: number): Uint32Array {
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
    return unwrap(this.#engine.syntheticLogits(vocabSize, seed)).logits.slice();
  }

  /** Runs one of the chapter's experiments; the same function backs the page and the CLI. */
  runExperiment<N extends ExperimentName>(name: N, params?: ExperimentTypes[N]['params'], options?: RunOptions): ExperimentTypes[N]['result'];
  runExperiment(name: string, params?: Record<string, unknown>, options?: RunOptions): Record<string, unknown>;
  runExperiment(name: string, params: object = {}, options: RunOptions = {}): unknown {
    if (typeof name !== 'string') throw new SamplingLabError('experiment', 'experiment must be a string');
    checkKeys(options as unknown, ['onProgress']);
    const text = JSON.stringify(params, (_key, value: unknown) =>
      ArrayBuffer.isView(value) ? Array.from(value as Float32Array) : value);
    return this.#withProgress(options.onProgress, (progress) => {
      const outcome = JSON.parse(this.#core.runExperiment(name, text ?? 'null', progress));
      if (outcome.error) throw new SamplingLabError(outcome.error.argument, outcome.error.message);
      return outcome.result;
    });
  }

  // The core hears progress through a callback that never throws into WebAssembly (an exception
  // unwinding through it would skip the C++ destructors and leak): it returns false to stop,
  // and the user's exception is rethrown after the core has returned.
  #withProgress<T>(onProgress: RunOptions['onProgress'], run: (progress?: (fraction: number) => boolean) => T): T {
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
    try {
      return run(progress);
    } catch (error) {
      if (thrown) throw thrown.error;
      throw error;
    }
  }

  #rowsOf(options: BatchOptions): readonly SampleTokenOptions[] {
    if (Array.isArray(options)) {
      if (options.length === 0) throw new SamplingLabError('options', 'options must describe at least one row');
      return options;
    }
    checkKeys(options, this.options.map((o) => o.name));
    const columns = Object.entries(options as Record<string, unknown>);
    const rows = Math.max(1, ...columns.map(([name, value]) => (this.#isColumn(name, value) ? (value as ArrayLike<unknown>).length : 1)));
    return Array.from({ length: rows }, (_, r) => Object.fromEntries(columns.map(([name, value]) =>
      [name, this.#isColumn(name, value) ? (value as ArrayLike<unknown>)[r] : value])));
  }

  // A per-row value: an array of numbers for a scalar option, an array of lists for an id list.
  #isColumn(name: string, value: unknown): boolean {
    const isList = this.options.find((o) => o.name === name)?.kind === 'array';
    if (!isList) return typeof value === 'object' && value !== null && 'length' in value;
    return Array.isArray(value) && value.some((entry) => typeof entry !== 'number');
  }

  // Lays out the options of each row as the core's option table says; the core checks them.
  #writeOptions(rows: readonly object[], groups: readonly Group[]): void {
    const accepted = this.#accepted(groups);
    const scalars = this.#scalarCount;
    const lists: IntegerArray[] = [];
    const offsets = [0];
    let total = 0;
    const values = new Float64Array(rows.length * scalars);
    rows.forEach((options, r) => {
      checkKeys(options, accepted.names);
      const given = options as Record<string, unknown>;
      for (const spec of this.options) {
        const value = accepted.names.includes(spec.name) ? given[spec.name] : undefined;
        if (spec.kind === 'array') {
          const list = value === undefined ? [] : idList(value, spec.name);
          lists.push(list);
          offsets.push(total += list.length);
        } else {
          if (value !== undefined && typeof value !== 'number') throw new SamplingLabError(spec.name, `${spec.name} must be a number`);
          values[r * scalars + spec.slot] = value ?? (spec.default as number);
        }
      }
    });
    const buffers = this.#optionBuffers(rows.length, total, offsets.length);
    buffers.values.set(values);
    buffers.offsets.set(offsets);
    let at = 0;
    for (const list of lists) {
      buffers.ids.set(list, at);
      at += list.length;
    }
  }

  #acceptedByGroups = new Map<readonly Group[], { names: string[] }>();

  #accepted(groups: readonly Group[]): { names: string[] } {
    let accepted = this.#acceptedByGroups.get(groups);
    if (!accepted) {
      accepted = { names: this.options.filter((o) => groups.includes(o.group)).map((o) => o.name) };
      this.#acceptedByGroups.set(groups, accepted);
    }
    return accepted;
  }

  #buffers?: { values: Float64Array; ids: Int32Array; offsets: Int32Array };

  // Views of the option buffers, kept across calls of the same shape: a generation loop then
  // crosses into WebAssembly only to sample. Memory growth detaches them (byteLength 0).
  #optionBuffers(rows: number, ids: number, offsets: number) {
    const cached = this.#buffers;
    const fresh = cached && cached.values.length === rows * this.#scalarCount && cached.ids.length === ids &&
      cached.offsets.length === offsets;
    if (fresh) return cached;
    const { IdSlot } = this.#core;
    // Sizing a later buffer may grow memory and detach the earlier views; the second round
    // allocates nothing.
    for (;;) {
      const buffers = {
        values: view(this.#engine.optionValues(rows)),
        ids: view(this.#engine.ints(IdSlot.ids, ids, 'generatedIds')),
        offsets: view(this.#engine.ints(IdSlot.offsets, offsets, 'options')),
      };
      if (buffers.values.length === rows * this.#scalarCount && buffers.ids.length === ids && buffers.offsets.length === offsets) {
        this.#buffers = buffers;
        break;
      }
    }
    return this.#buffers;
  }

  /** Writes the call's main input (logits or probabilities) and reads from it. */
  #input(values: NumericArray, name: string): void {
    this.#write(this.#core.InputSlot.primary, values, name);
  }

  #write(slot: CoreEnum, values: NumericArray, name: string): void {
    checkNumbers(values, name);
    if (values instanceof Float32Array && this.#residents.has(values) && values.buffer.byteLength === 0) {
      throw new SamplingLabError(name, `${name} is a logitsBuffer view that WebAssembly memory growth detached; call lab.logitsBuffer(vocabSize) again`);
    }
    const { InputSlot } = this.#core;
    if (slot === InputSlot.primary && values === this.#resident && values.length > 0) {
      this.#engine.use(InputSlot.resident);
      return;
    }
    // One bulk copy into WebAssembly memory; the view is used before anything can grow memory.
    view(this.#engine.floats(slot, values.length, name)).set(values);
    if (slot === InputSlot.primary) this.#engine.use(InputSlot.primary);
  }
}
