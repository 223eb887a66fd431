// sampling-lab/transformers: Sampling Lab as the sampler of a transformers.js model.
// transformers.js's generate() applies only repetition penalty, temperature and top-k (50 by
// default) and ignores top-p and min-p; here every token is chosen by lab.sampleToken instead.
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor } from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from './errors.js';
import type { FilterOptions, FilterStage, Lab, SampleTokenOptions } from './lab.js';

export type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';

const LOWEST_FLOAT32 = -3.4028234663852886e38;

/** transformers.js's logits processor shape: token ids so far per row, and the step's logits. */
export type LogitsProcessorFunction = (inputIds: bigint[][], logits: Tensor) => Tensor;

function penalised(options: SampleTokenOptions): boolean {
  return (options.repetitionPenalty ?? 1) !== 1 || (options.presencePenalty ?? 0) !== 0 || (options.frequencyPenalty ?? 0) !== 0;
}

function float32Rows(logits: Tensor, name = 'logits'): Float32Array {
  if (logits.type === 'float32') return logits.data as Float32Array;
  if (logits.type === 'float16') return logits.to('float32').data as Float32Array;
  throw new SamplingLabError(name, `${name} must be float32 or float16, not ${logits.type}`);
}

/**
 * A logits processor for `model.generate({ logits_processor: [processor], do_sample: false })`:
 * each row's token is chosen by `lab.sampleToken` with `options` (step = the row's position, that
 * is the number of ids before the new token; stream = options.stream + row) and every other logit
 * becomes −∞, so greedy decoding returns exactly Sampling Lab's tokens. Penalties, when set, see
 * the whole sequence, prompt included, as transformers' own repetition penalty does; leave
 * transformers' `repetition_penalty` unset so that nothing is penalised twice.
 */
export function createLogitsProcessor(lab: Lab, options: Omit<SampleTokenOptions, 'step'> = {}): LogitsProcessorFunction {
  lab.sampleToken([0], options);  // rejects bad options now, not at the first step
  const stream = options.stream ?? 0;
  return (inputIds, logits) => {
    if (logits.type !== 'float32') {
      throw new SamplingLabError('logits', `logits must be float32 (generate() converts them), not ${logits.type}`);
    }
    const [rows, vocab] = logits.dims.length === 3 ? [logits.dims[0], logits.dims[2]] : logits.dims;
    const data = logits.data as Float32Array;
    for (let row = 0; row < rows; row++) {
      const view = data.subarray(row * vocab, (row + 1) * vocab);
      // Tokens that transformers' own processors banned (−∞: min_new_tokens, suppress_tokens,
      // bad_words_ids) become the lowest finite logit, whose weight is exactly 0: never drawn.
      for (let i = view.indexOf(-Infinity); i !== -1; i = view.indexOf(-Infinity, i + 1)) view[i] = LOWEST_FLOAT32;
      const ids = inputIds[row];
      const token = lab.sampleToken(view, {
        ...options,
        stream: stream + row,
        step: ids.length,
        ...(penalised(options) ? { generatedIds: Int32Array.from(ids, Number) } : {}),
      });
      const kept = view[token];
      view.fill(-Infinity);
      view[token] = kept;
    }
    return logits;
  };
}

/** The logits row at a 0-based `index` of `inputIds`, from one prefill that computes one row. */
export async function positionLogits(model: PreTrainedModel, inputIds: ArrayLike<number | bigint>, index: number): Promise<Float32Array> {
  if (!Number.isInteger(index) || index < 0 || index >= inputIds.length) {
    throw new SamplingLabError('index', `index must be an integer in [0, ${inputIds.length - 1}], not ${index}`);
  }
  const ids = Array.from({ length: index + 1 }, (_, i) => BigInt(inputIds[i]));
  const output = await model({ ...feeds(ids), num_logits_to_keep: new Tensor('int64', [1n], []) });
  return checkedRow(model, output.logits as Tensor).slice();
}

/**
 * Every logits row of `inputIds` in order, `chunk` positions per forward pass with the KV cache,
 * so at most `chunk` rows of the vocabulary are held at once. Each row is a view, valid until the
 * next iteration.
 */
