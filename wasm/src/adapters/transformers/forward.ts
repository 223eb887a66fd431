// One forward pass of a causal LM through its KV cache, and its logits rows checked: the pieces a
// generation loop, a prefill or a speculative verifier is built from.
import { Tensor } from '@huggingface/transformers';
import type { PreTrainedModel } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';

/** past_key_values.N.key/.value by name, as the graph takes them. */
export type KvCache = Record<string, Tensor>;

export interface ForwardResult {
  /** The last `keep` logits rows of each batch row, row-major as float32 (a view of the model's output). */
  rows: Float32Array;
  vocab: number;
  /** The cache after these ids: the next pass's `past`. */
  cache: KvCache;
}

/** One forward pass as `onForward` hears it. */
export interface ForwardPass {
  /** 'target' or 'draft' in speculativeGenerate, 'beams' in beamSearch. */
  role: 'target' | 'draft' | 'beams';
  /** The token ids of each batch row through the pass's last position, prompt included. */
  sequences: readonly (readonly number[])[];
  /** The last `keep` positions' logits of each sequence, row-major float32: a view, valid during the call. */
  rows: Float32Array;
  keep: number;
  vocab: number;
  /** The pass's time in ms: the model's call and reading the kept logits out. */
  ms: number;
}

/** The model's declared vocabulary (config.json's vocab_size), if it has one. */
export function vocabularyOf(model: PreTrainedModel): number | undefined {
  const declared = (model.config as { vocab_size?: unknown }).vocab_size;
  return typeof declared === 'number' && Number.isInteger(declared) && declared > 0 ? declared : undefined;
}

// int32 is the widest id an ONNX Gather over the embedding takes everywhere.
const MAX_ID = 2 ** 31 - 1;

/** `inputIds` as int64 ids, each checked to be an integer in [0, vocab). */
export function tokenIds(model: PreTrainedModel, inputIds: unknown): bigint[] {
  const list = inputIds as ArrayLike<unknown> | null | undefined;
  if (typeof list !== 'object' || list === null || typeof list.length !== 'number') {
    throw new SamplingLabError('inputIds', 'inputIds must be an array of token ids');
  }
  const vocab = vocabularyOf(model);
  const limit = vocab ?? MAX_ID + 1;
  const ids: bigint[] = new Array(list.length);
  for (let i = 0; i < ids.length; i++) {
    const id = list[i];
    const value = typeof id === 'bigint' ? id : typeof id === 'number' && Number.isInteger(id) ? BigInt(id) : undefined;
    if (value === undefined || value < 0n || value >= BigInt(limit)) {
      const range = vocab === undefined ? `[0, ${limit})` : `[0, ${vocab}) (the model's vocab_size)`;
      throw new SamplingLabError('inputIds', `inputIds[${i}] is ${String(id)}; token ids are integers in ${range}`);
    }
    ids[i] = value;
  }
  return ids;
}

/** The graph's inputs for a batch of equally long `ids` rows placed after `past` cached positions. */
export function feeds(batch: readonly (readonly bigint[])[], past = 0): Record<string, Tensor> {
  const [rows, length] = [batch.length, batch[0].length];
  return {
    input_ids: new Tensor('int64', BigInt64Array.from(batch.flat()), [rows, length]),
    attention_mask: new Tensor('int64', new BigInt64Array(rows * (past + length)).fill(1n), [rows, past + length]),
  };
}

/**
 * Runs each row of `batch` (equally long) after the `pastLength` positions held in `past`,
 * computing only the last `keep` logits rows of each (num_logits_to_keep); the old cache is
 * released.
 */
export async function forward(model: PreTrainedModel, batch: readonly (readonly bigint[])[], past: KvCache | undefined,
                              pastLength: number, keep: number): Promise<ForwardResult> {
  const output = await model({
    ...feeds(batch, pastLength),
    ...(past ? { past_key_values: past } : {}),
    num_logits_to_keep: new Tensor('int64', [BigInt(keep)], []),
  });
  const logits = output.logits as Tensor;
  return { rows: checkedRows(model, logits), vocab: logits.dims.at(-1)!, cache: nextCache(output, past) };
}

/** Row `index` of a forward pass's rows (batch row b's r-th row is b·keep + r). */
export function row({ rows, vocab }: ForwardResult, index: number): Float32Array {
  return rows.subarray(index * vocab, (index + 1) * vocab);
}

// present.N.* of this pass become past_key_values.N.* of the next; GPU copies of the old cache
// are released.
export function nextCache(output: Record<string, unknown>, previous?: KvCache): KvCache {
  const cache: KvCache = {};
  for (const [name, value] of Object.entries(output)) {
    if (name.startsWith('present')) cache[name.replace('present', 'past_key_values')] = value as Tensor;
  }
  for (const tensor of Object.values(previous ?? {})) if (tensor.location === 'gpu-buffer') tensor.dispose();
  return cache;
}

// Logits as float32 (fp16 models return Uint16Array halves).
function float32Rows(logits: Tensor, name = 'logits'): Float32Array {
  if (logits.type === 'float32') return logits.data as Float32Array;
  if (logits.type === 'float16') return logits.to('float32').data as Float32Array;
  throw new SamplingLabError(name, `${name} must be float32 or float16, not ${logits.type}`);
}

// The logits rows as float32, checked against the model's declared vocabulary.
function checkedRows(model: PreTrainedModel, logits: Tensor): Float32Array {
  const vocab = logits.dims.at(-1)!;
  const declared = vocabularyOf(model);
  if (declared !== undefined && declared !== vocab) {
    throw new SamplingLabError('logits', `the model returned ${vocab} logits per row, but its config.json says vocab_size ${declared}`);
  }
  return float32Rows(logits);
}
