// Beam search on a model (the chapter's sequence section: greedy is not the most probable
// sequence): the beams run as one batch, one forward pass per step, lab.createBeamSearch picks the
// next beams, and the KV cache is reordered by the beam each new one extends.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { Lab, LogprobsOptions, SampleTokenOptions } from '../../lab/lab.js';
import type { IntegerArray } from '../../lab/schema.js';
import type { CompiledGrammar, GrammarMatcher } from '../grammar/grammar.js';
import { selectRows } from './cache.js';
import {
  checkInteger, checkLab, checkModel, checkObject, checkSamplingOptions, checkSignal, checkTokenIds, checkTokenizer, endOfSequenceIds, maskIds,
  needsHistory, promptLimit,
} from './checks.js';
import { forward, vocabularyOf, type ForwardPass, type KvCache } from './forward.js';
import { BusyClock, checkGrammar, checkStops, completedStop, withTexts, type FinishReason, type StepLogprobs, type Usage } from './generate.js';
import { promptIds, type Prompt } from './prompt.js';

/**
 * Beam search's options: its own, and the sampling options (penalties, bias, masks, temperature,
 * top-k, …), which shape each beam's next-token distribution before the beams are scored.
 */
export interface BeamSearchOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds' | 'mirostat' | 'seed' | 'stream'>, Partial<LogprobsOptions> {
  /** The Sampling Lab instance that selects the beams. */
  lab: Lab;
  /** Beams kept, the batch of each forward pass (default 4). */
  numBeams?: number;
  /** Tokens generated at most (default 32). */
  maxNewTokens?: number;
  /** Finished sequences score sum log p / length^lengthPenalty, as in transformers (default 1). */
  lengthPenalty?: number;
  /** Sequences returned, best first (default 1, at most numBeams). */
  numReturnSequences?: number;
  /** Stop as soon as numBeams sequences have finished (default false: while a running beam can still beat them). */
  earlyStopping?: boolean;
  /** Stochastic beam search: Gumbel-top-k over sequences (Kool et al. 2019), from Philox (seed, stream). */
  stochastic?: boolean;
  seed?: number;
  stream?: number;
  /** The longest prompt taken, in tokens (default and most: the model's max_position_embeddings). */
  maxPromptTokens?: number;
  /** Tokens that finish a beam (default the model's end-of-sequence ids; [] for none). */
  eosTokenIds?: IntegerArray;
  /** As generateTokens': token ids that also finish a beam, as end-of-sequence ids do. */
  stopTokenIds?: IntegerArray;
  /** Tokens each beam generates before an end-of-sequence or stop token can finish it: their logits are −∞ until then, as transformers' MinNewTokensLengthLogitsProcessor sets them (default 0); stop strings wait as long. */
  minNewTokens?: number;
  /** Strings that finish a beam at the token whose text completes one, as an end-of-sequence token would (the step's next candidates take its place). */
  stop?: readonly string[];
  /** A grammar (sampling-lab/grammar): each beam follows it (a matcher per beam, forked when two beams share a parent). */
  grammar?: CompiledGrammar;
  /** Stops before the next step; the sequences so far are returned. */
  signal?: AbortSignal;
  /** Hears every forward pass, for inspection. */
  onForward?: (pass: ForwardPass) => void;
}

/** One sequence beamSearch returns: its ids and text, why it ended, its log-probability and its score. */
export interface BeamSequence {
  /** The generated token ids (the prompt left out). */
  ids: number[];
  text: string;
  /** 'stop' (an end-of-sequence or stop token, or a stop string), 'length' (still running at maxNewTokens) or 'abort' (still running when the signal aborted). */
  finishReason: FinishReason;
  /** With finishReason 'stop': the token id or the stop string that ended it. */
  stopReason?: number | string;
  /** With `logprobs`: each token's, in the distribution its beam was scored by (as generateTokens' logprobs). */
  logprobs?: StepLogprobs[];
  /** Sum of the tokens' natural-log probabilities. */
  logProb: number;
  /** logProb / length^lengthPenalty, by which the sequences are ranked. */
  score: number;
}

