// The Node entries' loading: Node's fetch does not take file: URLs, so the .wasm is read from disk.
import { readFile } from 'node:fs/promises';
import type { LoadOptions } from './load-options.js';

/** Load options with the module's bytes in them. */
export async function withWasmBinary(options: LoadOptions, defaultUrl: URL): Promise<LoadOptions> {
  if (options.wasmBinary) return options;
  const url = options.wasmUrl ? new URL(String(options.wasmUrl)) : defaultUrl;
  const wasmBinary = url.protocol === 'file:'
    ? await readFile(url)
    : new Uint8Array(await (await fetch(url)).arrayBuffer());
  return { wasmBinary };
}
