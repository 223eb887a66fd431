// Hostile use of the package: callbacks that throw or stop, inputs of the wrong JavaScript type,
// calls at the size limits, and long loops; the module must keep answering and hold its memory flat.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { argumentOf } from '../support/errors';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

const P = [0.5, 0.25, 0.15, 0.07, 0.03];

/** Every public function still gives its known answer. */
function expectWorking(): void {
  expect(lab.distribution([3, 2.5, 2], { topK: 2 }).kept).toBe(2);
  expect(lab.sampleToken([0, 9, 1], { temperature: 0 })).toBe(1);
  expect(Array.from(lab.sampleBatch([[0, 9], [9, 0]], [{ temperature: 0 }, { temperature: 0 }]))).toEqual([1, 0]);
  expect(lab.sample(P, { isProbs: true, n: 10, method: 'alias' })).toHaveLength(10);
  expect(lab.coverCount([0.5, 0.2, 0.15, 0.1, 0.05], 0.75, { isProbs: true })).toBe(3);
  expect(lab.distance([0.5, 0.5], [0.5, 0.5]).tv).toBe(0);
  expect(lab.runExperiment('sample-size').perConfiguration).toBe(1152);
}

it('10,000 throwing progress callbacks in a row leak nothing and leave every function working', () => {
  const run = () => lab.runExperiment('mc-error', { ns: [100], repeats: 100 }, { onProgress: () => { throw new RangeError('stop'); } });
  expect(run).toThrow(RangeError);
  const before = lab.memory().heapInUse;
  for (let i = 0; i < 10_000; i++) expect(run).toThrow(RangeError);
  expect(lab.memory().heapInUse).toBe(before);
  expectWorking();
});

it('a progress callback that returns false stops a long run, and a stopped run leaks nothing', () => {
  const stop = () => {
    expect(argumentOf(() => lab.sample(P, { isProbs: true, n: 1 << 22, method: 'alias', onProgress: () => false }))).toBe('onProgress');
    expect(argumentOf(() => lab.runExperiment('samplers', { n: 2_000_000 }, { onProgress: () => false }))).toBe('onProgress');
    lab.distribution([1, 2]);  // hands back what the large call grew
  };
  stop();
  const before = lab.memory().heapInUse;
  for (let i = 0; i < 100; i++) stop();
  expect(lab.memory().heapInUse).toBe(before);
  const fractions: number[] = [];
  lab.sample(lab.syntheticLogits(), { method: 'gumbel-max', n: 40, onProgress: (f) => { fractions.push(f); } });
  expect(fractions.length).toBeGreaterThan(3);
  expect(fractions.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= fractions[i - 1]))).toBe(true);
  expectWorking();
});

it('loops of 10^5 sampleToken, 10^5 distribution and 10^3 runExperiment calls hold memory flat', () => {
  const logits = lab.syntheticLogits(2000, 3);
  const loop = (calls: number, call: (i: number) => unknown) => { for (let i = 0; i < calls; i++) call(i); };
  const measure = () => ({ heap: lab.memory().heapInUse, wasm: lab.memory().memoryBytes, rss: process.memoryUsage().rss });
  loop(1000, (step) => lab.sampleToken(logits, { topP: 0.9, seed: 1, step, generatedIds: [1, 2, 3] }));
  loop(1000, () => lab.distribution(logits, { minP: 0.05 }));
  loop(50, () => lab.runExperiment('filters', { topK: 3 }));
  const warm = measure();
  loop(100_000, (step) => lab.sampleToken(logits, { topP: 0.9, seed: 1, step, generatedIds: [1, 2, 3] }));
  loop(100_000, () => lab.distribution(logits, { minP: 0.05 }));
  loop(1000, () => lab.runExperiment('filters', { topK: 3 }));
  const after = measure();
  expect(after.heap).toBe(warm.heap);
  expect(after.wasm).toBe(warm.wasm);
  // JavaScript's own garbage comes and goes; a leak per call would be hundreds of MB here.
  expect(after.rss - warm.rss).toBeLessThan(64 << 20);
});

