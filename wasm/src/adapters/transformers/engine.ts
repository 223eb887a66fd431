// An OpenAI-shaped front door (as web-llm's MLCEngine): engine.chat.completions.create(body)
// takes OpenAI's chat-completion body, runs generateTokens (or speculativeGenerate with a draft)
// on the chat template's prompt, and answers with OpenAI's response or its stream of chunks.
// Every field maps to one Sampling Lab option (OPENAI_FIELDS); an unknown one is refused by name.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { Lab, SampleTokenOptions } from '../../lab/lab.js';
import type { CompiledGrammar } from '../grammar/grammar.js';
import { checkLab, checkModel, checkObject, checkTokenizer, isObject, promptLimit, shown } from './checks.js';
import { vocabularyOf } from './forward.js';
import { generateTokens, type FinishReason, type GeneratedToken, type GenerateOptions, type StepLogprobs } from './generate.js';
import { promptIds, type ChatMessage } from './prompt.js';
import { checkPromptLookup, isPromptLookup, speculativeGenerate, type PromptLookupDraft, type SpeculativeOptions, type SpeculativeStep } from './speculative.js';

/** Each OpenAI field and what it becomes: the table docs/openai.md prints. */
export const OPENAI_FIELDS = {
  messages: 'prompt { messages } through the tokenizer\'s chat template',
  model: 'echoed in the response (the engine has one model)',
  temperature: 'temperature (default 1, as OpenAI)',
  top_p: 'topP',
  max_tokens: 'maxNewTokens (default: the model\'s context left after the prompt)',
  max_completion_tokens: 'maxNewTokens',
  stop: 'stop (a string or up to 64 strings)',
  n: 'n (streams stream + i; from one prefill, or one after another with a draft)',
  seed: 'seed (default: fresh randomness per request)',
  logprobs: 'logprobs: top_logprobs, or 0 (the token\'s own only)',
  top_logprobs: 'logprobs (0–20)',
  response_format: "grammar: { type: 'json_object' } → a JSON object; { type: 'json_schema', json_schema: { schema } } → that schema (sampling-lab/grammar)",
  logit_bias: 'logitBias ({ [tokenId]: bias })',
  frequency_penalty: 'frequencyPenalty',
  presence_penalty: 'presencePenalty',
  stream: 'an async iterable of chat.completion.chunk objects instead of one chat.completion',
  stream_options: '{ include_usage }: a last chunk with usage and no choices',
  sampling_lab: 'any other Sampling Lab option (topK, minP, dry, xtc, …) by its own name',
} as const;

type Role = ChatMessage['role'];

/** OpenAI's chat-completion request body as engine.chat.completions.create takes it (OPENAI_FIELDS says what each field becomes), with Sampling Lab's own options under `sampling_lab`. */
export interface ChatCompletionRequest {
  messages: readonly ChatMessage[];
  model?: string;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | readonly string[];
  n?: number;
  seed?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: { name?: string; schema: object; strict?: boolean } };
  logit_bias?: Record<string, number>;
  frequency_penalty?: number;
  presence_penalty?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** Sampling Lab's own options (topK, minP, dry, …). */
  sampling_lab?: Omit<SampleTokenOptions, 'step' | 'generatedIds'> & { topCandidates?: never };
}

/** Why a choice ended, in OpenAI's words: 'stop' (end-of-sequence, a stop token or string, the grammar's end), 'length' (the token limit) or 'abort' (the request's signal). */
export type FinishReasonOpenAI = 'stop' | 'length' | 'abort';

/** One token's log-probability in OpenAI's logprobs shape: its text, its UTF-8 bytes and the top_logprobs alternatives. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** A completion's token counts in OpenAI's usage shape, with Sampling Lab's timings under `extra`. */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  /** Sampling Lab's timings: prefill and decode ms, tokens per second. */
  extra: { prefill_ms: number; decode_ms: number; tokens_per_second: number };
}

/** The answer to a request without `stream`: OpenAI's chat.completion object. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string }; logprobs: { content: TokenLogprob[] } | null; finish_reason: FinishReasonOpenAI }[];
  usage: CompletionUsage;
}

/** One piece of a streamed answer: OpenAI's chat.completion.chunk object. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: Role; content?: string }; logprobs: { content: TokenLogprob[] } | null; finish_reason: FinishReasonOpenAI | null }[];
  usage?: CompletionUsage;
}

/** Options of createEngine: the lab, the model and its tokenizer, and optionally a draft model. */
export interface EngineOptions {
  lab: Lab;
  model: PreTrainedModel;
  tokenizer: PreTrainedTokenizer;
  /** A draft sharing the tokenizer, or `{ promptLookup: { ngramMax?, ngramMin? } }` (no second model): requests then decode speculatively. */
  draft?: PreTrainedModel | PromptLookupDraft;
  /** The name responses carry (default 'sampling-lab'). */
  name?: string;
}