/** One step of a beam search: the running beams after it, best first. */
export interface BeamStep {
  /** Tokens each beam has generated. */
  step: number;
  /** Each running beam's ids after the prompt, and their text. */
  beams: { ids: number[]; text: string }[];
}

/**
 * A beam search: `await` it for the best sequences, or iterate it for each step's beams (then
 * `await` it for the sequences). `.usage` as generateTokens'; `.finishReason` once it ended:
 * 'length' (maxNewTokens steps), 'stop' (before them: enough beams finished, or none running can
 * beat them) or 'abort'.
 */
export interface BeamSearchRun extends AsyncIterable<BeamStep>, PromiseLike<BeamSequence[]> {
  readonly usage: Readonly<Usage>;
  readonly finishReason: 'stop' | 'length' | 'abort' | undefined;
}

const OPTIONS = ['lab', 'numBeams', 'maxNewTokens', 'maxPromptTokens', 'lengthPenalty', 'numReturnSequences', 'earlyStopping', 'stochastic', 'seed', 'stream',
  'eosTokenIds', 'stopTokenIds', 'minNewTokens', 'stop', 'grammar', 'logprobs', 'logprobsMode', 'signal', 'onForward'];

/**
 * Decodes `prompt` by beam search: each step scores every beam in one batched forward pass with
 * the KV cache and keeps the best numBeams (beam, token) pairs by log-probability, as
 * transformers' beam search does. Gives the best numReturnSequences sequences, best first.
 */
export function beamSearch(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: Prompt, options: BeamSearchOptions): BeamSearchRun {
  const usage: Usage = { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, prefillMs: 0, decodeMs: 0, tokensPerSecond: 0 };
  const ended: { reason?: BeamSearchRun['finishReason'] } = {};
  const inner = steps(model, tokenizer, prompt, options, usage, ended);
  let sequences: BeamSequence[] | undefined;
  async function* outer(): AsyncGenerator<BeamStep, void> {
    sequences = yield* inner;
  }
  let drained: Promise<BeamSequence[]> | undefined;
  return {
    usage,
    get finishReason() {
      return ended.reason;
    },
    [Symbol.asyncIterator]: outer,
    then(fulfilled, rejected) {
      drained ??= (async () => {
        if (sequences === undefined) for await (const _ of outer());
        if (sequences === undefined) throw new SamplingLabError('beamSearch', 'the search stopped when its steps\' loop was left; it has no sequences');
        return sequences;
      })();
      return drained.then(fulfilled, rejected);
    },
  };
}

