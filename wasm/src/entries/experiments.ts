/**
 * `sampling-lab/experiments`, browser and Worker entry: the sampler with the chapter's
 * experiments (sampling-lab-experiments.wasm, fetched next to this module unless told otherwise).
 * @module sampling-lab/experiments
 */
import { ExperimentLab } from '../lab/experiment-lab.js';
import { experimentsWasmUrl, loadExperimentsModule } from '../runtime/experiments-module.js';
import type { LoadOptions } from '../runtime/load-options.js';

export * from './common.js';
export { ExperimentLab } from '../lab/experiment-lab.js';

/** Where sampling-lab-experiments.wasm is fetched from by default: beside this module. */
export const defaultWasmUrl = experimentsWasmUrl;

/** Loads the experiments module and wraps it in an {@link ExperimentLab}: `options.wasmBinary`, else fetched from `options.wasmUrl`, by default {@link defaultWasmUrl}. */
export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return new ExperimentLab(await loadExperimentsModule(options));
}
