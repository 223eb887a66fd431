// What both entries export besides their loader: `sampling-lab` (the sampler) and
// `sampling-lab/experiments` (the sampler with the chapter's experiments). Nothing here loads a
// WebAssembly module.
export { Lab } from './lab.js';
export { SamplingLabError } from './errors.js';
export type * from './lab.js';
export type * from './experiments.js';
export type * from './schema.js';
export { defaultsOf } from './schema.js';
export { parseNpy, npyRow, type NpyArray } from './npy.js';

export interface LoadOptions {
  /** Where to fetch the entry's .wasm from (default: beside this module). */
  wasmUrl?: string | URL;
  /** The module's bytes, when the caller already has them (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}
