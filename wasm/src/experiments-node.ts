// `sampling-lab/experiments`, Node entry: reads sampling-lab-experiments.wasm from disk.
import { defaultWasmUrl, loadSamplingLab as loadWithOptions, type LoadOptions } from './experiments-index.js';
import type { ExperimentLab } from './lab-experiments.js';
import { withWasmBinary } from './node-wasm.js';

export * from './experiments-index.js';

export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return loadWithOptions(await withWasmBinary(options, defaultWasmUrl()));
}
