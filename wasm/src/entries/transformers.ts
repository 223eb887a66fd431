/**
 * `sampling-lab/transformers`: Sampling Lab as the sampler of a transformers.js model (adapters/transformers/).
 * @module sampling-lab/transformers
 */
export * from '../adapters/transformers/index.js';
