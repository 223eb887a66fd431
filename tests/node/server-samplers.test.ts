// The samplers servers have, through the package: dynatemp, p-less, adaptive-p (with a stateful
// sampler's moving average), noRepeatNgramSize and badWords, and the typed errors of each.
import { describe, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { errorOf } from '../support/errors';

const lab: Lab = await loadSamplingLab();
const logits = lab.syntheticLogits();

const zeros = (probs: Float32Array) => probs.reduce((n, p) => n + (p === 0 ? 1 : 0), 0);

describe('samplers servers have', () => {
  it('publishes each option, off by default: the same distribution as none', () => {
    const names = lab.options.map((o) => o.name);
    for (const name of ['dynatemp.range', 'dynatemp.exponent', 'pLess', 'adaptiveP.target', 'adaptiveP.decay',
      'adaptiveP.average', 'noRepeatNgramSize', 'badWords.ids', 'badWords.lengths']) expect(names).toContain(name);
    expect(lab.stageNames).toContain('pLess');
    expect(lab.stageNames.at(-1)).toBe('adaptiveP');
    const off = lab.distribution(logits, {
      dynatemp: { range: 0, exponent: 2 }, pLess: 0, adaptiveP: { target: null }, noRepeatNgramSize: 0, badWords: [],
    }).probs;
    expect(off).toEqual(lab.distribution(logits).probs);
  });

  it('dynatemp: range 0 is plain temperature; exponent 0 the top of the range', () => {
    expect(lab.distribution(logits, { temperature: 0.7, dynatemp: { range: 0 } }).probs)
      .toEqual(lab.distribution(logits, { temperature: 0.7 }).probs);
    const top = lab.distribution(logits, { temperature: 1, dynatemp: { range: 0.5, exponent: 0 } }).probs;
    const plain = lab.distribution(logits, { temperature: 1.5, topK: logits.length }).probs;
    for (let i = 0; i < 1000; i++) expect(top[i]).toBeCloseTo(plain[i], 7);
    // One-hot at T <= range: the bottom of the range is 0, greedy.
    const oneHot = new Float32Array(1000).fill(-200);
    oneHot[3] = 0;
    expect(lab.distribution(oneHot, { temperature: 0.5, dynatemp: { range: 1 } }).kept).toBe(1);
  });

  it('p-less keeps p >= Σ p²: everything of a uniform row, one token of a one-hot row', () => {
    expect(lab.distribution(new Float32Array(5000), { pLess: 1 }).kept).toBe(5000);
    const oneHot = new Float32Array(5000).fill(-300);
    oneHot[11] = 1;
    expect(lab.distribution(oneHot, { pLess: 1 }).kept).toBe(1);
    const { probs, kept } = lab.distribution(logits, { pLess: 1 });
    let collision = 0;
    const plain = lab.distribution(logits).probs;
    for (const p of plain) collision += p * p;
    // Each kept token at or above the threshold, each cut one below it (float32 rounding aside).
    let misplaced = 0;
    for (let i = 0; i < plain.length; i++) {
      if (probs[i] > 0 ? plain[i] < collision * (1 - 1e-5) : plain[i] > collision * (1 + 1e-5)) misplaced++;
    }
    expect(misplaced).toBe(0);
    expect(kept).toBeGreaterThan(1);
    expect(lab.stages(logits, { pLess: 1 }).stages).toEqual([{ filter: 'pLess', kept }]);
  });

  it('adaptive-p: a stateful sampler moves its average as llama.cpp does, and its state restores it', () => {
    const row = lab.syntheticLogits(2000, 5);
    const options = { adaptiveP: { target: 0.3, decay: 0.8 }, minP: 0.02, seed: 3 };
    const sampler = lab.createSampler(options);
    const before = lab.distribution(row, { minP: 0.02 }).probs;
    let average = 0.3;
    for (let step = 0; step < 20; step++) {
      const token = sampler.sample(row);
      expect(token).toBe(lab.sampleToken(row, { ...options, adaptiveP: { ...options.adaptiveP, average }, step }));
      average = 0.2 * before[token] + 0.8 * average;
      expect(sampler.state.adaptivePAverage).toBeCloseTo(average, 6);
    }
    const restored = lab.createSampler(options, JSON.parse(JSON.stringify(sampler.state)));
    expect(Array.from({ length: 5 }, () => restored.sample(row))).toEqual(Array.from({ length: 5 }, () => sampler.sample(row)));
    sampler.reset();
    expect(sampler.state.adaptivePAverage).toBeNull();
  });

  it('noRepeatNgramSize: sampleToken with generatedIds and a stateful sampler never repeat an n-gram, and agree', () => {
    const row = lab.syntheticLogits(50, 7);
    const options = { noRepeatNgramSize: 2, temperature: 2, seed: 9 };
    const sampler = lab.createSampler(options);
    const seen = new Set<string>();
    for (let step = 0; step < 40; step++) {
      const history = sampler.state.history;
      const token = sampler.sample(row);
      expect(token).toBe(lab.sampleToken(row, { ...options, generatedIds: history, step }));
      if (history.length > 0) {
        const bigram = `${history.at(-1)} ${token}`;
        expect(seen.has(bigram)).toBe(false);
        seen.add(bigram);
      }
    }
  });

  it('badWords bans a sequence\'s last id after the rest; a one-id sequence always', () => {
    const row = new Float32Array(8);
    const { probs } = lab.distribution(row, { badWords: [[1, 2, 3], [2, 5], [7]], generatedIds: [0, 1, 2] });
    expect([...probs].map((p, i) => (p === 0 ? i : -1)).filter((i) => i >= 0)).toEqual([3, 5, 7]);  // "… 1 2", "… 2", always
    expect(lab.stages(row, { badWords: [new Int32Array([4])] }).stages).toEqual([{ filter: 'masks', kept: 7 }]);
    expect(zeros(lab.distribution(row, { badWords: [[1, 2, 3]], generatedIds: [2] }).probs)).toBe(0);
  });

  it('names the argument of every bad value', () => {
    const cases: [string, () => unknown, string][] = [
      ['noRepeatNgramSize −1', () => lab.sampleToken(logits, { noRepeatNgramSize: -1 }), 'noRepeatNgramSize'],
      ['noRepeatNgramSize 1.5', () => lab.sampleToken(logits, { noRepeatNgramSize: 1.5 }), 'noRepeatNgramSize'],
      ['badWords empty sequence', () => lab.sampleToken(logits, { badWords: [[1], []] }), 'badWords'],
      ['badWords not nested', () => lab.sampleToken(logits, { badWords: [1, 2] as never }), 'badWords'],
      ['badWords id outside', () => lab.sampleToken(new Float32Array(10), { badWords: [[3, 10]] }), 'badWords.ids'],
      ['badWords id fractional', () => lab.sampleToken(logits, { badWords: [[0.5]] }), 'badWords'],
      ['badWords too long', () => lab.sampleToken(logits, { badWords: [new Array(65537).fill(1)] }), 'badWords'],
      ['dynatemp.range −1', () => lab.sampleToken(logits, { dynatemp: { range: -1 } }), 'dynatemp.range'],
      ['dynatemp unknown field', () => lab.sampleToken(logits, { dynatemp: { rnage: 1 } as never }), 'rnage'],
      ['pLess 2', () => lab.sampleToken(logits, { pLess: 2 }), 'pLess'],
      ['pLess true', () => lab.sampleToken(logits, { pLess: true as never }), 'pLess'],
      ['adaptiveP.decay 1', () => lab.sampleToken(logits, { adaptiveP: { target: 0.5, decay: 1 } }), 'adaptiveP.decay'],
      ['adaptiveP with mirostat', () => lab.sampleToken(logits, { adaptiveP: { target: 0.5 }, mirostat: { version: 2 } }), 'adaptiveP'],
      ['state.adaptivePAverage 2', () => lab.createSampler({}, { history: [], step: 0, mirostatMu: null, adaptivePAverage: 2 }), 'state.adaptivePAverage'],
      ['every token banned', () => lab.sampleToken(new Float32Array(3), { noRepeatNgramSize: 1, generatedIds: [0, 1, 2] }), 'noRepeatNgramSize'],
    ];
    for (const [label, call, argument] of cases) {
      const error = errorOf(call);
      expect(error.argument, label).toBe(argument);
    }
    // The module keeps working.
    expect(lab.sampleToken(logits, { pLess: 1, seed: 1 })).toBeGreaterThanOrEqual(0);
  });

  it('bans that leave none of the tokens a mask allows are an error in every entry point, speculative positions included', () => {
    const mask = new Uint32Array(Math.ceil(logits.length / 32));
    mask[0] = (1 << 5) | (1 << 6);
    const bad = { allowedMask: mask, badWords: [[5], [6]] };
    const repeats = { allowedMask: mask, noRepeatNgramSize: 1, generatedIds: [5, 6] };
    const cases: [string, () => unknown, string][] = [
      ['sampleToken', () => lab.sampleToken(logits, bad), 'badWords'],
      ['logprobs', () => lab.sampleToken(logits, { ...bad, logprobs: 3 }), 'badWords'],
      ['processed logprobs', () => lab.sampleToken(logits, { ...repeats, logprobs: 3, logprobsMode: 'processed' }), 'noRepeatNgramSize'],
      ['distribution', () => lab.distribution(logits, repeats), 'noRepeatNgramSize'],
      ['sampleBatch', () => lab.sampleBatch([logits], [bad]), 'badWords'],
      ['speculativeVerify', () => lab.speculativeVerify([logits, logits], [logits], [5], bad), 'badWords'],
    ];
    for (const [label, call, argument] of cases) expect(errorOf(call).argument, label).toBe(argument);
    // History [5] leaves 6 at the first position; the draft 6 leaves nothing at the second.
    const options = { allowedMask: mask, noRepeatNgramSize: 1, generatedIds: [5], seed: 2 };
    expect(lab.sampleToken(logits, { ...options, logprobs: 2 }).token).toBe(6);
    for (const temperature of [0, 1]) {
      const error = errorOf(() => lab.speculativeVerify([logits, logits], [logits], [6], { ...options, temperature }));
      expect(error.argument).toBe('noRepeatNgramSize');
      expect(error.message).toMatch(/position 1/);
    }
  });
});
