// How the entries hand their load options to Emscripten's glue: the caller's bytes, or where to
// fetch the .wasm from (by default the glue's own `new URL(…, import.meta.url)`, beside it).
import type { LoadOptions } from './common.js';
import type { ModuleOptions } from './sampling-lab-core.js';

export function moduleOptions(options: LoadOptions): ModuleOptions {
  if (options.wasmBinary) return { wasmBinary: options.wasmBinary };
  if (options.wasmUrl === undefined) return {};
  const url = String(options.wasmUrl);
  return { locateFile: () => url };
}
