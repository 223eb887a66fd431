// Speculative decoding (the chapter's speculative section on two real models): the draft
// proposes γ tokens through its KV cache, the target scores all γ + 1 positions in one forward
// pass through its own, lab.speculativeVerify accepts or redraws, and both caches are cut back to
// the accepted sequence. The output follows the target's distribution exactly.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import { checkKeys } from '../../lab/checks.js';
import type { CompiledGrammar, GrammarMatcher } from '../grammar/grammar.js';
import type { Lab, LogprobsOptions, SampleTokenOptions } from '../../lab/lab.js';
import type { PromptLookupProposal } from '../../lab/decoding.js';
import type { IntegerArray } from '../../lab/schema.js';
import { cachedLength, selectPrefix, selectRows, truncateCache } from './cache.js';
import {
  checkBoolean, checkInteger, checkLab, checkModel, checkObject, checkSamplingOptions, checkSignal, checkTokenIds, checkTokenizer,
  endOfSequenceIds, maskIds, needsHistory, promptLimit,
} from './checks.js';
import { forward, vocabularyOf, type ForwardPass, type KvCache } from './forward.js';
import { BusyClock, checkGrammar, checkStops, completedStop, jumpForwardTokens, MAX_SEQUENCES, withTexts, type FinishReason, type StepLogprobs, type Usage } from './generate.js';
import { promptIds, type Prompt } from './prompt.js';
import { TextDeltas } from './text-deltas.js';

/** Options of speculativeGenerate: the sampling options the draft draws and the target verifies with, and the loop's own. */
export interface SpeculativeOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds' | 'mirostat'>, Partial<LogprobsOptions> {
  /** The Sampling Lab instance that draws and verifies the tokens. */
  lab: Lab;
  /** Tokens the draft proposes per step (default 4); 'auto': chosen before each step, in [1, 8], for the most expected tokens per unit of time from the run's acceptance and its measured pass costs (lab.bestGamma). */
  gamma?: number | 'auto';
  /** Tokens generated at most (default 64). */
  maxNewTokens?: number;
  /** The longest prompt taken, in tokens (default and most: the target's max_position_embeddings). */
  maxPromptTokens?: number;
  /** Stop at the target's end-of-sequence tokens (default true). */
  stopAtEos?: boolean;
  /** Stops the loop before the next step. */
  signal?: AbortSignal;
  /** The draft's random stream (default lab.draftStream(stream)). */
  draftStream?: number;
  /** Hears every forward pass, for inspection (the page's and the tests'). */
  onForward?: (pass: ForwardPass) => void;
  /** A grammar (sampling-lab/grammar): the draft proposes under its mask, the target verifies each position under it, rejected proposals are rolled back; generation ends when it terminates. */
  grammar?: CompiledGrammar;
  /** Leave special tokens (EOS, chat markers) out of `textDelta` (default true). */
  skipSpecialTokens?: boolean;
  /** As generateTokens': strings that end the sequence at the token whose text completes one (that token is emitted, the step's later ones not). */
  stop?: readonly string[];
  /** As generateTokens': token ids that end the sequence, as EOS does. */
  stopTokenIds?: IntegerArray;
  /** As generateTokens' (vLLM's min_tokens; default 0): tokens generated before EOS or a stop token can be drawn (masked in both models' rows, so the tokens still follow the target's masked distribution) or a stop string can end the sequence. */
  minNewTokens?: number;
  /**
   * Drafts per step (default 1, at most lab.maxDrafts): k streams of the draft model, all k drawn in
   * one batched pass per position (draft j on lab.nthDraftStream(draftStream, j)), scored by the
   * target in one batched pass and verified together by recursive rejection sampling
   * (lab.speculativeVerify with k drafts), so more proposals are accepted per target pass and the
   * tokens still follow the target. With prompt lookup, up to k continuations of distinct matches
   * (lab.promptLookup's `drafts`), verified together as point drafts. Not with a grammar.
   */
  drafts?: number;
  /** Sequences generated, one after another (a step's accepted length differs between them, so they do not share a batch); sequence i draws on stream `stream + i` and the draft on `draftStream + i` (default 1). */
  n?: number;
}

