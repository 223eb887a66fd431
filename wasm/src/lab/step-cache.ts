// A generation loop's options, kept to compare the next call's with: when only `step` changed, the
// core reuses the options it holds (sampleTokenAtStep) and nothing is laid out again.
import { isObject } from './checks.js';

const isPrimitive = (value: unknown) => value === null || (typeof value !== 'object' && typeof value !== 'function');

/** Marks an option value that cannot be kept for comparison. */
export const UNKEPT = Symbol('unkept');

/** The most list entries and object keys kept for comparison: longer lists are laid out again on every call. */
const KEPT_ENTRIES = 4096;

// The options as they are now, for a later call's to be compared with: primitives as they are;
// arrays, typed arrays and plain objects copied, as deep as badWords' lists of lists go, up to
// KEPT_ENTRIES in all; UNKEPT for anything else. A list or an object may change inside while
// staying the same object, hence the copy.
export function snapshot(options: Record<string, unknown>): unknown {
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
export function unchanged(kept: unknown, value: unknown): boolean {
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
export function sameButStep(cached: { options: Record<string, unknown>; keys: number }, options: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in options) {
    if (key !== 'step' && (!(key in cached.options) || !unchanged(cached.options[key], options[key]))) return false;
    keys++;
  }
  return keys === cached.keys;
}