export async function* logitsRows(model: PreTrainedModel, inputIds: ArrayLike<number | bigint>, chunk = 32): AsyncGenerator<{ index: number; logits: Float32Array }> {
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > 4096) throw new SamplingLabError('chunk', 'chunk must be an integer in [1, 4096]');
  const ids = Array.from(inputIds, BigInt);
  let past: Record<string, Tensor> | undefined;
  for (let start = 0; start < ids.length; start += chunk) {
    const part = ids.slice(start, start + chunk);
    const output = await model({
      ...feeds(part, start),
      ...(past ? { past_key_values: past } : {}),
      num_logits_to_keep: new Tensor('int64', [BigInt(part.length)], []),
    });
    const rows = checkedRows(model, output.logits as Tensor);
    const vocab = rows.length / part.length;
    for (let r = 0; r < part.length; r++) yield { index: start + r, logits: rows.subarray(r * vocab, (r + 1) * vocab) };
    past = nextCache(output, past);
  }
}

function feeds(ids: bigint[], past = 0) {
  return {
    input_ids: new Tensor('int64', BigInt64Array.from(ids), [1, ids.length]),
    attention_mask: new Tensor('int64', new BigInt64Array(past + ids.length).fill(1n), [1, past + ids.length]),
  };
}

// The logits rows as float32, checked against the model's declared vocabulary.
function checkedRows(model: PreTrainedModel, logits: Tensor): Float32Array {
  const vocab = logits.dims.at(-1)!;
  const declared = (model.config as { vocab_size?: number }).vocab_size;
  if (declared !== undefined && declared !== vocab) {
    throw new SamplingLabError('logits', `the model returned ${vocab} logits per row, but its config.json says vocab_size ${declared}`);
  }
  return float32Rows(logits);
}

function checkedRow(model: PreTrainedModel, logits: Tensor): Float32Array {
  const rows = checkedRows(model, logits);
  return rows.subarray(rows.length - logits.dims.at(-1)!);
}

export interface GenerateOptions extends Omit<SampleTokenOptions, 'step'> {
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
}

/**
 * Generates from `prompt` one token per iteration with the model's KV cache, every token chosen
 * by `lab.sampleToken` exactly as `createLogitsProcessor` would choose it. Breaking out of the
 * loop or aborting `signal` stops it.
 */
export async function* generateTokens(
  model: PreTrainedModel, tokenizer: PreTrainedTokenizer, prompt: string, options: GenerateOptions,
): AsyncGenerator<GeneratedToken> {
  const { lab, maxNewTokens = 64, topCandidates = 5, stopAtEos = true, signal, ...sampling } = options;
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0 || maxNewTokens > 1_000_000) {
    throw new SamplingLabError('maxNewTokens', 'maxNewTokens must be an integer in [0, 1000000]');
  }
  if (!Number.isInteger(topCandidates) || topCandidates < 0 || topCandidates > 50) {
    throw new SamplingLabError('topCandidates', 'topCandidates must be an integer in [0, 50]');
  }
  lab.sampleToken([0], sampling);
  const { seed, stream, ...filterOptions } = sampling;
  const ids: bigint[] = Array.from((tokenizer(prompt).input_ids as Tensor).data as BigInt64Array);
  if (ids.length === 0) throw new SamplingLabError('prompt', 'the prompt must encode to at least one token');
  const eos = new Set([model.generation_config?.eos_token_id, (model.config as { eos_token_id?: unknown }).eos_token_id].flat());
  let past: Record<string, Tensor> | undefined;
  let pending = ids;
  for (let step = 0; step < maxNewTokens && !signal?.aborted; step++) {
    const output = await model({
      ...feeds(pending, ids.length - pending.length),
      ...(past ? { past_key_values: past } : {}),
      num_logits_to_keep: new Tensor('int64', [1n], []),
    });
    const logits = checkedRow(model, output.logits as Tensor);
    const filters = { ...filterOptions, ...(penalised(filterOptions) ? { generatedIds: Int32Array.from(ids, Number) } : {}) };
    const token = lab.sampleToken(logits, { ...filters, seed, stream, step: ids.length });
    yield { token, text: tokenizer.decode([token]), ...describeStep(lab, tokenizer, logits, filters, token, topCandidates) };
    past = nextCache(output, past);
    ids.push(BigInt(token));
    pending = [BigInt(token)];
    if (stopAtEos && eos.has(token)) return;
  }
}