/**
 * Prompt lookup decoding (Saxena 2023) as the draft: proposals copied from where the sequence's
 * last n tokens occurred before, in the prompt or the output (lab.promptLookup), so no second
 * model. Each proposal is verified as a point draft: accepted with its probability under the
 * target, a rejection redrawn from the target without it, so the tokens still follow the target.
 */
export interface PromptLookupDraft {
  promptLookup: {
    /** The longest n-gram matched (default 3). */
    ngramMax?: number;
    /** The shortest (default 1). */
    ngramMin?: number;
  };
}

/** One step of speculativeGenerate: the draft's proposals, how many the target accepted, and the tokens the step emits. */
export interface SpeculativeStep {
  /** Which of the `n` sequences the step continues (0 when n = 1). */
  sequence: number;
  /** The tokens this step emits: the accepted drafts, then the target's own (cut at EOS or maxNewTokens). */
  tokens: number[];
  /** The draft's proposals (with several drafts, those of the draft whose tokens were emitted). */
  proposed: number[];
  /** With several drafts: every draft's proposals, and which one's tokens were emitted. */
  drafts?: { proposals: number[][]; emitted: number };
  /** How many proposals the target accepted. */
  accepted: number;
  /** Whether the target's token was redrawn from norm(max(0, p − q)) after a rejection (else it is the bonus token). */
  fromResidual: boolean;
  /** The tokens' own text (a character whose bytes the step splits reads U+FFFD here). */
  text: string;
  /** The text this step adds, safe to join (as generateTokens' textDelta): the deltas joined equal tokenizer.decode(every emitted token, { skip_special_tokens }). */
  textDelta: string;
  /** With gamma 'auto': the γ chosen for this step. */
  gamma?: number;
  /** With prompt lookup: the n-gram matched (the sequence's last n tokens) and where its earlier occurrence starts in the sequence (prompt, then output); none when nothing matched. */
  lookup?: { ngram: number[]; at: number };
  /** With a grammar: how many tokens its mask allowed at each position checked (proposals, then the target's own; 0 for forced tokens). */
  grammarAllowed?: number[];
  /** With a grammar: the tokens are its jump-forward string, proposed and verified by no model. */
  forced?: boolean;
  /** With `logprobs`: each token's, in the target's distribution at its position (as generateTokens' logprobs; none for forced tokens). */
  logprobs?: StepLogprobs[];
  /** On the last step: as generateTokens' ('stop' at EOS, a stop token or string; 'length', 'grammar', 'abort'). */
  finishReason?: FinishReason;
  /** With finishReason 'stop': the token id (EOS or one of stopTokenIds) or the stop string that ended it. */
  stopReason?: number | string;
}

/** Running totals of a speculative generation. */
export interface SpeculativeStats {
  /** Tokens emitted. */
  tokens: number;
  /** Positions proposed (a position of k drafts counts once). */
  proposed: number;
  accepted: number;
  /** accepted / proposed. */
  acceptance: number;
  /** Tokens emitted per target forward pass. */
  tokensPerTargetPass: number;
  targetCalls: number;
  draftCalls: number;
  /** Time spent generating, ms (the consumer's time between steps left out). */
  wallMs: number;
}

/** The iterator speculativeGenerate returns, with its running totals. */
export interface SpeculativeGeneration extends AsyncGenerator<SpeculativeStep, void> {
  readonly stats: Readonly<SpeculativeStats>;
  /** As generateTokens' (prefill: the first step's passes, which hold both models' prefill). */
  readonly usage: Readonly<Usage>;
  /** Why sequence 0 ended, once it did (also an abort while the consumer held a step). */
  readonly finishReason: FinishReason | undefined;
  /** Why each of the `n` sequences ended, once it did. */
  readonly finishReasons: readonly (FinishReason | undefined)[];
}

const OWN_OPTIONS = ['lab', 'gamma', 'maxNewTokens', 'maxPromptTokens', 'stopAtEos', 'signal', 'draftStream', 'onForward', 'grammar', 'skipSpecialTokens', 'stop', 'stopTokenIds', 'minNewTokens', 'n', 'logprobs', 'logprobsMode', 'drafts'];

// gamma 'auto' chooses in [1, AUTO_GAMMA_MAX], starting at AUTO_GAMMA_FIRST before any pass is timed.
const AUTO_GAMMA_MAX = 8;
const AUTO_GAMMA_FIRST = 4;
// The target passes gamma 'auto' fits its cost line to: the latest.
const TIMED_PASSES = 32;

