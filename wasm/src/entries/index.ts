// `sampling-lab`, browser and Worker entry: the sampler alone (sampling-lab-core.wasm, fetched
// next to this module unless told otherwise). Nothing here references the experiments module.
import { Lab } from '../lab/lab.js';
import { coreWasmUrl, loadCoreModule } from '../runtime/core-module.js';
import type { LoadOptions } from '../runtime/load-options.js';

export * from './common.js';

export const defaultWasmUrl = coreWasmUrl;

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return new Lab(await loadCoreModule(options));
}
