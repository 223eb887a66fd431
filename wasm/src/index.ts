// `sampling-lab`, browser and Worker entry: the sampler alone (sampling-lab-core.wasm, fetched
// next to this module unless told otherwise). Nothing here references the experiments module.
import type { LoadOptions } from './common.js';
import { coreModule } from './core-abi.js';
import { instantiate } from './instantiate.js';
import { Lab } from './lab.js';

export * from './common.js';

export function defaultWasmUrl(): URL {
  return new URL('./sampling-lab-core.wasm', import.meta.url);
}

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return new Lab(coreModule(await instantiate(options, defaultWasmUrl())));
}