// Whether bit `token` of a grammar's allowedMask is set.
const allows = (mask: Int32Array, token: number) => ((mask[token >>> 5] >>> (token & 31)) & 1) === 1;

/** One model's side of the decoding: its cache holds the first `cache` positions of the sequence. */
interface Side {
  model: PreTrainedModel;
  role: 'target' | 'draft';
  cache?: KvCache;
}

/**
 * Generates from `prompt` with `draft` proposing `gamma` tokens a step and `target` verifying
 * them in one forward pass (lab.speculativeVerify: accepted with min(1, p/q), a rejection redrawn
 * from the residual), so that the tokens follow the target's distribution with these options.
 * Both models take the same tokenizer and vocabulary; or `draft` is `{ promptLookup }`, and the
 * proposals come from the sequence itself (one model). The arguments are checked at once;
 * breaking out of the loop or aborting `signal` stops it, and `.stats` keeps the totals.
 */
export function speculativeGenerate(target: PreTrainedModel, draft: PreTrainedModel | PromptLookupDraft, tokenizer: PreTrainedTokenizer,
                                    prompt: Prompt, options: SpeculativeOptions): SpeculativeGeneration {
  checkModel(target, 'target');
  const lookup = isPromptLookup(draft) ? draft.promptLookup : undefined;
  if (!lookup) checkModel(draft, 'draft');
  checkTokenizer(tokenizer);
  if (options === undefined) throw new SamplingLabError('lab', 'speculativeGenerate needs options with lab: { lab, gamma, ...sampling options }');
  checkObject(options, 'options');
  const {
    lab, gamma = 4, maxNewTokens = 64, maxPromptTokens, stopAtEos = true, signal, draftStream, onForward, grammar, skipSpecialTokens = true,
    stop = [], stopTokenIds = [], minNewTokens = 0, n = 1, logprobs, logprobsMode, drafts = 1, ...sampling
  } = options;
  checkLab(lab);
  checkBoolean(skipSpecialTokens, 'skipSpecialTokens');
  if (gamma !== 'auto') checkInteger(gamma, 'gamma', 1, lab.maxDraftTokens);
  checkInteger(maxNewTokens, 'maxNewTokens', 0, 1_000_000);
  checkInteger(minNewTokens, 'minNewTokens', 0, maxNewTokens);
  checkBoolean(stopAtEos, 'stopAtEos');
  checkSignal(signal);
  checkInteger(n, 'n', 1, MAX_SEQUENCES);
  checkInteger(drafts, 'drafts', 1, lab.maxDrafts);
  if (drafts > 1 && grammar) {
    throw new SamplingLabError('drafts', 'drafts > 1 takes no grammar: a grammar verifies one draft position by position');
  }
  // logprobs' count and mode are not sampling options: a one-logit draw checks them as every score will.
  if (logprobs !== undefined) lab.tokenLogprobs([0], 0, { logprobs, logprobsMode });
  else if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs (how many top tokens to list)');
  if (onForward !== undefined && typeof onForward !== 'function') throw new SamplingLabError('onForward', 'onForward must be a function');
  if ('mirostat' in sampling) {
    throw new SamplingLabError('mirostat', 'mirostat cannot be verified speculatively: its μ depends on every emitted token');
  }
  const stops = checkStops(stop);
  const vocab = vocabularyOf(target);
  if (lookup) {
    checkPromptLookup(lab, lookup, gamma === 'auto' ? AUTO_GAMMA_MAX : gamma);
  } else if (vocabularyOf(draft as PreTrainedModel) !== vocab) {
    throw new SamplingLabError('draft', `the draft's vocab_size ${vocabularyOf(draft as PreTrainedModel)} is not the target's ${vocab}: they must share the tokenizer`);
  }
  checkSamplingOptions(lab, sampling, OWN_OPTIONS, vocab);
  checkGrammar(grammar, vocab, sampling);
  if (draftStream !== undefined) checkInteger(draftStream, 'draftStream', 0, Number.MAX_SAFE_INTEGER);
  const stream = sampling.stream ?? 0;
  if (n > 1) lab.checkOptions({ stream: stream + n - 1 });
  const seed = sampling.seed ?? lab.freshSeed();
  // Both models see the prompt: the shorter context bounds it.
  const limit = promptLimit(target, maxPromptTokens);
  const ids = promptIds(tokenizer, prompt, vocab, lookup ? limit : Math.min(limit, promptLimit(draft as PreTrainedModel, undefined))).map(Number);
  const stats: SpeculativeStats = { tokens: 0, proposed: 0, accepted: 0, acceptance: 0, tokensPerTargetPass: 0, targetCalls: 0, draftCalls: 0, wallMs: 0 };
  const usage: Usage = { promptTokens: ids.length, cachedPromptTokens: 0, completionTokens: 0, prefillMs: 0, decodeMs: 0, tokensPerSecond: 0 };
  const endings = Array.from({ length: n }, (): { reason?: FinishReason } => ({}));
  const eos = new Set([...(stopAtEos ? endOfSequenceIds(target) : []), ...checkTokenIds(stopTokenIds, 'stopTokenIds', vocab, 1024)]);
  const timing: { clock?: BusyClock } = {};
  async function* run(): AsyncGenerator<SpeculativeStep, void> {
    for (const [sequence, ended] of endings.entries()) {
      const keys = { ...sampling, seed, stream: stream + sequence, draftStream: draftStream !== undefined ? draftStream + sequence : lab.draftStream(stream + sequence) };
      yield* decode({
        lab, tokenizer, ids: [...ids], sequence, gamma, drafts, maxNewTokens, minNewTokens, signal, stats, usage, ended, timing, onForward, options: keys,
        grammar, skipSpecialTokens, stops, eos, logprobs: logprobs === undefined ? undefined : { logprobs, logprobsMode },
        target: { model: target, role: 'target' }, draft: lookup ? { lookup } : { model: draft as PreTrainedModel, role: 'draft' },
      });
    }
  }
  return Object.defineProperties(Object.assign(run(), { stats, usage }), {
    finishReason: { get: () => endings[0].reason },
    finishReasons: { get: () => endings.map((ended) => ended.reason) },
  }) as SpeculativeGeneration;
}

