// A generation loop over the KV cache in which Sampling Lab chooses, and explains, every token;
// `n` sequences side by side in one batched forward pass per step.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { FilterStage, Lab, LogprobsOptions, Sampler, SampleTokenOptions, TokenLogprobs } from '../../lab/lab.js';
import type { CompiledGrammar, GrammarMatcher } from '../grammar/grammar.js';
import type { IntegerArray } from '../../lab/schema.js';
import { cachedLength, selectRows, truncateCache } from './cache.js';
import {
  checkBoolean, checkInteger, checkLab, checkModel, checkObject, checkSamplingOptions, checkSignal, checkTokenIds, checkTokenizer,
  endOfSequenceIds, maskIds, needsHistory, promptLimit, shown,
} from './checks.js';
import { forward, row, vocabularyOf, type KvCache } from './forward.js';
import { promptIds, type Prompt } from './prompt.js';
import { TextDeltas } from './text-deltas.js';

/** Options of generateTokens: the sampling options every token is chosen with (by lab.sampleToken), and the loop's own. */
export interface GenerateOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds'>, Partial<LogprobsOptions> {
  /** The Sampling Lab instance that chooses the tokens. */
  lab: Lab;
  /** Steps at most (default 64). */
  maxNewTokens?: number;
  /** The longest prompt taken, in tokens (default and most: the model's max_position_embeddings). */
  maxPromptTokens?: number;
  /** Candidates reported per step in `top` (default 5, at most 50). */
  topCandidates?: number;
  /** Stop at the model's end-of-sequence tokens (default true). */
  stopAtEos?: boolean;
  /** Stops the loop before the next step. */
  signal?: AbortSignal;
  /** Sequences generated from the prompt side by side, one batched forward pass per step (default 1); sequence i draws on stream `stream + i`. */
  n?: number;
  /** Strings that end a sequence at the token whose text completes one of them (that token is yielded). */
  stop?: readonly string[];
  /** Token ids that end a sequence, as EOS does (the token is yielded). */
  stopTokenIds?: IntegerArray;
  /** Tokens each sequence generates before EOS or a stop token can be drawn or a stop string can end it (vLLM's min_tokens; default 0). */
  minNewTokens?: number;
  /** A grammar (sampling-lab/grammar's compileGrammar): each sequence's tokens follow it, and it ends when the grammar terminates. */
  grammar?: CompiledGrammar;
  /** Leave special tokens (EOS, chat markers) out of `textDelta` (default true, as transformers.js's TextStreamer). */
  skipSpecialTokens?: boolean;
}

/** Why a sequence ended. */
export type FinishReason = 'stop' | 'length' | 'grammar' | 'abort';

/** A run's totals, kept up to date on the iterator (time spent by the consumer between steps left out). */
export interface Usage {
  promptTokens: number;
  /** Prompt tokens whose keys and values came from a conversation's cache, not a forward pass (OpenAI's cached_tokens). */
  cachedPromptTokens: number;
  /** Tokens generated, every sequence's together. */
  completionTokens: number;
  /** The prompt's forward pass, ms. */
  prefillMs: number;
  /** Every later forward pass, draw and grammar step, ms. */
  decodeMs: number;
  /** completionTokens over prefill and decode time. */
  tokensPerSecond: number;
}

/** The iterator generateTokens returns: its running usage, and each sequence's finish reason once it ended. */
export interface Generation extends AsyncGenerator<GeneratedToken, void> {
  readonly usage: Readonly<Usage>;
  readonly finishReasons: readonly (FinishReason | undefined)[];
}

/** One of a step's most probable tokens (GeneratedToken.top): its probability before the filters, and whether they kept it. */
export interface Candidate {
  token: number;
  text: string;
  /** Probability at the step's temperature, before any filter. */
  prob: number;
  /** Whether the filters kept it. */
  kept: boolean;
}

