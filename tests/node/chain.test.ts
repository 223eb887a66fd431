// The configurable chain through the package: nested and list options, orders, logprobs, the
// stateful sampler and its JSON state, and the typed errors of each.
import { describe, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { errorOf } from '../support/errors';

const lab: Lab = await loadSamplingLab();
const logits = lab.syntheticLogits();

describe('options', () => {
  it('every new option is off by default: the same distribution as none', () => {
    const plain = lab.distribution(logits).probs;
    const off = lab.distribution(logits, {
      typicalP: 1, topNSigma: 0, etaCutoff: 0, xtc: { probability: 0 }, mirostat: { version: 0 }, dry: { multiplier: 0 },
      logitBias: {}, bannedTokens: [], penaltyLastN: -1, order: 'handbook',
    }).probs;
    expect(off).toEqual(plain);
  });

  it('takes logit bias as a map or as two arrays, and masks as lists', () => {
    const asMap = lab.distribution(logits, { logitBias: { 7: 2.5, 9: -1 } }).probs;
    const asArrays = lab.distribution(logits, { logitBias: [new Int32Array([7, 9]), new Float32Array([2.5, -1])] }).probs;
    expect(asArrays).toEqual(asMap);
    expect(asMap[7] / lab.distribution(logits).probs[7]).toBeGreaterThan(10);
    const masked = lab.distribution(logits, { allowedTokens: new Int32Array([3, 4, 5]), bannedTokens: [4] });
    expect(masked.kept).toBe(2);
    expect(masked.probs[4]).toBe(0);
    for (let step = 0; step < 50; step++) {
      expect([3, 5]).toContain(lab.sampleToken(logits, { allowedTokens: [3, 4, 5], bannedTokens: [4], step }));
    }
  });

  it('sampleBatch takes the new options per row, and each row draws as sampleToken does', () => {
    const rows = [lab.syntheticLogits(5000, 1), lab.syntheticLogits(5000, 2), lab.syntheticLogits(5000, 3)];
    const options = [
      { typicalP: 0.5, seed: 1, step: 4 },
      { xtc: { probability: 1, threshold: 0.05 }, logitBias: { 9: 3 }, seed: 2, step: 0 },
      { mirostat: { version: 2 as const, mu: 6 }, order: 'llama.cpp' as const, temperature: 0.7, seed: 3, step: 0 },
    ];
    expect(Array.from(lab.sampleBatch(rows, options))).toEqual(rows.map((row, r) => lab.sampleToken(row, options[r])));
  });

  it('orders: a preset, its stage names, and the handbook default', () => {
    const names = ['penalties', 'dry', 'topNSigma', 'topK', 'typicalP', 'topP', 'minP', 'epsilonCutoff', 'etaCutoff', 'pLess', 'xtc', 'temperature', 'mirostat', 'adaptiveP'] as const;
    const options = { temperature: 0.5, topP: 0.9 };
    const llama = lab.distribution(logits, { ...options, order: 'llama.cpp' });
    expect(lab.distribution(logits, { ...options, order: names }).probs).toEqual(llama.probs);
    expect(lab.distribution(logits, { ...options, order: 'handbook' }).kept).toBeLessThan(llama.kept);
    expect(lab.stages(logits, { ...options, order: 'llama.cpp' }).stages.map((s) => s.filter)).toEqual(['topP', 'temperature']);
  });

  it('stages() says which stage cut each token', () => {
    const { stages, cutBy } = lab.stages(logits, { topK: 40, typicalP: 0.8, bannedTokens: [lab.ranking(logits)[0]] });
    expect(stages.map((s) => s.filter)).toEqual(['masks', 'topK', 'typicalP']);
    const count = (code: number) => cutBy.filter((c) => c === code).length;
    expect(count(lab.masksCode)).toBe(1);
    expect(count(1 + lab.stageNames.indexOf('topK'))).toBe(logits.length - 1 - 40);
    expect(count(1 + lab.stageNames.indexOf('typicalP'))).toBe(40 - stages[2].kept);
    expect(count(0)).toBe(stages[2].kept);
  });

  it('names the argument of every bad new option', () => {
    const cases: [object, string][] = [
      [{ typicalP: 0 }, 'typicalP'],
      [{ topNSigma: -1 }, 'topNSigma'],
      [{ etaCutoff: 2 }, 'etaCutoff'],
      [{ xtc: { probability: 1.5 } }, 'xtc.probability'],
      [{ xtc: { chance: 1 } }, 'chance'],
      [{ xtc: 0.5 }, 'xtc'],
      [{ mirostat: { version: 3 } }, 'mirostat.version'],
      [{ mirostat: { mu: Number.NaN } }, 'mirostat.mu'],
      [{ dry: { base: 0.5 } }, 'dry.base'],
      [{ dry: { sequenceBreakers: [logits.length] } }, 'dry.sequenceBreakers'],
      [{ logitBias: { 1: Infinity } }, 'logitBias.values'],
      [{ logitBias: [[1, 2], [0.5]] }, 'logitBias'],
      [{ logitBias: 'x' }, 'logitBias'],
      [{ allowedTokens: [-1] }, 'allowedTokens'],
      [{ bannedTokens: Array.from({ length: 4 }, (_, i) => i) }, 'bannedTokens'],
      [{ penaltyLastN: 0.5 }, 'penaltyLastN'],
      [{ order: ['topK', 'topK'] }, 'order'],
      [{ order: ['warp'] }, 'order'],
      [{ order: ['topK'], topP: 0.5 }, 'order'],
      [{ order: 'vllm' }, 'order'],
    ];
    const small = new Float32Array([1, 2, 3, 4]);
    for (const [options, argument] of cases) {
      const error = errorOf(() => lab.sampleToken(small.length === 4 && argument === 'bannedTokens' ? small : logits, options as never));
      expect(error.argument, JSON.stringify(options)).toBe(argument);
    }
    expect(lab.sampleToken(logits, { topP: 0.9 })).toBeGreaterThanOrEqual(0);  // still working
  });
});

describe('logprobs', () => {
  it('raw: log-softmax of the unmodified logits; processed: of the distribution drawn from', () => {
    const options = { temperature: 0.7, topK: 5, seed: 4, step: 2 };
    const token = lab.sampleToken(logits, options);
    const raw = lab.sampleToken(logits, { ...options, logprobs: 3 });
    expect(raw.token).toBe(token);
    const lse = lab.logSumExp(logits);
    expect(raw.logprob).toBeCloseTo(logits[token] - lse, 5);
    expect(raw.top.map((t) => t.token)).toEqual(Array.from(lab.ranking(logits).subarray(0, 3)));
    expect(raw.top[raw.rank - 1]?.token ?? token).toBe(token);
    const processed = lab.sampleToken(logits, { ...options, logprobs: 20, logprobsMode: 'processed' });
    const probs = lab.distribution(logits, options).probs;
    expect(processed.logprob).toBeCloseTo(Math.log(probs[token]), 5);
    expect(processed.top).toHaveLength(5);  // cut tokens (−∞) are never listed
    for (const entry of processed.top) expect(entry.logprob).toBeCloseTo(Math.log(probs[entry.token]), 5);
  });

  it('rejects more than 20 and an unknown mode', () => {
    expect(errorOf(() => lab.sampleToken(logits, { logprobs: 21 })).argument).toBe('logprobs');
    expect(errorOf(() => lab.sampleToken(logits, { logprobs: 2, logprobsMode: 'final' as never })).argument).toBe('logprobsMode');
  });

  it('tokenLogprobs scores a given token as sampleToken reports the token it draws', () => {
    const chains = [{ temperature: 0.7, topP: 0.9 }, { topK: 40, minP: 0.02, repetitionPenalty: 1.3, generatedIds: [3, 9, 3] }, { temperature: 0 }, {}];
    for (const chain of chains) {
      for (const logprobsMode of ['raw', 'processed'] as const) {
        for (let step = 0; step < 20; step++) {
          const options = { ...chain, seed: 8, step, logprobs: 4, logprobsMode };
          expect(lab.tokenLogprobs(logits, lab.sampleToken(logits, options).token, options)).toEqual(lab.sampleToken(logits, options));
        }
      }
    }
    // A token the chain cut: −∞, ranked after the kept ones; raw still scores it.
    const cut = lab.tokenLogprobs(logits, lab.ranking(logits)[10], { topK: 5, logprobs: 1, logprobsMode: 'processed' });
    expect(cut).toMatchObject({ logprob: -Infinity, rank: 6 });
    expect(lab.tokenLogprobs(logits, lab.ranking(logits)[10], { topK: 5, logprobs: 0 })).toMatchObject({ rank: 11 });
    expect(errorOf(() => lab.tokenLogprobs(logits, logits.length, { logprobs: 1 })).argument).toBe('token');
    expect(errorOf(() => lab.tokenLogprobs(logits, 1.5, { logprobs: 1 })).argument).toBe('token');
    expect(errorOf(() => lab.tokenLogprobs(logits, -1, { logprobs: 1 })).argument).toBe('token');
  });
});

describe('createSampler', () => {
  const options = { temperature: 0.9, repetitionPenalty: 1.2, penaltyLastN: 8, dry: { multiplier: 0.8 }, mirostat: { version: 2 as const, tau: 3 }, seed: 21 };

  it('equals sampleToken fed the history, step and μ by hand', () => {
    const sampler = lab.createSampler(options);
    const history: number[] = [];
    const { mirostat, ...rest } = options;
    // Mirostat 2 from its definition: μ starts at 2τ and moves by η·(surprise − τ), the surprise
    // in bits in the distribution drawn from (the processed logprob).
    let mu = 2 * mirostat.tau;
    for (let step = 0; step < 30; step++) {
      const expected = lab.sampleToken(logits, {
        ...rest, mirostat: { ...mirostat, mu }, generatedIds: history, step, logprobs: 0, logprobsMode: 'processed',
      });
      expect(sampler.sample(logits)).toBe(expected.token);
      history.push(expected.token);
      mu -= 0.1 * (-expected.logprob / Math.LN2 - mirostat.tau);
    }
    const { mirostatMu, ...state } = sampler.state;
    expect(state).toEqual({ history, step: 30, adaptivePAverage: null });
    expect(mirostatMu).toBeCloseTo(mu, 6);  // the core's weights are float32: its surprise rounds at ~1e-8
  });

  it('state is plain JSON that restores the sampler exactly; clone and reset', () => {
    const sampler = lab.createSampler(options);
    for (let i = 0; i < 10; i++) sampler.sample(logits);
    const saved = JSON.parse(JSON.stringify(sampler.state));
    const twin = sampler.clone();
    const restored = lab.createSampler(options, saved);
    const next = Array.from({ length: 10 }, () => sampler.sample(logits));
    expect(Array.from({ length: 10 }, () => restored.sample(logits))).toEqual(next);
    expect(Array.from({ length: 10 }, () => twin.sample(logits))).toEqual(next);
    sampler.reset();
    expect(sampler.state).toEqual({ history: [], step: 0, mirostatMu: null, adaptivePAverage: null });
    sampler.accept(42);
    expect(sampler.state.history).toEqual([42]);
    expect(errorOf(() => lab.createSampler(options, { history: 'x' } as never)).argument).toBe('state.history');
    expect(errorOf(() => lab.createSampler({ topP: 2 })).argument).toBe('topP');
  });
});
