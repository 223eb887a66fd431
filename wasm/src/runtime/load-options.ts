// How a caller says where a module comes from, and how that reaches Emscripten's glue: the
// caller's bytes, or where to fetch the .wasm from (by default the glue's own
// `new URL(…, import.meta.url)`, beside it).
import type { ModuleOptions } from '../sampling-lab-core.js';

export interface LoadOptions {
  /** Where to fetch the entry's .wasm from (default: beside this module). */
  wasmUrl?: string | URL;
  /** The module's bytes, when the caller already has them (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export function moduleOptions(options: LoadOptions): ModuleOptions {
  if (options.wasmBinary) return { wasmBinary: options.wasmBinary };
  if (options.wasmUrl === undefined) return {};
  const url = String(options.wasmUrl);
  return { locateFile: () => url };
}
