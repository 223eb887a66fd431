// The sampler's lab (`sampling-lab`): every call checks JavaScript types (checks.ts), lays out
// its options (option-layout.ts) and writes its inputs into WebAssembly memory, and the core does
// the rest. Public types are types.ts's; the stateful sampler is sampler.ts's.
import { OPTION_TABLE, STAGE_TABLE, type StageName } from '../generated/tables.js';
import type { CoreEngine, CoreEnum, CoreModule } from '../sampling-lab-core.js';
import {
  checkIdle, checkKeys, checkLength, checkNumbers, checkScalars, describe, draftList, idList, isError, isObject, unwrap, view, withProgress,
} from './checks.js';
import { LabBeamSearch, type BeamSearch, type BeamSearchOptions, type PromptLookupOptions, type PromptLookupProposal, type SpeculativeOptions, type SpeculativeVerification } from './decoding.js';
import { SamplingLabError } from './errors.js';
import { NO_ITEMS, OptionLayout, type LaidOut } from './option-layout.js';
import { StatefulSampler, type SamplerPort, type StartState } from './sampler.js';
import type { IntegerArray, NumericArray, OptionSpec } from './schema.js';
import { sameButStep, snapshot, UNKEPT } from './step-cache.js';
import type {
  BatchOptions, CoverCountOptions, Distances, DistributionResult, LogprobsOptions, SampleOptions, SampleTokenOptions, Sampler,
  SamplerState, StagesResult, RunOptions, TokenLogprobs,
} from './types.js';

export type { FilterOptions, RandomKeyOptions } from '../generated/types.js';
export type { StageName } from '../generated/tables.js';
export type { FilterStage } from '../sampling-lab-core.js';
export type { BeamHypothesis, BeamSearch, BeamSearchOptions, BeamStep, PromptLookupOptions, PromptLookupProposal, SpeculativeOptions, SpeculativeVerification } from './decoding.js';
export type * from './types.js';
export { checkKeys, describe, isObject, unwrap, withProgress } from './checks.js';

// 53 random bits: seeds cross as doubles (integers up to 2^53 − 1).
function freshSeed(): number {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (words[0] & 0x1fffff) * 2 ** 32 + words[1];
}

/** Primary inputs up to this long keep their view between calls. */
const KEPT_VIEW = 1 << 16;

/**
 * A loaded Sampling Lab sampler module. Methods are synchronous; create one per thread. The
 * chapter's experiments are ExperimentLab's (`sampling-lab/experiments`).
 */
export class Lab {
  /** Every sampling option: name, kind, default, range, group and slot (the experiments lab's also have docs and sliders). */
  readonly options: readonly OptionSpec[];
  readonly maxVocabulary: number;
  /** Rows of one sampleBatch call at most. */
  readonly maxBatchRows: number;
  /** Tokens a stateful sampler's history holds at most. */
  readonly maxHistory: number;
  /** Draft tokens speculativeVerify verifies at once at most, per draft. */
  readonly maxDraftTokens: number;
  /** Drafts speculativeVerify verifies together at most. */
  readonly maxDrafts: number;
  /** Tokens of context lab.promptLookup searches at most. */
  readonly maxLookupContext: number;
  /** A beam search's numBeams at most. */
  readonly maxBeams: number;
  /** A beam search's end-of-sequence ids at most. */
  readonly maxEosTokens: number;
  /** A beam search's maxNewTokens at most. */
  readonly maxNewTokens: number;
  /** 151,936: Qwen3's vocabulary, the size of the synthetic logits. */
  readonly qwen3Vocabulary: number;
  readonly #core: CoreModule;
  readonly #engine: CoreEngine;
  // The option table's layout and the core's option buffers.
  readonly #layout: OptionLayout;
  /** The stages `order` arranges, by index. */
  readonly stageNames: readonly StageName[];
  // sampleToken's last options when the core keeps them for sampleTokenAtStep.
  #stepOptions?: { options: Record<string, unknown>; keys: number };
  // A small primary input's view, kept while calls give logits of its length; and the input slot
  // the core reads from.
  #primaryView?: Float32Array;
  #currentSlot?: CoreEnum;
  /** stages().cutBy's code of a token removed by allowedTokens or bannedTokens. */
  readonly masksCode: number;
  #resident?: Float32Array;
  // Draws without a seed use this lab's random seed and a step no other call of the lab uses.
  readonly #unseeded = { seed: freshSeed(), step: 0 };
  // Seeded draws without a step take the next step of their (seed, stream), as a generator would.
  readonly #nextSteps = new Map<number, Map<number, number>>();
  // Every view logitsBuffer handed out, to tell a detached one from an empty array.
  readonly #residents = new WeakSet<Float32Array>();