async function* steps(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: Prompt, options: BeamSearchOptions,
                      usage: Usage, ended: { reason?: BeamSearchRun['finishReason'] }): AsyncGenerator<BeamStep, BeamSequence[]> {
  checkModel(model);
  checkTokenizer(tokenizer);
  if (options === undefined) throw new SamplingLabError('lab', 'beamSearch needs options with lab: { lab, numBeams, ... }');
  checkObject(options, 'options');
  const {
    lab, maxNewTokens = 32, maxPromptTokens, eosTokenIds, stopTokenIds = [], minNewTokens = 0, signal, onForward, stop = [], grammar, logprobs,
    logprobsMode, numBeams = 4, lengthPenalty, numReturnSequences, earlyStopping, stochastic, seed, stream, ...sampling
  } = options;
  checkLab(lab);
  checkInteger(maxNewTokens, 'maxNewTokens', 0, lab.maxNewTokens);
  checkInteger(minNewTokens, 'minNewTokens', 0, maxNewTokens);
  checkSignal(signal);
  if (onForward !== undefined && typeof onForward !== 'function') throw new SamplingLabError('onForward', 'onForward must be a function');
  const vocab = vocabularyOf(model);
  if ('mirostat' in sampling) throw new SamplingLabError('mirostat', 'mirostat cannot score beams: its μ follows one sequence\'s draws');
  checkSamplingOptions(lab, sampling, OPTIONS, vocab);
  checkGrammar(grammar, vocab, sampling);
  const stops = checkStops(stop);
  // logprobs' count and mode are not sampling options: scoring one logit checks them as every score will.
  if (logprobs !== undefined) lab.tokenLogprobs([0], 0, { logprobs, logprobsMode });
  else if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs (how many top tokens to list)');
  const eos = [...new Set([
    ...(eosTokenIds === undefined ? endOfSequenceIds(model) : checkTokenIds(eosTokenIds, 'eosTokenIds', vocab, lab.maxEosTokens)),
    ...checkTokenIds(stopTokenIds, 'stopTokenIds', vocab, lab.maxEosTokens),
  ])];
  if (eos.length > lab.maxEosTokens) {
    throw new SamplingLabError('stopTokenIds', `eosTokenIds and stopTokenIds hold ${eos.length} ids together; at most ${lab.maxEosTokens}`);
  }
  // The core's search takes at least one step; with maxNewTokens 0 it only checks the options.
  const beams = lab.createBeamSearch({
    numBeams, lengthPenalty, numReturnSequences, earlyStopping, stochastic, seed, stream, eosTokenIds: eos, maxNewTokens: Math.max(1, maxNewTokens),
  });
  const prompted = promptIds(tokenizer, prompt, vocab, promptLimit(model, maxPromptTokens)).map(Number);
  // The sampling options (or a grammar) reshape each row; without them the rows are scored as they come.
  const shaping = grammar !== undefined || Object.keys(sampling).length > 0;
  const history = needsHistory(lab, sampling);
  const longestStop = Math.max(0, ...stops.map((text) => text.length));
  const key = (ids: readonly number[]) => ids.join(',');
  // Each beam's and each finished sequence's logprobs, by its generated ids; what ended a sequence by a stop string.
  const scored = new Map<string, StepLogprobs[]>();
  const stopStrings = new Map<string, string>();
  // Each beam's ids through its last position; batch row j of the cache is beam j.
  usage.promptTokens = prompted.length;
  const clock = new BusyClock();
  let sequences = [prompted];
  let matchers: GrammarMatcher[] = [];
  let cache: KvCache | undefined;
  let stepped = false;
  let done = false;
  try {
    if (grammar) matchers = [await grammar.matcher()];
    for (let step = 0; step < maxNewTokens && !signal?.aborted && !done; step++) {
      const batch = step === 0 ? [prompted] : sequences.map((ids) => [ids[ids.length - 1]]);
      const started = performance.now();
      const pass = await forward(model, batch.map((ids) => ids.map(BigInt)), cache, prompted.length + step - batch[0].length, 1);
      const ms = performance.now() - started;
      if (step === 0) usage.prefillMs = clock.pause();
      onForward?.({ role: 'beams', sequences, rows: pass.rows, keep: 1, vocab: pass.vocab, ms });
      // Each row as the options see it: before minNewTokens the end ids masked, the beam's own ids as the history.
      const optionsOf = (row: number) => ({
        ...sampling, ...(history && { generatedIds: sequences[row] }), ...(grammar && { allowedMask: matchers[row].allowedMask }),
      });
      const rows = Array.from(batch, (_, row) => pass.rows.subarray(row * pass.vocab, (row + 1) * pass.vocab));
      for (const row of rows) if (step < minNewTokens) maskIds(row, eos);
      const unshaped = logprobs !== undefined && shaping ? rows.map((row) => row.slice()) : rows;
      // The beams are scored by the log of the distribution the options give each row.
      if (shaping) {
        for (const [r, row] of rows.entries()) {
          const { probs } = lab.distribution(row, optionsOf(r));
          for (let v = 0; v < row.length; v++) row[v] = Math.log(probs[v]);
        }
      }
      const scoreOf = (row: number, token: number): StepLogprobs =>
        withTexts(tokenizer, lab.tokenLogprobs(unshaped[row], token, { ...optionsOf(row), logprobs: logprobs!, logprobsMode }));
      const generatedOf = (row: number) => sequences[row].slice(prompted.length);
      // A sequence that an end id finishes at this step: its logprobs, for finish().
      if (logprobs !== undefined) {
        for (const row of rows.keys()) {
          for (const id of eos) {
            if (rows[row][id] !== -Infinity) scored.set(key([...generatedOf(row), id]), [...(scored.get(key(generatedOf(row))) ?? []), scoreOf(row, id)]);
          }
        }
      }
      let result = beams.step(pass.rows);
      let next: number[][];
      // Beams whose text completes a stop string finish, and the step's next candidates replace them.
      for (;;) {
        next = Array.from(result.beamIndices, (beam, j) => [...sequences[beam], result.tokens[j]]);
        if (logprobs !== undefined) {
          for (const [j, ids] of next.entries()) {
            const generated = ids.slice(prompted.length);
            if (!scored.has(key(generated))) scored.set(key(generated), [...(scored.get(key(generatedOf(result.beamIndices[j]))) ?? []), scoreOf(result.beamIndices[j], result.tokens[j])]);
          }
        }
        const ended: number[] = [];
        if (stops.length > 0 && step + 1 >= minNewTokens) {
          for (const [j, ids] of next.entries()) {
            const text = completedStop(tokenizer, ids.slice(prompted.length), stops, longestStop);
            if (text !== undefined) {
              ended.push(j);
              stopStrings.set(key(ids.slice(prompted.length)), text);
            }
          }
        }
        if (ended.length === 0) break;
        result = beams.finishBeams(ended);
      }
      done = result.done;
      stepped = true;
      if (grammar) matchers = await follow(grammar, matchers, sequences, result, prompted.length);
      sequences = next;
      usage.completionTokens = step + 1;
      if (!done) cache = await selectRows(pass.cache, result.beamIndices);
      usage.decodeMs = clock.pause() - usage.prefillMs;
      usage.tokensPerSecond = usage.completionTokens / ((usage.prefillMs + usage.decodeMs) / 1000);
      const generated = sequences.map((ids) => ids.slice(prompted.length));
      yield { step: step + 1, beams: generated.map((ids) => ({ ids, text: tokenizer.decode(ids, { skip_special_tokens: true }) })) };
      clock.resume();
    }
  } finally {
    for (const matcher of matchers) matcher.dispose();
  }
  ended.reason = usage.completionTokens === maxNewTokens ? 'length' : done ? 'stop' : 'abort';
  const unfinished: FinishReason = ended.reason === 'abort' ? 'abort' : 'length';
  // Aborted before the first step, or no step asked for: the prompt alone, with nothing added.
  if (!stepped) return [{ ids: [], text: '', logProb: 0, score: 0, finishReason: unfinished, ...(logprobs !== undefined && { logprobs: [] }) }];
  const ends = new Set(eos);
  return beams.finish().map(({ tokens, logProb, score }) => {
    const stopString = stopStrings.get(key(tokens));
    const stopReason = stopString ?? (tokens.length > 0 && ends.has(tokens[tokens.length - 1]) ? tokens[tokens.length - 1] : undefined);
    return {
      ids: tokens, text: tokenizer.decode(tokens), logProb, score, finishReason: stopReason === undefined ? unfinished : 'stop',
      ...(stopReason !== undefined && { stopReason }), ...(logprobs !== undefined && { logprobs: scored.get(key(tokens)) ?? [] }),
    };
  });
}

// Each new beam's matcher: its parent's, advanced by its token; a parent's second child replays
// the parent's tokens into a new matcher first. The parents no child continued are freed.
async function follow(grammar: CompiledGrammar, matchers: GrammarMatcher[], parents: number[][],
                      step: { beamIndices: Int32Array; tokens: Int32Array }, promptLength: number): Promise<GrammarMatcher[]> {
  const taken = new Set<number>();
  const next: GrammarMatcher[] = [];
  for (const [j, beam] of step.beamIndices.entries()) {
    let matcher = matchers[beam];
    if (taken.has(beam)) {
      matcher = await grammar.matcher();
      for (const token of parents[beam].slice(promptLength)) {
        matcher.accept(token);
        await matcher.settled();
      }
    }
    taken.add(beam);
    if (!matcher.accept(step.tokens[j])) throw new SamplingLabError('grammar', `the grammar refused token ${step.tokens[j]}, which its mask allowed`);
    await matcher.settled();
    next.push(matcher);
  }
  matchers.forEach((matcher, beam) => {
    if (!taken.has(beam)) matcher.dispose();
  });
  return next;
}
