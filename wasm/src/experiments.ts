// Parameter and result shapes of the core's experiments (core/src/experiments.cpp).

export type NumericArray = Float32Array | Float64Array | readonly number[];

export interface FiltersParams {
  logits?: NumericArray;
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
}

export interface FiltersResult {
  probs: number[];
  kept: number;
  keptMass: number;
  entropyBits: number;
  topProb: number;
}

export interface TemperatureParams {
  /** Defaults to the synthetic 151,936-token vector (see `synthetic_logits` in the core). */
  logits?: NumericArray | null;
  temperatures?: readonly number[];
  mass?: number;
}

export interface TemperatureResult {
  vocabSize: number;
  mass: number;
  rows: { temperature: number; topProb: number; tokensForMass: number; entropyBits: number }[];
}

export interface ChiSquare {
  statistic: number;
  dof: number;
  pValue: number;
}

export interface SamplersParams {
  p?: readonly number[] | Float32Array | Float64Array;
  n?: number;
  seed?: number;
}

export interface SamplersResult {
  n: number;
  methods: {
    name: 'inverse-cdf' | 'gumbel-max' | 'exponential-race' | 'alias';
    frequencies: number[];
    maxDeviation: number;
    chiSquare: ChiSquare;
    nanosPerSample: number;
  }[];
}

export interface McErrorParams {
  p?: number;
  ns?: readonly number[];
  repeats?: number;
  seed?: number;
}

export interface McErrorResult {
  p: number;
  repeats: number;
  rows: { n: number; std: number; theory: number }[];
}

export interface EvalErrorParams {
  questions?: number;
  accuracy?: number;
}

export interface EvalErrorResult {
  questions: number;
  accuracy: number;
  standardError: number;
  /** Wilson score interval. */
  interval95: [number, number];
}

export interface ExperimentTypes {
  filters: { params: FiltersParams; result: FiltersResult };
  temperature: { params: TemperatureParams; result: TemperatureResult };
  samplers: { params: SamplersParams; result: SamplersResult };
  'mc-error': { params: McErrorParams; result: McErrorResult };
  'eval-error': { params: EvalErrorParams; result: EvalErrorResult };
}

export type ExperimentName = keyof ExperimentTypes;

export interface ExperimentInfo {
  name: string;
  summary: string;
  /** Every accepted parameter with its default; null marks a documented built-in. */
  defaults: Record<string, unknown>;
}
