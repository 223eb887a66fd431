// `sampling-lab`, browser and Worker entry: the sampler alone (sampling-lab-core.wasm, fetched
// next to this module unless told otherwise). Nothing here references the experiments module.
import type { LoadOptions } from './common.js';
import { Lab } from './lab.js';
import { moduleOptions } from './load-module.js';
import createSamplingLabCore from './sampling-lab-core.js';

export * from './common.js';

export function defaultWasmUrl(): URL {
  return new URL('./sampling-lab-core.wasm', import.meta.url);
}

export async function loadSamplingLab(options: LoadOptions = {}): Promise<Lab> {
  return new Lab(await createSamplingLabCore(moduleOptions(options)));
}
