// Result shapes of the core's experiments (core/experiments/src/chapter/). Their parameter
// types are generated from the core's schemas (generated/types.ts). Vocabulary-sized arrays are
// typed arrays: they cross from WebAssembly as bytes, never as JSON text.
import type { FilterStage } from '../sampling-lab-core.js';
import type { ExperimentName, ExperimentParams } from '../generated/types.js';

export type { ExperimentName, ExperimentParams } from '../generated/types.js';
export type * from '../generated/types.js';

/** Result of 'filters': the sampling chain on one distribution, stage by stage. */
export interface FiltersResult {
  /** The kept tokens renormalised; 0 for cut ones. */
  probs: Float32Array;
  /** The distribution before truncation (penalties and temperature only). */
  tempered: Float32Array;
  /** Where each active truncating filter cut the ranking, cumulatively in chain order. */
  stages: FilterStage[];
  /** Per token: 0 = kept, else 1 + the index in `lab.stageNames` of the stage that cut it (`lab.masksCode` for the masks), as `lab.stages` gives. */
  cutBy: Uint8Array;
  kept: number;
  keptMass: number;
  entropyBits: number;
  topProb: number;
  /** Tokens needed for 90 % of the tempered distribution's mass. */
  tokensFor90: number;
  /** E, E[f²], Var and SD of a drawn token's surprisal f = −log2 p, in bits (E is the entropy), after and before the cuts. */
  surprisal: { kept: Moments; tempered: Moments };
}

/** Mean, mean square, variance and standard deviation of one quantity. */
export interface Moments {
  mean: number;
  meanSquare: number;
  variance: number;
  standardDeviation: number;
}

/** Result of 'temperature': top probability, tokens for `mass` and entropy, one row per temperature. */
export interface TemperatureResult {
  vocabSize: number;
  mass: number;
  rows: { temperature: number; topProb: number; tokensForMass: number; entropyBits: number }[];
}

/** A chi-square goodness-of-fit test of observed frequencies against the distribution drawn from: statistic, degrees of freedom, p-value. */
export interface ChiSquare {
  statistic: number;
  dof: number;
  pValue: number;
}

/** Result of 'samplers': each exact method's frequencies over `n` draws against p, with chi-square and time per draw. */
export interface SamplersResult {
  n: number;
  /** √(p(1 − p)/n) per category: the spread of a correct sampler's frequencies. */
  standardErrors: Float64Array;
  methods: {
    name: 'inverse-cdf' | 'gumbel-max' | 'exponential-race' | 'alias';
    frequencies: Float64Array;
    /** frequency − p per category. */
    deviations: Float64Array;
    maxDeviation: number;
    chiSquare: ChiSquare;
    nanosPerSample: number;
  }[];
}

/** Single draws of one method with what it computed on the way; draw k is draw k of `samplers` on the same seed and stream. */
export interface SamplerTraceResult {
  method: 'inverse-cdf' | 'gumbel-max' | 'exponential-race' | 'alias';
  seed: number;
  stream: number;
  first: number;
  /** Inverse CDF: the normalised running sums; the token is the first whose sum exceeds u. */
  cdf?: number[];
  /** Gumbel-max: log p_i, which the noise G_i is added to. */
  logP?: number[];
  /** Alias: column i keeps token i when the coin is below threshold[i], else gives alias[i]. */
  aliasTable?: { threshold: number[]; alias: number[] };
  draws: {
    index: number;
    token: number;
    /** Inverse CDF. */
    u?: number;
    /** Gumbel-max: G_i = −ln E_i, and log p_i + G_i (its argmax is the token). */
    gumbel?: number[];
    noisyLogits?: number[];
    /** Race: E_i ~ Exp(1), and the arrival E_i / p_i (the earliest is the token). */
    clocks?: number[];
    arrivals?: number[];
    /** Alias: the column and the coin in [0, 1). */
    column?: number;
    coin?: number;
  }[];
}

/** A sequence's probability multiplied out against the sum of its logs. */
export interface LogSpaceResult {
  tokenProb: number;
  length: number;
  productFloat32: number;
  productFloat64: number;
  /** Natural log of the sequence's probability, and its base-10 exponent. */
  logSum: number;
  log10Prob: number;
  /** The first step at which each product is 0; null when it never is. */
  float32ZeroAt: number | null;
  float64ZeroAt: number | null;
  series: { step: number; float64: number; logSum: number }[];
}

