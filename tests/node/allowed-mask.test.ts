// allowedMask on 151,936 logits: the same draws as allowedTokens on the same set for the same key
// everywhere options go, never a masked token, the allowed ones at their renormalised rates, and
// the errors that name it.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import { chiSquare } from '../support/statistics.js';

let lab: Lab;
let logits: Float32Array;
const V = 151936;

beforeAll(async () => {
  lab = await loadSamplingLab();
  logits = lab.syntheticLogits(V, 3);
});

// A mask of the tokens `keep(i)` selects, and the same set as a list.
function maskOf(keep: (i: number) => boolean): { mask: Uint32Array; ids: number[] } {
  const mask = new Uint32Array(Math.ceil(V / 32));
  const ids: number[] = [];
  for (let i = 0; i < V; i++) {
    if (!keep(i)) continue;
    mask[i >>> 5] |= 1 << (i & 31);
    ids.push(i);
  }
  return { mask, ids };
}

const allows = (mask: Uint32Array, token: number) => ((mask[token >>> 5] >>> (token & 31)) & 1) === 1;

it('draws what allowedTokens draws on the same set, in every entry point', () => {
  const { mask, ids } = maskOf((i) => (i * 2654435761) % 97 < 30);
  const signed = new Int32Array(mask.buffer);
  const paths = [{ temperature: 0.8 }, { topP: 0.9 }, { topK: 40, temperature: 1.2 }, { minP: 0.05 }, { temperature: 0 }, { typicalP: 0.9 }];
  for (const [p, options] of paths.entries()) {
    for (let step = 0; step < 40; step++) {
      const key = { seed: 7, stream: p, step };
      const listed = lab.sampleToken(logits, { ...options, ...key, allowedTokens: ids });
      expect(lab.sampleToken(logits, { ...options, ...key, allowedMask: mask })).toBe(listed);
      expect(lab.sampleToken(logits, { ...options, ...key, allowedMask: signed })).toBe(listed);
      expect(allows(mask, listed)).toBe(true);
    }
  }
  const options = { topP: 0.95, seed: 3 };
  expect(lab.distribution(logits, { ...options, allowedMask: mask }).probs).toEqual(lab.distribution(logits, { ...options, allowedTokens: ids }).probs);
  const staged = lab.stages(logits, { ...options, allowedMask: mask });
  expect(staged.stages[0]).toEqual({ filter: 'masks', kept: ids.length });
  expect(staged.cutBy).toEqual(lab.stages(logits, { ...options, allowedTokens: ids }).cutBy);
  // sampleBatch: a mask per row (one of them none), or one for every row.
  const rows = [logits, logits, logits];
  const perRow = lab.sampleBatch(rows, [{ ...options, step: 1, allowedMask: mask }, { ...options, step: 2 }, { ...options, step: 3, allowedMask: mask }]);
  expect(Array.from(perRow)).toEqual([1, 2, 3].map((step) => lab.sampleToken(logits, { ...options, step, ...(step !== 2 && { allowedMask: mask }) })));
  expect(Array.from(lab.sampleBatch(rows, { ...options, step: [4, 5, 6], allowedMask: [mask, mask, mask] })))
    .toEqual([4, 5, 6].map((step) => lab.sampleToken(logits, { ...options, step, allowedTokens: ids })));
  // The stateful sampler and speculative verification take it like any option.
  const sampler = lab.createSampler({ ...options, allowedMask: mask });
  expect([0, 1, 2].map(() => sampler.sample(logits))).toEqual([0, 1, 2].map((step) => lab.sampleToken(logits, { ...options, step, allowedTokens: ids })));
  const draft = lab.syntheticLogits(V, 4);
  const drafted = lab.sampleToken(draft, { ...options, stream: lab.draftStream(0), step: 10, allowedMask: mask });
  const verified = lab.speculativeVerify([logits, logits], [draft], [drafted], { ...options, step: 10, allowedMask: mask });
  expect(verified).toEqual(lab.speculativeVerify([logits, logits], [draft], [drafted], { ...options, step: 10, allowedTokens: ids }));
});

