// Node entry: reads the .wasm from disk (Node's fetch does not take file: URLs).
import { readFile } from 'node:fs/promises';
import { defaultWasmUrl, loadSamplingLab as loadWithOptions, type LoadOptions } from './index.js';
import type { Lab } from './lab.js';

export * from './index.js';

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  if (options.wasmBinary) return loadWithOptions(options);
  const url = options.wasmUrl ? new URL(String(options.wasmUrl)) : defaultWasmUrl();
  const wasmBinary = url.protocol === 'file:'
    ? await readFile(url)
    : new Uint8Array(await (await fetch(url)).arrayBuffer());
  return loadWithOptions({ wasmBinary });
}
