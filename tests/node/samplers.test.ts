// Sampling through the package: the four methods, the per-token sampler, batches, the RNG
// stream against the native build, and the Monte-Carlo experiments.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab, type SamplingMethod } from 'sampling-lab/experiments';
import { randomLogits } from '../support/reference-sampler';
import { bincount, chiSquare } from '../support/statistics';
import { runNative } from '../support/native';

const METHODS: SamplingMethod[] = ['inverse-cdf', 'gumbel-max', 'exponential-race', 'alias'];
const P = [0.5, 0.25, 0.15, 0.07, 0.03];
// Rejecting at p < 1e-6: a correct sampler fails a check once in a million.
const ALPHA = 1e-6;
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });


describe('samplers experiment (the chapter\'s three samplers agree)', () => {
  it('each method matches p within 4 standard errors and passes chi-square', () => {
    const result = lab.runExperiment('samplers');
    expect(result.methods.map((m) => m.name)).toEqual(METHODS);
    const n = 200_000;
    for (const method of result.methods) {
      method.frequencies.forEach((f, i) => {
        expect(Math.abs(f - P[i])).toBeLessThan(4 * Math.sqrt(P[i] * (1 - P[i]) / n));
      });
      expect(method.maxDeviation).toBeLessThan(0.005);
      expect(method.chiSquare.dof).toBe(4);
      expect(method.chiSquare.pValue).toBeGreaterThan(ALPHA);
      expect(method.nanosPerSample).toBeGreaterThan(0);
    }
  });

  it('is deterministic for a seed and changes with it', () => {
    const strip = (r: ReturnType<Lab['runExperiment']>) => (r as { methods: { frequencies: number[] }[] }).methods.map((m) => m.frequencies);
    expect(strip(lab.runExperiment('samplers', { n: 5000, seed: 3 }))).toEqual(strip(lab.runExperiment('samplers', { n: 5000, seed: 3 })));
    expect(strip(lab.runExperiment('samplers', { n: 5000, seed: 3 }))).not.toEqual(strip(lab.runExperiment('samplers', { n: 5000, seed: 4 })));
  });

  it('rejects a wrong distribution: draws from p tested against p with 2 % moved', () => {
    const wrong = [0.49, 0.26, 0.15, 0.07, 0.03];
    const n = 200_000;
    for (const method of lab.runExperiment('samplers', { n }).methods) {
      expect(chiSquare(method.frequencies.map((f) => Math.round(f * n)), wrong).pValue).toBeLessThan(ALPHA);
    }
  });
});

describe('lab.sample', () => {
  for (const method of METHODS) {
    it(`${method}: logits at T and probabilities agree with softmax by chi-square`, () => {
      const logits = [2, 1.5, 0, -1, 0.3, 1];
      const probs = lab.distribution(logits, { temperature: 0.7 }).probs;
      for (const [input, options] of [[logits, { temperature: 0.7 }], [probs, { isProbs: true }]] as const) {
        const draws = lab.sample(input, { method, n: 100_000, seed: 11, ...options });
        expect(chiSquare(bincount(draws, logits.length), probs).pValue).toBeGreaterThan(ALPHA);
      }
    });
  }

  it('same seed, same draws; other seed or stream, other draws', () => {
    const a = lab.sample(P, { isProbs: true, n: 1000, seed: 1, method: 'alias' });
    expect(lab.sample(P, { isProbs: true, n: 1000, seed: 1, method: 'alias' })).toEqual(a);
    expect(lab.sample(P, { isProbs: true, n: 1000, seed: 2, method: 'alias' })).not.toEqual(a);
    expect(lab.sample(P, { isProbs: true, n: 1000, seed: 1, stream: 1, method: 'alias' })).not.toEqual(a);
  });

  it('rejects a bad method, n and seed by name', () => {
    expect(() => lab.sample(P, { isProbs: true, method: 'nope' as SamplingMethod })).toThrow(expect.objectContaining({ argument: 'method' }));
    expect(() => lab.sample(P, { isProbs: true, n: 0 })).toThrow(expect.objectContaining({ argument: 'n' }));
    expect(() => lab.sample(P, { isProbs: true, seed: -1 })).toThrow(expect.objectContaining({ argument: 'seed' }));
    expect(() => lab.sample(P, { isProbs: true, seed: 0.5 })).toThrow(expect.objectContaining({ argument: 'seed' }));
  });
});

