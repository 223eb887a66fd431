// Argument checks shared by the adapter's entry points: each names the argument it rejects.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { Lab, SampleTokenOptions } from '../../lab/lab.js';

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

export function checkObject(value: unknown, name: string): asserts value is Record<string, unknown> {
  if (!isObject(value)) throw new SamplingLabError(name, `${name} must be an object`);
}

// Duck-typed rather than instanceof: a bundle may hold two copies of the lab module.
export function checkLab(lab: unknown): asserts lab is Lab {
  const methods = lab as Partial<Lab> | null | undefined;
  if (typeof methods?.sampleToken !== 'function' || typeof methods.checkOptions !== 'function') {
    throw new SamplingLabError('lab', 'lab must be a Sampling Lab instance (await loadSamplingLab())');
  }
}

// transformers.js models and tokenizers are callable objects.
export function checkModel(model: unknown, name = 'model'): asserts model is PreTrainedModel {
  if (typeof model !== 'function' || !isObject((model as { config?: unknown }).config)) {
    throw new SamplingLabError(name, `${name} must be a transformers.js model, e.g. (await loadLocalModel(folder)).model`);
  }
}

export function checkTokenizer(tokenizer: unknown): asserts tokenizer is PreTrainedTokenizer {
  if (typeof tokenizer !== 'function' || typeof (tokenizer as { decode?: unknown }).decode !== 'function') {
    throw new SamplingLabError('tokenizer', 'tokenizer must be a transformers.js tokenizer, e.g. (await loadLocalModel(folder)).tokenizer');
  }
}

/** A value as an error message shows it: strings quoted. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

export function checkInteger(value: unknown, name: string, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SamplingLabError(name, `${name} must be an integer in [${min}, ${max}], not ${shown(value)}`);
  }
}

/** A list of token ids, each an integer in [0, vocabSize), at most `maxLength` of them. */
export function checkTokenIds(value: unknown, name: string, vocabSize: number | undefined, maxLength: number): number[] {
  if (!Array.isArray(value) && !(value instanceof Int32Array)) throw new SamplingLabError(name, `${name} must be an array of token ids`);
  if (value.length > maxLength) throw new SamplingLabError(name, `${name} holds ${value.length} ids, more than ${maxLength}`);
  const limit = vocabSize ?? 2 ** 31 - 1;
  return Array.from(value as ArrayLike<unknown>, (id, i) => {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= limit) {
      throw new SamplingLabError(name, `${name}[${i}] is ${shown(id)}; token ids are integers in [0, ${limit})`);
    }
    return id;
  });
}

export function checkBoolean(value: unknown, name: string): asserts value is boolean {
  if (typeof value !== 'boolean') throw new SamplingLabError(name, `${name} must be true or false, not ${shown(value)}`);
}

export function checkSignal(signal: unknown): asserts signal is AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new SamplingLabError('signal', 'signal must be an AbortSignal (new AbortController().signal)');
  }
}

// A model that declares no context length is still given one: past it a forward pass's memory
// grows with the square of the prompt.
const DEFAULT_MAX_PROMPT_TOKENS = 32768;

/** The longest prompt a decoder takes: `maxPromptTokens`, else the model's max_position_embeddings. */
export function promptLimit(model: PreTrainedModel, maxPromptTokens: unknown): number {
  const declared = (model.config as { max_position_embeddings?: unknown }).max_position_embeddings;
  const context = typeof declared === 'number' && Number.isInteger(declared) && declared > 0 ? declared : DEFAULT_MAX_PROMPT_TOKENS;
  if (maxPromptTokens === undefined) return context;
  checkInteger(maxPromptTokens, 'maxPromptTokens', 1, context);
  return maxPromptTokens as number;
}

/** The model's end-of-sequence ids: its generation_config's and config's eos_token_id. */
export function endOfSequenceIds(model: PreTrainedModel): number[] {
  const declared = [model.generation_config?.eos_token_id, (model.config as { eos_token_id?: unknown }).eos_token_id].flat();
  return [...new Set(declared.filter((id): id is number => typeof id === 'number'))];
}

// The sampling options that the sequence being generated sets.
const FROM_SEQUENCE = ['step', 'generatedIds'];

/**
 * Checks the sampling options of a generation: names (beside the caller's own, `own`), kinds,
 * ranges, and token ids below `vocabSize`.
 */
export function checkSamplingOptions(lab: Lab, options: Record<string, unknown>, own: readonly string[], vocabSize?: number): void {
  const sampling = [...new Set(lab.options.map((spec) => spec.name.split('.')[0]))].filter((name) => !FROM_SEQUENCE.includes(name));
  for (const name of Object.keys(options)) {
    if (FROM_SEQUENCE.includes(name)) throw new SamplingLabError(name, `${name} is taken from the sequence being generated; it cannot be given`);
    if (!sampling.includes(name)) {
      throw new SamplingLabError(name, `unknown option '${name}'; accepted: ${[...own, ...sampling].join(', ')}`);
    }
  }
  lab.checkOptions(options as SampleTokenOptions, vocabSize);
}

/**
 * Whether the options need the sequence so far as generatedIds: some option of the core option
 * table's 'history' group (penalties, DRY, noRepeatNgramSize, badWords, …) is set.
 */
export function needsHistory(lab: Lab, options: SampleTokenOptions): boolean {
  const given = options as Record<string, unknown>;
  return lab.options.some((spec) => {
    if (spec.group !== 'history' || spec.name === 'generatedIds') return false;
    const [outer, field] = spec.name.split('.');
    // badWords is a list of sequences; the other dotted names are fields of an object.
    const value = field === undefined || outer === 'badWords' ? given[outer] : (given[outer] as Record<string, unknown> | undefined)?.[field];
    return value !== undefined && value !== null && value !== spec.default && !(ArrayBuffer.isView(value) || Array.isArray(value) ? (value as ArrayLike<unknown>).length === 0 : false);
  });
}

/** Sets `ids` to −∞ in the row of `logits` that starts at `offset`: EOS and the stop tokens held back until minNewTokens. */
export function maskIds(logits: Float32Array, ids: Iterable<number>, offset = 0): void {
  for (const id of ids) logits[offset + id] = -Infinity;
}
