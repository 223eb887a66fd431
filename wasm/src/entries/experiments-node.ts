// `sampling-lab/experiments`, Node entry: reads sampling-lab-experiments.wasm from disk.
import { ExperimentLab } from '../lab/experiment-lab.js';
import { experimentsWasmUrl, loadExperimentsModule } from '../runtime/experiments-module.js';
import type { LoadOptions } from '../runtime/load-options.js';
import { withWasmBinary } from '../runtime/node-wasm.js';

export * from './experiments.js';

export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return new ExperimentLab(await loadExperimentsModule(options, await withWasmBinary(options, experimentsWasmUrl())));
}