describe('sampleToken and sampleBatch', () => {
  const V = 151936;
  const logits = randomLogits(V, 21, 3);
  const options = { temperature: 0.8, topK: 100, topP: 0.9, minP: 0.02 };

  it('never returns a filtered token and follows the filtered distribution (chi-square)', () => {
    const { probs, kept } = lab.distribution(logits, options);
    // The model's logits written once into WebAssembly memory, as a generation loop would.
    const resident = lab.logitsBuffer(V);
    resident.set(logits);
    const draws = new Int32Array(20_000);
    for (let step = 0; step < draws.length; step++) {
      draws[step] = lab.sampleToken(resident, { ...options, seed: 5, step });
      if (!(probs[draws[step]] > 0)) throw new Error(`token ${draws[step]} was filtered out`);
    }
    const fit = chiSquare(bincount(draws, V), probs);
    expect(kept).toBeGreaterThan(10);
    expect(fit.dof).toBeGreaterThan(10);
    expect(fit.pValue).toBeGreaterThan(ALPHA);
  });

  it('temperature 0 is the argmax', () => {
    expect(lab.sampleToken([0.1, 5, 5, 2], { temperature: 0, seed: 9 })).toBe(1);
  });

  it('a seeded row gives the same token alone or inside any batch', () => {
    const rows = [randomLogits(1000, 1, 3), randomLogits(1000, 2, 3), randomLogits(1000, 3, 3), randomLogits(1000, 4, 3)];
    const params = [
      { topK: 0, topP: 0.9, seed: 1, stream: 10, step: 0 },
      { topK: 50, topP: 1, seed: 2, stream: 11, step: 0 },
      { topK: 5, topP: 0.5, seed: 3, stream: 12, step: 0, generatedIds: [1, 2, 2], presencePenalty: 0.5 },
      { topK: 20, topP: 0.7, temperature: 0, seed: 4, stream: 13, step: 0 },
    ];
    const batch = lab.sampleBatch(rows, params);
    const alone = rows.map((row, r) => lab.sampleToken(row, params[r]));
    expect(Array.from(batch)).toEqual(alone);
    const reordered = lab.sampleBatch([rows[2], rows[0]], [params[2], params[0]]);
    expect(Array.from(reordered)).toEqual([alone[2], alone[0]]);
    const flat = new Float32Array(4000);
    rows.forEach((row, r) => flat.set(row, r * 1000));
    expect(Array.from(lab.sampleBatch(flat, params))).toEqual(alone);
    expect(batch[3]).toBe(rows[3].indexOf(Math.max(...rows[3])));
  });

  it('serving book batch: per-row k and p keep [6, 50, 1, 8]-like counts and sample inside them', () => {
    const rows = [1, 2, 3, 4].map((s) => randomLogits(1000, 100 + s, 3));
    const params = [{ topK: 0, topP: 0.9 }, { topK: 50, topP: 1 }, { topK: 5, topP: 0.5 }, { topK: 20, topP: 0.7 }];
    const tokens = lab.sampleBatch(rows, params.map((p, r) => ({ ...p, seed: r })));
    tokens.forEach((token, r) => expect(lab.distribution(rows[r], params[r]).probs[token]).toBeGreaterThan(0));
    expect(lab.distribution(rows[1], params[1]).kept).toBe(50);
  });

  it('bad rows and keys name their argument', () => {
    expect(() => lab.sampleBatch([[1, 2], [1, 2, 3]], [{}, {}])).toThrow(expect.objectContaining({ argument: 'logitsRows' }));
    expect(() => lab.sampleBatch([[1, 2]], [{}, {}])).toThrow(expect.objectContaining({ argument: 'options' }));
    expect(() => lab.sampleBatch([[1, NaN]], [{}])).toThrow(expect.objectContaining({ argument: 'logitsRows' }));
    expect(() => lab.sampleToken([1, 2], { step: -1 })).toThrow(expect.objectContaining({ argument: 'step' }));
    expect(() => lab.sampleToken([1, 2], { topP: 2 })).toThrow(expect.objectContaining({ argument: 'topP' }));
    expect(lab.sampleToken([1, 2, 3], { topK: 1 })).toBe(2);
  });
});

describe('random stream', () => {
  it('is identical in the native build and in WebAssembly', () => {
    for (const [seed, stream] of [[0, 0], [20241129, 7], [2 ** 40 + 3, 2 ** 33]]) {
      const native = runNative('sampling_lab_philox_words', [String(seed), String(stream), '1000']).trim().split('\n').map(Number);
      expect(Array.from(lab.randomWords(seed, stream, 1000))).toEqual(native);
    }
  });
});

describe('Monte-Carlo error experiments', () => {
  it('mc-error: std within 5 % of sqrt(p(1-p)/n) (the chapter: 0.0458 and 0.0046)', () => {
    const progress: number[] = [];
    const result = lab.runExperiment('mc-error', {}, { onProgress: (f) => progress.push(f) });
    expect(result.rows.map((r) => r.n)).toEqual([100, 10000]);
    expect(result.rows[0].theory).toBeCloseTo(0.0458, 4);
    expect(result.rows[1].theory).toBeCloseTo(0.0046, 4);
    for (const row of result.rows) expect(Math.abs(row.std / row.theory - 1)).toBeLessThan(0.05);
    expect(progress.length).toBeGreaterThan(5);
    expect(progress.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= progress[i - 1]))).toBe(true);
  });

  it('eval-error: 200 questions at 70 % have a standard error of about 3 points', () => {
    const result = lab.runExperiment('eval-error');
    expect(result.standardError).toBeCloseTo(0.0324, 4);
    expect(result.interval95[0]).toBeCloseTo(0.6332, 4);
    expect(result.interval95[1]).toBeCloseTo(0.7593, 4);
  });

  it('refuses runs too large to finish', () => {
    expect(() => lab.runExperiment('mc-error', { ns: [1e7], repeats: 1000 })).toThrow(expect.objectContaining({ argument: 'ns' }));
  });
});
