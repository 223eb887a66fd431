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

export interface PathResult {
  path: number[];
  prob: number;
}

export interface SequenceParams {
  mode?: 'handbook' | 'random';
  /** Handbook mode: one distribution per tree node, breadth-first (default: the handbook's tree). */
  tree?: readonly number[];
  vocab?: number | null;
  depth?: number | null;
  widths?: readonly number[] | null;
  sharpness?: number;
  models?: number;
  seed?: number;
}

export interface SequenceHandbookResult {
  mode: 'handbook';
  vocab: number;
  depth: number;
  best: PathResult;
  greedy: PathResult;
  beams: (PathResult & { width: number })[];
}

export interface SequenceRandomResult {
  mode: 'random';
  vocab: number;
  depth: number;
  sharpness: number;
  models: number;
  greedyMisses: number;
  greedyMissRate: number;
  beams: { width: number; misses: number; missRate: number; meanProbRatio: number }[];
  closingWidth: number | null;
}

export interface SpeculativeParams {
  p?: readonly number[];
  /** Default: uniform. */
  q?: readonly number[] | null;
  n?: number;
  seed?: number;
  gamma?: number;
  topK?: number;
  mode?: 'exact' | 'pitfall';
}

export interface SpeculativeResult {
  mode: 'exact' | 'pitfall';
  target: number[];
  draft: number[];
  acceptance: { empirical: number; theory: number; oneMinusTV: number; standardError: number };
  output: { frequencies: number[]; chiSquare: ChiSquare };
  expectedTokens: { alpha: number; gamma: number; formula: number; simulated: number; verifications: number };
}

export interface ImportanceParams {
  shifts?: readonly number[];
  n?: number;
  clip?: number;
  seed?: number;
  repeats?: number;
}

export interface EstimatorSpread {
  mean: number;
  bias: number;
  std: number;
  mse: number;
}

export type EstimatorName = 'none' | 'tis' | 'mis' | 'selfNormalised';

export interface ImportanceResult {
  trueMean: number;
  n: number;
  clip: number;
  repeats: number;
  rows: {
    shift: number;
    estimate: number;
    ess: number;
    clipped: number;
    masked: number;
    selfNormalised: number;
    /** Present when repeats > 1. */
    estimators?: Record<EstimatorName, EstimatorSpread>;
    estimates?: Record<EstimatorName, number[]>;
    essMean?: number;
  }[];
}

export interface SampleSizeParams {
  mode?: 'means' | 'proportions';
  delta?: number;
  std?: number;
  z?: number;
  p1?: number;
  p2?: number;
}

export interface SampleSizeResult {
  mode: 'means' | 'proportions';
  n: number;
  perConfiguration: number;
  standardErrorAtN: number;
}

export interface ExperimentTypes {
  filters: { params: FiltersParams; result: FiltersResult };
  temperature: { params: TemperatureParams; result: TemperatureResult };
  samplers: { params: SamplersParams; result: SamplersResult };
  'mc-error': { params: McErrorParams; result: McErrorResult };
  'eval-error': { params: EvalErrorParams; result: EvalErrorResult };
  sequence: { params: SequenceParams; result: SequenceHandbookResult | SequenceRandomResult };
  speculative: { params: SpeculativeParams; result: SpeculativeResult };
  importance: { params: ImportanceParams; result: ImportanceResult };
  'sample-size': { params: SampleSizeParams; result: SampleSizeResult };
}

export type ExperimentName = keyof ExperimentTypes;

export interface ExperimentInfo {
  name: string;
  summary: string;
  /** Every accepted parameter with its default; null marks a documented built-in. */
  defaults: Record<string, unknown>;
}