interface Decoding {
  lab: Lab;
  tokenizer: PreTrainedTokenizer;
  /** The prompt, then every emitted token. */
  ids: number[];
  sequence: number;
  gamma: number | 'auto';
  drafts: number;
  maxNewTokens: number;
  minNewTokens: number;
  signal?: AbortSignal;
  stats: SpeculativeStats;
  usage: Usage;
  ended: { reason?: FinishReason };
  /** One clock for every sequence's decoding. */
  timing: { clock?: BusyClock };
  logprobs?: LogprobsOptions;
  onForward?: (pass: ForwardPass) => void;
  /** Hears each pass after a prefill: its side, the positions it ran and its milliseconds. */
  timed?: (role: Side['role'], positions: number, ms: number) => void;
  options: Omit<SampleTokenOptions, 'step' | 'generatedIds'> & { stream: number; draftStream: number };
  eos: Set<number>;
  target: Side;
  draft: Side | { lookup: PromptLookupDraft['promptLookup'] };
  grammar?: CompiledGrammar;
  skipSpecialTokens: boolean;
  stops: readonly string[];
}

// Runs the part of each of `sequences` (equally long, one per batch row of the side's cache) past
// the cache and keeps each one's last `keep` logits rows, sequence by sequence; the cache then
// holds all of them.
async function pass(side: Side, sequences: number[][], keep: number, decoding: Decoding): Promise<Float32Array> {
  const past = cachedLength(side.cache);
  const started = performance.now();
  const result = await forward(side.model, sequences.map((sequence) => sequence.slice(past).map(BigInt)), side.cache, past, keep);
  const ms = performance.now() - started;
  // A pass after the side's prefill, timed for gamma 'auto'.
  if (past > 0) decoding.timed?.(side.role, sequences[0].length - past, ms);
  side.cache = result.cache;
  decoding.stats[side.role === 'target' ? 'targetCalls' : 'draftCalls']++;
  decoding.onForward?.({ role: side.role, sequences, rows: result.rows, keep, vocab: result.vocab, ms });
  return result.rows;
}

const batchOf = (cache: KvCache) => Object.values(cache)[0]?.dims[0] ?? 1;

// The side's cache with its one batch row repeated k times (nothing to do when it has k rows).
async function widen(side: Side, k: number): Promise<void> {
  if (side.cache && batchOf(side.cache) !== k) side.cache = await selectRows(side.cache, new Array<number>(k).fill(0));
}

