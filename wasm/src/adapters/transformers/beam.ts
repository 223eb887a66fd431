// Beam search on a model (the chapter's sequence section: greedy is not the most probable
// sequence): the beams run as one batch, one forward pass per step, lab.createBeamSearch picks the
// next beams, and the KV cache is reordered by the beam each new one extends.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { Lab } from '../../lab/lab.js';
import type { IntegerArray } from '../../lab/schema.js';
import { selectRows } from './cache.js';
import { checkInteger, checkLab, checkModel, checkObject, checkSignal, checkTokenIds, checkTokenizer, endOfSequenceIds, maskIds, promptLimit } from './checks.js';
import { forward, vocabularyOf, type ForwardPass, type KvCache } from './forward.js';
import { BusyClock, type Usage } from './generate.js';
import { promptIds, type Prompt } from './prompt.js';

export interface BeamSearchOptions {
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
  /** Tokens each beam generates before an end-of-sequence or stop token can finish it: their logits are −∞ until then, as transformers' MinNewTokensLengthLogitsProcessor sets them (default 0). */
  minNewTokens?: number;
  /** Stops before the next step; the sequences so far are returned. */
  signal?: AbortSignal;
  /** Hears every forward pass, for inspection. */
  onForward?: (pass: ForwardPass) => void;
}

export interface BeamSequence {
  /** The generated token ids (the prompt left out). */
  ids: number[];
  text: string;
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
  'eosTokenIds', 'stopTokenIds', 'minNewTokens', 'signal', 'onForward'];

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
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${OPTIONS.join(', ')}`);
  }
  const { lab, maxNewTokens = 32, maxPromptTokens, eosTokenIds, stopTokenIds = [], minNewTokens = 0, signal, onForward, ...search } = options;
  checkLab(lab);
  checkInteger(maxNewTokens, 'maxNewTokens', 0, lab.maxNewTokens);
  checkInteger(minNewTokens, 'minNewTokens', 0, maxNewTokens);
  checkSignal(signal);
  if (onForward !== undefined && typeof onForward !== 'function') throw new SamplingLabError('onForward', 'onForward must be a function');
  const vocab = vocabularyOf(model);
  const eos = [...new Set([
    ...(eosTokenIds === undefined ? endOfSequenceIds(model) : checkTokenIds(eosTokenIds, 'eosTokenIds', vocab, lab.maxEosTokens)),
    ...checkTokenIds(stopTokenIds, 'stopTokenIds', vocab, lab.maxEosTokens),
  ])];
  if (eos.length > lab.maxEosTokens) {
    throw new SamplingLabError('stopTokenIds', `eosTokenIds and stopTokenIds hold ${eos.length} ids together; at most ${lab.maxEosTokens}`);
  }
  // The core's search takes at least one step; with maxNewTokens 0 it only checks the options.
  const beams = lab.createBeamSearch({ numBeams: 4, ...search, eosTokenIds: eos, maxNewTokens: Math.max(1, maxNewTokens) });
  const prompted = promptIds(tokenizer, prompt, vocab, promptLimit(model, maxPromptTokens)).map(Number);
  // Each beam's ids through its last position; batch row j of the cache is beam j.
  usage.promptTokens = prompted.length;
  const clock = new BusyClock();
  let sequences = [prompted];
  let cache: KvCache | undefined;
  let stepped = false;
  let done = false;
  for (let step = 0; step < maxNewTokens && !signal?.aborted && !done; step++) {
    const batch = step === 0 ? [prompted] : sequences.map((ids) => [ids[ids.length - 1]]);
    const pass = await forward(model, batch.map((ids) => ids.map(BigInt)), cache, prompted.length + step - batch[0].length, 1);
    if (step === 0) usage.prefillMs = clock.pause();
    onForward?.({ role: 'beams', sequences, rows: pass.rows, keep: 1, vocab: pass.vocab });
    if (step < minNewTokens) {
      for (let row = 0; row < batch.length; row++) maskIds(pass.rows, eos, row * pass.vocab);
    }
    const result = beams.step(pass.rows);
    done = result.done;
    stepped = true;
    sequences = Array.from(result.beamIndices, (beam, j) => [...sequences[beam], result.tokens[j]]);
    usage.completionTokens = step + 1;
    if (!done) cache = await selectRows(pass.cache, result.beamIndices);
    usage.decodeMs = clock.pause() - usage.prefillMs;
    usage.tokensPerSecond = usage.completionTokens / ((usage.prefillMs + usage.decodeMs) / 1000);
    const generated = sequences.map((ids) => ids.slice(prompted.length));
    yield { step: step + 1, beams: generated.map((ids) => ({ ids, text: tokenizer.decode(ids, { skip_special_tokens: true }) })) };
    clock.resume();
  }
  ended.reason = usage.completionTokens === maxNewTokens ? 'length' : done ? 'stop' : 'abort';
  // Aborted before the first step, or no step asked for: the prompt alone, with nothing added.
  if (!stepped) return [{ ids: [], text: '', logProb: 0, score: 0 }];
  return beams.finish().map(({ tokens, logProb, score }) => ({ ids: tokens, text: tokenizer.decode(tokens), logProb, score }));
}
