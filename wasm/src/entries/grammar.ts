/**
 * `sampling-lab/grammar`: grammar-constrained decoding with xgrammar (adapters/grammar/).
 * @module sampling-lab/grammar
 */
export * from '../adapters/grammar/grammar.js';
