// The lab's checks of JavaScript types (kinds, holes, lengths) before anything crosses into
// WebAssembly, and how the core's errors and progress reports come back; ranges are the core's.
import type { CoreError, CoreModule } from '../sampling-lab-core.js';
import { SamplingLabError } from './errors.js';
import type { IntegerArray, NumericArray } from './schema.js';
import type { RunOptions } from './types.js';

/**
 * An object that is not null, an array or an ArrayBuffer view (a typed array).
 * @internal
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/**
 * Throws a SamplingLabError unless `options` is an object whose keys are all in `allowed`.
 * @internal
 */
export function checkKeys(options: unknown, allowed: readonly string[], name = 'options'): asserts options is Record<string, unknown> {
  if (!isObject(options)) throw new SamplingLabError(name, `${name} must be an object`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${allowed.join(', ')}`);
    }
  }
}

/**
 * The core's result, or its error thrown as a SamplingLabError.
 * @internal
 */
export function unwrap<T extends object>(result: CoreError | T): T {
  if ('error' in result) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/** The module takes one call at a time: a call made from a run's progress report would take
 * that run's buffers (and its callback) while it still uses them. */
export function checkIdle(core: CoreModule): void {
  if (core.reporting()) {
    throw new SamplingLabError('onProgress', 'no call into the lab can be made inside onProgress: make it once the run returns');
  }
}

export function isError(result: object): result is CoreError {
  return 'error' in result && !ArrayBuffer.isView(result);
}

/** A typed-array view the core handed out, or its error. */
export function view<T extends ArrayBufferView>(result: CoreError | T): T {
  if (isError(result)) throw new SamplingLabError(result.error.argument, result.error.message);
  return result;
}

/**
 * A Float32Array, a Float64Array, or an array of at most `maxLength` entries each a number (no
 * holes, no BigInt); the length is checked before any entry is read.
 */
export function checkNumbers(values: unknown, name: string, maxLength: number): asserts values is NumericArray {
  if (values instanceof Float32Array || values instanceof Float64Array) return;
  if (!Array.isArray(values)) throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
  checkLength(values, name, maxLength);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(values, i)}, not a number`);
  }
}

export function checkLength(values: ArrayLike<unknown>, name: string, maxLength: number): void {
  if (values.length > maxLength) {
    throw new SamplingLabError(name, `${name} has ${values.length} entries; at most ${maxLength} are supported`);
  }
}

/**
 * What element `i` of `values` is, for error messages: its typeof, or 'a hole'.
 * @internal
 */
export const describe = (values: ArrayLike<unknown>, i: number) => (i in values ? typeof values[i] : 'a hole');

/** An id list as an Int32Array can carry it (no holes, whole numbers below 2^31); ranges are the core's to check. */
export function idList(value: unknown, name: string, maxLength: number): IntegerArray {
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

/** speculativeVerify's draftTokens as k drafts of equal length γ: one list of ids, or an array of k (at most maxDrafts) such lists. */
export function draftList(value: unknown, maxLength: number, maxDrafts: number): readonly IntegerArray[] {
  // Several drafts when the first entry is a list (the length is checked before any other entry is read).
  if (!Array.isArray(value) || !(Array.isArray(value[0]) || value[0] instanceof Int32Array)) return [idList(value, 'draftTokens', maxLength)];
  checkLength(value, 'draftTokens', maxDrafts);
  const drafts = Array.from({ length: value.length }, (_, j) => idList(value[j], `draftTokens[${j}]`, maxLength));
  const gamma = drafts[0].length;
  const uneven = drafts.findIndex((draft) => draft.length !== gamma);
  if (uneven !== -1) {
    throw new SamplingLabError('draftTokens', `draftTokens[${uneven}] has ${drafts[uneven].length} tokens, draftTokens[0] ${gamma}: the drafts verified together are equally long`);
  }
  return drafts;
}

/** Scalar arguments that must be numbers (their ranges are the core's to check). */
export function checkScalars(values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'number') throw new SamplingLabError(name, `${name} must be a number, not ${typeof value}`);
  }
}

/**
 * Runs `run` with a progress callback built from the caller's `onProgress`. The core hears
 * progress through a callback that never throws into WebAssembly (an exception unwinding through
 * it would skip the C++ destructors and leak): it returns false to stop, and the user's exception
 * is rethrown after the core has returned.
 * @internal
 */
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
