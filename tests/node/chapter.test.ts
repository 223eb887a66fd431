// The package's typed API beside the experiments: penalties, greedy, kept mass, distances, the
// synthetic vocabulary, and the schemas the experiments publish.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab, type SequenceHandbookResult, type SequenceRandomResult } from 'sampling-lab/experiments';
import { chiSquare } from '../support/statistics';

const EXAMPLE = [3, 2.5, 2, 1, 0.5, 0, -1, -2];
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

it('lab.distribution gives the filters experiment\'s distribution', () => {
  for (const options of [{}, { topK: 3 }, { temperature: 0.5, topP: 0.8 }, { minP: 0.1 }]) {
    expect(lab.distribution(EXAMPLE, options).probs).toEqual(lab.runExperiment('filters', options).probs);
  }
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
  const r = lab.runExperiment('filters', { topK: 3 });
  const mass = r.tempered[0] + r.tempered[1] + r.tempered[2];
  expect(r.keptMass).toBeCloseTo(mass, 6);
  expect(r.topProb).toBeCloseTo(r.tempered[0] / mass, 6);
  const entropy = -r.probs.filter((p) => p > 0).reduce((a, p) => a + p * Math.log2(p), 0);
  expect(r.entropyBits).toBeCloseTo(entropy, 5);
  expect(r.tokensFor90).toBe(lab.coverCount(EXAMPLE, 0.9));
});

it('distance: TV, KL and overlap', () => {
  const p = [0.5, 0.3, 0.15, 0.05];
  const d = lab.distance(p, new Float64Array([0.25, 0.25, 0.25, 0.25]));
  expect(d.tv).toBeCloseTo(0.3, 6);
  expect(d.overlap).toBeCloseTo(1 - d.tv, 6);
  expect(d.kl).toBeCloseTo(p.reduce((a, x) => a + x * Math.log(x / 0.25), 0), 6);
});

it('distance in double: inputs are not rounded to float32, and q = 0 < p gives KL = Infinity', () => {
  const d = lab.distance([0.6, 0.4], [0.2, 0.8]);
  // float32 inputs gave 0.4000000134 (1.3e-8 off); double arithmetic is off by an ulp at most.
  expect(Math.abs(d.tv - 0.4)).toBeLessThan(1e-15);
  expect(Math.abs(d.overlap - 0.6)).toBeLessThan(1e-15);
  expect(Math.abs(d.kl - (0.6 * Math.log(3) + 0.4 * Math.log(0.5)))).toBeLessThan(1e-15);
  expect(lab.distance([0.5, 0.5], [1, 0])).toEqual({ tv: 0.5, kl: Infinity, overlap: 0.5 });
  // Float32Array inputs are read as they are.
  expect(lab.distance(Float32Array.of(0.6, 0.4), Float32Array.of(0.2, 0.8)).tv).toBe((Math.fround(0.6) - Math.fround(0.2) + Math.fround(0.8) - Math.fround(0.4)) / 2);
});

it('temperature experiment: hotter is flatter on the synthetic 151,936-token vocabulary', () => {
  const result = lab.runExperiment('temperature');
  expect(result.vocabSize).toBe(lab.qwen3Vocabulary);
  const counts = result.rows.map((r) => r.tokensForMass);
  expect(counts[0]).toBeLessThan(counts[1]);
  expect(counts[1]).toBeLessThan(counts[2]);
  expect(lab.runExperiment('temperature', { logits: lab.syntheticLogits() })).toEqual(result);
});

it('ranking sorts by value with ties to the lower id; synthetic logits depend on the seed', () => {
  expect(Array.from(lab.ranking([1, 3, 3, 2]))).toEqual([1, 2, 3, 0]);
  expect(Array.from(lab.syntheticLogits(100, 1))).not.toEqual(Array.from(lab.syntheticLogits(100, 2)));
});

it('sequence: the handbook tree\'s leaves, their sampled frequencies and draws without replacement', () => {
  const r = lab.runExperiment('sequence') as SequenceHandbookResult;
  expect(r.beams.map((b) => b.path)).toEqual([[0, 0], [1, 0]]);
  expect(r.leaves.map((l) => l.path)).toEqual([[1, 0], [0, 0], [0, 1], [1, 1]]);
  const samples = 10000;
  const fit = chiSquare(r.leaves.map((l) => Math.round(l.sampled * samples)), r.leaves.map((l) => l.prob));
  expect(fit.pValue).toBeGreaterThan(1e-6);
  expect(new Set(r.withoutReplacement.map((w) => w.path.join()))).toHaveProperty('size', 2);
});

it('sequence: on random models greedy misses and the exhaustive width never does', () => {
  const r = lab.runExperiment('sequence', { mode: 'random', vocab: 3, depth: 3, models: 100, seed: 1 }) as SequenceRandomResult;
  expect(r.greedyMisses).toBeGreaterThan(0);
  expect(r.beams.at(-1)).toMatchObject({ width: 9, misses: 0 });
});

it('speculative: the output follows p, the pitfall is caught by chi-square, the residual is norm(max(0, p − q))', () => {
  const exact = lab.runExperiment('speculative', { topK: 2 });
  expect(exact.output.chiSquare.pValue).toBeGreaterThan(1e-6);
  expect(lab.runExperiment('speculative', { topK: 2, mode: 'pitfall' }).output.chiSquare.pValue).toBeLessThan(1e-6);
  const r = lab.runExperiment('speculative');
  expect(Array.from(r.residual, (x) => +x.toFixed(6))).toEqual([0.833333, 0.166667, 0, 0]);
});

it('importance: TIS has lower variance and larger bias than plain IS at shift 3; histograms hold every repeat', () => {
  const row = lab.runExperiment('importance', { shifts: [3], repeats: 400 }).rows[0];
  expect(row.estimators!.tis.std).toBeLessThan(row.estimators!.none.std);
  expect(Math.abs(row.estimators!.tis.bias)).toBeGreaterThan(Math.abs(row.estimators!.none.bias));
  for (const counts of Object.values(row.histogram!.counts)) expect(counts.reduce((a, b) => a + b, 0)).toBe(400);
  expect(row.histogram!.edges).toHaveLength(41);
});

it('bad trees and settings name their argument', () => {
  const argument = (call: () => unknown) => { try { call(); } catch (e) { return (e as { argument: string }).argument; } return 'none'; };
  expect(argument(() => lab.runExperiment('sequence', { tree: [0.6, 0.4, 0.5, 0.5, 0.9] }))).toBe('tree');
  expect(argument(() => lab.runExperiment('sequence', { tree: [0.6, 0.5, 0.5, 0.5, 0.9, 0.1] }))).toBe('tree');
  expect(argument(() => lab.runExperiment('speculative', { q: [0.5, 0.5] }))).toBe('q');
  expect(argument(() => lab.runExperiment('importance', { clip: -1 }))).toBe('clip');
  expect(argument(() => lab.runExperiment('sample-size', { mode: 'nope' as never }))).toBe('mode');
  expect(argument(() => lab.runExperiment('sample-size', { mode: 'proportions', p1: 0.5, p2: 0.5 }))).toBe('p2');
});
