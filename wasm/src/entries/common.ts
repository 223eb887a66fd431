// What both entries export besides their loader: `sampling-lab` (the sampler) and
// `sampling-lab/experiments` (the sampler with the chapter's experiments). Nothing here loads a
// WebAssembly module.
export { Lab } from '../lab/lab.js';
export { SamplingLabError } from '../lab/errors.js';
export type * from '../lab/lab.js';
export type * from '../lab/experiments.js';
export type * from '../lab/schema.js';
export { defaultsOf } from '../lab/schema.js';
export { parseNpy, npyRow, type NpyArray } from '../lab/npy.js';

export type { LoadOptions } from '../runtime/load-options.js';
