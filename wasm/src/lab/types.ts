// The lab's public types: what its methods take and return.
import type { FilterOptions, RandomKeyOptions } from '../generated/types.js';
import type { FilterStage } from '../sampling-lab-core.js';
import type { IntegerArray, NumericArray } from './schema.js';

/** What `lab.distribution` returns: the distribution sampleToken draws from, and its shape. */
export interface DistributionResult {
  /** The filtered, renormalised distribution (a copy owned by the caller). */
  probs: Float32Array;
  /** Tokens left with non-zero probability. */
  kept: number;
  /** Mass of the kept tokens under the tempered, untruncated distribution. */
  keptMass: number;
  /** Entropy of `probs`, in bits. */
  entropyBits: number;
  /** The largest probability in `probs`. */
  topProb: number;
}

/** The four exact ways `lab.sample` draws from a distribution. */
export type SamplingMethod = 'inverse-cdf' | 'gumbel-max' | 'exponential-race' | 'alias';

/** Options of `lab.sample`: n i.i.d. draws by one method, on the random key (seed, stream). */
export interface SampleOptions extends Pick<RandomKeyOptions, 'seed' | 'stream'>, RunOptions {
  /** How each draw is made. Default 'inverse-cdf'. */
  method?: SamplingMethod;
  /** Number of draws. Default 1. */
  n?: number;
  /** Divides the logits before the softmax; not used with isProbs. */
  temperature?: number;
  /** The input holds probabilities rather than logits. */
  isProbs?: boolean;
}

/** Options of one generation step: the filters and the random key. */
export interface SampleTokenOptions extends FilterOptions, RandomKeyOptions {}

/**
 * Options of a batch, one row each: an array of per-row option objects, or one object whose
 * values are either shared by every row or per-row arrays (parallel typed arrays).
 */
export type BatchOptions = readonly SampleTokenOptions[] | {
  [K in keyof SampleTokenOptions]?: K extends 'generatedIds' ? readonly IntegerArray[] | IntegerArray : number | ArrayLike<number>;
};

/** Options of `lab.coverCount`. */
export interface CoverCountOptions {
  /** Divides the logits before the softmax (default 1); not used with isProbs. */
  temperature?: number;
  /** The input holds probabilities rather than logits. */
  isProbs?: boolean;
}

/** Distances between two distributions p and q, as `lab.distance` computes them in double. */
export interface Distances {
  /** Total variation distance ½ Σ |p − q|. */
  tv: number;
  /** KL(p‖q) = Σ p log(p / q), in nats; +∞ where q = 0 < p. */
  kl: number;
  /** Σ min(p, q) = 1 − TV. */
  overlap: number;
}

/** Options of long runs (`lab.sample`, experiments): progress reports and stopping. */
export interface RunOptions {
  /**
   * Hears the fraction done of long runs (called synchronously, during the run). Returning false
   * stops the run, which then throws a SamplingLabError for "onProgress"; an exception thrown here
   * stops it too and is rethrown once the run has released its memory.
   */
  onProgress?: (fraction: number) => boolean | void;
}


/** Log-probabilities of one token (drawn, or scored by tokenLogprobs), as vLLM returns them. */
export interface TokenLogprobs {
  token: number;
  /** Natural log of its probability. */
  logprob: number;
  /** 1 = the most probable (ties to the lower id). */
  rank: number;
  /** The `logprobs` most probable tokens, best first. */
  top: { token: number; logprob: number }[];
}

/** Asks sampleToken (and tokenLogprobs) for vLLM-style log-probabilities beside the token. */
export interface LogprobsOptions {
  /** How many of the most probable tokens to list, 0–20. */
  logprobs: number;
  /** 'raw': log-softmax of the unmodified logits (default); 'processed': of the distribution sampled from (−∞ for cut tokens). */
  logprobsMode?: 'raw' | 'processed';
}

/** Where each token of a distribution left the chain. */
export interface StagesResult {
  /** The stages that were on, in order, with the tokens left after each. */
  stages: FilterStage[];
  /** Per token: 0 = kept, else 1 + its cutting stage's index in `lab.stageNames` (`lab.masksCode` for the masks). */
  cutBy: Uint8Array;
}

/** A stateful sampler's state: plain JSON that `lab.createSampler(options, state)` restores exactly. */
export interface SamplerState {
  /** Tokens accepted so far (after options.generatedIds), which the penalties and DRY see. */
  history: number[];
  /** The random key's step of the next token. */
  step: number;
  /** Mirostat's μ for the next token; null before the first. */
  mirostatMu: number | null;
  /** Adaptive-p's moving average for the next token; null before the first (absent in older states). */
  adaptivePAverage?: number | null;
}

/** llama.cpp-style sampler: keeps the history, mirostat's μ and the step between tokens. */
export interface Sampler {
  /** Draws the next token and accepts it. */
  sample(logits: NumericArray): number;
  /** Appends a token chosen elsewhere (a prompt token, a speculative accept) to the history. */
  accept(token: number): void;
  /** Back to where the options start it (generatedIds, step, mirostat.mu), even if it was created from a saved state. */
  reset(): void;
  /** An independent copy with the same state. */
  clone(): Sampler;
  readonly state: SamplerState;
}
