// Loads the sampler with the chapter's experiments (sampling-lab-experiments.wasm) through
// Emscripten's glue: the widgets, their Worker, the CLI and `sampling-lab/experiments` use it.
import createSamplingLabExperiments, { type ExperimentsCoreModule } from '../sampling-lab-experiments.js';
import { moduleOptions, type LoadOptions } from './load-options.js';

export function experimentsWasmUrl(): URL {
  return new URL('../sampling-lab-experiments.wasm', import.meta.url);
}

export function loadExperimentsModule(options: LoadOptions = {}): Promise<ExperimentsCoreModule> {
  return createSamplingLabExperiments(moduleOptions(options));
}
