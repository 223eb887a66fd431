// One WebAssembly instance shared by every widget on the page: the experiments module, which the
// Worker loads too (one .wasm for the page).
import { ExperimentLab } from '../lab/experiment-lab.js';
import { loadExperimentsModule } from '../runtime/experiments-module.js';

let shared: Promise<ExperimentLab> | undefined;

/** The page's one ExperimentLab, loaded on the first call and shared by every widget after it. */
export function sharedLab(): Promise<ExperimentLab> {
  shared ??= loadExperimentsModule().then((core) => new ExperimentLab(core));
  return shared;
}
