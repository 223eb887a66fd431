// Loads the sampler module (sampling-lab-core.wasm) through Emscripten's glue. Nothing here
// names the experiments module, so a bundler of an app that only samples never emits it.
import createSamplingLabCore, { type CoreModule } from '../sampling-lab-core.js';
import { moduleOptions, type LoadOptions } from './load-options.js';

export function coreWasmUrl(): URL {
  return new URL('../sampling-lab-core.wasm', import.meta.url);
}

export function loadCoreModule(options: LoadOptions = {}): Promise<CoreModule> {
  return createSamplingLabCore(moduleOptions(options));
}