it('calls at the size limits succeed, and give their memory back for later ones', () => {
  const base = lab.memory().heapInUse;
  for (let round = 0; round < 3; round++) {
    const buffer = lab.logitsBuffer(lab.maxVocabulary);
    buffer.fill(0);
    buffer[7] = 1;
    expect(lab.sampleToken(buffer, { temperature: 0 })).toBe(7);
    const rows = new Float32Array(lab.maxVocabulary);
    expect(lab.sampleBatch(rows, Array.from({ length: 16 }, () => ({ topK: 1 })))).toHaveLength(16);
    expect(lab.sample([1], { isProbs: true, n: lab.maxVocabulary, method: 'inverse-cdf' })).toHaveLength(lab.maxVocabulary);
    lab.logitsBuffer(10);
    lab.distribution([1, 2]);
  }
  // The resident buffer stays reserved (64 MiB), and buffers of up to 2^20 elements are kept for reuse.
  expect(lab.memory().heapInUse).toBeLessThan(base + (64 << 20) + (8 << 20));
  expect(argumentOf(() => lab.logitsBuffer(lab.maxVocabulary + 1))).toBe('vocabSize');
  expect(argumentOf(() => lab.sample(lab.syntheticLogits(), { method: 'gumbel-max', n: 10_000 }))).toBe('n');
  expectWorking();
});

it('inputs of the wrong JavaScript type get a typed error naming the argument', () => {
  const sparse = [1, 2, 3];
  delete sparse[1];
  const cases: [() => unknown, string][] = [
    [() => lab.distribution(sparse), 'logits'],
    [() => lab.distribution([1, 2n as never]), 'logits'],
    [() => lab.distribution(new BigInt64Array(3) as never), 'logits'],
    [() => lab.distribution(null as never), 'logits'],
    [() => lab.sampleBatch([null as never, [1, 2]], [{}, {}]), 'logitsRows[0]'],
    [() => lab.sampleBatch([[1, 2], undefined as never], [{}, {}]), 'logitsRows[1]'],
    [() => lab.sampleToken([1, 2], { topK: 10n as never }), 'topK'],
    [() => lab.sampleToken([1, 2], { generatedIds: [1.5] }), 'generatedIds'],
    [() => lab.sample(P, { isProbs: 'yes' as never }), 'isProbs'],
    [() => lab.coverCount(P, 0.9, { isProbs: 1 as never }), 'isProbs'],
    [() => lab.runExperiment('filters', {}, { onProgress: 5 as never }), 'onProgress'],
    [() => lab.sampleToken([1, 2], { topK: 2 ** 32 + 1 }), 'topK'],
    [() => lab.sample(P, { isProbs: true, n: 2 ** 32 + 1 }), 'n'],
    [() => lab.runExperiment('sequence', { mode: 'random', vocab: 2 ** 32 + 3 }), 'vocab'],
  ];
  for (const [call, argument] of cases) {
    expect(argumentOf(call)).toBe(argument);
    expectWorking();
  }
});

it('a logitsBuffer view detached by memory growth gives a typed error, and a new one works', async () => {
  // A module of its own, whose memory is still small: the draws below must grow it.
  const own = await loadSamplingLab();
  const small = own.logitsBuffer(8);
  small.set([0, 0, 5, 0, 0, 0, 0, 0]);
  expect(own.sampleToken(small, { temperature: 0 })).toBe(2);
  own.sample([1], { isProbs: true, n: own.maxVocabulary, seed: 1 });
  expect(small.buffer.byteLength).toBe(0);  // the growth detached the view: the case this test is about
  expect(argumentOf(() => own.sampleToken(small))).toBe('logits');
  const fresh = own.logitsBuffer(8);
  fresh.set([0, 0, 0, 5, 0, 0, 0, 0]);
  expect(own.sampleToken(fresh, { temperature: 0 })).toBe(3);
});

it('extreme temperatures and penalties never give NaN or a token outside the vocabulary', () => {
  const logits = lab.syntheticLogits(1000, 5);
  for (const temperature of [1e-40, 1e-20, 1e-6, 1e6, 1e300]) {
    const { probs } = lab.distribution(logits, { temperature, topP: 0.9 });
    expect(probs.every((p) => Number.isFinite(p))).toBe(true);
    const token = lab.sampleToken(logits, { temperature, seed: 1 });
    expect(token).toBeGreaterThanOrEqual(0);
    expect(token).toBeLessThan(1000);
  }
  const huge = new Float32Array(1000).fill(3e38);
  for (const options of [{ repetitionPenalty: 1e4 }, { presencePenalty: -1e4 }, { frequencyPenalty: 1e4 }]) {
    const { probs } = lab.distribution(huge, { ...options, generatedIds: [1, 1, 2] });
    expect(probs.every((p) => Number.isFinite(p))).toBe(true);
    expect(lab.sampleToken(huge, { ...options, generatedIds: [1, 1, 2], seed: 3 })).toBeLessThan(1000);
  }
});
