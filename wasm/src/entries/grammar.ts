// sampling-lab/grammar: grammar-constrained decoding with xgrammar (adapters/grammar/).
export * from '../adapters/grammar/grammar.js';
