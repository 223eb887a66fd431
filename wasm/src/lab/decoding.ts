// Speculative verification's and beam search's types, and the beam search handle. The core
// (core/sampling/include/sampling_lab/speculative_decoding.hpp, beam_search.hpp) does the work.
import type { CoreBeamSearch } from '../sampling-lab-core.js';
import type { SampleTokenOptions } from './types.js';
import type { IntegerArray, NumericArray } from './schema.js';

export interface SpeculativeOptions extends SampleTokenOptions {
  /** The stream the draft drew its tokens on; default `lab.draftStream(stream)`. */
  draftStream?: number;
}

/** What `lab.speculativeVerify` returns: the drafts it accepted and the token drawn after them. */
export interface SpeculativeVerification {
  /** Drafts accepted, 0 … γ. */
  accepted: number;
  /** The residual draw at the first rejection, or the bonus token from the last target row. */
  token: number;
  /** The accepted drafts, then `token` (accepted + 1 entries). */
  tokens: Int32Array;
  /** min(1, p_i(x_i) / q_i(x_i)) at each position checked: accepted + 1, or γ when all were accepted. With several drafts, min(1, r(x) / q_j(x)) of each draft tried, position by position. */
  acceptance: Float64Array;
  /** With several drafts: the one whose first `accepted` tokens were emitted (0 with one). */
  draft: number;
  /** `token` replaced a rejected draft (drawn from norm(max(0, p − q)); the target's token at temperature 0). */
  fromResidual: boolean;
}

/** Options of `lab.promptLookup`. */
export interface PromptLookupOptions {
  /** The longest n-gram matched (default 3; at most lab.maxDraftTokens). */
  ngramMax?: number;
  /** The shortest (default 1). */
  ngramMin?: number;
  /** Tokens proposed at most (default 4; at most lab.maxDraftTokens). */
  gamma?: number;
  /** Proposals at most (default 1; at most lab.maxDrafts): the next occurrences, in the same order (longer n-gram first, then earlier), each continuation distinct from those before it. */
  drafts?: number;
}

/** What `lab.promptLookup` returns: the best proposal, and with `drafts` > 1 every proposal. */
export interface PromptLookupProposal {
  /** The proposal: what followed the match (empty when nothing matched). */
  tokens: number[];
  /** n of the matched n-gram (the context's last n tokens); 0 when nothing matched. */
  ngram: number;
  /** Where the matched occurrence starts in the context. */
  at: number;
  /** Every proposal, the best (the fields above) first; empty when nothing matched. */
  drafts: { tokens: number[]; ngram: number; at: number }[];
}

/** Options of `lab.createBeamSearch`. */
export interface BeamSearchOptions {
  /** Beams kept, 1 … lab.maxBeams. */
  numBeams: number;
  /** Steps at most, 1 … lab.maxNewTokens. */
  maxNewTokens: number;
  /** transformers' length_penalty: a finished sequence scores logProb / length^lengthPenalty; default 1, in [−10, 10]; not with stochastic. */
  lengthPenalty?: number;
  /** Tokens that end a sequence (at most lab.maxEosTokens). */
  eosTokenIds?: IntegerArray;
  /** Hypotheses finish() returns, 1 … numBeams; default 1. */
  numReturnSequences?: number;
  /** Stop as soon as numBeams sequences have ended; default false. */
  earlyStopping?: boolean;
  /** Stochastic beam search (Kool et al. 2019): Gumbel-perturbed log-probabilities from (seed, stream) rank the candidates. */
  stochastic?: boolean;
  seed?: number;
  stream?: number;
}

/** A beam search step's outcome: which beam each new beam extends, with which token, and whether the search is done. */
export interface BeamStep {
  /** New beam j extends the beam of row beamIndices[j]: reorder the KV cache by it. */
  beamIndices: Int32Array;
  /** The token new beam j adds. */
  tokens: Int32Array;
  /** No further step: call finish(). */
  done: boolean;
}

/** A finished sequence of a beam search, with its log-probability and score. */
export interface BeamHypothesis {
  /** Generated tokens, the end-of-sequence token that ended it included. */
  tokens: number[];
  /** Σ of each token's log-softmax in its row. */
  logProb: number;
  /** logProb / length^lengthPenalty; stochastic: the perturbed log-probability. */
  score: number;
}

/** A beam search fed one forward pass at a time. */
export interface BeamSearch {
  /**
   * One step on the running beams' logits: 1 row (the prompt's last position) at the first step,
   * numBeams after; an array of rows or one flat array.
   */
  step(logitsRows: readonly NumericArray[] | Float32Array | Float64Array): BeamStep;
  /**
   * After a step: the new beams at `beams` (places in it) end there, as an end-of-sequence token
   * would have ended them (a stop string their text completed), and the step's next candidates
   * replace them. Returns the step as it now stands, its beams best first as a step's.
   */
  finishBeams(beams: IntegerArray): BeamStep;
  /** The best numReturnSequences hypotheses, best first. */
  finish(): BeamHypothesis[];
  readonly numBeams: number;
  readonly done: boolean;
}

/** What a beam search needs of its lab: a step on rows it writes where the engine reads them, and the finish. */
export interface BeamSearchPort {
  /** `first`: no step has succeeded yet. */
  step(search: CoreBeamSearch, logitsRows: readonly NumericArray[] | Float32Array | Float64Array, first: boolean): BeamStep;
  finishBeams(search: CoreBeamSearch, beams: IntegerArray): BeamStep;
  finish(search: CoreBeamSearch): BeamHypothesis[];
}

// Each search lives in WebAssembly memory until its handle is garbage-collected.
const searches = new FinalizationRegistry<CoreBeamSearch>((search) => search.delete());

export class LabBeamSearch implements BeamSearch {
  readonly numBeams: number;
  readonly #port: BeamSearchPort;
  readonly #search: CoreBeamSearch;
  #done = false;
  #stepped = false;

  constructor(port: BeamSearchPort, search: CoreBeamSearch, numBeams: number) {
    this.#port = port;
    this.#search = search;
    this.numBeams = numBeams;
    searches.register(this, search);
  }

  get done(): boolean {
    return this.#done;
  }

  step(logitsRows: readonly NumericArray[] | Float32Array | Float64Array): BeamStep {
    const step = this.#port.step(this.#search, logitsRows, !this.#stepped);
    this.#stepped = true;
    this.#done = step.done;
    return step;
  }

  finishBeams(beams: IntegerArray): BeamStep {
    const step = this.#port.finishBeams(this.#search, beams);
    this.#done = step.done;
    return step;
  }

  finish(): BeamHypothesis[] {
    return this.#port.finish(this.#search);
  }
}