  constructor(core: CoreModule) {
    this.#core = core;
    this.#engine = new core.Engine();
    this.maxVocabulary = core.maxVocabulary;
    this.maxBatchRows = core.maxBatchRows;
    this.maxHistory = core.maxHistory;
    this.maxDraftTokens = core.maxDraftTokens;
    this.maxDrafts = core.maxDrafts;
    this.maxLookupContext = core.maxLookupContext;
    this.maxBeams = core.maxBeams;
    this.maxEosTokens = core.maxEosTokens;
    this.maxNewTokens = core.maxNewTokens;
    this.qwen3Vocabulary = core.qwen3Vocabulary;
    this.options = Object.freeze(OPTION_TABLE);
    this.#layout = new OptionLayout(this.options, core, this.#engine, this);
    this.stageNames = this.#layout.stageNames;
    this.masksCode = STAGE_TABLE.masksCode;
  }

  /**
   * The distribution sampleToken draws from with the same options: logit bias and masks, then
   * the stages in `order` (default: penalties → DRY → temperature → top-k → top-p → min-p →
   * typical → top-nσ → ε → η → p-less → XTC → mirostat → adaptive-p), renormalised.
   */
  distribution(logits: NumericArray, options: SampleTokenOptions = {}): DistributionResult {
    const laid = this.#layout.layOut([options]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.distribution());
    return { ...result, probs: result.probs.slice() };
  }

  /** The stages that are on, in order, the tokens left after each, and which stage cut each token. */
  stages(logits: NumericArray, options: SampleTokenOptions = {}): StagesResult {
    const laid = this.#layout.layOut([options]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.stages());
    return { stages: result.stages, cutBy: result.cutBy.slice() };
  }

  /**
   * One token per call, for generation loops: bias, masks and the chain, then one seeded draw.
   * Temperature 0 is greedy. Allocates nothing in WebAssembly once warm. With `logprobs`, the
   * token comes with its log-probability, rank and the most probable alternatives.
   */
  sampleToken(logits: NumericArray, options: SampleTokenOptions & LogprobsOptions): TokenLogprobs;
  sampleToken(logits: NumericArray, options?: SampleTokenOptions): number;
  sampleToken(logits: NumericArray, options: SampleTokenOptions & Partial<LogprobsOptions> = {}): number | TokenLogprobs {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    if (!('logprobs' in options) && !('logprobsMode' in options)) return this.#sampleTokenNumber(logits, options);
    const { logprobs, logprobsMode, ...rest } = options;
    if (logprobs === undefined) {
      if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs');
      return this.#sampleTokenNumber(logits, rest);
    }
    return this.#logprobs(logits, this.#keyed(rest, this.#step(rest)), logprobs, logprobsMode, -1);
  }

  /**
   * The log-probabilities sampleToken would report for `token` if it had drawn it, with no draw:
   * for a token chosen elsewhere (a speculative verification's, a beam's, a prompt's). A token the
   * chain cut has logprob −∞ (processed), ranked after every kept one.
   */
  tokenLogprobs(logits: NumericArray, token: number, options: SampleTokenOptions & LogprobsOptions): TokenLogprobs {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    // −1 asks the core for a draw: refused here.
    if (typeof token !== 'number' || token < 0) throw new SamplingLabError('token', `token must be an id in [0, ${logits.length}), not ${String(token)}`);
    const { logprobs, logprobsMode, ...rest } = options;
    return this.#logprobs(logits, this.#keyed(rest, rest.step ?? 0), logprobs, logprobsMode, token);
  }

  // The drawn token's logprobs (token −1), or a given token's.
  #logprobs(logits: NumericArray, keyed: Record<string, unknown>, logprobs: unknown, mode: unknown, token: number): TokenLogprobs {
    const laid = this.#layout.layOut([keyed]);
    checkLogprobs(logprobs, mode);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const { token: scored, logprob, rank, top } = unwrap(this.#engine.sampleTokenLogprobs(logprobs, mode === 'processed', token));
    return { token: scored, logprob, rank, top };
  }

  // The per-token path with nothing built per call: the core returns the token as a number, and
  // options that differ from the last call's only in `step` (a generation loop's) are neither
  // laid out nor read again: the same values, lists and objects compared entry by entry with a
  // copy of the last call's.
  #sampleTokenNumber(logits: NumericArray, options: Record<string, unknown>): number {
    const step = this.#step(options);
    const cached = this.#stepOptions;
    if (cached && sameButStep(cached, options)) {
      if (typeof step !== 'number') throw new SamplingLabError('step', 'step must be a number');
      this.#input(logits, 'logits');
      // Taking the logits may have handed back the option buffers, which the kept options' lists view.
      if (this.#layout.current()) return this.#token(this.#engine.sampleTokenAtStep(step));
    }
    const laid = this.#layout.layOut([this.#keyed(options, step)]);
    this.#input(logits, 'logits');
    this.#writeOptions(laid);
    const token = this.#token(this.#engine.sampleTokenNumber());
    const kept = snapshot(options);
    if (kept !== UNKEPT) this.#stepOptions = { options: kept as Record<string, unknown>, keys: Object.keys(options).length };
    return token;
  }

