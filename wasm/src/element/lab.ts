// One WebAssembly instance shared by every widget on the page.
import { loadSamplingLab, type Lab } from '../index.js';

let shared: Promise<Lab> | undefined;

export function sharedLab(): Promise<Lab> {
  shared ??= loadSamplingLab();
  return shared;
}