/** A step's log-probabilities, as `lab.sampleToken` returns them with `logprobs`, with texts. */
export interface StepLogprobs {
  /** Natural log of the token's probability ('raw' or 'processed', as `logprobsMode` says). */
  logprob: number;
  /** 1 = the most probable (ties to the lower id). */
  rank: number;
  /** The `logprobs` most probable tokens, best first. */
  top: { token: number; text: string; logprob: number }[];
}

/** One step of generateTokens for one sequence: the token drawn, its text, and the distribution it was drawn from. */
export interface GeneratedToken {
  token: number;
  /** The token's own text (a character spread over several byte tokens reads U+FFFD here). */
  text: string;
  /**
   * The text this step adds to its sequence, safe to join: bytes of a character are held until it
   * is complete, special tokens are left out unless skipSpecialTokens is false, and a sequence's
   * deltas joined equal tokenizer.decode(its tokens, { skip_special_tokens }).
   */
  textDelta: string;
  /** Which of the `n` sequences the token continues (0 when n = 1). */
  sequence: number;
  /** Probability of the token in the distribution it was drawn from (filtered, renormalised). */
  prob: number;
  /** Entropy of that distribution, bits. */
  entropyBits: number;
  /** Tokens the filters kept. */
  kept: number;
  top: Candidate[];
  /** Tokens kept after each active filter, in chain order: where each one cut the ranking. */
  cuts: FilterStage[];
  /** Present when `logprobs` was given. */
  logprobs?: StepLogprobs;
  /**
   * On a sequence's last token: 'stop' (EOS, a stop token or a stop string), 'length'
   * (maxNewTokens), 'grammar' (the grammar ended) or 'abort' (the signal was aborted before this
   * step was handed over; one aborted while the consumer held a step shows in the run's finishReasons).
   */
  finishReason?: FinishReason;
  /** With finishReason 'stop': the token id (EOS or one of stopTokenIds) or the stop string that ended it. */
  stopReason?: number | string;
  /** With a grammar: how many tokens its mask allowed at this step (0 for a forced token). */
  grammarAllowed?: number;
  /** With a grammar and n = 1: the token came from its jump-forward string, with no draw and no forward pass of its own. */
  forced?: boolean;
}

/** The core's logprobs of a token with each top entry's text. */
export function withTexts(tokenizer: PreTrainedTokenizer, { logprob, rank, top }: TokenLogprobs): StepLogprobs {
  return { logprob, rank, top: top.map((t) => ({ token: t.token, text: tokenizer.decode([t.token]), logprob: t.logprob })) };
}

const OWN_OPTIONS = ['lab', 'maxNewTokens', 'maxPromptTokens', 'topCandidates', 'stopAtEos', 'signal', 'logprobs', 'logprobsMode', 'n', 'stop', 'stopTokenIds', 'minNewTokens', 'grammar', 'skipSpecialTokens'];
export const MAX_SEQUENCES = 128;
const MAX_STOPS = 64;

export function checkStops(stop: unknown): readonly string[] {
  if (!Array.isArray(stop)) throw new SamplingLabError('stop', 'stop must be an array of strings');
  if (stop.length > MAX_STOPS) throw new SamplingLabError('stop', `stop holds ${stop.length} strings, more than ${MAX_STOPS}`);
  stop.forEach((text, i) => {
    if (typeof text !== 'string' || text === '') throw new SamplingLabError('stop', `stop[${i}] is ${shown(text)}, not a non-empty string`);
  });
  return stop;
}

// A UTF-16 unit takes at most 3 bytes and every token at least 1: a stop string of L units lies
// within the last 3L + 1 tokens.
const tokensSpanning = (units: number): number => 3 * units + 2;

/**
 * The stop string that the last of `generated` completes, if any: a match that reaches past the
 * text the tokens before it had settled (their last character may have been a partial one).
 */
export function completedStop(tokenizer: PreTrainedTokenizer, generated: number[], stop: readonly string[], longest: number): string | undefined {
  const window = generated.slice(-tokensSpanning(longest));
  const before = window.length > 1 ? tokenizer.decode(window.slice(0, -1)) : '';
  const after = tokenizer.decode(window);
  const settled = before.endsWith('\uFFFD') ? before.length - 1 : before.length;
  return stop.find((text) => after.indexOf(text, Math.max(0, settled - text.length + 1)) !== -1);
}

