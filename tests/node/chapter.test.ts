// The chapter's later experiments through the package: handbook figures exactly, simulations
// within their standard errors.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab, type SequenceHandbookResult, type SequenceRandomResult } from 'sampling-lab';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

it('sequence: best (B, b1) 0.36, greedy (A, a1) 0.30, beam 2 finds the best', () => {
  const r = lab.runExperiment('sequence') as SequenceHandbookResult;
  expect(r.best.path).toEqual([1, 0]);
  expect(r.best.prob.toFixed(2)).toBe('0.36');
  expect(r.greedy.path).toEqual([0, 0]);
  expect(r.greedy.prob.toFixed(2)).toBe('0.30');
  expect(r.beams.map((b) => b.path)).toEqual([[0, 0], [1, 0]]);
});

it('sequence: on random models greedy misses and the exhaustive width never does', () => {
  const r = lab.runExperiment('sequence', { mode: 'random', vocab: 3, depth: 3, models: 100, seed: 1 }) as SequenceRandomResult;
  expect(r.greedyMisses).toBeGreaterThan(0);
  expect(r.beams.at(-1)).toMatchObject({ width: 9, misses: 0 });
});

it('speculative: acceptance 0.700 within 4 standard errors, output equals p, 2.77 tokens', () => {
  const r = lab.runExperiment('speculative');
  expect(r.acceptance.theory.toFixed(3)).toBe('0.700');
  expect(Math.abs(r.acceptance.empirical - 0.7)).toBeLessThan(4 * r.acceptance.standardError);
  r.output.frequencies.forEach((f, i) => {
    const p = [0.5, 0.3, 0.15, 0.05][i];
    expect(Math.abs(f - p)).toBeLessThan(4 * Math.sqrt(p * (1 - p) / 200_000));
  });
  expect(r.output.chiSquare.pValue).toBeGreaterThan(1e-6);
  expect(r.expectedTokens.formula.toFixed(2)).toBe('2.77');
});

it('speculative: the pitfall is caught by chi-square at n = 200,000', () => {
  const r = lab.runExperiment('speculative', { topK: 2, mode: 'pitfall' });
  expect(r.output.chiSquare.pValue).toBeLessThan(1e-6);
  expect(lab.runExperiment('speculative', { topK: 2 }).output.chiSquare.pValue).toBeGreaterThan(1e-6);
});

it('importance: true mean 6.20, ESS = n when p = q, ESS falls with the shift', () => {
  const r = lab.runExperiment('importance');
  expect(r.trueMean.toFixed(2)).toBe('6.20');
  expect(r.rows.map((row) => row.shift)).toEqual([0, 1, 3]);
  expect(r.rows[0].ess).toBe(1000);
  expect(r.rows[1].ess).toBeLessThan(1000);
  expect(r.rows[2].ess).toBeLessThan(r.rows[1].ess);
});

it('importance: TIS has lower variance and larger bias than plain IS at shift 3', () => {
  const row = lab.runExperiment('importance', { shifts: [3], repeats: 400 }).rows[0];
  expect(row.estimators!.tis.std).toBeLessThan(row.estimators!.none.std);
  expect(Math.abs(row.estimators!.tis.bias)).toBeGreaterThan(Math.abs(row.estimators!.none.bias));
  expect(row.estimates!.none).toHaveLength(400);
});

it('sample-size: exercise 2 needs about 1150 per configuration', () => {
  const r = lab.runExperiment('sample-size');
  expect(r.n).toBeCloseTo(1152, 6);
  expect(Math.round(r.n / 50) * 50).toBe(1150);
  expect(() => lab.runExperiment('sample-size', { mode: 'nope' as never })).toThrow(expect.objectContaining({ argument: 'mode' }));
  expect(() => lab.runExperiment('sample-size', { delta: 0 })).toThrow(expect.objectContaining({ argument: 'delta' }));
});

it('bad trees and settings name their argument', () => {
  expect(() => lab.runExperiment('sequence', { tree: [0.6, 0.4, 0.5, 0.5, 0.9] })).toThrow(expect.objectContaining({ argument: 'tree' }));
  expect(() => lab.runExperiment('sequence', { tree: [0.6, 0.5, 0.5, 0.5, 0.9, 0.1] })).toThrow(expect.objectContaining({ argument: 'tree' }));
  expect(() => lab.runExperiment('speculative', { q: [0.5, 0.5] })).toThrow(expect.objectContaining({ argument: 'q' }));
  expect(() => lab.runExperiment('importance', { clip: -1 })).toThrow(expect.objectContaining({ argument: 'clip' }));
});
