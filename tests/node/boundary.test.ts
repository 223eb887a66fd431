// Issue 17's reproducers, one row each: every input the README forbids is a SamplingLabError
// naming the right argument (never a TypeError, a silent coercion or garbage), every input it
// allows gives a correct result, and the module keeps working after each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { argumentOf } from '../support/errors';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });


const z = [3, 1, 2, 0.5, -1];
const holey = (values: number[], hole: number) => {
  const copy = [...values];
  delete copy[hole];
  return copy;
};
const cyclic: Record<string, unknown> = { n: 10 };
cyclic.self = cyclic;

describe('typed errors naming the argument', () => {
  const cases: [string, () => unknown, string][] = [
    // Holes read as token 0 before.
    ['hole in bannedTokens', () => lab.distribution([5, 1, 1], { bannedTokens: holey([1, 0, 2], 1) }), 'bannedTokens'],
    ['hole in generatedIds', () => lab.sampleToken(z, { generatedIds: holey([1, 2, 3], 1), repetitionPenalty: 1.2 }), 'generatedIds'],
    ['hole in dry.sequenceBreakers', () => lab.sampleToken(z, { dry: { multiplier: 1, sequenceBreakers: holey([1, 2], 0) } }), 'dry.sequenceBreakers'],
    ['hole in order', () => lab.sampleToken(z, { order: holey(['topK', 'topP'] as never, 0) as never }), 'order'],
    ['hole in logitBias biases', () => lab.sampleToken(z, { logitBias: [[1, 2], holey([1, 1], 1)] }), 'logitBias'],
    ['hole in a per-row column', () => lab.sampleBatch([z, z], { topP: holey([0.5, 0.5], 1) as never }), 'topP'],
    ['hole among the rows', () => lab.sampleBatch([z, z], holey([{}, {}] as never, 1) as never), 'options'],
    ['hole in experiment array', () => lab.runExperiment('samplers', { p: holey([0.5, 0.25, 0.25], 1) }), 'p'],
    // logitBias keys that are not canonical ids, and a Map.
    ...['', '0x1', '1e1', ' 1 ', '01', '-1', '1.5'].map((key): [string, () => unknown, string] =>
      [`logitBias key '${key}'`, () => lab.sampleToken(z, { logitBias: { [key]: 1 } }), 'logitBias']),
    ['logitBias as a Map', () => lab.sampleToken(z, { logitBias: new Map([[1, 5]]) as never }), 'logitBias'],
    // Sampler state and tokens outside int32 or the vocabulary limit.
    ['state.history 2^32', () => lab.createSampler({}, { history: [2 ** 32], step: 0, mirostatMu: null }), 'state.history'],
    ['state.history −1', () => lab.createSampler({}, { history: [-1], step: 0, mirostatMu: null }), 'state.history'],
    ['state.history hole', () => lab.createSampler({}, { history: holey([1, 2], 0), step: 0, mirostatMu: null }), 'state.history'],
    ['state.step −1', () => lab.createSampler({}, { history: [], step: -1, mirostatMu: null }), 'state.step'],
    ['state.step fractional', () => lab.createSampler({}, { history: [], step: 1.5, mirostatMu: null }), 'state.step'],
    ['state.mirostatMu NaN', () => lab.createSampler({}, { history: [], step: 0, mirostatMu: NaN }), 'state.mirostatMu'],
    ['state unknown key', () => lab.createSampler({}, { history: [], step: 0, mirostatMu: null, extra: 1 } as never), 'extra'],
    ['accept 2^32 + 7', () => lab.createSampler({}).accept(2 ** 32 + 7), 'token'],
    ['accept 0.5', () => lab.createSampler({}).accept(0.5), 'token'],
    // Per-row columns of the wrong length.
    ['short topP column', () => lab.sampleBatch([z, z], { seed: [1, 2], topP: [0.01] }), 'topP'],
    ['3 seeds for 2 rows', () => lab.sampleBatch([z, z], { seed: [1, 2, 3] }), 'seed'],
    ['empty column', () => lab.sampleBatch([z], { seed: [] }), 'seed'],
    // Non-number scalars and BigInt.
    ["randomWords('7', …)", () => lab.randomWords('7' as never, 0, 2), 'seed'],
    ['randomWords(…, true, …)', () => lab.randomWords(7, true as never, 2), 'stream'],
    ['randomWords(…, [2])', () => lab.randomWords(7, 0, [2] as never), 'n'],
    ['randomWords(1n, …)', () => lab.randomWords(1n as never, 0, 4), 'seed'],
    ['syntheticLogits(true)', () => lab.syntheticLogits(true as never), 'vocabSize'],
    ['syntheticLogits seed string', () => lab.syntheticLogits(10, '1' as never), 'seed'],
    ['BigInt experiment param', () => lab.runExperiment('samplers', { n: 10n as never }), 'n'],
    ['cyclic experiment params', () => lab.runExperiment('samplers', cyclic as never), 'self'],
    ['object experiment param', () => lab.runExperiment('samplers', { n: { value: 1 } as never }), 'n'],
    ['NaN experiment param', () => lab.runExperiment('samplers', { n: NaN }), 'n'],
    ['BigInt64Array experiment array', () => lab.runExperiment('samplers', { p: new BigInt64Array(2) as never }), 'p'],
    ['experiment array for a scalar', () => lab.runExperiment('samplers', { n: [1, 2] as never }), 'n'],
    ['unknown experiment', () => lab.runExperiment('nosuch' as never, {}), 'experiment'],
    ['unknown experiment parameter', () => lab.runExperiment('filters', { topp: 0.8 } as never), 'topp'],
    ['params not an object', () => lab.runExperiment('filters', [] as never), 'params'],
    // Misattributed before.
    ['empty row', () => lab.sampleBatch([[]], [{}]), 'logitsRows'],
    ['allowedTokens of 2^24 + 1', () => lab.sampleToken(z, { allowedTokens: new Int32Array(2 ** 24 + 1) }), 'allowedTokens'],
    ['logitBias of 2^24 + 1', () => lab.sampleToken(z, { logitBias: [new Int32Array(2 ** 24 + 1), new Float32Array(2 ** 24 + 1)] }), 'logitBias'],
    ['order of 13 stages', () => lab.sampleToken(z, { order: Array(13).fill('topK') }), 'order'],
    ['order []', () => lab.sampleToken(z, { order: [], topK: 2 }), 'order'],
    ['order with an unknown stage', () => lab.sampleToken(z, { order: ['topQ' as never] }), 'order'],
    ['logprobsMode without logprobs', () => lab.sampleToken(z, { logprobsMode: 'raw' } as never), 'logprobsMode'],
    ['batch of more than maxBatchRows', () => lab.sampleBatch(new Float32Array(2 ** 24), Array(2 ** 24).fill({})), 'options'],
    ['batch matrix of more than maxBatchRows', () => lab.sampleBatch(Array(2 ** 17).fill([0]), {}), 'logitsRows'],
    ['batch column of more than maxBatchRows', () => lab.sampleBatch(new Float32Array(2 ** 17), { seed: new Float64Array(2 ** 17) }), 'seed'],
    // Values that cannot be represented.
    ['sample-size delta 5e-324', () => lab.runExperiment('sample-size', { delta: 5e-324 }), 'delta'],
    ['mc-error p 5e-324', () => lab.runExperiment('mc-error', { p: 5e-324 }), 'p'],
    ['samplers budget', () => lab.runExperiment('samplers', { n: 1000, p: new Float64Array(2 ** 20).fill(2 ** -20) }), 'n'],
    ['speculative budget', () => lab.runExperiment('speculative', { p: new Float64Array(2 ** 20).fill(2 ** -20), gamma: 64, n: 200 }), 'n'],
    ['experiment array over 2^20', () => lab.runExperiment('filters', { logits: new Float32Array(2 ** 20 + 1) }), 'logits'],
    ['temperature: 17 temperatures', () => lab.runExperiment('temperature', { temperatures: Array(17).fill(1) }), 'temperatures'],
  ];
  it.each(cases)('%s', (_name, call, argument) => {
    expect(argumentOf(call)).toBe(argument);
    expect(lab.sampleToken([0, 9, 1], { temperature: 0 })).toBe(1);
  });
});