interface Sequence {
  index: number;
  /** Prompt and generated ids. */
  ids: bigint[];
  generated: number[];
  text: TextDeltas;
  sampler?: Sampler;
  matcher?: GrammarMatcher;
}

/** Time spent inside a generator: the consumer's time between its steps left out. */
export class BusyClock {
  #since = performance.now();
  #total = 0;

  /** The time so far, ms; the clock counts on from here until the next yield's pause. */
  pause(): number {
    const now = performance.now();
    this.#total += now - this.#since;
    this.#since = now;
    return this.#total;
  }

  /** After a yield: the consumer's time since the last pause is not counted. */
  resume(): void {
    this.#since = performance.now();
  }
}

/**
 * Generates from `prompt` one token per iteration with the model's KV cache, every token chosen
 * by `lab.sampleToken` exactly as `createLogitsProcessor` would choose it. With `n` > 1 the
 * sequences share the prompt's prefill and then run as one batch; each step yields one token per
 * unfinished sequence, in sequence order. Breaking out of the loop or aborting `signal` stops it
 * (an abort never throws: the sequences end with finishReason 'abort'). `.usage` and
 * `.finishReasons` on the iterator keep the run's totals and each sequence's end. Every argument
 * is checked before the first forward pass, token ids against the model's vocab_size.
 */
export function generateTokens(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: Prompt, options: GenerateOptions): Generation {
  return generateOnCache(model, tokenizer, prompt, options);
}

/** Token ids and the KV cache of exactly those positions: what a conversation keeps between turns. */
export interface CachedPrefix {
  ids: readonly number[];
  cache: KvCache;
}

/**
 * generateTokens with n = 1 that starts from `from`: the prompt's longest prefix in common with
 * its ids is not run again. `keep` gets the cache of the sequence when the run ends.
 */
export function generateOnCache(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: Prompt, options: GenerateOptions,
                                from?: CachedPrefix, keep?: (cached: CachedPrefix) => void): Generation {
  const usage: Usage = { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, prefillMs: 0, decodeMs: 0, tokensPerSecond: 0 };
  const finishReasons: (FinishReason | undefined)[] = [];
  return Object.assign(steps(model, tokenizer, prompt, options, usage, finishReasons, from, keep), { usage, finishReasons });
}

// How many leading ids `a` and `b` share.
function sharedPrefix(a: readonly number[], b: readonly bigint[]): number {
  let i = 0;
  while (i < a.length && i < b.length && BigInt(a[i]) === b[i]) i++;
  return i;
}

