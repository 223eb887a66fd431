// One WebAssembly instance shared by every widget on the page: the experiments module, which the
// Worker loads too (one .wasm for the page).
import { loadSamplingLab, type ExperimentLab } from '../experiments-index.js';

let shared: Promise<ExperimentLab> | undefined;

export function sharedLab(): Promise<ExperimentLab> {
  shared ??= loadSamplingLab();
  return shared;
}
