// The KV cache cut back and regathered: speculative decoding cuts both caches back to the
// accepted length; beam search reorders the batch by beam; parallel sequences copy the prompt's
// cache to each sequence and drop the ones that finished.
import { Tensor } from '@huggingface/transformers';
import type { KvCache } from './forward.js';

type Values = Float32Array | Uint16Array | Float64Array | Int32Array | Uint8Array | Int8Array;

// WebGPU keeps the cache in GPU buffers: it comes down once here and goes back up as an input.
async function hostValues(tensor: Tensor): Promise<Values> {
  if (tensor.location === 'cpu' || tensor.location === 'cpu-pinned') return tensor.data as Values;
  const values = await tensor.ort_tensor.getData() as Values;
  tensor.dispose();
  return values;
}

// Each tensor of `cache` ([batch, heads, positions, headDim]) rebuilt by `copy`, into new dims.
async function rebuild(cache: KvCache, dimsOf: (dims: number[]) => number[],
                       copy: (from: Values, to: Values, dims: number[]) => void): Promise<KvCache> {
  const rebuilt: KvCache = {};
  for (const [name, tensor] of Object.entries(cache)) {
    const from = await hostValues(tensor);
    const dims = dimsOf(tensor.dims);
    const to = new (from.constructor as new (length: number) => Values)(dims.reduce((a, b) => a * b, 1));
    copy(from, to, tensor.dims);
    rebuilt[name] = new Tensor(tensor.type, to, dims);
  }
  return rebuilt;
}

/** The positions the cache holds. */
export function cachedLength(cache: KvCache | undefined): number {
  const first = cache && Object.values(cache)[0];
  return first ? first.dims[2] : 0;
}

/** The cache of the first `length` positions only (the sequence axis, 2, cut). */
export async function truncateCache(cache: KvCache, length: number): Promise<KvCache> {
  if (cachedLength(cache) === length) return cache;
  const batch = Object.values(cache)[0].dims[0];
  return selectPrefix(cache, Array.from({ length: batch }, (_, row) => row), length);
}

/** The cache whose batch row j is the first `length` positions of row `rows[j]` of `cache`: selectRows and truncateCache in one copy. */
export async function selectPrefix(cache: KvCache, rows: ArrayLike<number>, length: number): Promise<KvCache> {
  return rebuild(cache, ([, heads, , width]) => [rows.length, heads, length, width], (from, to, [, heads, positions, width]) => {
    for (let j = 0; j < rows.length; j++) {
      for (let head = 0; head < heads; head++) {
        const block = rows[j] * heads + head;
        to.set(from.subarray(block * positions * width, (block * positions + length) * width), (j * heads + head) * length * width);
      }
    }
  });
}

/** The cache whose batch row j is row `rows[j]` of `cache` (the batch axis, 0, gathered). */
export async function selectRows(cache: KvCache, rows: ArrayLike<number>): Promise<KvCache> {
  const batch = Object.values(cache)[0]?.dims[0];
  if (Array.from(rows).every((row, j) => row === j) && rows.length === batch) return cache;
  return rebuild(cache, ([, ...rest]) => [rows.length, ...rest], (from, to, [, heads, positions, width]) => {
    const size = heads * positions * width;
    for (let j = 0; j < rows.length; j++) to.set(from.subarray(rows[j] * size, (rows[j] + 1) * size), j * size);
  });
}