async function* steps(
  model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: Prompt, options: GenerateOptions,
  usage: Usage, finishReasons: (FinishReason | undefined)[], from?: CachedPrefix, keep?: (cached: CachedPrefix) => void,
): AsyncGenerator<GeneratedToken, void> {
  checkModel(model);
  checkTokenizer(tokenizer);
  if (options === undefined) throw new SamplingLabError('lab', 'generateTokens needs options with lab: { lab, ...sampling options }');
  checkObject(options, 'options');
  const {
    lab, maxNewTokens = 64, maxPromptTokens, topCandidates = 5, stopAtEos = true, signal, logprobs, logprobsMode,
    n = 1, stop = [], stopTokenIds = [], minNewTokens = 0, grammar, skipSpecialTokens = true, ...sampling
  } = options;
  checkLab(lab);
  checkBoolean(skipSpecialTokens, 'skipSpecialTokens');
  checkInteger(maxNewTokens, 'maxNewTokens', 0, 1_000_000);
  checkInteger(topCandidates, 'topCandidates', 0, 50);
  checkBoolean(stopAtEos, 'stopAtEos');
  checkSignal(signal);
  checkInteger(n, 'n', 1, MAX_SEQUENCES);
  const stops = checkStops(stop);
  const vocab = vocabularyOf(model);
  const stopIds = new Set(checkTokenIds(stopTokenIds, 'stopTokenIds', vocab, 1024));
  checkInteger(minNewTokens, 'minNewTokens', 0, maxNewTokens);
  checkSamplingOptions(lab, sampling, OWN_OPTIONS, vocab);
  checkGrammar(grammar, vocab, sampling);
  const { seed = lab.freshSeed(), stream = 0, ...filterOptions } = sampling;
  if (n > 1) lab.checkOptions({ stream: stream + n - 1 });
  // logprobs' count and mode are not sampling options: a one-logit draw checks them as every draw will.
  if (logprobs !== undefined) lab.sampleToken([0], { logprobs, logprobsMode });
  else if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs (how many top tokens to list)');
  const history = needsHistory(lab, filterOptions);
  const prompted = promptIds(tokenizer, prompt, vocab, promptLimit(model, maxPromptTokens));
  const eos = new Set(stopAtEos ? endOfSequenceIds(model) : []);
  // Banned until minNewTokens: EOS (when it stops) and the stop tokens.
  const held = [...new Set([...eos, ...stopIds])];
  const longestStop = Math.max(0, ...stops.map((text) => text.length));
  const sequences: Sequence[] = Array.from({ length: n }, (_, index) => ({
    index,
    ids: [...prompted],
    generated: [],
    text: new TextDeltas(tokenizer, skipSpecialTokens),
    // Mirostat's μ moves after every draw: a stateful sampler carries it and draws the same token.
    sampler: filterOptions.mirostat && lab.createSampler({ ...sampling, stream: stream + index, generatedIds: Int32Array.from(prompted, Number), step: prompted.length }),
  }));
  usage.promptTokens = prompted.length;
  finishReasons.length = n;
  const clock = new BusyClock();
  // Before each yield: the totals so far, and the clock stopped until the consumer asks again.
  const handOver = () => {
    usage.decodeMs = clock.pause() - usage.prefillMs;
    usage.tokensPerSecond = usage.completionTokens / ((usage.prefillMs + usage.decodeMs) / 1000);
  };
  const end = (sequence: Sequence, reason: FinishReason) => {
    finishReasons[sequence.index] = reason;
    return reason;
  };
  let active = maxNewTokens > 0 ? sequences : [];
  if (maxNewTokens === 0) finishReasons.fill('length');
  // A conversation's cache: the prompt's positions it holds are not run again (one at least is,
  // for its logits).
  const reused = from && n === 1 ? Math.min(sharedPrefix(from.ids, prompted), cachedLength(from.cache), prompted.length - 1) : 0;
  usage.cachedPromptTokens = reused;
  let last: CachedPrefix | undefined;
  try {
    if (grammar) for (const sequence of sequences) sequence.matcher = await grammar.matcher();
    let past: KvCache | undefined = reused > 0 ? await truncateCache(from!.cache, reused) : undefined;
    // Positions in the cache: the same for every sequence (jump-forward runs with n = 1 only).
    let cached = reused;
    for (let step = 0; active.length > 0 && !signal?.aborted; step++) {
      // The prompt once, then each unfinished sequence's tokens past the cache, batch row j = active[j].
      const batch = active.map((sequence) => sequence.ids.slice(cached));
      const pass = await forward(model, step === 0 ? [prompted.slice(reused)] : batch, past, cached, 1);
      if (step === 0) usage.prefillMs = clock.pause();
      cached += (step === 0 ? prompted.length - reused : batch[0].length);
      if (keep) last = { ids: sequences[0].ids.slice(0, cached).map(Number), cache: pass.cache };
      const finished = new Set<Sequence>();
      const forced: Omit<GeneratedToken, 'textDelta'>[] = [];
      for (const [j, sequence] of active.entries()) {
        const logits = row(pass, step === 0 ? 0 : j);
        if (sequence.generated.length < minNewTokens) maskIds(logits, held);
        const mu = sequence.sampler?.state.mirostatMu;
        const matcher = sequence.matcher;
        await matcher?.settled();
        const filters = {
          ...filterOptions,
          ...(mu != null ? { mirostat: { ...filterOptions.mirostat, mu } } : {}),
          ...(history ? { generatedIds: Int32Array.from(sequence.ids, Number) } : {}),
          ...(matcher && { allowedMask: matcher.allowedMask }),
        };
        const grammarAllowed = matcher?.allowedCount;
        const key = { seed, stream: stream + sequence.index, step: sequence.ids.length };
        const drawn = logprobs === undefined ? undefined : lab.sampleToken(logits, { ...filters, ...key, logprobs, logprobsMode });
        const token = sequence.sampler ? sequence.sampler.sample(logits) : drawn ? drawn.token : lab.sampleToken(logits, { ...filters, ...key });
        sequence.ids.push(BigInt(token));
        sequence.generated.push(token);
        usage.completionTokens++;
        if (matcher && !matcher.accept(token)) throw new SamplingLabError('grammar', `the grammar refused token ${token}, which its mask allowed`);
        // A browser's matcher answers from its Worker: whether the grammar ended comes with the next mask.
        await matcher?.settled();
        const stopString = stops.length > 0 && sequence.generated.length >= minNewTokens
          ? completedStop(tokenizer, sequence.generated, stops, longestStop) : undefined;
        const stopReason = eos.has(token) || stopIds.has(token) ? token : stopString;
        const reason: FinishReason | undefined = stopReason !== undefined ? 'stop' : matcher?.isTerminated() ? 'grammar'
          : sequence.generated.length >= maxNewTokens ? 'length' : signal?.aborted ? 'abort' : undefined;
        const finishReason = reason && end(sequence, reason);
        if (finishReason) finished.add(sequence);
        else if (matcher && n === 1) forced.push(...await jumpForward(tokenizer, matcher, sequence, maxNewTokens));
        usage.completionTokens += forced.length;
        handOver();
        yield described({
          token,
          text: tokenizer.decode([token]),
          textDelta: sequence.text.push(token) + (finishReason ? sequence.text.flush() : ''),
          sequence: sequence.index,
          ...(matcher && { grammarAllowed }),
          ...(drawn && { logprobs: withTexts(tokenizer, drawn) }),
          ...(finishReason && { finishReason }),
          ...(stopReason !== undefined && { stopReason }),
        }, () => describeStep(lab, tokenizer, logits, { ...filters, ...key }, token, topCandidates));
        clock.resume();
        // Tokens the grammar forces go through the next forward pass together, with no draw.
        for (const [f, forcedStep] of forced.entries()) {
          const last = f === forced.length - 1 && (matcher!.isTerminated() || sequence.generated.length >= maxNewTokens);
          if (last) finished.add(sequence);
          const textDelta = sequence.text.push(forcedStep.token) + (last ? sequence.text.flush() : '');
          handOver();
          yield { ...forcedStep, textDelta, ...(last && { finishReason: end(sequence, matcher!.isTerminated() ? 'grammar' : 'length') }) };
          clock.resume();
        }
      }
      // Every sequence starts from the prompt's cache; finished ones leave the batch.
      const rows = active.flatMap((sequence, j) => (finished.has(sequence) ? [] : [step === 0 ? 0 : j]));
      active = active.filter((sequence) => !finished.has(sequence));
      past = active.length > 0 ? await selectRows(pass.cache, rows) : undefined;
    }
    // Aborted while the consumer held a step, or before the first.
    for (const sequence of active) end(sequence, 'abort');
    handOver();
  } finally {
    // Also when the consumer stops early: the cache of what ran.
    if (last) keep!(last);
    // The matchers hold xgrammar memory, also when the consumer stops early.
    for (const sequence of sequences) sequence.matcher?.dispose();
  }
}