describe('inputs the README allows work', () => {
  it('logitBias then allowedTokens greedy then allowedTokens top-p, with 2^24 ids, answers as a fresh module does', async () => {
    const logits = lab.syntheticLogits(1000, 3);
    const ids = new Int32Array(2 ** 24).map((_, i) => i % 1000);
    const third = { allowedTokens: ids, topP: 0.5, seed: 1 };
    lab.sampleToken(logits, { logitBias: [ids, new Float32Array(ids.length)] });
    lab.sampleToken(logits, { allowedTokens: ids, temperature: 0 });
    const fresh = await loadSamplingLab();
    expect(lab.sampleToken(logits, third)).toBe(fresh.sampleToken(logits, third));
  });

  it('each option at its largest list, then a small call of every other option, answers as a fresh module does', async () => {
    const fresh = await loadSamplingLab();
    const logits = lab.syntheticLogits(64, 5);
    const large = new Int32Array(2 ** 24).map((_, i) => i % 64);
    const largest: Record<string, object> = {
      generatedIds: { generatedIds: large, repetitionPenalty: 1.2 },
      allowedTokens: { allowedTokens: large },
      bannedTokens: { bannedTokens: large.subarray(0, 63) },
      logitBias: { logitBias: [large, new Float32Array(large.length).fill(0.5)] },
      sequenceBreakers: { dry: { multiplier: 1, sequenceBreakers: large }, generatedIds: [1, 2, 1, 2] },
      order: { order: lab.stageNames, topK: 5 },
    };
    const small: object[] = [
      { temperature: 0.7 }, { topK: 3 }, { topP: 0.6 }, { minP: 0.1 }, { typicalP: 0.8 }, { topNSigma: 1 },
      { epsilonCutoff: 0.01 }, { etaCutoff: 0.01 }, { xtc: { probability: 1, threshold: 0.05 } }, { mirostat: { version: 2 } },
      { generatedIds: [1, 2, 2], repetitionPenalty: 1.5, presencePenalty: 0.3, frequencyPenalty: 0.2, penaltyLastN: 2 },
      { generatedIds: [1, 2, 1, 2, 1], dry: { multiplier: 1, allowedLength: 1, sequenceBreakers: [7] } },
      { logitBias: { 3: 5 } }, { allowedTokens: [1, 2, 3] }, { bannedTokens: [0] }, { order: 'llama.cpp', topK: 10 },
    ];
    for (const big of Object.values(largest)) {
      lab.sampleToken(logits, { ...big, seed: 1 });
      for (const options of small) {
        const keyed = { ...options, seed: 2, step: 3 };
        expect(lab.sampleToken(logits, keyed)).toBe(fresh.sampleToken(logits, keyed));
        expect(Array.from(lab.distribution(logits, keyed).probs)).toEqual(Array.from(fresh.distribution(logits, keyed).probs));
      }
    }
  });

  it('a generation loop (only step changes) draws what a fresh module draws; every other change is seen', async () => {
    const fresh = await loadSamplingLab();
    const logits = lab.syntheticLogits(5000, 9);
    const other = lab.syntheticLogits(5000, 10);
    const calls: [Float32Array, object][] = [];
    for (let step = 0; step < 20; step++) calls.push([logits, { temperature: 0.8, topP: 0.9, seed: 4, step }]);
    calls.push([logits, { temperature: 0.8, topP: 0.5, seed: 4, step: 20 }]);  // another value
    calls.push([other, { temperature: 0.8, topP: 0.5, seed: 4, step: 21 }]);   // other logits
    calls.push([other, { temperature: 0.8, topP: 0.5, seed: 4 }]);             // step left out
    calls.push([other, { temperature: 0.8, topP: 0.5, seed: 4, step: 22, minP: 0.1 }]);  // one more key
    for (const [row, options] of calls) {
      lab.distribution([1, 2, 3], { topK: 1 });  // writes other options in between, half the time
      expect(lab.sampleToken(row, options)).toBe(fresh.sampleToken(row, options));
      expect(lab.sampleToken(row, options)).toBe(fresh.sampleToken(row, options));
    }
    expect(argumentOf(() => lab.sampleToken(logits, { temperature: 0.8, topP: 0.5, seed: 4, step: -1 }))).toBe('step');
    expect(argumentOf(() => lab.sampleToken([1, NaN], { temperature: 0.8, topP: 0.5, seed: 4, step: 3 }))).toBe('logits');
  });

  it('lists and objects changed in place between the calls of a generation loop are seen', async () => {
    const fresh = await loadSamplingLab();
    const logits = lab.syntheticLogits(5000, 9);
    const top = lab.sampleToken(logits, { temperature: 0 });
    const bannedTokens = [top];
    const badWords = [[7, top]];
    const generatedIds = [1, 2, 7];
    const allowedMask = new Uint32Array(Math.ceil(5000 / 32)).fill(0xffffffff);
    const xtc = { probability: 1, threshold: 0.5 };
    const options = { temperature: 0, bannedTokens, badWords, generatedIds, allowedMask, xtc, seed: 4, step: 0 };
    const changes: (() => void)[] = [
      () => { bannedTokens[0] = 3; },                          // the top is allowed again
      () => { bannedTokens.push(top); },
      () => { bannedTokens.length = 0; },
      () => { generatedIds.push(9); },                         // badWords no longer applies
      () => { badWords[0][0] = 9; },                           // and now again
      () => { allowedMask[top >> 5] &= ~(1 << (top & 31)); },
      () => { allowedMask.fill(0xffffffff); },
      () => { options.temperature = 0.8; xtc.threshold = 0.01; },
      () => { xtc.threshold = 0.2; },
      () => { badWords.push([5]); },
    ];
    for (const change of [() => {}, ...changes]) {
      change();
      for (let step = 0; step < 3; step++) {
        options.step = step;
        fresh.distribution([1, 2, 3], { topK: 1 });  // the fresh lab reads every option again
        const expected = fresh.sampleToken(logits, structuredClone(options));
        expect(lab.sampleToken(logits, options)).toBe(expected);
        expect(lab.sampleToken(logits, { ...options })).toBe(expected);
      }
    }
  });

  it('a generation loop whose kept lists lose their buffers to a large call\'s release lays them out again', async () => {
    const fresh = await loadSamplingLab();
    const resident = lab.logitsBuffer(5000);
    resident.set(lab.syntheticLogits(5000, 9));
    const other = lab.syntheticLogits(1000, 3);
    // Option buffers larger than the module keeps: the next new input hands them back.
    lab.sampleToken(resident, { bannedTokens: new Int32Array(2 ** 21), seed: 1 });
    const options = { temperature: 0, bannedTokens: [fresh.sampleToken(other, { temperature: 0 })], seed: 4, step: 0 };
    for (const logits of [resident, resident, other, other]) {
      options.step++;
      fresh.distribution([1, 2, 3], { topK: 1 });
      expect(lab.sampleToken(logits, options)).toBe(fresh.sampleToken(logits, structuredClone(options)));
    }
  });

  it('a column of shared options spreads over every row of logits', () => {
    const tokens = lab.sampleBatch([[0, 9], [9, 0], [1, 0]], { temperature: 0 });
    expect(Array.from(tokens)).toEqual([1, 0, 0]);
  });

  it('logprobs: undefined is no logprobs', () => {
    expect(lab.sampleToken(z, { temperature: 0, logprobs: undefined })).toBe(0);
  });

  it('sum: the benchmarks\' one read adds every value, in float32 lanes', () => {
    expect(lab.sum([1, 2, 3.5])).toBe(6.5);
    expect(lab.sum([])).toBe(0);
    const logits = lab.syntheticLogits();
    const exact = logits.reduce((total, z) => total + z, 0);
    // 16 lanes of V / 16 float32 additions each, then 15 to join them: each addition rounds by at
    // most 2^-24 of a running sum, itself at most Σ|z| (the worst case, not a tuned tolerance).
    const bound = (logits.length / 16 + 16) * 2 ** -24 * logits.reduce((total, z) => total + Math.abs(z), 0);
    expect(Math.abs(lab.sum(logits) - exact)).toBeLessThanOrEqual(bound);
    expect(lab.sum(lab.syntheticLogits(1000, 1))).not.toBe(lab.sum(lab.syntheticLogits(1000, 2)));
  });

  it('numbers stay in their ranges: XTC leaving one token, speculative closeness 1', () => {
    const logits = lab.syntheticLogits(1000, 1);
    const xtc = { xtc: { probability: 1, threshold: 0 }, seed: 1 };
    const drawn = lab.sampleToken(logits, { ...xtc, logprobs: 3, logprobsMode: 'processed' });
    expect(drawn.logprob).toBeLessThanOrEqual(0);
    for (const entry of drawn.top) expect(entry.logprob).toBeLessThanOrEqual(0);
    expect(lab.distribution(logits, xtc).entropyBits).toBeGreaterThanOrEqual(0);
    const speculative = lab.runExperiment('speculative', { closeness: 1 });
    expect(speculative.acceptance.theory).toBeLessThanOrEqual(1);
    expect(speculative.acceptance.oneMinusTV).toBeLessThanOrEqual(1);
    expect(speculative.acceptance.standardError).toBeGreaterThanOrEqual(0);
  });

  it('a sampler at 2^24 history tokens samples, and its state round-trips exactly', () => {
    const logits = lab.syntheticLogits(1000, 2);
    const history = Array.from({ length: 2 ** 24 }, (_, i) => (i * 7919) % 1000);
    const options = { temperature: 0.8, repetitionPenalty: 1.1, penaltyLastN: 64, seed: 4 };
    const sampler = lab.createSampler(options, { history, step: history.length, mirostatMu: null });
    sampler.sample(logits);
    const saved = sampler.state;
    expect(saved.history).toHaveLength(2 ** 24 + 1);
    expect(saved.history.slice(0, 5)).toEqual(history.slice(0, 5));
    const restored = lab.createSampler(options, saved);
    // The penalties see only the last 64 tokens: the same as sampleToken given only those.
    const expected = lab.sampleToken(logits, { ...options, generatedIds: saved.history.slice(-64), step: saved.step });
    expect(restored.sample(logits)).toBe(expected);
    expect(sampler.sample(logits)).toBe(expected);
  });
});

// wasm/bindings.cpp's sprintf in place of musl's printf: embind names a type it cannot name by its
// address, the one text the module formats, as "%p" would.
it('embind\'s type names of unnamed types read as printf\'s %p, in both modules', async () => {
  for (const name of ['sampling-lab-core', 'sampling-lab-experiments']) {
    const dist = join(__dirname, '../../wasm/dist');
    const { default: create } = await import(pathToFileURL(join(dist, `${name}.js`)).href);
    const module = await create({ wasmBinary: readFileSync(join(dist, `${name}.wasm`)) });
    const text = (address: number) => {
      let out = '';
      for (let at = module.___getTypeName(address); module.HEAPU8[at]; at++) out += String.fromCharCode(module.HEAPU8[at]);
      return out;
    };
    expect([text(0x1234abcd), text(16), text(0xffffffff)], name).toEqual(['0x1234abcd', '0x10', '0xffffffff']);
  }
});
