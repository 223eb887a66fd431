import type { CoreEngine, CoreError, CoreModule } from './sampling-lab-core.js';
import { SamplingLabError } from './errors.js';
import type {
  ExperimentInfo, ExperimentName, ExperimentTypes, NumericArray,
} from './experiments.js';

export interface FilterOptions {
  /** 0 = greedy (argmax, ties to the lowest index). Default 1. */
  temperature?: number;
  /** Keep the k most probable tokens; 0 = no limit. */
  topK?: number;
  /** Keep a token while the mass of the tokens before it is < p; 1 = off. */
  topP?: number;
  /** Keep tokens with p_i >= minP * p_max; 0 = off. */
  minP?: number;
  /** Divides positive and multiplies negative logits of generated tokens; 1 = off. */
  repetitionPenalty?: number;
  /** Subtracted once from the logit of every generated token. */
  presencePenalty?: number;
  /** Subtracted once per occurrence of a generated token. */
  frequencyPenalty?: number;
  /** Token ids generated so far, for the penalties. */
  generatedIds?: Int32Array | readonly number[];
}

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

export interface RandomKey {
  /** Integer in [0, 2^53); the same key gives the same draws on every platform. */
  seed?: number;
  /** Independent stream under one seed, e.g. a request id. */
  stream?: number;
}

export interface SampleOptions extends RandomKey {
  method?: SamplingMethod;
  /** Number of draws. Default 1. */
  n?: number;
  temperature?: number;
  /** The input holds probabilities rather than logits. */
  isProbs?: boolean;
}

export interface SampleTokenOptions extends FilterOptions, RandomKey {
  /** Position in the sequence: a token depends only on (seed, stream, step) and the logits. */
  step?: number;
}

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

const FILTER_DEFAULTS = {
  temperature: 1, topK: 0, topP: 1, minP: 0,
  repetitionPenalty: 1, presencePenalty: 0, frequencyPenalty: 0,
} as const;
const TOKEN_DEFAULTS = { ...FILTER_DEFAULTS, seed: 0, stream: 0, step: 0 } as const;
const TOKEN_OPTIONS = [...Object.keys(TOKEN_DEFAULTS), 'generatedIds'];

export interface RunOptions {
  /** Hears the fraction done of long runs (called synchronously, during the run). */
  onProgress?: (fraction: number) => void;
}

