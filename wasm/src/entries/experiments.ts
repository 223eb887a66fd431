// `sampling-lab/experiments`, browser and Worker entry: the sampler with the chapter's
// experiments (sampling-lab-experiments.wasm, fetched next to this module unless told otherwise).
import { ExperimentLab } from '../lab/experiment-lab.js';
import { experimentsWasmUrl, loadExperimentsModule } from '../runtime/experiments-module.js';
import type { LoadOptions } from '../runtime/load-options.js';

export * from './common.js';
export { ExperimentLab } from '../lab/experiment-lab.js';

export const defaultWasmUrl = experimentsWasmUrl;

export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return new ExperimentLab(await loadExperimentsModule(options));
}