// 10^5 draws on 151,936 logits in two tests of 5·10^4 (each inside the time a test may take),
// from 48 allowed tokens among the most probable few thousand, so that each has a rate to test.
const drawn = { counts: new Map<number, number>(), masked: 0, steps: 0 };
let allowedIds: number[] = [];

function drawMasked(draws: number): void {
  const order = lab.ranking(logits);
  const chosen = new Set(Array.from({ length: 48 }, (_, j) => order[j * 37 + 1]));
  const { mask, ids } = maskOf((i) => chosen.has(i));
  allowedIds = ids;
  const buffer = lab.logitsBuffer(V);
  buffer.set(logits);
  for (let d = 0; d < draws; d++) {
    const token = lab.sampleToken(buffer, { allowedMask: mask, seed: 11, step: drawn.steps++ });
    if (!chosen.has(token)) drawn.masked++;
    else drawn.counts.set(token, (drawn.counts.get(token) ?? 0) + 1);
  }
}

it('never draws a masked token: draws 1 to 5·10^4', () => {
  drawMasked(50_000);
  expect(drawn.masked).toBe(0);
});

it('never draws a masked token in 10^5 draws, and draws the allowed ones at their renormalised rates', () => {
  drawMasked(50_000);
  expect(drawn.steps).toBe(100_000);
  expect(drawn.masked).toBe(0);
  // The reference: softmax over the allowed logits, in double.
  const top = Math.max(...allowedIds.map((id) => logits[id]));
  const weights = allowedIds.map((id) => Math.exp(logits[id] - top));
  const total = weights.reduce((a, b) => a + b, 0);
  const { pValue } = chiSquare(allowedIds.map((id) => drawn.counts.get(id) ?? 0), weights.map((w) => w / total));
  console.log(`allowedMask χ² over ${allowedIds.length} allowed tokens, 10^5 draws: p = ${pValue.toPrecision(3)}`);
  expect(pValue).toBeGreaterThan(1e-3);
});

it('names allowedMask when it is all zero, of the wrong length or not a typed array of words', () => {
  const error = (options: object) => {
    try {
      lab.sampleToken(logits, options);
    } catch (caught) {
      expect(caught).toBeInstanceOf(SamplingLabError);
      return (caught as SamplingLabError).argument + ': ' + (caught as Error).message;
    }
    return 'no error';
  };
  expect(error({ allowedMask: new Uint32Array(4748) })).toMatch(/^allowedMask: .*allows no token/);
  expect(error({ allowedMask: new Uint32Array(4747).fill(~0) })).toMatch(/^allowedMask: allowedMask has 4747 words; 151936 tokens need 4748/);
  expect(error({ allowedMask: [1, 2, 3] })).toMatch(/^allowedMask: .*Uint32Array or Int32Array/);
  expect(error({ allowedMask: new Float32Array(4748) })).toMatch(/^allowedMask: /);
  // Bits past the vocabulary are not read: 100 tokens, 4 words, only token 120 set.
  const small = new Uint32Array(4);
  small[3] = 1 << 24;
  expect(() => lab.sampleToken(new Float32Array(100), { allowedMask: small })).toThrow(/allows no token/);
  const { mask } = maskOf((i) => i === 5);
  expect(error({ allowedMask: mask, allowedTokens: [6] })).toMatch(/^allowedTokens: /);
  expect(lab.sampleToken(logits, { allowedMask: mask, allowedTokens: [5, 6] })).toBe(5);
  expect(() => lab.checkOptions({ allowedMask: mask }, 100)).toThrow(/allowedMask has 4748 words; 100 tokens need 4/);
  expect(error({ allowedMask: new Uint32Array(2 ** 19 + 1) })).toMatch(/^allowedMask: allowedMask has 524289 entries; at most 524288/);
});