/** Result of 'mc-error': the spread of a frequency over `repeats` runs, one row per n, against √(p(1 − p)/n). */
export interface McErrorResult {
  p: number;
  repeats: number;
  rows: {
    n: number; std: number; theory: number; ratio: number;
    /** The estimates' 5th, 25th, 50th, 75th and 95th percentiles. */
    spread: [number, number, number, number, number];
    /** The first 100 runs' estimates (fewer when there are fewer repeats), in the order drawn. */
    estimates: number[];
    /** p ± 2·theory: where about 95 % of the estimates fall. */
    envelope: [number, number];
    /** The share of all the runs' estimates outside the envelope. */
    outside: number;
  }[];
  /** Least-squares slope of log std against log n: −½ by the 1/√n law; null without two distinct n with spread. */
  slope: number | null;
}

/** Result of 'eval-error': standard error and Wilson interval of an accuracy on `questions` questions, and whether a second model `gap` better can be told apart. */
export interface EvalErrorResult {
  questions: number;
  accuracy: number;
  standardError: number;
  /** Wilson score interval. */
  interval95: [number, number];
  /** A second model `gap` better on the same questions. */
  other: { accuracy: number; interval95: [number, number] };
  differenceStandardError: number;
  /** The gap in standard errors of the difference. */
  z: number;
  /** Questions needed for the gap to reach two standard errors. */
  questionsForGap: number;
  /** With `evals`: each simulated eval's measured accuracy of A (`first`) and B (`second`), and how often B came out ahead, tied or behind. */
  simulated?: { first: Float64Array; second: Float64Array; secondAhead: number; tied: number; secondBehind: number };
}

/** A sequence of token ids and its probability (the product of its steps' probabilities). */
export interface PathResult {
  path: number[];
  prob: number;
}

/** Result of 'sequence' in handbook mode: greedy, exhaustive best and beam search on the handbook's tree, with every leaf. */
export interface SequenceHandbookResult {
  mode: 'handbook';
  vocab: number;
  depth: number;
  best: PathResult;
  greedy: PathResult;
  beams: (PathResult & { width: number })[];
  /** Every sequence, most probable first, with the frequency of `samples` ancestral draws. */
  leaves: (PathResult & { sampled: number })[];
  /** `draws` sequences sampled without replacement (Gumbel-top-k, Kool et al. 2019). */
  withoutReplacement: PathResult[];
}

/** Result of 'sequence' in random mode: how often greedy and each beam width miss the most probable sequence over `models` random models; `closingWidth` is the first width that never misses (null if none). */
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

/** Result of 'speculative': acceptance Σ min(p, q) = 1 − TV, the output's distribution against the target, and tokens per verification. */
export interface SpeculativeResult {
  mode: 'exact' | 'pitfall';
  n: number;
  target: Float32Array;
  draft: Float32Array;
  /** norm(max(0, p − q)): where a rejection resamples from. */
  residual: Float32Array;
  /** The draft moved towards p in 11 steps: 1 − TV against the simulated acceptance. */
  sweep: { closeness: number; oneMinusTV: number; simulated: number }[];
  /** `untruncated`: Σ min(p, q) before top-k, for exercise 1's comparison. */
  acceptance: { empirical: number; theory: number; oneMinusTV: number; standardError: number; untruncated: number };
  output: { frequencies: Float64Array; chiSquare: ChiSquare };
  expectedTokens: { alpha: number; gamma: number; formula: number; simulated: number; verifications: number };
}

/** Result of 'acceptance': Σ min(p, q) of a draft model over a passage's positions, summarised beside the mean 1 − TV. */
export interface AcceptanceResult {
  positions: number;
  /** Of Σ min(p, q) over the positions. */
  mean: number;
  median: number;
  min: number;
  max: number;
  meanOneMinusTV: number;
  /** max |Σ min(p, q) − (1 − TV)|: zero up to rounding, as the identity says. */
  maxDifference: number;
  histogram: { edges: number[]; counts: number[] };
}

/** How one estimator's estimates spread over the repeats: mean, bias against the true mean, standard deviation and MSE. */
export interface EstimatorSpread {
  mean: number;
  bias: number;
  std: number;
  mse: number;
}

/** The importance-sampling estimators: ordinary ('none'), TIS (clipped weights), MIS (masked weights), self-normalised. */
export type EstimatorName = 'none' | 'tis' | 'mis' | 'selfNormalised';

