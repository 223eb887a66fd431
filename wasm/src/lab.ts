import type { CoreEngine, CoreError, CoreModule } from './sampling-lab-core.js';
import { SamplingLabError } from './errors.js';
import type { ExperimentName, ExperimentTypes } from './experiments.js';
import type { FilterOptions, RandomKeyOptions } from './generated/types.js';
import type { ExperimentInfo, IntegerArray, NumericArray, OptionSpec } from './schema.js';

export type { FilterOptions, RandomKeyOptions } from './generated/types.js';

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

export interface SampleOptions extends Pick<RandomKeyOptions, 'seed' | 'stream'> {
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
  /** Hears the fraction done of long runs (called synchronously, during the run). */
  onProgress?: (fraction: number) => void;
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
    this.#write(0, logits, 'logits');
    this.#writeOptions([options], FILTER_GROUPS);
    const result = unwrap(this.#engine.distribution());
    return { ...result, probs: result.probs.slice() };
  }

  /**
   * One token per call, for generation loops: penalties and filters, then one seeded draw.
   * Temperature 0 is greedy. Allocates nothing in WebAssembly once warm.
   */
  sampleToken(logits: NumericArray, options: SampleTokenOptions = {}): number {
    this.#write(0, logits, 'logits');
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
      if (matrix.length !== rows) {
        throw new SamplingLabError('options', `options describe ${rows} rows for ${matrix.length} rows of logits`);
      }
      const width = matrix[0].length;
      if (matrix.some((row) => row.length !== width)) {
        throw new SamplingLabError('logitsRows', 'logitsRows must all have the same length');
      }
      if (width * rows > this.maxVocabulary) {
        throw new SamplingLabError('logitsRows', `logitsRows hold more than ${this.maxVocabulary} values`);
      }
      const view = this.#engine.floats(0, width * rows);
      matrix.forEach((row, r) => view.set(row, r * width));
      this.#engine.use(0);
    } else {
      this.#write(0, logitsRows as NumericArray, 'logitsRows');
    }
    this.#writeOptions(perRow, TOKEN_GROUPS);
    return unwrap(this.#engine.sampleBatch(rows)).tokens.slice();
  }

  /** n i.i.d. draws by one of four exact methods, from probabilities or logits/T. */
  sample(probsOrLogits: NumericArray, options: SampleOptions = {}): Int32Array {
    checkKeys(options, ['method', 'n', 'seed', 'stream', 'temperature', 'isProbs']);
    const { method = 'inverse-cdf', n = 1, isProbs = false, ...key } = options;
    if (typeof method !== 'string') throw new SamplingLabError('method', 'method must be a string');
    if (typeof n !== 'number') throw new SamplingLabError('n', 'n must be a number');
    if (typeof isProbs !== 'boolean') throw new SamplingLabError('isProbs', 'isProbs must be true or false');
    this.#write(0, probsOrLogits, isProbs ? 'probs' : 'logits');
    this.#writeOptions([key], TOKEN_GROUPS);
    return unwrap(this.#engine.sample(method, n, isProbs)).draws.slice();
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
    if (!Number.isInteger(vocabSize) || vocabSize < 1 || vocabSize > this.maxVocabulary) {
      throw new SamplingLabError('vocabSize', `vocabSize must be an integer in [1, ${this.maxVocabulary}]`);
    }
    this.#engine.reserve(vocabSize);
    this.#resident = this.#engine.floats(2, vocabSize);
    return this.#resident;
  }

  /** log Σ exp(z / T), with max subtraction; T > 0. */
  logSumExp(logits: NumericArray, temperature = 1): number {
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#write(0, logits, 'logits');
    return unwrap(this.#engine.logSumExp(temperature)).value;
  }

  /** How many of the most probable tokens reach cumulative probability `mass`. */
  coverCount(logitsOrProbs: NumericArray, mass: number, options: CoverCountOptions = {}): number {
    checkKeys(options, ['temperature', 'isProbs']);
    const { temperature = 1, isProbs = false } = options;
    if (typeof mass !== 'number') throw new SamplingLabError('mass', 'mass must be a number');
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#write(0, logitsOrProbs, isProbs ? 'probs' : 'logits');
    return unwrap(this.#engine.coverCount(mass, temperature, isProbs === true)).count;
  }

  /** Total variation, KL(p‖q) in nats, and overlap Σ min(p, q) = 1 − TV. */
  distance(p: NumericArray, q: NumericArray): Distances {
    this.#write(0, p, 'p');
    this.#write(1, q, 'q');
    return unwrap(this.#engine.distance());
  }

  /** Token ids by descending value (ties: lower id first), the order filters keep prefixes of. */
  ranking(values: NumericArray): Uint32Array {
    this.#write(0, values, 'values');
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
    const { onProgress } = options;
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new SamplingLabError('onProgress', 'onProgress must be a function');
    }
    const text = JSON.stringify(params, (_key, value: unknown) =>
      ArrayBuffer.isView(value) ? Array.from(value as Float32Array) : value);
    const outcome = JSON.parse(this.#core.runExperiment(name, text ?? 'null', onProgress));
    if (outcome.error) throw new SamplingLabError(outcome.error.argument, outcome.error.message);
    return outcome.result;
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
    const table = this.options.filter((o) => groups.includes(o.group));
    const names = table.map((o) => o.name);
    const values = new Float64Array(rows.length * this.#scalarCount);
    const lists: IntegerArray[] = [];
    const offsets = new Int32Array(rows.length * this.#listCount + 1);
    let total = 0;
    rows.forEach((options, r) => {
      checkKeys(options, names);
      for (const spec of this.options) {
        const given = groups.includes(spec.group) ? options[spec.name as keyof typeof options] : undefined;
        if (spec.kind === 'array') {
          const list = given === undefined ? [] : idList(given, spec.name);
          lists.push(list);
          total += list.length;
          offsets[r * this.#listCount + spec.slot + 1] = total;
        } else {
          if (given !== undefined && typeof given !== 'number') {
            throw new SamplingLabError(spec.name, `${spec.name} must be a number`);
          }
          values[r * this.#scalarCount + spec.slot] = given ?? (spec.default as number);
        }
      }
    });
    if (total > this.maxVocabulary) {
      throw new SamplingLabError('generatedIds', `token id lists hold more than ${this.maxVocabulary} ids`);
    }
    this.#engine.optionValues(rows.length).set(values);
    const ids = this.#engine.ints(0, total);
    let at = 0;
    for (const list of lists) {
      ids.set(list, at);
      at += list.length;
    }
    this.#engine.ints(1, offsets.length).set(offsets);
  }

  #write(slot: number, values: NumericArray, name: string): void {
    if (!ArrayBuffer.isView(values) && !Array.isArray(values)) {
      throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
    }
    if (values.length > this.maxVocabulary) {
      throw new SamplingLabError(name, `${name} has ${values.length} entries; at most ${this.maxVocabulary} are supported`);
    }
    if (slot === 0 && values === this.#resident && values.length > 0) {
      this.#engine.use(2);
      return;
    }
    // One bulk copy into WebAssembly memory; the view is used before anything can grow memory.
    this.#engine.floats(slot, values.length).set(values);
    if (slot === 0) this.#engine.use(0);
  }
}
