// `sampling-lab`, Node entry: reads sampling-lab-core.wasm from disk.
import { Lab } from '../lab/lab.js';
import { coreWasmUrl, loadCoreModule } from '../runtime/core-module.js';
import type { LoadOptions } from '../runtime/load-options.js';
import { withWasmBinary } from '../runtime/node-wasm.js';

export * from './index.js';

/**
 * Loads the sampler module and wraps it in a {@link Lab}: `options.wasmBinary`, else the bytes at
 * `options.wasmUrl` (read from disk for a file: URL, else fetched), by default sampling-lab-core.wasm
 * beside this module.
 */
export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return new Lab(await loadCoreModule(options, await withWasmBinary(options, coreWasmUrl())));
}
