// Bad input throws a typed error naming the argument, and the module keeps working.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { argumentOf } from '../support/errors';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });


const cases: [string, () => unknown, string][] = [
  ['NaN logit', () => lab.distribution([1, NaN, 2]), 'logits'],
  ['+Inf logit', () => lab.distribution(new Float32Array([1, Infinity])), 'logits'],
  ['no finite logit', () => lab.distribution(new Float64Array([-Infinity, -Infinity])), 'logits'],
  ['logit beyond float32', () => lab.distribution([1e300, 0]), 'logits'],
  ['empty logits', () => lab.distribution([]), 'logits'],
  ['not an array', () => lab.distribution('1,2,3' as never), 'logits'],
  ['negative temperature', () => lab.distribution([1, 2], { temperature: -1 }), 'temperature'],
  ['k < 0', () => lab.distribution([1, 2], { topK: -1 }), 'topK'],
  ['fractional k', () => lab.distribution([1, 2], { topK: 1.5 }), 'topK'],
  ['p = 0', () => lab.distribution([1, 2], { topP: 0 }), 'topP'],
  ['p > 1', () => lab.distribution([1, 2], { topP: 1.01 }), 'topP'],
  ['min_p < 0', () => lab.distribution([1, 2], { minP: -0.1 }), 'minP'],
  ['min_p > 1', () => lab.distribution([1, 2], { minP: 2 }), 'minP'],
  ['string option', () => lab.distribution([1, 2], { topP: '0.5' as never }), 'topP'],
  ['unknown option', () => lab.distribution([1, 2], { topQ: 0.5 } as never), 'topQ'],
  ['generated id out of range', () => lab.distribution([1, 2], { generatedIds: [2] }), 'generatedIds'],
  ['repetition penalty 0', () => lab.distribution([1, 2], { repetitionPenalty: 0, generatedIds: [0] }), 'repetitionPenalty'],
  ['absurd size', () => lab.distribution({ length: 2 ** 40 } as never), 'logits'],
  ['absurd typed size', () => lab.coverCount(new Float32Array(lab.maxVocabulary + 1), 0.9), 'logits'],
  ['mass 0', () => lab.coverCount([1, 2], 0), 'mass'],
  ['non-normalised probs', () => lab.coverCount([0.5, 0.6], 0.9, { isProbs: true }), 'probs'],
  ['negative probs', () => lab.coverCount([1.5, -0.5], 0.9, { isProbs: true }), 'probs'],
  ['mismatched lengths', () => lab.distance([0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]), 'q'],
  ['unnormalised p', () => lab.distance([0.9, 0.9], [0.5, 0.5]), 'p'],
  ['unknown experiment', () => lab.runExperiment('nope' as never), 'experiment'],
  ['unknown parameter', () => lab.runExperiment('filters', { topq: 1 } as never), 'topq'],
  ['experiment NaN logits', () => lab.runExperiment('filters', { logits: [1, NaN] }), 'logits'],
  // Logits cross as float32: a double past its range is refused, not rounded to −∞ (a mask).
  ['experiment logits past float32', () => lab.runExperiment('filters', { logits: [1, -1e39] }), 'logits'],
  ['experiment Float64Array logits past float32', () => lab.runExperiment('filters', { logits: Float64Array.of(1, -1e39) }), 'logits'],
  ['experiment bad p', () => lab.runExperiment('filters', { topP: 1.5 }), 'topP'],
  ['experiment bad mass', () => lab.runExperiment('temperature', { mass: -1 }), 'mass'],
  ['experiment bad temperatures', () => lab.runExperiment('temperature', { temperatures: [1, -2] }), 'temperatures'],
];

for (const [name, call, argument] of cases) {
  it(`${name} names ${argument} and leaves the module working`, () => {
    expect(argumentOf(call)).toBe(argument);
    expect(lab.distribution([3, 2.5, 2], { topK: 2 }).kept).toBe(2);
  });
}

it('a long run of failures does not grow memory', () => {
  const logits = new Float32Array(100_000).fill(1);
  logits[5] = NaN;
  for (let i = 0; i < 200; i++) expect(argumentOf(() => lab.distribution(logits))).toBe('logits');
  logits[5] = 0;
  expect(lab.distribution(logits, { topK: 10 }).kept).toBe(10);
});

it('a wasmBinary that is not the entry\'s module (the other one, not WebAssembly) is an error for wasmBinary, and loading goes on', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { loadSamplingLab: loadSampler, SamplingLabError } = await import('sampling-lab');
  const dist = join(__dirname, '../../wasm/dist');
  const core = readFileSync(join(dist, 'sampling-lab-core.wasm'));
  const experiments = readFileSync(join(dist, 'sampling-lab-experiments.wasm'));
  const wrong: [() => Promise<unknown>, string][] = [
    [() => loadSamplingLab({ wasmBinary: core }), 'sampling-lab-experiments.wasm'],
    [() => loadSampler({ wasmBinary: experiments }), 'sampling-lab-core.wasm'],
    [() => loadSampler({ wasmBinary: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }), 'sampling-lab-core.wasm'],
    [() => loadSampler({ wasmBinary: new Uint8Array([1, 2, 3]) }), 'sampling-lab-core.wasm'],
  ];
  for (const [load, file] of wrong) {
    const error = await load().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(SamplingLabError);
    expect((error as InstanceType<typeof SamplingLabError>).argument).toBe('wasmBinary');
    expect((error as Error).message).toContain(`this build's ${file}`);
    expect((error as Error).message).not.toContain('ASSERTIONS');
  }
  expect((await loadSampler({ wasmBinary: core })).sampleToken([0, 5, 1], { temperature: 0 })).toBe(1);
});
