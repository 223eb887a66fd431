// `sampling-lab/experiments`, Node entry: reads sampling-lab-experiments.wasm from disk.
import { ExperimentLab } from '../lab/experiment-lab.js';
import { experimentsWasmUrl, loadExperimentsModule } from '../runtime/experiments-module.js';
import type { LoadOptions } from '../runtime/load-options.js';
import { withWasmBinary } from '../runtime/node-wasm.js';

export * from './experiments.js';

/**
 * Loads the experiments module and wraps it in an {@link ExperimentLab}: `options.wasmBinary`, else
 * the bytes at `options.wasmUrl` (read from disk for a file: URL, else fetched), by default
 * sampling-lab-experiments.wasm beside this module.
 */
export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return new ExperimentLab(await loadExperimentsModule(options, await withWasmBinary(options, experimentsWasmUrl())));
}