/** An engine over one model with OpenAI's client shape: `engine.chat.completions.create(body)`, as web-llm's MLCEngine. */
export interface Engine {
  chat: {
    completions: {
      /** With `stream: true`: the answer's chunks as they are generated. `request.signal` stops the generation (finish_reason 'abort'). */
      create(body: ChatCompletionRequest & { stream: true }, request?: { signal?: AbortSignal }): Promise<AsyncIterable<ChatCompletionChunk>>;
      /** Without `stream`: the whole chat.completion once generated. `request.signal` stops the generation (finish_reason 'abort'). */
      create(body: ChatCompletionRequest & { stream?: false }, request?: { signal?: AbortSignal }): Promise<ChatCompletion>;
      /** Answers OpenAI's chat-completion body: one chat.completion, or its chunks when `body.stream` is true. */
      create(body: ChatCompletionRequest, request?: { signal?: AbortSignal }): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;
    };
  };
}

const finishReasonOf = (reason: FinishReason | undefined): FinishReasonOpenAI => (reason === 'length' ? 'length' : reason === 'abort' ? 'abort' : 'stop');

function checkNumber(value: unknown, name: string, low: number, high: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !(value >= low && value <= high)) throw new SamplingLabError(name, `${name} must be a number in [${low}, ${high}], not ${shown(value)}`);
  return value;
}

const bytesOf = (text: string) => Array.from(new TextEncoder().encode(text));

