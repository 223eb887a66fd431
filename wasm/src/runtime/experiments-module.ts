// Loads the sampler with the chapter's experiments (sampling-lab-experiments.wasm) through
// Emscripten's glue: the widgets, their Worker, the CLI and `sampling-lab/experiments` use it.
import createSamplingLabExperiments, { type ExperimentsCoreModule } from '../sampling-lab-experiments.js';
import { loadModule, type LoadOptions } from './load-options.js';

export function experimentsWasmUrl(): URL {
  return new URL('../sampling-lab-experiments.wasm', import.meta.url);
}

/** The experiments module from `resolved` (see loadModule); `given` is what the caller passed. */
export function loadExperimentsModule(given: LoadOptions = {}, resolved: LoadOptions = given): Promise<ExperimentsCoreModule> {
  return loadModule(createSamplingLabExperiments, 'sampling-lab-experiments.wasm', given, resolved);
}
