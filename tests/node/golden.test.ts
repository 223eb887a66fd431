// The native build's output of every experiment with its defaults (the golden file, written by
// build/native/sampling_lab_golden) against the WebAssembly build's, in one loop.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { runNative } from '../support/native';

// Both builds compute in float32 with SIMD of different widths, so sums round differently.
const RELATIVE = 1e-5;
const ABSOLUTE = 1e-9;
// Wall-clock fields differ by nature.
const TIMING_FIELDS = new Set(['nanosPerSample']);

let lab: Lab;
let golden: Record<string, unknown>;
beforeAll(async () => {
  lab = await loadSamplingLab();
  golden = JSON.parse(runNative('sampling_lab_golden'));
});

/** Paths where `actual` differs from `expected` beyond float tolerance. */
function differences(actual: unknown, expected: unknown, path = ''): string[] {
  if (typeof expected === 'number' && typeof actual === 'number') {
    return Math.abs(actual - expected) <= RELATIVE * Math.abs(expected) + ABSOLUTE ? [] : [`${path}: ${actual} vs ${expected}`];
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (actual.length !== expected.length) return [`${path}: length ${actual.length} vs ${expected.length}`];
    return expected.flatMap((e, i) => differences(actual[i], e, `${path}[${i}]`));
  }
  if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].filter((k) => !TIMING_FIELDS.has(k))
      .flatMap((k) => differences((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return actual === expected ? [] : [`${path}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`];
}

it('covers every experiment', () => {
  expect(Object.keys(golden)).toEqual(lab.experiments.map((e) => e.name));
});

it('WebAssembly gives the native build\'s result for every experiment', () => {
  for (const { name } of lab.experiments) {
    expect(differences(lab.runExperiment(name), golden[name], name)).toEqual([]);
  }
});
