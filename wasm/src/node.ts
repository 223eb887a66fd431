// `sampling-lab`, Node entry: reads sampling-lab-core.wasm from disk.
import { defaultWasmUrl, loadSamplingLab as loadWithOptions, type LoadOptions } from './index.js';
import type { Lab } from './lab.js';
import { withWasmBinary } from './node-wasm.js';

export * from './index.js';

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return loadWithOptions(await withWasmBinary(options, defaultWasmUrl()));
}