// The first `length` positions of draft j's batch row, in one copy (a cache never widened holds
// every draft's prefix).
const cutBack = (cache: KvCache, j: number, length: number) =>
  (batchOf(cache) > 1 ? selectPrefix(cache, [j], length) : truncateCache(cache, length));

async function* decode(decoding: Decoding): AsyncGenerator<SpeculativeStep> {
  const { lab, tokenizer, ids, sequence, gamma, drafts: k, maxNewTokens, minNewTokens, signal, stats, usage, ended, options, eos, target, draft, grammar, stops } = decoding;
  const text = new TextDeltas(tokenizer, decoding.skipSpecialTokens);
  // The step's textDelta; the sequence's last step also gives up what is held.
  const delta = (tokens: number[], last: boolean) => text.push(...tokens) + (last ? text.flush() : '');
  const { draftStream, ...targetOptions } = options;
  const history = needsHistory(lab, options);
  const promptLength = ids.length;
  const longestStop = Math.max(0, ...stops.map((text) => text.length));
  // Row `row` of `rows` is the position of the (generated + 1)-th token: before minNewTokens, EOS
  // and the stop tokens are masked in it (the draft's and the target's alike).
  const holdEnds = (rows: Float32Array, row: number, vocab: number, generated: number) => {
    if (generated < minNewTokens) maskIds(rows, eos, row * vocab);
  };
  // Where `tokens`, emitted after `ids`, end the sequence: the index of EOS or a stop token, or of
  // the token whose text completes a stop string (-1: none), and what ended it.
  const stopIn = (tokens: number[]): { end: number; reason?: number | string } => {
    for (let k = 0; k < tokens.length; k++) {
      if (eos.has(tokens[k])) return { end: k, reason: tokens[k] };
      const text = stops.length > 0 && ids.length - promptLength + k + 1 >= minNewTokens ? completedStop(tokenizer, [...ids.slice(promptLength), ...tokens.slice(0, k + 1)], stops, longestStop) : undefined;
      if (text !== undefined) return { end: k, reason: text };
    }
    return { end: -1 };
  };
  const matcher = grammar && await grammar.matcher();
  const clock = (decoding.timing.clock ??= new BusyClock());
  // Before each yield: the totals, the clock stopped until the consumer asks again, and the
  // sequence's end if this step is its last.
  const handOver = (last: FinishReason | undefined) => {
    stats.wallMs = clock.pause();
    if (usage.prefillMs === 0) usage.prefillMs = stats.wallMs;
    usage.completionTokens = stats.tokens;
    usage.decodeMs = stats.wallMs - usage.prefillMs;
    usage.tokensPerSecond = stats.tokens / (stats.wallMs / 1000);
    ended.reason = last;
    return last && { finishReason: last };
  };
  const lengthOr = (reason: FinishReason | undefined) =>
    reason ?? (ids.length - promptLength >= maxNewTokens ? 'length' : signal?.aborted ? 'abort' : undefined);
  if (maxNewTokens === 0) ended.reason = 'length';
  // gamma 'auto': the sequence's acceptance so far and its passes' measured costs.
  const auto = gamma === 'auto';
  const largest = auto ? AUTO_GAMMA_MAX : gamma;
  const targetPasses: number[] = [];
  let draftMs = 0, draftPasses = 0, checked = 0, acceptedSoFar = 0;
  if (auto) {
    decoding.timed = (role, positions, ms) => {
      if (role === 'draft') draftMs += (ms - draftMs) / ++draftPasses;
      else targetPasses.push(positions, ms), targetPasses.splice(0, Math.max(0, targetPasses.length - 2 * TIMED_PASSES));
    };
  }
  const stepGamma = () => {
    if (!auto) return gamma;
    if (targetPasses.length === 0) return AUTO_GAMMA_FIRST;
    // α with a uniform prior: (accepted + 1) / (checked + 2); prompt lookup's proposals cost no pass.
    return lab.bestGamma((acceptedSoFar + 1) / (checked + 2), 'lookup' in draft ? 0 : draftMs, targetPasses, AUTO_GAMMA_MAX);
  };
  try {
    let draftRows = new Float32Array(0);
    while (ids.length - promptLength < maxNewTokens && !signal?.aborted) {
      // Text the grammar forces goes through both models with the next passes, never drafted.
      const forced = matcher ? await jumpForwardTokens(tokenizer, matcher, maxNewTokens - (ids.length - promptLength)) : [];
      if (forced.length > 0) {
        const stopped = stopIn(forced);
        const emitted = stopped.end === -1 ? forced : forced.slice(0, stopped.end + 1);
        ids.push(...emitted);
        stats.tokens += emitted.length;
        const last = lengthOr(stopped.reason !== undefined ? 'stop' : matcher!.isTerminated() ? 'grammar' : undefined);
        yield {
          sequence, tokens: emitted, proposed: [], accepted: 0, fromResidual: false, text: tokenizer.decode(emitted), textDelta: delta(emitted, last !== undefined),
          grammarAllowed: emitted.map(() => 0), forced: true, ...handOver(last), ...(stopped.reason !== undefined && { stopReason: stopped.reason }),
        };
        clock.resume();
        if (last) return;
        continue;
      }
      // γ, or fewer when fewer tokens remain (a step emits up to γ + 1).
      const chosen = stepGamma();
      let proposing = Math.min(chosen, Math.max(1, maxNewTokens - (ids.length - promptLength) - 1));
      // Each draft's proposals; `proposed` is the first's (the only one but with several drafts).
      // Prompt lookup may find fewer than k continuations: the step then verifies as many.
      let proposals: number[][] = Array.from({ length: k }, () => []);
      let proposed = proposals[0];
      // The grammar's mask at each position: the draft proposes and the target verifies under it.
      const masks: (Int32Array | undefined)[] = [];
      const allowed: number[] = [];
      let matched: SpeculativeStep['lookup'];
      let lookups: PromptLookupProposal['drafts'] = [];
      if ('lookup' in draft) {
        // Proposals copied from the sequence.
        const found = lab.promptLookup(ids, { ...draft.lookup, gamma: proposing, drafts: k });
        if (found.ngram > 0) matched = { ngram: ids.slice(ids.length - found.ngram), at: found.at };
        lookups = found.drafts;
        if (lookups.length > 1) {
          // Equally long for the batched pass: a proposal the context's end cut short repeats its
          // last token (a point draft, whatever it proposes, is verified exactly).
          proposing = Math.max(...lookups.map((match) => match.tokens.length));
          proposals = lookups.map(({ tokens }) => [...tokens, ...new Array<number>(proposing - tokens.length).fill(tokens[tokens.length - 1])]);
          proposed = proposals[0];
        } else {
          // One continuation: as many of its tokens as the grammar allows in a row.
          proposals = [proposed];
          for (const proposal of found.tokens) {
            masks.push(await maskOf(matcher, allowed));
            if (matcher && !allows(masks[masks.length - 1]!, proposal)) {
              masks.pop();
              allowed.pop();
              break;
            }
            proposed.push(proposal);
            if (matcher && !matcher.accept(proposal)) throw new SamplingLabError('grammar', `the grammar refused token ${proposal}, which its mask allowed`);
            await matcher?.settled();
            if (matcher?.isTerminated()) break;
          }
          proposing = proposed.length;
        }
      }
      const width = proposals.length;
      for (let i = 0; i < proposing && !('lookup' in draft); i++) {
        // Several drafts: the first position's row is every draft's, so one row is run before the
        // cache is widened to one batch row per draft.
        const batch = i === 0 ? 1 : k;
        if (i === 1) await widen(draft, k);
        const rows = await pass(draft, proposals.slice(0, batch).map((tokens) => [...ids, ...tokens]), 1, decoding);
        const vocab = rows.length / batch;
        for (let b = 0; b < batch; b++) holdEnds(rows, b, vocab, ids.length - promptLength + i);
        // One buffer for every step's draft rows, draft j's row i at j·γ + i.
        if (draftRows.length < k * largest * vocab) draftRows = new Float32Array(k * largest * vocab);
        masks.push(await maskOf(matcher, allowed));
        for (let j = 0; j < k; j++) {
          const row = rows.subarray((i === 0 ? 0 : j) * vocab, (i === 0 ? 1 : j + 1) * vocab);
          draftRows.set(row, (j * proposing + i) * vocab);
          proposals[j].push(lab.sampleToken(row, {
            ...targetOptions, stream: j === 0 ? draftStream : lab.nthDraftStream(draftStream, j), step: ids.length + i,
            ...(history && { generatedIds: [...ids, ...proposals[j]] }), ...(masks[i] && { allowedMask: masks[i] }),
          }));
        }
        const proposal = proposed[i];
        if (matcher && !matcher.accept(proposal)) throw new SamplingLabError('grammar', `the grammar refused token ${proposal}, which its mask allowed`);
        await matcher?.settled();
        // Nothing follows the grammar's end: the proposals stop there.
        if (matcher?.isTerminated()) proposing = i + 1;
      }
      const ended = matcher?.isTerminated() ?? false;
      if (matcher && !ended) masks.push(await maskOf(matcher, allowed));
      if (width > 1 && cachedLength(target.cache) === 0 && ids.length > 1) {
        // The prompt once, then one batch row per draft.
        await pass(target, [ids.slice(0, -1)], 1, decoding);
      }
      await widen(target, width);
      const allRows = await pass(target, proposals.map((tokens) => [...ids, ...tokens]), proposing + 1, decoding);
      const vocab = allRows.length / (width * (proposing + 1));
      for (let r = 0; r < width * (proposing + 1); r++) holdEnds(allRows, r, vocab, ids.length - promptLength + (r % (proposing + 1)));
      // Point drafts (prompt lookup's) have no rows.
      const proposalRows = 'lookup' in draft ? null : draftRows.subarray(0, width * proposing * vocab);
      const verdict = matcher
        ? verifyEach(lab, allRows, proposalRows, proposed, masks, vocab, ended, { ...options, step: ids.length }, history ? ids : undefined)
        : lab.speculativeVerify(allRows, proposalRows, width > 1 ? proposals : proposed, {
          ...options, step: ids.length, ...(history && { generatedIds: ids }),
        });
      // The emitted draft's target rows; both caches back to its batch row and the accepted
      // sequence: the target holds it minus the emitted token, the draft at most that (its last
      // proposal never went through it).
      const emitted = 'draft' in verdict ? verdict.draft : 0;
      // Several lookups: the step names the match whose tokens it emitted.
      if (width > 1 && lookups.length > 1) matched = { ngram: ids.slice(ids.length - lookups[emitted].ngram), at: lookups[emitted].at };
      const targetRows = allRows.subarray(emitted * (proposing + 1) * vocab, (emitted + 1) * (proposing + 1) * vocab);
      const kept = ids.length + verdict.accepted;
      target.cache = await cutBack(target.cache!, emitted, kept);
      if (!('lookup' in draft)) draft.cache = await cutBack(draft.cache!, emitted, Math.min(kept, cachedLength(draft.cache)));
      let tokens = Array.from(verdict.tokens);
      if (matcher) {
        // The rejected proposals leave the grammar; the target's own token enters it.
        matcher.rollBack(proposing - verdict.accepted);
        await matcher.settled();
        if (tokens.length > verdict.accepted && !matcher.accept(tokens[tokens.length - 1])) {
          throw new SamplingLabError('grammar', `the grammar refused token ${tokens[tokens.length - 1]}, which its mask allowed`);
        }
        await matcher.settled();
      }
      const stopped = stopIn(tokens);
      const end = stopped.end !== -1 ? stopped.end : matcher?.isTerminated() ? tokens.length - 1 : -1;
      if (end !== -1) tokens = tokens.slice(0, end + 1);
      const whole = tokens.length;
      tokens = tokens.slice(0, maxNewTokens - (ids.length - promptLength));
      // maxNewTokens cut the step before what would have ended it.
      const cut = tokens.length < whole;
      ids.push(...tokens);
      stats.tokens += tokens.length;
      stats.proposed += proposing;
      stats.accepted += verdict.accepted;
      acceptedSoFar += verdict.accepted;
      checked += verdict.accepted + (verdict.fromResidual ? 1 : 0);
      stats.acceptance = stats.accepted / stats.proposed;
      stats.tokensPerTargetPass = stats.tokens / stats.targetCalls;
      const reason = cut ? undefined : stopped.reason;
      const last = lengthOr(reason !== undefined ? 'stop' : !cut && end !== -1 ? 'grammar' : undefined);
      yield {
        sequence, tokens, proposed: proposals[emitted], accepted: verdict.accepted, fromResidual: verdict.fromResidual, text: tokenizer.decode(tokens),
        ...(width > 1 && { drafts: { proposals, emitted } }),
        textDelta: delta(tokens, last !== undefined), ...(matched && { lookup: matched }), ...(auto && { gamma: chosen }),
        ...(matcher && { grammarAllowed: allowed.slice(0, verdict.tokens.length) }),
        ...(decoding.logprobs && { logprobs: scored(decoding, targetRows, vocab, masks, tokens, history) }),
        ...handOver(last), ...(reason !== undefined && { stopReason: reason }),
      };
      clock.resume();
      if (last) return;
    }
    // Aborted while the consumer held a step, or before the first.
    if (signal?.aborted) ended.reason = 'abort';
  } finally {
    // The matcher holds xgrammar memory, also when the consumer stops early.
    matcher?.dispose();
  }
}

