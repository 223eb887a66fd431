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

function checkOptions(options: object, allowed: readonly string[]): void {
  if (typeof options !== 'object' || options === null) {
    throw new SamplingLabError('options', 'options must be an object');
  }
  for (const [key, value] of Object.entries(options)) {
    if (!allowed.includes(key)) {
      throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${allowed.join(', ')}`);
    }
    if (key !== 'generatedIds' && key !== 'isProbs' && value !== undefined && typeof value !== 'number') {
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
  runExperiment<N extends ExperimentName>(name: N, params?: ExperimentTypes[N]['params']): ExperimentTypes[N]['result'];
  runExperiment(name: string, params?: Record<string, unknown>): Record<string, unknown>;
  runExperiment(name: string, params: object = {}): unknown {
    if (typeof name !== 'string') throw new SamplingLabError('experiment', 'experiment must be a string');
    const text = JSON.stringify(params, (_key, value: unknown) =>
      ArrayBuffer.isView(value) ? Array.from(value as Float32Array) : value);
    const outcome = JSON.parse(this.#core.runExperiment(name, text ?? 'null'));
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
    // One bulk copy into WebAssembly memory; the view is used before anything can grow memory.
    this.#engine.floats(slot, values.length).set(values);
  }

  #writeIds(ids: Int32Array | readonly number[]): void {
    if (!ArrayBuffer.isView(ids) && !Array.isArray(ids)) {
      throw new SamplingLabError('generatedIds', 'generatedIds must be an Int32Array or number[]');
    }
    if (ids.length > this.maxVocabulary) {
      throw new SamplingLabError('generatedIds', `generatedIds has more than ${this.maxVocabulary} entries`);
    }
    if (!ArrayBuffer.isView(ids) && !ids.every((id) => Number.isInteger(id) && Math.abs(id) < 2 ** 31)) {
      throw new SamplingLabError('generatedIds', 'generatedIds must hold integer token ids');
    }
    this.#engine.ids(ids.length).set(ids);
  }
}
