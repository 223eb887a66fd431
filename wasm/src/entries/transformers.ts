// sampling-lab/transformers: Sampling Lab as the sampler of a transformers.js model (adapters/transformers/).
export * from '../adapters/transformers/index.js';
