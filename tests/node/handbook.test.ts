// The decoding chapter's printed figures, reproduced exactly through the built package.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';

const EXAMPLE = [3, 2.5, 2, 1, 0.5, 0, -1, -2];
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

const round3 = (xs: ArrayLike<number>) => Array.from(xs, (x) => Math.round(x * 1000) / 1000);

describe('decoding chapter example', () => {
  it('gives the printed probabilities', () => {
    expect(round3(lab.distribution(EXAMPLE).probs)).toEqual([0.441, 0.268, 0.162, 0.06, 0.036, 0.022, 0.008, 0.003]);
    expect(round3(lab.runExperiment('filters').probs)).toEqual([0.441, 0.268, 0.162, 0.06, 0.036, 0.022, 0.008, 0.003]);
  });

  it('keeps 3 / 3 / 4 / 2 tokens', () => {
    expect(lab.distribution(EXAMPLE, { topK: 3 }).kept).toBe(3);
    expect(lab.distribution(EXAMPLE, { topP: 0.8 }).kept).toBe(3);
    expect(lab.distribution(EXAMPLE, { minP: 0.1 }).kept).toBe(4);
    expect(lab.distribution(EXAMPLE, { temperature: 0.5, topP: 0.8 }).kept).toBe(2);
    expect(lab.runExperiment('filters', { minP: 0.1 }).kept).toBe(4);
  });

  it('top-p exercise: 0.75 keeps 3 and 0.5 keeps 1', () => {
    const logits = [0.5, 0.2, 0.15, 0.1, 0.05].map(Math.log);
    expect(lab.distribution(logits, { topP: 0.75 }).kept).toBe(3);
    expect(lab.distribution(logits, { topP: 0.5 }).kept).toBe(1);
    expect(lab.coverCount([0.5, 0.2, 0.15, 0.1, 0.05], 0.75, { isProbs: true })).toBe(3);
  });

  it('presence 0.5 + frequency 0.2 on ids [1,1,3] shifts the logits by [0, -0.9, 0, -0.7, 0]', () => {
    const { probs } = lab.distribution(new Float32Array(5), {
      presencePenalty: 0.5, frequencyPenalty: 0.2, generatedIds: [1, 1, 3],
    });
    const shifts = Array.from(probs, (p) => Math.log(p / probs[0]));
    [0, -0.9, 0, -0.7, 0].forEach((s, i) => expect(shifts[i]).toBeCloseTo(s, 6));
  });

  it('repetition penalty divides positive logits and multiplies negative ones', () => {
    const { probs } = lab.distribution([2, -2, 0], { repetitionPenalty: 2, generatedIds: [0, 1] });
    expect(Math.log(probs[0] / probs[2])).toBeCloseTo(1, 6);
    expect(Math.log(probs[1] / probs[2])).toBeCloseTo(-4, 6);
  });

  it('temperature 0 is greedy with ties to the lowest index', () => {
    const result = lab.distribution([1, 4, 4, 2], { temperature: 0 });
    expect(Array.from(result.probs)).toEqual([0, 1, 0, 0]);
    expect(result.kept).toBe(1);
  });

  it('reports kept mass, entropy and top probability of the filtered distribution', () => {
    const full = lab.distribution(EXAMPLE).probs;
    const top3 = lab.distribution(EXAMPLE, { topK: 3 });
    const mass = full[0] + full[1] + full[2];
    expect(top3.keptMass).toBeCloseTo(mass, 6);
    expect(top3.topProb).toBeCloseTo(full[0] / mass, 6);
    const entropy = -Array.from(top3.probs).filter((p) => p > 0).reduce((a, p) => a + p * Math.log2(p), 0);
    expect(top3.entropyBits).toBeCloseTo(entropy, 5);
  });

  it('distance: the serving chapter acceptance 0.700 for p against uniform q', () => {
    const d = lab.distance([0.5, 0.3, 0.15, 0.05], new Float64Array([0.25, 0.25, 0.25, 0.25]));
    expect(d.tv).toBeCloseTo(0.3, 6);
    expect(d.overlap).toBeCloseTo(0.7, 6);
    expect(d.kl).toBeCloseTo([0.5, 0.3, 0.15, 0.05].reduce((a, p) => a + p * Math.log(p / 0.25), 0), 6);
  });

  it('temperature experiment runs on the synthetic 151,936-token vocabulary', () => {
    const result = lab.runExperiment('temperature');
    expect(result.vocabSize).toBe(151936);
    expect(result.rows.map((r) => r.temperature)).toEqual([0.5, 1, 1.5]);
    const counts = result.rows.map((r) => r.tokensForMass);
    expect(counts[0]).toBeLessThan(counts[1]);
    expect(counts[1]).toBeLessThan(counts[2]);
  });

  it('lists every experiment with its defaults', () => {
    const names = lab.experiments.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['filters', 'temperature']));
    expect(lab.experiments.find((e) => e.name === 'filters')!.defaults).toMatchObject({ temperature: 1, topK: 0, topP: 1, minP: 0 });
  });
});

describe('charts helpers', () => {
  it('ranking sorts by value with ties to the lower id', () => {
    expect(Array.from(lab.ranking([1, 3, 3, 2]))).toEqual([1, 2, 3, 0]);
  });

  it('synthetic logits are the temperature experiment default', () => {
    const logits = lab.syntheticLogits();
    expect(logits.length).toBe(151936);
    expect(lab.runExperiment('temperature', { logits })).toEqual(lab.runExperiment('temperature'));
    expect(Array.from(lab.syntheticLogits(100, 1))).not.toEqual(Array.from(lab.syntheticLogits(100, 2)));
  });
});