export function checkGrammar(grammar: unknown, vocab: number | undefined, sampling: Record<string, unknown>): void {
  if (grammar === undefined) return;
  const compiled = grammar as Partial<CompiledGrammar>;
  if (typeof compiled?.matcher !== 'function' || typeof compiled.vocabSize !== 'number') {
    throw new SamplingLabError('grammar', 'grammar must come from compileGrammar(tokenizer, { jsonSchema | ebnf | regex | structuralTag }) of sampling-lab/grammar');
  }
  if (vocab !== undefined && compiled.vocabSize !== vocab) {
    throw new SamplingLabError('grammar', `the grammar was compiled for ${compiled.vocabSize} tokens and the model has ${vocab}: pass { vocabSize: ${vocab} } to compileGrammar`);
  }
  if ('allowedMask' in sampling) throw new SamplingLabError('allowedMask', 'allowedMask comes from the grammar at each step; give one or the other');
  if ('mirostat' in sampling) throw new SamplingLabError('grammar', 'a grammar cannot be combined with mirostat (its stateful sampler draws without the mask)');
}

/**
 * The tokens of the grammar's jump-forward string (the text every continuation starts with) that
 * it accepts, at most `limit`, accepted into the matcher: tokens no model needs to choose.
 */
export async function jumpForwardTokens(tokenizer: PreTrainedTokenizer, matcher: GrammarMatcher, limit: number): Promise<number[]> {
  const text = await matcher.jumpForward();
  const tokens: number[] = [];
  if (text === '') return tokens;
  for (const token of tokenizer.encode(text, { add_special_tokens: false })) {
    await matcher.settled();
    if (tokens.length >= limit || matcher.isTerminated() || !matcher.accept(token)) break;
    tokens.push(token);
  }
  await matcher.settled();
  return tokens;
}

