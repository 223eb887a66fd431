// Loads the sampler module (sampling-lab-core.wasm) through Emscripten's glue. Nothing here
// names the experiments module, so a bundler of an app that only samples never emits it.
import createSamplingLabCore, { type CoreModule } from '../sampling-lab-core.js';
import { loadModule, type LoadOptions } from './load-options.js';

export function coreWasmUrl(): URL {
  return new URL('../sampling-lab-core.wasm', import.meta.url);
}

/** The sampler module from `resolved` (see loadModule); `given` is what the caller passed. */
export function loadCoreModule(given: LoadOptions = {}, resolved: LoadOptions = given): Promise<CoreModule> {
  return loadModule(createSamplingLabCore, 'sampling-lab-core.wasm', given, resolved);
}
