// A generation loop over the KV cache in which Sampling Lab chooses, and explains, every token.
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../errors.js';
import type { FilterStage, Lab, LogprobsOptions, SampleTokenOptions } from '../lab.js';
import { checkInteger, checkLab, checkModel, checkObject, checkSamplingOptions, checkTokenizer, maskInfinities, needsHistory, shown } from './checks.js';
import { forward, row, vocabularyOf, type KvCache } from './forward.js';

export interface GenerateOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds'>, Partial<LogprobsOptions> {
  /** The Sampling Lab instance that chooses the tokens. */
  lab: Lab;
  /** Steps at most (default 64). */
  maxNewTokens?: number;
  /** Candidates reported per step in `top` (default 5, at most 50). */
  topCandidates?: number;
  /** Stop at the model's end-of-sequence tokens (default true). */
  stopAtEos?: boolean;
  /** Stops the loop before the next step. */
  signal?: AbortSignal;
}

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

export interface GeneratedToken {
  token: number;
  text: string;
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
}

const OWN_OPTIONS = ['lab', 'maxNewTokens', 'topCandidates', 'stopAtEos', 'signal', 'logprobs', 'logprobsMode'];

/**
 * Generates from `prompt` one token per iteration with the model's KV cache, every token chosen
 * by `lab.sampleToken` exactly as `createLogitsProcessor` would choose it. Breaking out of the
 * loop or aborting `signal` stops it. Every argument is checked before the first forward pass,
 * token ids against the model's vocab_size.
 */
export async function* generateTokens(
  model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: string, options: GenerateOptions,
): AsyncGenerator<GeneratedToken> {
  checkModel(model);
  checkTokenizer(tokenizer);
  if (typeof prompt !== 'string') throw new SamplingLabError('prompt', 'prompt must be a string');
  if (options === undefined) throw new SamplingLabError('lab', 'generateTokens needs options with lab: { lab, ...sampling options }');
  checkObject(options, 'options');
  const { lab, maxNewTokens = 64, topCandidates = 5, stopAtEos = true, signal, logprobs, logprobsMode, ...sampling } = options;
  checkLab(lab);
  checkInteger(maxNewTokens, 'maxNewTokens', 0, 1_000_000);
  checkInteger(topCandidates, 'topCandidates', 0, 50);
  if (typeof stopAtEos !== 'boolean') throw new SamplingLabError('stopAtEos', `stopAtEos must be true or false, not ${shown(stopAtEos)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new SamplingLabError('signal', 'signal must be an AbortSignal (new AbortController().signal)');
  }
  checkSamplingOptions(lab, sampling, OWN_OPTIONS, vocabularyOf(model));
  // logprobs' count and mode are not sampling options: a one-logit draw checks them as every draw will.
  if (logprobs !== undefined) lab.sampleToken([0], { logprobs, logprobsMode });
  else if (logprobsMode !== undefined) throw new SamplingLabError('logprobsMode', 'logprobsMode needs logprobs (how many top tokens to list)');
  const { seed, stream, ...filterOptions } = sampling;
  const history = needsHistory(filterOptions);
  const ids: bigint[] = Array.from((tokenizer(prompt).input_ids as Tensor).data as BigInt64Array);
  if (ids.length === 0) throw new SamplingLabError('prompt', 'the prompt must encode to at least one token');
  const eos = new Set([model.generation_config?.eos_token_id, (model.config as { eos_token_id?: unknown }).eos_token_id].flat());
  // Mirostat's μ moves after every draw: a stateful sampler carries it and draws the same token.
  const sampler = filterOptions.mirostat && lab.createSampler({ ...sampling, generatedIds: Int32Array.from(ids, Number), step: ids.length });
  let past: KvCache | undefined;
  let pending = ids;
  for (let step = 0; step < maxNewTokens && !signal?.aborted; step++) {
    const pass = await forward(model, pending, past, ids.length - pending.length, 1);
    const logits = row(pass, 0);
    maskInfinities(logits, 'logits');
    const mu = sampler?.state.mirostatMu;
    const filters = {
      ...filterOptions,
      ...(mu != null ? { mirostat: { ...filterOptions.mirostat, mu } } : {}),
      ...(history ? { generatedIds: Int32Array.from(ids, Number) } : {}),
    };
    const key = { seed, stream, step: ids.length };
    const drawn = logprobs === undefined ? undefined : lab.sampleToken(logits, { ...filters, ...key, logprobs, logprobsMode });
    const token = sampler ? sampler.sample(logits) : drawn ? drawn.token : lab.sampleToken(logits, { ...filters, ...key });
    yield {
      token,
      text: tokenizer.decode([token]),
      ...describeStep(lab, tokenizer, logits, { ...filters, ...key }, token, topCandidates),
      ...(drawn && {
        logprobs: {
          logprob: drawn.logprob,
          rank: drawn.rank,
          top: drawn.top.map((t) => ({ token: t.token, text: tokenizer.decode([t.token]), logprob: t.logprob })),
        },
      }),
    };
    past = pass.cache;
    ids.push(BigInt(token));
    pending = [BigInt(token)];
    if (stopAtEos && eos.has(token)) return;
  }
}

// The distribution the token was drawn from (with the same random key: XTC's draw is part of
// it), where each stage cut it, and the most probable candidates before the filters.
function describeStep(lab: Lab, tokenizer: PreTrainedTokenizer, logits: Float32Array, options: SampleTokenOptions,
                      token: number, topCandidates: number): Omit<GeneratedToken, 'token' | 'text' | 'logprobs'> {
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