// Each emitted token's logprobs in the target's row at its position, under the options, mask and
// history its verification used (ids: the sequence before the step).
function scored(decoding: Decoding, targetRows: Float32Array, vocab: number, masks: (Int32Array | undefined)[], tokens: number[],
                history: boolean): StepLogprobs[] {
  const { lab, tokenizer, ids, options: { draftStream: _, ...targetOptions } } = decoding;
  return tokens.map((token, k) => withTexts(tokenizer, lab.tokenLogprobs(targetRows.subarray(k * vocab, (k + 1) * vocab), token, {
    ...targetOptions, ...decoding.logprobs!, step: ids.length - tokens.length + k, ...(masks[k] && { allowedMask: masks[k] }),
    ...(history && { generatedIds: [...ids.slice(0, ids.length - tokens.length), ...tokens.slice(0, k)] }),
  })));
}

/** Prompt lookup's options, checked (with γ proposals a step) as lab.promptLookup checks them. */
export function checkPromptLookup(lab: Lab, lookup: PromptLookupDraft['promptLookup'], gamma?: number): void {
  checkObject(lookup, 'promptLookup');
  checkKeys(lookup, ['ngramMax', 'ngramMin'], 'promptLookup');
  lab.promptLookup([], { ...lookup, ...(gamma !== undefined && { gamma }) });
}