/** Result of 'importance': estimates of E_p[x] from `n` draws of each shifted q, with effective sample size, one row per shift. */
export interface ImportanceResult {
  trueMean: number;
  p: number[];
  n: number;
  clip: number;
  repeats: number;
  rows: {
    shift: number;
    q: number[];
    estimate: number;
    ess: number;
    clipped: number;
    masked: number;
    selfNormalised: number;
    /** Present when repeats > 1. */
    estimators?: Record<EstimatorName, EstimatorSpread>;
    /** Each estimator's estimates on shared bins: edges.length = counts[e].length + 1. */
    histogram?: { edges: number[]; counts: Record<EstimatorName, number[]> };
    essMean?: number;
    essStd?: number;
    /** The first batch's weights w = p/q: per token, sorted from the largest, the share of the total
     * weight its top 1 % and 10 % of samples carry, and what clipping at `clip` cuts. */
    batch: { tokenWeights: number[]; sortedWeights: Float64Array; top1: number; top10: number; clippedSamples: number; clippedWeight: number };
  }[];
}

/** Result of 'speculative-steps': each verification's drafts and checks, and the emitted tokens' counts after each step. */
export interface SpeculativeStepsResult {
  gamma: number;
  steps: {
    /** The drafts checked, in order, up to the first rejection: each with its uniform u and min(1, p/q). */
    drafts: { token: number; u: number; ratio: number; accepted: boolean }[];
    accepted: number;
    /** The token after the accepted drafts: the residual draw at a rejection, else a bonus from p. */
    token: number;
    /** The wrong rule's token there: drawn from p instead of the residual, on the same uniform. */
    wrongToken: number;
    fromResidual: boolean;
  }[];
  target: Float32Array;
  draft: Float32Array;
  /** Row k (of `target.length` entries): each token's frequency among the tokens emitted by steps 0 … k. */
  frequencies: Float64Array;
  wrongFrequencies: Float64Array;
  /** Tokens emitted by steps 0 … k. */
  emitted: Float64Array;
  chiSquare: { statistic: number; dof: number; pValue: number };
  wrongChiSquare: { statistic: number; dof: number; pValue: number };
}

/** Result of 'sample-size': samples per configuration before a difference exceeds z standard errors (`n` exactly, `perConfiguration` rounded up), and the standard error there. */
export interface SampleSizeResult {
  mode: 'means' | 'proportions';
  n: number;
  perConfiguration: number;
  standardErrorAtN: number;
  /** The two configurations' means (or proportions). */
  means: [number, number];
  /** With `n`: the difference's standard error and size in standard errors at n, and each estimate's sampling distribution there, N(mean, σ²/n), on one grid. */
  at?: { n: number; standardError: number; z: number; distributions: { x: Float64Array; first: Float64Array; second: Float64Array } };
  /** With `n`: the difference ± z standard errors for n from 10 to 100,000 (log-spaced). */
  band?: { n: Float64Array; low: Float64Array; high: Float64Array };
}

/** Result of 'beam-steps': one random model searched by beam search of one width, step by step. */
export interface BeamStepsResult {
  vocab: number;
  depth: number;
  width: number;
  /** The model's number (the random mode's numbering): the one asked for, or the first where greedy misses. */
  model: number;
  /** Each step's candidates (every kept prefix extended by every token), best first; the first `width` are kept. A candidate of probability 0 has logProb null (−∞). */
  steps: { candidates: { path: number[]; logProb: number | null; kept: boolean }[] }[];
  beam: { path: number[]; prob: number };
  /** Greedy's sequence, with its log-probability after each step. */
  greedy: { path: number[]; prob: number; logProbs: number[] };
  best: { path: number[]; prob: number };
}

/** The result type of each experiment, by name. */
export interface ExperimentResults {
  filters: FiltersResult;
  temperature: TemperatureResult;
  samplers: SamplersResult;
  'sampler-trace': SamplerTraceResult;
  'mc-error': McErrorResult;
  'eval-error': EvalErrorResult;
  sequence: SequenceHandbookResult | SequenceRandomResult;
  'log-space': LogSpaceResult;
  'beam-steps': BeamStepsResult;
  speculative: SpeculativeResult;
  'speculative-steps': SpeculativeStepsResult;
  acceptance: AcceptanceResult;
  importance: ImportanceResult;
  'sample-size': SampleSizeResult;
}

/** Parameters and result of each experiment; tsc fails here if a result type is missing. */
export type ExperimentTypes = {
  [N in ExperimentName]: { params: ExperimentParams[N]; result: ExperimentResults[N] };
};