// The forced tokens appended to the sequence, as steps drawn by no one.
async function jumpForward(tokenizer: PreTrainedTokenizer, matcher: GrammarMatcher, sequence: Sequence, maxNewTokens: number): Promise<Omit<GeneratedToken, 'textDelta'>[]> {
  return (await jumpForwardTokens(tokenizer, matcher, maxNewTokens - sequence.generated.length)).map((token) => {
    sequence.ids.push(BigInt(token));
    sequence.generated.push(token);
    return { token, text: tokenizer.decode([token]), sequence: sequence.index, prob: 1, entropyBits: 0, kept: 1, top: [], cuts: [], grammarAllowed: 0, forced: true };
  });
}

type Description = Pick<GeneratedToken, 'prob' | 'entropyBits' | 'kept' | 'top' | 'cuts'>;
const DESCRIPTION: readonly (keyof Description)[] = ['prob', 'entropyBits', 'kept', 'top', 'cuts'];

// The step with its description computed when first read: a loop that reads only the tokens pays
// for the draws alone.
function described(step: Omit<GeneratedToken, keyof Description>, describe: () => Description): GeneratedToken {
  let description: Description | undefined;
  for (const key of DESCRIPTION) Object.defineProperty(step, key, { enumerable: true, get: () => (description ??= describe())[key] });
  return step as GeneratedToken;
}

// The distribution the token was drawn from (with the same random key: XTC's draw is part of
// it), where each stage cut it, and the most probable candidates before the filters.
function describeStep(lab: Lab, tokenizer: PreTrainedTokenizer, logits: Float32Array, options: SampleTokenOptions,
                      token: number, topCandidates: number): Description {
  const sampled = lab.distribution(logits, options);
  const cuts = lab.stages(logits, options).stages;
  const top: Candidate[] = [];
  if (topCandidates > 0) {
    const { temperature = 1, repetitionPenalty, presencePenalty, frequencyPenalty, penaltyLastN, generatedIds } = options;
    const best = lab.distribution(logits, { temperature, repetitionPenalty, presencePenalty, frequencyPenalty, penaltyLastN, generatedIds, topK: topCandidates });
    best.probs.forEach((p, id) => {
      if (p > 0) top.push({ token: id, text: tokenizer.decode([id]), prob: p * best.keptMass, kept: sampled.probs[id] > 0 });
    });
    top.sort((a, b) => b.prob - a.prob || a.token - b.token);
  }
  return { prob: sampled.probs[token], entropyBits: sampled.entropyBits, kept: sampled.kept, top, cuts };
}
