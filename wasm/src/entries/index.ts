/**
 * `sampling-lab`, browser and Worker entry: the sampler alone (sampling-lab-core.wasm, fetched
 * next to this module unless told otherwise). Nothing here references the experiments module.
 * @module sampling-lab
 */
import { Lab } from '../lab/lab.js';
import { coreWasmUrl, loadCoreModule } from '../runtime/core-module.js';
import type { LoadOptions } from '../runtime/load-options.js';

export * from './common.js';

/** Where sampling-lab-core.wasm is fetched from by default: beside this module. */
export const defaultWasmUrl = coreWasmUrl;

/** Loads the sampler module and wraps it in a {@link Lab}: `options.wasmBinary`, else fetched from `options.wasmUrl`, by default {@link defaultWasmUrl}. */
export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return new Lab(await loadCoreModule(options));
}
