// `sampling-lab/experiments`, browser and Worker entry: the sampler with the chapter's
// experiments (sampling-lab-experiments.wasm, fetched next to this module unless told otherwise).
import type { LoadOptions } from './common.js';
import { ExperimentLab } from './lab-experiments.js';
import { moduleOptions } from './load-module.js';
import createSamplingLabExperiments from './sampling-lab-experiments.js';

export * from './common.js';
export { ExperimentLab } from './lab-experiments.js';

export function defaultWasmUrl(): URL {
  return new URL('./sampling-lab-experiments.wasm', import.meta.url);
}

export async function loadSamplingLab(options: LoadOptions = {}): Promise<ExperimentLab> {
  return new ExperimentLab(await createSamplingLabExperiments(moduleOptions(options)));
}