/** The decoding a request asks for: generateTokens' options, and whether it streams. */
async function optionsOf(body: unknown, engine: EngineOptions, grammarOf: (format: unknown) => Promise<CompiledGrammar | undefined>) {
  checkObject(body, 'body');
  for (const key of Object.keys(body)) {
    if (!(key in OPENAI_FIELDS)) throw new SamplingLabError(key, `unknown field '${key}'; accepted: ${Object.keys(OPENAI_FIELDS).join(', ')}`);
  }
  const request = body as Record<string, unknown>;
  if (request.model !== undefined && typeof request.model !== 'string') throw new SamplingLabError('model', 'model must be a string');
  if (request.stream !== undefined && typeof request.stream !== 'boolean') throw new SamplingLabError('stream', 'stream must be true or false');
  if (request.logprobs !== undefined && typeof request.logprobs !== 'boolean') throw new SamplingLabError('logprobs', 'logprobs must be true or false');
  const topLogprobs = checkNumber(request.top_logprobs, 'top_logprobs', 0, 20);
  if (topLogprobs !== undefined && request.logprobs !== true) throw new SamplingLabError('top_logprobs', 'top_logprobs needs logprobs: true');
  if (request.stream_options !== undefined && (!isObject(request.stream_options) || request.stream !== true)) {
    throw new SamplingLabError('stream_options', 'stream_options is { include_usage }, with stream: true');
  }
  if (request.max_tokens !== undefined && request.max_completion_tokens !== undefined) {
    throw new SamplingLabError('max_tokens', 'give max_tokens or max_completion_tokens, not both');
  }
  const stop = request.stop === undefined || request.stop === null ? undefined : typeof request.stop === 'string' ? [request.stop] : request.stop;
  const logitBias = request.logit_bias;
  if (logitBias !== undefined && !isObject(logitBias)) throw new SamplingLabError('logit_bias', 'logit_bias must be { [tokenId]: bias }');
  const own = request.sampling_lab;
  if (own !== undefined) checkObject(own, 'sampling_lab');
  const options: Record<string, unknown> = {
    ...(own as object),
    ...(request.temperature != null && { temperature: request.temperature }),
    ...(request.top_p != null && { topP: request.top_p }),
    ...(stop && { stop }),
    ...(request.n != null && { n: request.n }),
    ...(request.seed != null && { seed: request.seed }),
    ...(request.logprobs === true && { logprobs: topLogprobs ?? 0 }),
    ...(logitBias && { logitBias }),
    ...(request.frequency_penalty != null && { frequencyPenalty: request.frequency_penalty }),
    ...(request.presence_penalty != null && { presencePenalty: request.presence_penalty }),
  };
  const maxTokens = request.max_tokens ?? request.max_completion_tokens;
  if (maxTokens != null) options.maxNewTokens = maxTokens;
  const grammar = await grammarOf(request.response_format);
  if (grammar) options.grammar = grammar;
  return {
    options, messages: request.messages as readonly ChatMessage[], stream: request.stream === true,
    includeUsage: request.stream === true && (request.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
    model: (request.model as string | undefined) ?? engine.name ?? 'sampling-lab',
  };
}

let sequence = 0;

/**
 * An engine with OpenAI's chat-completions shape over a transformers.js model: web-llm's and
 * OpenAI's request body works as it is, plus Sampling Lab's own options under `sampling_lab`.
 */
export function createEngine(engine: EngineOptions): Engine {
  checkObject(engine, 'options');
  const { lab, model, tokenizer, draft } = engine;
  checkLab(lab);
  checkModel(model);
  checkTokenizer(tokenizer);
  if (isPromptLookup(draft)) {
    // Checked now, as a draft model is, not at the first request.
    checkPromptLookup(lab, draft.promptLookup);
  } else if (draft !== undefined) {
    checkModel(draft, 'draft');
  }
  const vocabSize = vocabularyOf(model);
  const grammarOf = async (format: unknown): Promise<CompiledGrammar | undefined> => {
    if (format === undefined || format === null) return undefined;
    if (!isObject(format)) throw new SamplingLabError('response_format', 'response_format must be { type }');
    const { type } = format;
    if (type === 'text') return undefined;
    const schema = type === 'json_object' ? { type: 'object' }
      : type === 'json_schema' && isObject(format.json_schema) && isObject(format.json_schema.schema) ? format.json_schema.schema : undefined;
    if (schema === undefined) throw new SamplingLabError('response_format', "response_format is { type: 'text' | 'json_object' } or { type: 'json_schema', json_schema: { schema } }");
    const { compileGrammar } = await import('../grammar/grammar.js');
    return compileGrammar(tokenizer, { jsonSchema: schema }, { vocabSize });
  };

  async function create(body: ChatCompletionRequest, request: { signal?: AbortSignal } = {}): Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>> {
    const { options, messages, stream, includeUsage, model: name } = await optionsOf(body, engine, grammarOf);
    const id = `chatcmpl-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    // The chat template's ids once: a request without max_tokens runs to the end of the context.
    const limit = promptLimit(model, undefined);
    const prompt = promptIds(tokenizer, { messages }, vocabSize, limit).map(Number);
    const defaults = { lab, maxNewTokens: limit - prompt.length, signal: request.signal };
    const generation = draft
      ? speculativeGenerate(model, draft, tokenizer, prompt, { ...defaults, ...options } as SpeculativeOptions)
      : generateTokens(model, tokenizer, prompt, { ...defaults, topCandidates: 0, ...options } as GenerateOptions);
    const usageOf = (): CompletionUsage => {
      const { promptTokens, cachedPromptTokens, completionTokens, prefillMs, decodeMs, tokensPerSecond } = generation.usage;
      return {
        prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: cachedPromptTokens }, extra: { prefill_ms: prefillMs, decode_ms: decodeMs, tokens_per_second: tokensPerSecond },
      };
    };
    const logprobOf = (token: number, { logprob, top }: StepLogprobs): TokenLogprob => {
      const text = tokenizer.decode([token]);
      return { token: text, logprob, bytes: bytesOf(text), top_logprobs: top.map((t) => ({ token: t.text, logprob: t.logprob, bytes: bytesOf(t.text) })) };
    };
    // Each step as (choice, text, its tokens' logprobs, finish reason): a speculative step carries several tokens.
    async function* pieces(): AsyncGenerator<{ index: number; text: string; logprobs: TokenLogprob[]; finish?: FinishReasonOpenAI }> {
      for await (const step of generation as AsyncIterable<GeneratedToken | SpeculativeStep>) {
        const logprobs = 'tokens' in step
          ? (step.logprobs ?? []).map((entry, k) => logprobOf(step.tokens[k], entry))
          : step.logprobs ? [logprobOf(step.token, step.logprobs)] : [];
        yield { index: step.sequence, text: step.textDelta, logprobs, ...(step.finishReason && { finish: finishReasonOf(step.finishReason) }) };
      }
    }
    const choices = (options.n as number | undefined) ?? 1;
    // Sequences that ended without a step of their own saying so (an abort while one was held).
    const lateFinish = (index: number): FinishReasonOpenAI => finishReasonOf(generation.finishReasons[index]);
    if (!stream) {
      const text = Array<string>(choices).fill('');
      const logprobs: TokenLogprob[][] = Array.from({ length: choices }, () => []);
      const finish: (FinishReasonOpenAI | undefined)[] = Array(choices).fill(undefined);
      for await (const piece of pieces()) {
        text[piece.index] += piece.text;
        logprobs[piece.index].push(...piece.logprobs);
        if (piece.finish) finish[piece.index] = piece.finish;
      }
      return {
        id, object: 'chat.completion', created, model: name,
        choices: text.map((content, index) => ({
          index, message: { role: 'assistant' as const, content },
          logprobs: options.logprobs === undefined ? null : { content: logprobs[index] }, finish_reason: finish[index] ?? lateFinish(index),
        })),
        usage: usageOf(),
      };
    }
    const chunk = (choice: ChatCompletionChunk['choices'][number]): ChatCompletionChunk => ({ id, object: 'chat.completion.chunk', created, model: name, choices: [choice] });
    return (async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
      const started = new Set<number>();
      const finished = new Set<number>();
      for await (const piece of pieces()) {
        const delta = started.has(piece.index) ? { content: piece.text } : { role: 'assistant' as const, content: piece.text };
        started.add(piece.index);
        if (piece.finish) finished.add(piece.index);
        yield chunk({ index: piece.index, delta, logprobs: options.logprobs === undefined ? null : { content: piece.logprobs }, finish_reason: piece.finish ?? null });
      }
      for (let index = 0; index < choices; index++) {
        if (!finished.has(index)) yield chunk({ index, delta: {}, logprobs: null, finish_reason: lateFinish(index) });
      }
      if (includeUsage) yield { id, object: 'chat.completion.chunk', created, model: name, choices: [], usage: usageOf() };
    })();
  }

  return { chat: { completions: { create: create as Engine['chat']['completions']['create'] } } };
}
