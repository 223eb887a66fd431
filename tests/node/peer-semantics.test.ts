// What a developer calling the lab as peers are called gets: fresh randomness without a seed, a
// generator's steps with a seed alone, −∞ as a masked token, the options that read the history
// given it in the logits processor (transformers.js's own processors agree), and peers' names.
import { NoBadWordsLogitsProcessor, NoRepeatNGramLogitsProcessor, Tensor } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';
import { createLogitsProcessor } from 'sampling-lab/transformers';

let lab: Lab;
beforeAll(async () => {
  lab = await loadSamplingLab();
});

// Two-sided p-value of a count of successes against independent Bernoulli(p_i): its χ² with one
// degree of freedom (the normal approximation; 2,000 rows of p ≈ 0.16).
function chiSquarePValue(count: number, probabilities: number[]): number {
  const mean = probabilities.reduce((s, p) => s + p, 0);
  const variance = probabilities.reduce((s, p) => s + p * (1 - p), 0);
  const z = Math.abs(count - mean) / Math.sqrt(variance);
  return erfc(z / Math.SQRT2);
}

// Abramowitz & Stegun 7.1.26 is too coarse in the tail: erfc by its continued fraction.
function erfc(x: number): number {
  if (x < 2) {
    // The series of erf converges quickly here.
    let term = x, sum = x;
    for (let n = 1; n < 60; n++) {
      term *= -x * x / n;
      sum += term / (2 * n + 1);
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  let fraction = 0;
  for (let n = 60; n >= 1; n--) fraction = (n / 2) / (x + fraction);
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / (x + fraction);
}

describe('randomness', () => {
  let rows: Float32Array[];
  beforeAll(() => {
    rows = Array.from({ length: 2000 }, (_, i) => lab.syntheticLogits(1000, i + 1));
  });
  // The top token of each row and its probability at T 1.
  const tops = () => rows.map((row) => ({ token: lab.ranking(row)[0], p: lab.distribution(row).topProb }));

  const topFrequency = (draw: (row: Float32Array, i: number) => number) => {
    const expected = tops();
    const count = rows.reduce((n, row, i) => n + Number(draw(row, i) === expected[i].token), 0);
    return { count, pValue: chiSquarePValue(count, expected.map((t) => t.p)) };
  };

  it('draws fresh randomness without a seed, and steps a seeded stream, each matching Σ topProb (χ²)', async () => {
    const fresh = await loadSamplingLab();
    const unseeded = topFrequency((row) => fresh.sampleToken(row, { temperature: 1 }));
    const seeded = topFrequency((row) => fresh.sampleToken(row, { temperature: 1, seed: 2 }));
    console.log(`top-token χ² p-values: no seed ${unseeded.pValue.toPrecision(3)}, seed 2 ${seeded.pValue.toPrecision(3)}`);
    expect(unseeded.pValue).toBeGreaterThan(1e-4);
    expect(seeded.pValue).toBeGreaterThan(1e-4);
  });

  it('fails the same test with the old behaviour, one Philox block for every call (negative control)', () => {
    const old = topFrequency((row) => lab.sampleToken(row, { temperature: 1, seed: 2, step: 0 }));
    console.log(`top-token χ² p-value of block 0 every call: ${old.pValue.toPrecision(3)} (${old.count} top tokens)`);
    expect(old.pValue).toBeLessThan(1e-4);
  });

  it('gives many tokens over 50 calls on one row, with no seed and with a seed alone', () => {
    const row = lab.syntheticLogits(1000, 5);
    for (const options of [{}, { seed: 9 }]) {
      const tokens = new Set(Array.from({ length: 50 }, () => lab.sampleToken(row, options)));
      expect(tokens.size, JSON.stringify(options)).toBeGreaterThan(10);
    }
  });

  it('replays a seeded stream from a fresh lab, keeps an explicit step exact, and steps each (seed, stream) alone', async () => {
    const row = lab.syntheticLogits(1000, 5);
    const [a, b] = [await loadSamplingLab(), await loadSamplingLab()];
    const run = (l: Lab, stream: number) => Array.from({ length: 20 }, () => l.sampleToken(row, { seed: 4, stream, topP: 0.9 }));
    const first = run(a, 0);
    run(a, 1);  // another stream does not move stream 0's steps
    expect(run(b, 0)).toEqual(first);
    expect(first).toEqual(Array.from({ length: 20 }, (_, step) => lab.sampleToken(row, { seed: 4, stream: 0, step, topP: 0.9 })));
    expect(run(a, 0)).not.toEqual(first);  // the same lab goes on from step 20
  });

  it('gives sampleBatch, sample, createSampler and beam search fresh draws without a seed', () => {
    const row = lab.syntheticLogits(1000, 6);
    const batches = new Set(Array.from({ length: 20 }, () => lab.sampleBatch([row, row], {}).join()));
    expect(batches.size).toBeGreaterThan(10);
    const samples = new Set(Array.from({ length: 20 }, () => lab.sample(row, { n: 3 }).join()));
    expect(samples.size).toBeGreaterThan(10);
    const samplers = new Set(Array.from({ length: 20 }, () => lab.createSampler({}).sample(row)));
    expect(samplers.size).toBeGreaterThan(5);
    expect(lab.sample(row, { n: 5, seed: 3 })).toEqual(lab.sample(row, { n: 5, seed: 3 }));
  });
});

describe('−∞ is a masked token', () => {
  it('is never drawn, on every entry, and a −∞ bias is a ban', () => {
    const row = Float32Array.of(-Infinity, 1, 2, -Infinity, 0.5);
    for (let step = 0; step < 200; step++) {
      const token = lab.sampleToken(row, { seed: 1, step });
      expect(token === 0 || token === 3).toBe(false);
    }
    expect(lab.distribution(row).probs[0]).toBe(0);
    expect(lab.stages(row, { topK: 2 }).cutBy[0]).toBe(lab.masksCode);
    expect(lab.sampleBatch([row, row], { seed: 1 })).not.toContain(0);
    expect(lab.createSampler({ seed: 2 }).sample(row)).not.toBe(0);
    expect(lab.sampleToken(Float32Array.of(1, 5), { temperature: 0, logitBias: { 1: -Infinity } })).toBe(0);
    const logprobs = lab.sampleToken(row, { seed: 1, logprobs: 5 });
    expect(logprobs.top.map((t) => t.token)).not.toContain(0);
  });

  it('matches bannedTokens on the same ids for top-nσ, adaptive-p, mirostat and dynamic temperature', () => {
    const clean = lab.syntheticLogits(151936, 3);
    const banned = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 151936);
    banned.push(lab.ranking(clean)[0]);
    const lowest = lab.range(clean).min;
    const masked = clean.slice();
    const lowered = clean.slice();
    for (const id of banned) {
      masked[id] = -Infinity;
      lowered[id] = lowest;
    }
    for (const options of [{ topNSigma: 1 }, { adaptiveP: { target: 0.3 } }, { mirostat: { version: 2 as const } }, { dynatemp: { range: 0.8 } }]) {
      expect(lab.distribution(masked, options).kept).toBe(lab.distribution(clean, { ...options, bannedTokens: banned }).kept);
      for (let step = 0; step < 20; step++) {
        expect(lab.sampleToken(masked, { ...options, seed: 3, step }), JSON.stringify(options))
          .toBe(lab.sampleToken(lowered, { ...options, bannedTokens: banned, seed: 3, step }));
      }
    }
  });

  it('is masked in the experiments that take logits: filters as bannedTokens, temperature with those tokens at 0', async () => {
    const experiments = await loadExperimentLab();
    const clean = lab.syntheticLogits(5000, 4);
    const banned = [lab.ranking(clean)[0], 7, 99, 1234];
    const masked = clean.slice();
    for (const id of banned) masked[id] = -Infinity;
    const options = { temperature: 0.8, topP: 0.9, topNSigma: 2 };
    const withMask = experiments.runExperiment('filters', { logits: masked, ...options });
    const withBans = experiments.runExperiment('filters', { logits: clean, ...options, bannedTokens: banned });
    expect(Array.from(withMask.probs)).toEqual(Array.from(withBans.probs));
    expect(withMask.kept).toBe(withBans.kept);
    for (const id of banned) expect(withMask.tempered[id]).toBe(0);
    const rows = experiments.runExperiment('temperature', { logits: masked, temperatures: [0.5, 1] }).rows;
    expect(rows[0].topProb).toBeGreaterThan(0);
    expect(() => experiments.runExperiment('filters', { logits: Float32Array.of(-Infinity, -Infinity) })).toThrowError(/no finite logit/);
    expect(() => experiments.runExperiment('temperature', { logits: Float32Array.of(NaN, 1) })).toThrowError(SamplingLabError);
  });

  it('refuses NaN, +∞ and a row with no finite logit with a typed error naming logits', () => {
    for (const row of [Float32Array.of(NaN, 1), Float32Array.of(Infinity, 1), Float32Array.of(-Infinity, -Infinity)]) {
      expect(() => lab.sampleToken(row)).toThrowError(SamplingLabError);
      try {
        lab.sampleToken(row);
      } catch (error) {
        expect((error as SamplingLabError).argument).toBe('logits');
      }
    }
  });
});

describe('peer names', () => {
  it('refuses an empty allowedTokens and an empty allowedMask, as vLLM and transformers refuse an empty allow-list', () => {
    const row = Float32Array.of(1, 2, 3);
    for (const options of [{ allowedTokens: [] }, { allowedMask: new Uint32Array(0) }]) {
      expect(() => lab.sampleToken(row, options)).toThrowError(/allows no token/);
    }
  });

  it('reads penaltyLastN as llama.cpp: 0 turns the penalties off, −1 sees the whole history', () => {
    const row = Float32Array.of(3, 3.1, 0);
    const penalised = { temperature: 0, presencePenalty: 1, generatedIds: [1] };
    expect(lab.sampleToken(row, { ...penalised, penaltyLastN: -1 })).toBe(0);
    expect(lab.sampleToken(row, { ...penalised, penaltyLastN: 0 })).toBe(1);
    expect(lab.sampleToken(row, penalised)).toBe(0);  // the default is −1
  });

  it('scopes promptIds as vLLM: the repetition penalty sees them, presence does not', () => {
    const row = Float32Array.of(3, 2.9, 0);
    expect(lab.sampleToken(row, { temperature: 0, repetitionPenalty: 1.1, promptIds: [0] })).toBe(1);
    expect(lab.sampleToken(row, { temperature: 0, presencePenalty: 1, promptIds: [0] })).toBe(0);
  });

  it('keeps minKeep tokens through top-p', () => {
    const row = Float32Array.of(0, 1, 20);
    expect(lab.distribution(row, { topP: 0.5 }).kept).toBe(1);
    expect(lab.distribution(row, { topP: 0.5, minKeep: 2 }).kept).toBe(2);
  });
});

describe('the logits processor gets the history for every option that reads it', () => {
  const vocab = 6;
  // Random histories and logits; a row transformers.js's processor bans entirely is skipped.
  const trials = () => Array.from({ length: 300 }, (_, t) => {
    const words = lab.randomWords(t, 0, 12);
    const history = Array.from({ length: words[0] % 7 }, (_, i) => BigInt(words[1 + i] % 4));
    const logits = Float32Array.from({ length: vocab }, (_, i) => (words[(i + 5) % 12] % 1000) / 100);
    return { history, logits };
  });
  const ours = (options: Record<string, unknown>, history: bigint[], logits: Float32Array) => {
    const scores = new Tensor('float32', logits.slice(), [1, vocab]);
    const out = createLogitsProcessor(lab, { temperature: 0, seed: 1, ...options })([history], scores).data as Float32Array;
    return out.findIndex((x) => x !== -Infinity);
  };
  const theirs = (processor: (ids: bigint[][], logits: Tensor) => Tensor, history: bigint[], logits: Float32Array) => {
    const out = processor([history], new Tensor('float32', logits.slice(), [1, vocab])).data as Float32Array;
    let best = -1;
    for (let i = 0; i < vocab; i++) if (out[i] !== -Infinity && (best < 0 || out[i] > out[best])) best = i;
    return best;
  };

  it('bans badWords (multi-token, different lengths) as transformers.js NoBadWordsLogitsProcessor', () => {
    expect(ours({ badWords: [[5, 3]] }, [1n, 5n], Float32Array.of(0, 0, 0, 9, 0, 0))).not.toBe(3);
    const badWords = [[1], [2, 0], [0, 1, 3], [1, 3, 1, 5], [2, 2, 4]];
    let compared = 0;
    for (const { history, logits } of trials()) {
      const expected = theirs(new NoBadWordsLogitsProcessor(badWords, 5) as never, history, logits);
      if (expected < 0) continue;
      expect(ours({ badWords }, history, logits)).toBe(expected);
      compared++;
    }
    expect(compared).toBeGreaterThan(250);
  });

  for (const size of [1, 2, 3]) {
    it(`bans as transformers.js NoRepeatNGramLogitsProcessor(${size})`, () => {
      let compared = 0;
      for (const { history, logits } of trials()) {
        const expected = theirs(new NoRepeatNGramLogitsProcessor(size) as never, history, logits);
        if (expected < 0) continue;
        expect(ours({ noRepeatNgramSize: size }, history, logits)).toBe(expected);
        compared++;
      }
      expect(compared).toBeGreaterThan(200);
    });
  }
});
