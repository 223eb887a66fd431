// Browser and Worker entry: the .wasm is fetched next to this module unless told otherwise.
import createSamplingLabCore from './sampling-lab-core.js';
import { Lab } from './lab.js';

export { Lab } from './lab.js';
export { SamplingLabError } from './errors.js';
export type * from './lab.js';
export type * from './experiments.js';
export type * from './schema.js';
export { defaultsOf } from './schema.js';
export { parseNpy, npyRow, type NpyArray } from './npy.js';

export interface LoadOptions {
  /** Where to fetch sampling-lab-core.wasm from (default: beside this module). */
  wasmUrl?: string | URL;
  /** The module's bytes, when the caller already has them (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export function defaultWasmUrl(): URL {
  return new URL('./sampling-lab-core.wasm', import.meta.url);
}

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  const wasmUrl = String(options.wasmUrl ?? defaultWasmUrl());
  const core = await createSamplingLabCore(options.wasmBinary
    ? { wasmBinary: options.wasmBinary }
    : { locateFile: () => wasmUrl });
  return new Lab(core);
}