// present.N.* of this step become past_key_values.N.* of the next; GPU copies of the old cache
// are released.
function nextCache(output: Record<string, unknown>, previous?: Record<string, Tensor>): Record<string, Tensor> {
  const cache: Record<string, Tensor> = {};
  for (const [name, value] of Object.entries(output)) {
    if (name.startsWith('present')) cache[name.replace('present', 'past_key_values')] = value as Tensor;
  }
  for (const tensor of Object.values(previous ?? {})) if (tensor.location === 'gpu-buffer') tensor.dispose();
  return cache;
}

function describeStep(lab: Lab, tokenizer: PreTrainedTokenizer, logits: Float32Array, options: FilterOptions,
                      token: number, topCandidates: number): Omit<GeneratedToken, 'token' | 'text'> {
  const sampled = lab.distribution(logits, options);
  const cuts = lab.stages(logits, options).stages;
  const top: Candidate[] = [];
  if (topCandidates > 0) {
    const { temperature = 1, repetitionPenalty, presencePenalty, frequencyPenalty, generatedIds } = options;
    const best = lab.distribution(logits, { temperature, repetitionPenalty, presencePenalty, frequencyPenalty, generatedIds, topK: topCandidates });
    best.probs.forEach((p, id) => {
      if (p > 0) top.push({ token: id, text: tokenizer.decode([id]), prob: p * best.keptMass, kept: sampled.probs[id] > 0 });
    });
    top.sort((a, b) => b.prob - a.prob || a.token - b.token);
  }
  return { prob: sampled.probs[token], entropyBits: sampled.entropyBits, kept: sampled.kept, top, cuts };
}

/** The chapter's passage preparation: strip #*`>|-[]()! and keep the first `maxTokens` ids. */
export function passageIds(tokenizer: PreTrainedTokenizer, text: string, maxTokens = 400): number[] {
  const ids = (tokenizer(text.replace(/[#*`>|\-[\]()!]/g, '')).input_ids as Tensor).data as BigInt64Array;
  return Array.from(ids.subarray(0, maxTokens), Number);
}

export interface LoadedModel {
  model: PreTrainedModel;
  tokenizer: PreTrainedTokenizer;
}

export interface LoadModelOptions {
  /** transformers.js dtype: 'fp32', 'fp16', 'q8', 'q4', 'q4f16', … (file onnx/model<suffix>.onnx). */
  dtype?: string;
  device?: string;
  progress?: (info: { status: string; file?: string; loaded?: number; total?: number; progress?: number }) => void;
}

/** A model and its tokenizer from the Hugging Face hub, e.g. 'onnx-community/Qwen3-0.6B-ONNX'. */
export function loadHubModel(repository: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  env.allowRemoteModels = true;
  return load(repository, options, `cannot load ${repository}`);
}

/**
 * A model and its tokenizer from a local folder (config.json, tokenizer files, onnx/): a file
 * path in Node, a URL path such as '/models/tiny-qwen3' in the browser. Nothing is fetched from
 * the Hugging Face hub.
 */
export function loadLocalModel(folder: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  const trimmed = folder.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  const [root, name] = slash < 0 ? ['./', trimmed] : [trimmed.slice(0, slash + 1), trimmed.slice(slash + 1)];
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root;
  return load(name, options, `cannot load a model from ${folder}`);
}

async function load(name: string, options: LoadModelOptions, failure: string): Promise<LoadedModel> {
  const progress_callback = options.progress as never;
  try {
    const tokenizer = await AutoTokenizer.from_pretrained(name, { progress_callback });
    const model = await AutoModelForCausalLM.from_pretrained(name, { dtype: options.dtype as never, device: options.device as never, progress_callback });
    return { model, tokenizer };
  } catch (error) {
    throw new SamplingLabError('model', `${failure}: ${(error as Error).message}`);
  }
}