  // The step of a draw: the given one with a seed, else the next of (seed, stream), or of the
  // lab's own random seed when there is no seed.
  #step(options: Record<string, unknown>): unknown {
    const { seed, stream = 0, step } = options;
    if (seed === undefined) {
      // Unused without a seed, but a bad one is still refused.
      if (step !== undefined && !(typeof step === 'number' && Number.isInteger(step) && step >= 0 && step <= Number.MAX_SAFE_INTEGER)) {
        throw new SamplingLabError('step', 'step must be an integer in [0, 2^53 − 1]');
      }
      return this.#unseeded.step++;
    }
    if (step !== undefined || typeof seed !== 'number' || typeof stream !== 'number') return step;
    let streams = this.#nextSteps.get(seed);
    if (!streams) this.#nextSteps.set(seed, streams = new Map());
    const next = streams.get(stream) ?? 0;
    streams.set(stream, next + 1);
    return next;
  }

  // The options with the random key that #step chose.
  #keyed(options: Record<string, unknown>, step: unknown): Record<string, unknown> {
    if (options.seed === undefined) return { ...options, seed: this.#unseeded.seed, step };
    return options.step === undefined ? { ...options, step } : options;
  }

  /**
   * A random seed (53 bits from crypto.getRandomValues): what a decoder uses for a run given no
   * seed, so that its draws are fresh from run to run and consistent within it.
   */
  freshSeed(): number {
    return freshSeed();
  }

  #token(token: number): number {
    if (token >= 0) return token;
    const { error } = this.#engine.lastError();
    throw new SamplingLabError(error.argument, error.message);
  }

  /**
   * A sampler that keeps state between tokens, as llama.cpp's do: the history the penalties and
   * DRY see (starting from options.generatedIds), mirostat's μ and the random key's step
   * (starting from options.step). `state`, from another sampler's `.state`, restores it exactly.
   * The history lives in WebAssembly and the penalties' counts are kept as tokens arrive, so a
   * token costs the same at any history length (DRY searches its window, dry.penaltyLastN).
   */
  createSampler(options: SampleTokenOptions = {}, state?: SamplerState): Sampler {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    // Checked once here, so that a bad option fails at creation rather than at the first token.
    this.checkOptions(options);
    const { generatedIds = [], step = 0, mirostat, adaptiveP, ...given } = options as SampleTokenOptions;
    // Without a seed the sampler draws on a fresh one, as every unseeded draw does.
    const fixed = given.seed === undefined ? { ...given, seed: freshSeed() } : given;
    const start: StartState = {
      history: Int32Array.from(generatedIds), step, mirostatMu: mirostat?.mu ?? null, adaptivePAverage: adaptiveP?.average ?? null,
    };
    if (state !== undefined) this.#checkSamplerState(state);
    const port: SamplerPort = {
      createHistory: () => new this.#core.History(fixed.penaltyLastN ?? -1, fixed.noRepeatNgramSize ?? 0),
      draw: (logits, stepOptions, history) => {
        const laid = this.#layout.layOut([stepOptions]);
        this.#input(logits, 'logits');
        this.#writeOptions(laid);
        return unwrap(this.#engine.sampleWithHistory(history));
      },
      maxVocabulary: this.maxVocabulary,
    };
    return new StatefulSampler(port, fixed, { mirostat, adaptiveP }, start, state ?? start);
  }

  /**
   * Checks sampling options without sampling: kinds, ranges, and every token id below `vocabSize`
   * (default: the largest vocabulary accepted, or that allowedMask's words fit). Throws the SamplingLabError sampleToken would.
   */
  checkOptions(options: SampleTokenOptions, vocabSize = this.#largestVocabulary(options)): void {
    if (typeof vocabSize !== 'number') throw new SamplingLabError('vocabSize', 'vocabSize must be a number');
    this.#writeOptions(this.#layout.layOut([options]));
    unwrap(this.#engine.checkOptions(vocabSize));
  }

  // The largest vocabulary options fit: an allowedMask of n words fits at most 32n tokens.
  #largestVocabulary(options: SampleTokenOptions): number {
    const mask = isObject(options) ? options.allowedMask : undefined;
    return mask instanceof Uint32Array || mask instanceof Int32Array ? Math.max(1, Math.min(this.maxVocabulary, 32 * mask.length)) : this.maxVocabulary;
  }

  /**
   * One token per row, each with its own options and random key. A row gives the same token
   * alone or inside any batch. Rows: an array of equal-length arrays, or one flat array.
   */
  sampleBatch(logitsRows: readonly NumericArray[] | Float32Array | Float64Array, options: BatchOptions): Int32Array {
    if (typeof logitsRows !== 'object' || logitsRows === null) {
      throw new SamplingLabError('logitsRows', 'logitsRows must be an array of rows or one flat Float32Array, Float64Array or number[]');
    }
    const matrix = Array.isArray(logitsRows) && logitsRows.length > 0 && typeof logitsRows[0] !== 'number'
      ? logitsRows as readonly NumericArray[] : undefined;
    if (matrix) {
      checkLength(matrix, 'logitsRows', this.maxBatchRows);
      const width = matrix[0]?.length;
      if (typeof width === 'number' && matrix.length * width > this.maxVocabulary) {
        throw new SamplingLabError('logitsRows', `logitsRows holds ${matrix.length} × ${width} logits; at most ${this.maxVocabulary} are supported`);
      }
      // Before 2^14 option objects are read: a ragged matrix is refused at once.
      const ragged = typeof width === 'number' && matrix.some((row) => typeof (row as NumericArray | undefined)?.length === 'number' && row.length !== width);
      if (ragged) throw new SamplingLabError('logitsRows', 'logitsRows must all have the same length');
    } else {
      checkLength(logitsRows as ArrayLike<unknown>, 'logitsRows', this.maxVocabulary);
    }
    const perRow = this.#layout.rowsOf(options, matrix?.length);
    const rows = perRow.length;
    // The shapes first: reading 2^14 option objects takes longer than a rejection may.
    const length = (logitsRows as ArrayLike<unknown>)?.length;
    if (matrix && matrix.length !== rows) {
      throw new SamplingLabError('options', `options describe ${rows} rows for ${matrix.length} rows of logits`);
    }
    if (!matrix && typeof length === 'number' && length % rows !== 0) {
      throw new SamplingLabError('logitsRows', `logitsRows holds ${length} logits, not a whole number of rows for the ${rows} rows the options describe`);
    }
    const laid = this.#layout.layOut(perRow.map((row) => this.#keyed(row as Record<string, unknown>, this.#step(row as Record<string, unknown>))));
    if (matrix) this.#writeRows(this.#core.InputSlot.primary, matrix, 'logitsRows');
    else this.#input(logitsRows as NumericArray, 'logitsRows');
    this.#writeOptions(laid);
    return unwrap(this.#engine.sampleBatch(rows)).tokens.slice();
  }

  /**
   * n i.i.d. draws by one of four exact methods, from probabilities or logits/T. Long runs report
   * progress to `onProgress`, which can stop them (see RunOptions).
   */
  sample(probsOrLogits: NumericArray, options: SampleOptions = {}): Int32Array {
    checkKeys(options, ['method', 'n', 'seed', 'stream', 'temperature', 'isProbs', 'onProgress']);
    const { method = 'inverse-cdf', n = 1, isProbs = false, onProgress, ...key } = options;
    if (typeof method !== 'string') throw new SamplingLabError('method', 'method must be a string');
    if (typeof n !== 'number') throw new SamplingLabError('n', 'n must be a number');
    if (typeof isProbs !== 'boolean') throw new SamplingLabError('isProbs', 'isProbs must be true or false');
    const name = isProbs ? 'probs' : 'logits';
    checkNumbers(probsOrLogits, name, this.maxVocabulary);
    // n and n × V are checked before the values are copied.
    unwrap(this.#engine.checkDraws(method, n, probsOrLogits.length));
    // A seed alone is a whole key here (draw i is Philox block i of (seed, stream)); none is a fresh one.
    const laid = this.#layout.layOut([key.seed === undefined ? { ...key, seed: freshSeed() } : key]);
    this.#input(probsOrLogits, name);
    this.#writeOptions(laid);
    return withProgress(onProgress as RunOptions['onProgress'], (progress) => unwrap(this.#engine.sample(method, n, isProbs, progress)).draws.slice());
  }

  /**
   * Speculative decoding's verification (Leviathan et al. 2023; Chen et al. 2023): γ draft tokens,
   * each drawn from its draft row as `sampleToken(draftRows[i], { ...options, stream:
   * draftStream, step: step + i, generatedIds: [...generatedIds, ...drafts before it] })` would,
   * against the γ + 1 target rows: draft i is accepted with probability min(1, p_i/q_i), the first
   * rejected one is replaced by a draw from norm(max(0, p_i − q_i)), and when all are accepted a
   * bonus token is drawn from the last target row as sampleToken would at step + γ. p_i and q_i
   * are the distributions sampleToken draws from with these options; `step` is the first draft's
   * position and `generatedIds` the history before it. Rows: an array of rows or one flat array.
   * `draftRows` null: point drafts, proposed with no distribution (lab.promptLookup's): draft i is
   * accepted with probability p_i(x_i) and a rejection is redrawn from p_i without x_i.
   *
   * `draftTokens` an array of k arrays of γ tokens: k drafts verified together by recursive
   * rejection sampling (SpecInfer, Miao et al. 2024), still exact. The rows then come draft by
   * draft: k·(γ + 1) target rows and k·γ draft rows, draft j drawn on `nthDraftStream(draftStream, j)`.
   * At each position the drafts that agree with the tokens accepted so far are tried in order,
   * each against what the previous rejections left of p (norm(max(0, r − q_j))); `draft` says
   * whose tokens were emitted.
   */
  speculativeVerify(targetRows: readonly NumericArray[] | Float32Array | Float64Array,
                    draftRows: readonly NumericArray[] | Float32Array | Float64Array | null,
                    draftTokens: IntegerArray | readonly IntegerArray[], options: SpeculativeOptions = {}): SpeculativeVerification {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    const { draftStream, ...rest } = options;
    // NaN is how "the default" crosses, so a NaN given here is refused rather than defaulted.
    if (draftStream !== undefined && (typeof draftStream !== 'number' || Number.isNaN(draftStream))) {
      throw new SamplingLabError('draftStream', 'draftStream must be a number');
    }
    const drafts = draftList(draftTokens, this.maxDraftTokens, this.maxDrafts);
    const laid = this.#layout.layOut([rest.seed === undefined ? { ...rest, seed: freshSeed() } : rest]);
    const { InputSlot, IdSlot } = this.#core;
    const [k, gamma] = [drafts.length, drafts[0].length];
    const why = k === 1 ? `γ = ${gamma} draft tokens` : `${k} drafts of γ = ${gamma} tokens`;
    this.#writeRows(InputSlot.primary, targetRows, 'targetRows', { rows: k * (gamma + 1), why });
    const pointDrafts = draftRows === null;
    this.#writeRows(InputSlot.secondary, pointDrafts ? new Float32Array(0) : draftRows, 'draftRows', { rows: pointDrafts ? 0 : k * gamma, why });
    const ints = view(this.#engine.ints(IdSlot.tokens, k * gamma, 'draftTokens'));
    drafts.forEach((tokens, j) => ints.set(tokens, j * gamma));
    this.#writeOptions(laid);
    const result = unwrap(this.#engine.speculativeVerify(draftStream ?? NaN, pointDrafts, k));
    return { ...result, tokens: result.tokens.slice(), acceptance: result.acceptance.slice() };
  }

  /**
   * Prompt lookup decoding's proposal (Saxena 2023; transformers' prompt_lookup_num_tokens): for n
   * from ngramMax down to ngramMin, the earliest earlier occurrence in `context` (the prompt and
   * the output so far) of its last n tokens proposes up to `gamma` of the tokens that followed it.
   * Verify them with speculativeVerify(targetRows, null, tokens, options).
   */
  promptLookup(context: IntegerArray, options: PromptLookupOptions = {}): PromptLookupProposal {
    if (!isObject(options)) throw new SamplingLabError('options', 'options must be an object');
    checkKeys(options, ['ngramMax', 'ngramMin', 'gamma', 'drafts']);
    const { ngramMax = 3, ngramMin = 1, gamma = 4, drafts = 1 } = options;
    checkScalars({ ngramMax, ngramMin, gamma, drafts });
    const ids = idList(context, 'context', this.maxLookupContext);
    view(this.#engine.ints(this.#core.IdSlot.tokens, ids.length, 'context')).set(ids);
    const { matches } = unwrap(this.#engine.promptLookup(ngramMax as number, ngramMin as number, gamma as number, drafts as number));
    const found = Array.from({ length: matches.length / 4 }, (_, m) => {
      const [from, count, ngram, at] = matches.subarray(4 * m, 4 * m + 4);
      return { tokens: Array.from(ids.slice(from, from + count)), ngram, at };
    });
    return { ...(found[0] ?? { tokens: [], ngram: 0, at: 0 }), drafts: found };
  }

  /** The stream the draft samples on for a request's `stream`: stream XOR 2^52. */
  draftStream(stream: number): number {
    checkScalars({ stream });
    return unwrap(this.#core.draftStream(stream)).value;
  }

  /**
   * The chapter's E[tokens per target pass] with γ drafts each accepted i.i.d. with probability α
   * (Leviathan et al. 2023, eq. 1): (1 − α^(γ+1))/(1 − α), and γ + 1 at α = 1.
   */
  expectedTokens(alpha: number, gamma: number): number {
    checkScalars({ alpha, gamma });
    return unwrap(this.#core.expectedTokens(alpha, gamma)).value;
  }

  /**
   * The γ in [1, maxGamma] with the most expected tokens per unit of time (Leviathan et al. 2023,
   * §3.4, with the verification's cost measured rather than taken as one step's): E(α, γ) tokens
   * for γ draft passes of `draftCost` and one target pass over γ + 1 positions, whose cost is the
   * least-squares line through `passes` (the timed target passes as (positions, cost) pairs back to
   * back, at most 1,024 pairs; flat with fewer than two distinct position counts, never falling
   * with more positions). The smallest such γ on ties; maxGamma when no pass was timed.
   * speculativeGenerate's gamma 'auto' calls it before each step.
   */
  bestGamma(acceptance: number, draftCost: number, passes: Float64Array | readonly number[], maxGamma: number): number {
    checkScalars({ acceptance, draftCost, maxGamma });
    this.#write(this.#core.InputSlot.secondary, passes as NumericArray, 'passes');
    return unwrap(this.#engine.bestGamma(acceptance, draftCost, maxGamma)).value;
  }

  /** Draft j's stream among several verified together: `draftStream` XOR j·2^44 (draft 0's is draftStream itself). */
  nthDraftStream(draftStream: number, j: number): number {
    checkScalars({ draftStream, j });
    return unwrap(this.#core.nthDraftStream(draftStream, j)).value;
  }

  /**
   * A beam search with the semantics of transformers' BeamSearchScorer, or stochastic beam search
   * (Kool et al. 2019), fed one forward pass of logits per step. It lives in WebAssembly until
   * the returned object is garbage-collected.
   */
  createBeamSearch(options: BeamSearchOptions): BeamSearch {
    checkKeys(options, ['numBeams', 'maxNewTokens', 'lengthPenalty', 'eosTokenIds', 'numReturnSequences', 'earlyStopping',
      'stochastic', 'seed', 'stream']);
    const { numBeams, maxNewTokens, lengthPenalty, eosTokenIds = NO_ITEMS, numReturnSequences = 1, earlyStopping = false,
      stochastic = false, seed = freshSeed(), stream = 0 } = options;
    checkScalars({ numBeams, maxNewTokens, numReturnSequences, seed, stream });
    if (lengthPenalty !== undefined && (typeof lengthPenalty !== 'number' || Number.isNaN(lengthPenalty))) {
      throw new SamplingLabError('lengthPenalty', 'lengthPenalty must be a number');
    }
    for (const [name, flag] of [['earlyStopping', earlyStopping], ['stochastic', stochastic]] as const) {
      if (typeof flag !== 'boolean') throw new SamplingLabError(name, `${name} must be true or false`);
    }
    const eos = idList(eosTokenIds, 'eosTokenIds', this.maxEosTokens);
    view(this.#engine.ints(this.#core.IdSlot.tokens, eos.length, 'eosTokenIds')).set(eos);
    const search = new this.#core.BeamSearch();
    const started = this.#engine.startBeamSearch(search, {
      numBeams, lengthPenalty: lengthPenalty ?? NaN, numReturnSequences, earlyStopping, stochastic, seed, stream, maxNewTokens,
    });
    if (isError(started)) {
      search.delete();
      throw new SamplingLabError(started.error.argument, started.error.message);
    }
    return new LabBeamSearch({
      step: (handle, logitsRows, first) => {
        this.#writeRows(this.#core.InputSlot.primary, logitsRows, 'logitsRows',
          first ? { rows: 1, why: 'the first step (the prompt)' } : { rows: numBeams, why: `numBeams = ${numBeams}` });
        const { beamIndices, tokens, done } = unwrap(this.#engine.beamStep(handle, false));
        return { beamIndices: beamIndices.slice(), tokens: tokens.slice(), done };
      },
      finishBeams: (handle, beams) => {
        const places = idList(beams, 'beams', numBeams);
        view(this.#engine.ints(this.#core.IdSlot.tokens, places.length, 'beams')).set(places);
        const { beamIndices, tokens, done } = unwrap(this.#engine.beamStep(handle, true));
        return { beamIndices: beamIndices.slice(), tokens: tokens.slice(), done };
      },
      finish: (handle) => unwrap(handle.finish()).hypotheses.map(({ tokens, logProb, score }) => ({ tokens: Array.from(tokens), logProb, score })),
    }, search, numBeams);
  }

  /** The raw Philox4x32-10 words of (seed, stream): identical natively and in WebAssembly. */
  randomWords(seed: number, stream: number, n: number): Uint32Array {
    checkScalars({ seed, stream, n });
    return unwrap(this.#engine.randomWords(seed, stream, n)).words.slice();
  }

  /**
   * A Float32Array inside WebAssembly memory, sized for `vocabSize` logits: write a model's
   * output into it and pass it to `sampleToken`, `distribution`, `coverCount` or `logSumExp`
   * with no copy. It stays valid while calls need no more memory (buffers are reserved for
   * `vocabSize`); if it ever reads as length 0, ask for it again.
   */
  logitsBuffer(vocabSize: number): Float32Array {
    if (typeof vocabSize !== 'number') throw new SamplingLabError('vocabSize', 'vocabSize must be a number');
    this.#resident = view(this.#engine.resident(vocabSize));
    this.#residents.add(this.#resident);
    return this.#resident;
  }

  /** log Σ exp(z / T), with max subtraction; T > 0. */
  logSumExp(logits: NumericArray, temperature = 1): number {
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#input(logits, 'logits');
    return unwrap(this.#engine.logSumExp(temperature)).value;
  }

  /** How many of the most probable tokens reach cumulative probability `mass`. */
  coverCount(logitsOrProbs: NumericArray, mass: number, options: CoverCountOptions = {}): number {
    checkKeys(options, ['temperature', 'isProbs']);
    const { temperature = 1, isProbs = false } = options;
    if (typeof isProbs !== 'boolean') throw new SamplingLabError('isProbs', 'isProbs must be true or false');
    if (typeof mass !== 'number') throw new SamplingLabError('mass', 'mass must be a number');
    if (typeof temperature !== 'number') throw new SamplingLabError('temperature', 'temperature must be a number');
    this.#input(logitsOrProbs, isProbs ? 'probs' : 'logits');
    return unwrap(this.#engine.coverCount(mass, temperature, isProbs === true)).count;
  }

  /** Total variation, KL(p‖q) in nats, and overlap Σ min(p, q) = 1 − TV, in double: inputs are not rounded to float32. */
  distance(p: NumericArray, q: NumericArray): Distances {
    checkIdle(this.#core);
    checkNumbers(p, 'p', this.maxVocabulary);
    checkNumbers(q, 'q', this.maxVocabulary);
    if (p.length !== q.length) throw new SamplingLabError('q', `q has ${q.length} entries and p ${p.length}; they must have as many`);
    const both = view(this.#engine.distanceInputs(p.length));
    both.set(p, 0);
    both.set(q, p.length);
    return unwrap(this.#engine.distance());
  }

  /** Bytes the module's allocator holds for live objects, and the WebAssembly memory's size. */
  memory(): { heapInUse: number; memoryBytes: number } {
    return this.#core.memoryStats();
  }

  /** The smallest and largest value, in one SIMD pass. */
  range(values: NumericArray): { min: number; max: number } {
    this.#input(values, 'values');
    return unwrap(this.#engine.range());
  }

  /**
   * Σ values in float32 SIMD lanes: one read of the values and nothing else, the floor `npm run
   * bench` states every call's cost against. Not compensated: `logSumExp` is the exact sum.
   */
  sum(values: NumericArray): number {
    this.#input(values, 'values');
    return this.#engine.sum();
  }

  /** Token ids by descending value (ties: lower id first), the order filters keep prefixes of. */
  ranking(values: NumericArray): Uint32Array {
    this.#input(values, 'values');
    return unwrap(this.#engine.ranking()).order.slice();
  }

  /**
   * The documented synthetic logit vector (default: 151,936 tokens, Qwen3's vocabulary): a
   * Zipf-like head of 100 tokens over a Gaussian tail, reproducible from `seed`.
   */
  syntheticLogits(vocabSize = this.qwen3Vocabulary, seed = 0): Float32Array {
    checkScalars({ vocabSize, seed });
    return unwrap(this.#engine.syntheticLogits(vocabSize, seed)).logits.slice();
  }

  // One options object per row: the given array, or the columns of one object spread over its
  // rows (`logitsRows` rows of logits, when given, or 1, when no option is a column).
  // Writes laid-out options into the core's buffers, which then no longer hold sampleToken's last.
  #writeOptions(laid: LaidOut): void {
    this.#stepOptions = undefined;
    this.#layout.write(laid);
  }

  /** Sampler state as `.state` gives it, checked before a sampler takes it. */
  #checkSamplerState(state: unknown): asserts state is SamplerState {
    checkKeys(state, ['history', 'step', 'mirostatMu', 'adaptivePAverage'], 'state');
    const { history, step, mirostatMu, adaptivePAverage = null } = state;
    if (!Array.isArray(history)) throw new SamplingLabError('state.history', 'state.history must be an array of token ids');
    checkLength(history, 'state.history', this.maxHistory);
    for (let i = 0; i < history.length; i++) {
      const id = history[i];
      if (!Number.isInteger(id) || id < 0 || id >= this.maxVocabulary) {
        throw new SamplingLabError('state.history', `state.history[${i}] is ${typeof id === 'number' ? id : describe(history, i)}, not a token id in [0, ${this.maxVocabulary})`);
      }
    }
    if (!Number.isInteger(step) || (step as number) < 0 || (step as number) > Number.MAX_SAFE_INTEGER) {
      throw new SamplingLabError('state.step', 'state.step must be an integer in [0, 2^53 − 1]');
    }
    const mu = this.#layout.byName.get('mirostat.mu')!.of!;
    if (mirostatMu !== null && (typeof mirostatMu !== 'number' || !(mirostatMu >= mu.min! && mirostatMu <= mu.max!))) {
      throw new SamplingLabError('state.mirostatMu', `state.mirostatMu must be null or a number in [${mu.min}, ${mu.max}]`);
    }
    const average = this.#layout.byName.get('adaptiveP.average')!.of!;
    if (adaptivePAverage !== null && (typeof adaptivePAverage !== 'number' || !(adaptivePAverage >= average.min! && adaptivePAverage <= average.max!))) {
      throw new SamplingLabError('state.adaptivePAverage', `state.adaptivePAverage must be null or a number in [${average.min}, ${average.max}]`);
    }
  }

  /**
   * Rows of logits into an input slot, back to back: an array of equal-length rows (each checked,
   * every length before any copy; `count` of them when given), or one flat array.
   */
  #writeRows(slot: CoreEnum, rows: unknown, name: string, count?: { rows: number; why: string }): void {
    checkIdle(this.#core);
    const matrix = Array.isArray(rows) && rows.length > 0 && typeof rows[0] !== 'number' ? rows as unknown[] : undefined;
    if (!matrix) return this.#write(slot, rows as NumericArray, name);
    checkLength(matrix, name, this.maxVocabulary);
    if (count && matrix.length !== count.rows) {
      throw new SamplingLabError(name, `${name} has ${matrix.length} rows; ${count.why} needs ${count.rows}`);
    }
    for (let r = 0; r < matrix.length; r++) {
      if (!(r in matrix)) throw new SamplingLabError(name, `${name}[${r}] is a hole`);
      checkNumbers(matrix[r], `${name}[${r}]`, this.maxVocabulary);
    }
    const width = (matrix[0] as NumericArray).length;
    if (matrix.some((row) => (row as NumericArray).length !== width)) {
      throw new SamplingLabError(name, `${name} must all have the same length`);
    }
    if (matrix.length * width > this.maxVocabulary) {
      throw new SamplingLabError(name, `${name} holds ${matrix.length} × ${width} logits; at most ${this.maxVocabulary} are supported`);
    }
    const flat = view(this.#engine.floats(slot, matrix.length * width, name));
    matrix.forEach((row, r) => flat.set(row as NumericArray, r * width));
    if (slot === this.#core.InputSlot.primary) {
      this.#primaryView = undefined;
      this.#use(slot);
    }
  }

  /** Writes the call's main input (logits or probabilities) and reads from it. */
  #input(values: NumericArray, name: string): void {
    this.#write(this.#core.InputSlot.primary, values, name);
  }

  #write(slot: CoreEnum, values: NumericArray, name: string): void {
    checkIdle(this.#core);
    if (!(values instanceof Float32Array) && !(values instanceof Float64Array) && !Array.isArray(values)) {
      throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
    }
    checkLength(values, name, this.maxVocabulary);
    if (values instanceof Float32Array && this.#residents.has(values) && values.buffer.byteLength === 0) {
      throw new SamplingLabError(name, `${name} is a logitsBuffer view that WebAssembly memory growth detached; call lab.logitsBuffer(vocabSize) again`);
    }
    const { InputSlot } = this.#core;
    if (slot === InputSlot.primary && values === this.#resident && values.length > 0) {
      this.#use(InputSlot.resident);
      return;
    }
    // One copy into WebAssembly memory; the view is used before anything can grow memory. A
    // number[] is checked entry by entry as it is copied. A small primary view is reused: the
    // core hands back only large buffers, and memory growth empties the view, which is then
    // asked for again (as is any other length).
    const reuse = slot === InputSlot.primary && values.length > 0 && this.#primaryView?.length === values.length;
    const target = reuse ? this.#primaryView! : view(this.#engine.floats(slot, values.length, name));
    if (slot === InputSlot.primary) this.#primaryView = values.length <= KEPT_VIEW ? target : undefined;
    if (!Array.isArray(values)) {
      target.set(values);
    } else {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (typeof value !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(values, i)}, not a number`);
        target[i] = value;
      }
    }
    if (slot === InputSlot.primary) this.#use(InputSlot.primary);
  }

  #use(slot: CoreEnum): void {
    if (this.#currentSlot === slot) return;
    this.#engine.use(slot);
    this.#currentSlot = slot;
  }
}

// The count's range is the core's to check.
function checkLogprobs(logprobs: unknown, mode: unknown): asserts logprobs is number {
  if (typeof logprobs !== 'number') throw new SamplingLabError('logprobs', 'logprobs must be a number');
  if (mode !== undefined && mode !== 'raw' && mode !== 'processed') throw new SamplingLabError('logprobsMode', "logprobsMode must be 'raw' or 'processed'");
}
