// Logits rows of a token sequence, for the chapter's experiments on a real model.
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import { checkInteger, checkModel, checkTokenizer } from './checks.js';
import { forward, row, tokenIds, type KvCache } from './forward.js';

/** The logits row at a 0-based `index` of `inputIds`, from one prefill that computes one row. */
export async function positionLogits(model: PreTrainedModel, inputIds: ArrayLike<number | bigint>, index: number): Promise<Float32Array> {
  checkModel(model);
  const ids = tokenIds(model, inputIds);
  if (!Number.isInteger(index) || index < 0 || index >= ids.length) {
    throw new SamplingLabError('index', `index must be an integer in [0, ${ids.length - 1}], not ${index}`);
  }
  return row(await forward(model, [ids.slice(0, index + 1)], undefined, 0, 1), 0).slice();
}

/**
 * Every logits row of `inputIds` in order, `chunk` positions per forward pass with the KV cache,
 * so at most `chunk` rows of the vocabulary are held at once. Each row is a view, valid until the
 * next iteration.
 */
export async function* logitsRows(model: PreTrainedModel, inputIds: ArrayLike<number | bigint>, chunk = 32): AsyncGenerator<{ index: number; logits: Float32Array }> {
  checkModel(model);
  checkInteger(chunk, 'chunk', 1, 4096);
  const ids = tokenIds(model, inputIds);
  let past: KvCache | undefined;
  for (let start = 0; start < ids.length; start += chunk) {
    const part = ids.slice(start, start + chunk);
    const pass = await forward(model, [part], past, start, part.length);
    for (let r = 0; r < part.length; r++) yield { index: start + r, logits: row(pass, r) };
    past = pass.cache;
  }
}

/** The chapter's passage preparation: strip #*`>|-[]()! and keep the first `maxTokens` ids. */
export function passageIds(tokenizer: PreTrainedTokenizer, text: string, maxTokens = 400): number[] {
  checkTokenizer(tokenizer);
  if (typeof text !== 'string') throw new SamplingLabError('text', 'text must be a string');
  checkInteger(maxTokens, 'maxTokens', 0, Number.MAX_SAFE_INTEGER);
  const ids = (tokenizer(text.replace(/[#*`>|\-[\]()!]/g, '')).input_ids as Tensor).data as BigInt64Array;
  return Array.from(ids.subarray(0, maxTokens), Number);
}