/** Whether a draft is `{ promptLookup }` rather than a model. */
export function isPromptLookup(draft: unknown): draft is PromptLookupDraft {
  return typeof draft === 'object' && draft !== null && 'promptLookup' in draft;
}

async function maskOf(matcher: GrammarMatcher | undefined, allowed: number[]): Promise<Int32Array | undefined> {
  if (!matcher) return undefined;
  await matcher.settled();
  allowed.push(matcher.allowedCount);
  return matcher.allowedMask;
}

/**
 * lab.speculativeVerify one position at a time, each under its own grammar mask: position i's
 * call reads the same uniforms (block step + i) as one call over all γ would, so the rule and the
 * draws are the same; the bonus after γ accepted proposals is drawn under the last mask (none
 * when the grammar ended with the proposals).
 */
function verifyEach(lab: Lab, targetRows: Float32Array, draftRows: Float32Array | null, proposed: number[], masks: (Int32Array | undefined)[],
                    vocab: number, ended: boolean, options: SampleTokenOptions & { step: number; draftStream: number },
                    history: number[] | undefined): { accepted: number; tokens: number[]; fromResidual: boolean } {
  for (let i = 0; i < proposed.length; i++) {
    const verdict = lab.speculativeVerify(targetRows.subarray(i * vocab, (i + 2) * vocab), draftRows && draftRows.subarray(i * vocab, (i + 1) * vocab), [proposed[i]], {
      ...options, step: options.step + i, allowedMask: masks[i], ...(history && { generatedIds: [...history, ...proposed.slice(0, i)] }),
    });
    if (verdict.accepted === 0) return { accepted: i, tokens: [...proposed.slice(0, i), verdict.token], fromResidual: true };
  }
  if (ended) return { accepted: proposed.length, tokens: [...proposed], fromResidual: false };
  const { draftStream: _, ...targetOptions } = options;
  const bonus = lab.sampleToken(targetRows.subarray(proposed.length * vocab, (proposed.length + 1) * vocab), {
    ...targetOptions, step: options.step + proposed.length, allowedMask: masks[proposed.length],
    ...(history && { generatedIds: [...history, ...proposed] }),
  });
  return { accepted: proposed.length, tokens: [...proposed, bonus], fromResidual: false };
}
