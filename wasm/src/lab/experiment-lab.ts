// The lab of `sampling-lab/experiments`: the sampler with the chapter's experiments, from the
// module that links them (sampling-lab-experiments.wasm).
import { SamplingLabError } from './errors.js';
import type { ExperimentName, ExperimentTypes } from './experiments.js';
import { checkKeys, describe, isObject, Lab, unwrap, withProgress, type RunOptions } from './lab.js';
import type { CoreExperiments, ExperimentsCoreModule } from '../sampling-lab-experiments.js';
import type { DocumentedOptionSpec, ExperimentInfo } from './schema.js';

// The largest float32: a float32 buffer gets NaN for a finite value beyond it, which the core
// refuses with the message the value itself would get (a cast would make it ±∞, and −∞ a mask).
const FLOAT32_MAX = 3.4028234663852886e38;

/** Copies an array parameter into its WebAssembly buffer, refusing holes and non-numbers. */
function fillNumbers(buffer: Float32Array | Float64Array, values: ArrayLike<unknown>, name: string): void {
  const single = buffer instanceof Float32Array;
  if (!Array.isArray(values) && (!single || values instanceof Float32Array)) {
    buffer.set(values as ArrayLike<number>);
    return;
  }
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(values, i)}, not a number`);
    buffer[i] = single && Math.abs(value) > FLOAT32_MAX && Number.isFinite(value) ? NaN : value;
  }
}

/** `value` with each typed-array view of WebAssembly memory replaced by a copy (in place). */
function copyViews(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return (value as Float64Array).slice();
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  for (const key in record) record[key] = copyViews(record[key]);
  return record;
}

/** A Lab with the chapter's experiments. Methods are synchronous; create one per thread. */
export class ExperimentLab extends Lab {
  /** Every sampling option as the sampler's lab has it, with its documentation and slider. */
  override readonly options: readonly DocumentedOptionSpec[];
  /** Every experiment with its parameter schema. */
  readonly experiments: readonly ExperimentInfo[];
  readonly #experiments: CoreExperiments;

  constructor(core: ExperimentsCoreModule) {
    super(core);
    this.options = Object.freeze(core.optionTable());
    this.experiments = Object.freeze(core.listExperiments());
    this.#experiments = new core.Experiments();
  }

  /**
   * Runs one of the chapter's experiments; the same function backs the page and the CLI. Array
   * parameters cross as typed arrays (any number[] or numeric typed array), and the results'
   * vocabulary-sized arrays come back as typed arrays.
   */
  runExperiment<N extends ExperimentName>(name: N, params?: ExperimentTypes[N]['params'], options?: RunOptions): ExperimentTypes[N]['result'];
  runExperiment(name: ExperimentName, params: object = {}, options: RunOptions = {}): unknown {
    return runExperimentOn(this.#experiments, name, params, options);
  }
}

/**
 * runExperiment on a module's experiments, without a Lab: the page's Worker runs experiments only
 * and so does not bundle the sampler's lab.
 */
export function runExperimentOn(experiments: CoreExperiments, name: ExperimentName, params: object = {}, options: RunOptions = {}): unknown {
  if (typeof name !== 'string') throw new SamplingLabError('experiment', 'experiment must be a string');
  checkKeys(options as unknown, ['onProgress']);
  if (!isObject(params)) throw new SamplingLabError('params', 'params must be an object');
  const scalars: Record<string, number | string | boolean | null> = {};
  const arrays: [string, ArrayLike<unknown>][] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView))) {
      if (value instanceof BigInt64Array || value instanceof BigUint64Array) {
        throw new SamplingLabError(key, `${key} must hold numbers, not BigInt`);
      }
      arrays.push([key, value as ArrayLike<unknown>]);
    } else if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new SamplingLabError(key, `${key} is ${value}; it must be a finite number`);
    } else if (value === null || ['number', 'string', 'boolean'].includes(typeof value)) {
      scalars[key] = value as number | string | boolean | null;
    } else {
      throw new SamplingLabError(key, `${key} must be a number, a string, null or an array of numbers, not ${typeof value}`);
    }
  }
  const lengths = Object.fromEntries(arrays.map(([key, values]) => [key, values.length]));
  try {
    const { arrays: buffers } = unwrap(experiments.prepare(name, scalars, lengths));
    buffers.forEach((buffer, a) => fillNumbers(buffer, arrays[a][1], arrays[a][0]));
    return withProgress(options.onProgress, (progress) => copyViews(unwrap(experiments.run(progress)).result));
  } finally {
    experiments.release();
  }
}