function checkOptions(options: object, allowed: readonly string[]): void {
  if (typeof options !== 'object' || options === null) {
    throw new SamplingLabError('options', 'options must be an object');
  }
  for (const [key, value] of Object.entries(options)) {
    if (!allowed.includes(key)) {
      throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${allowed.join(', ')}`);
    }
    const numeric = !['generatedIds', 'isProbs', 'method', 'onProgress'].includes(key);
    if (numeric && value !== undefined && typeof value !== 'number') {
      throw new SamplingLabError(key, `${key} must be a number`);
    }
  }
}

function unwrap<T extends object>(result: CoreError | T): T {
  if ('error' in result) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/** A loaded Sampling Lab module. Methods are synchronous; create one per thread. */
export class Lab {
  /** Every experiment with its parameter defaults. */
  readonly experiments: readonly ExperimentInfo[];
  readonly maxVocabulary: number;
  readonly #core: CoreModule;
  readonly #engine: CoreEngine;
  #resident?: Float32Array;

  constructor(core: CoreModule) {
    this.#core = core;
    this.#engine = new core.Engine();
    this.maxVocabulary = core.maxVocabulary;
    this.experiments = Object.freeze(JSON.parse(core.listExperiments()) as ExperimentInfo[]);
  }

  /** Applies penalties, temperature, top-k, top-p and min-p (in that order) and renormalises. */
  distribution(logits: NumericArray, options: FilterOptions = {}): DistributionResult {
    checkOptions(options, [...Object.keys(FILTER_DEFAULTS), 'generatedIds']);
    const o = { ...FILTER_DEFAULTS, ...options };
    this.#write(0, logits, 'logits');
    this.#writeIds(options.generatedIds ?? []);
    const result = unwrap(this.#engine.distribution(
      o.temperature, o.topK, o.topP, o.minP, o.repetitionPenalty, o.presencePenalty, o.frequencyPenalty,
    ));
    return { ...result, probs: result.probs.slice() };
  }

  /**
   * One token per call, for generation loops: penalties and filters, then one seeded draw.
   * Temperature 0 is greedy. Allocates nothing in WebAssembly once warm.
   */
  sampleToken(logits: NumericArray, options: SampleTokenOptions = {}): number {
    checkOptions(options, TOKEN_OPTIONS);
    const o = { ...TOKEN_DEFAULTS, ...options };
    this.#write(0, logits, 'logits');
    this.#writeIds(options.generatedIds ?? []);
    return unwrap(this.#engine.sampleToken(
      o.temperature, o.topK, o.topP, o.minP, o.repetitionPenalty, o.presencePenalty, o.frequencyPenalty,
      o.seed, o.stream, o.step,
    )).token;
  }

  /**
   * One token per row, each with its own options and random key. A row gives the same token
   * alone or inside any batch. Rows: an array of equal-length arrays, or one flat array.
   */
  sampleBatch(logitsRows: readonly NumericArray[] | Float32Array | Float64Array, paramsPerRow: readonly SampleTokenOptions[]): Int32Array {
    if (!Array.isArray(paramsPerRow) || paramsPerRow.length === 0) {
      throw new SamplingLabError('paramsPerRow', 'paramsPerRow must be a non-empty array, one entry per row');
    }
    const rows = paramsPerRow.length;
    if (Array.isArray(logitsRows) && logitsRows.length > 0 && typeof logitsRows[0] !== 'number') {
      const matrix = logitsRows as readonly NumericArray[];
      if (matrix.length !== rows) {
        throw new SamplingLabError('paramsPerRow', `paramsPerRow has ${rows} entries for ${matrix.length} rows`);
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
    const fields = this.#core.rowFields;
    const ids: number[] = [];
    const offsets = [0];
    const packed = new Float64Array(rows * fields);
    paramsPerRow.forEach((options, r) => {
      checkOptions(options, TOKEN_OPTIONS);
      const o = { ...TOKEN_DEFAULTS, ...options };
      packed.set([o.temperature, o.topK, o.topP, o.minP, o.repetitionPenalty, o.presencePenalty,
        o.frequencyPenalty, o.seed, o.stream, o.step], r * fields);
      for (const id of this.#checkedIds(options.generatedIds ?? [])) ids.push(id);
      offsets.push(ids.length);
    });
    this.#engine.doubles(packed.length).set(packed);
    this.#engine.ints(0, ids.length).set(ids);
    this.#engine.ints(1, offsets.length).set(offsets);
    return unwrap(this.#engine.sampleBatch(rows)).tokens.slice();
  }

  /** n i.i.d. draws by one of four exact methods, from probabilities or logits/T. */
  sample(probsOrLogits: NumericArray, options: SampleOptions = {}): Int32Array {
    checkOptions(options, ['method', 'n', 'seed', 'stream', 'temperature', 'isProbs']);
    const isProbs = options.isProbs === true;
    this.#write(0, probsOrLogits, isProbs ? 'probs' : 'logits');
    const method = options.method ?? 'inverse-cdf';
    if (typeof method !== 'string') throw new SamplingLabError('method', 'method must be a string');
    return unwrap(this.#engine.sample(method, options.n ?? 1, options.seed ?? 0, options.stream ?? 0,
      options.temperature ?? 1, isProbs)).draws.slice();
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
    this.#write(0, logits, 'logits');
    return unwrap(this.#engine.logSumExp(temperature)).value;
  }

  /** How many of the most probable tokens reach cumulative probability `mass`. */
  coverCount(logitsOrProbs: NumericArray, mass: number, options: CoverCountOptions = {}): number {
    checkOptions(options, ['temperature', 'isProbs']);
    const isProbs = options.isProbs === true;
    this.#write(0, logitsOrProbs, isProbs ? 'probs' : 'logits');
    return unwrap(this.#engine.coverCount(mass, options.temperature ?? 1, isProbs)).count;
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
  syntheticLogits(vocabSize = 151936, seed = 0): Float32Array {
    return unwrap(this.#engine.syntheticLogits(vocabSize, seed)).logits.slice();
  }

  /** Runs one of the chapter's experiments; the same function backs the page and the CLI. */
  runExperiment<N extends ExperimentName, P extends ExperimentTypes[N]['params'] = ExperimentTypes[N]['params']>(name: N, params?: P, options?: RunOptions): ExperimentTypes[N]['result'];
  runExperiment(name: string, params?: Record<string, unknown>, options?: RunOptions): Record<string, unknown>;
  runExperiment(name: string, params: object = {}, options: RunOptions = {}): unknown {
    if (typeof name !== 'string') throw new SamplingLabError('experiment', 'experiment must be a string');
    checkOptions(options, ['onProgress']);
    const text = JSON.stringify(params, (_key, value: unknown) =>
      ArrayBuffer.isView(value) ? Array.from(value as Float32Array) : value);
    const outcome = JSON.parse(this.#core.runExperiment(name, text ?? 'null', options.onProgress));
    if (outcome.error) throw new SamplingLabError(outcome.error.argument, outcome.error.message);
    return outcome.result;
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

  #writeIds(ids: Int32Array | readonly number[]): void {
    const checked = this.#checkedIds(ids);
    this.#engine.ints(0, checked.length).set(checked);
  }

  #checkedIds(ids: Int32Array | readonly number[]): Int32Array | readonly number[] {
    if (!(ids instanceof Int32Array) && !Array.isArray(ids)) {
      throw new SamplingLabError('generatedIds', 'generatedIds must be an Int32Array or number[]');
    }
    if (ids.length > this.maxVocabulary) {
      throw new SamplingLabError('generatedIds', `generatedIds has more than ${this.maxVocabulary} entries`);
    }
    if (Array.isArray(ids) && !ids.every((id) => Number.isInteger(id) && Math.abs(id) < 2 ** 31)) {
      throw new SamplingLabError('generatedIds', 'generatedIds must hold integer token ids');
    }
    return ids;
  }
}
