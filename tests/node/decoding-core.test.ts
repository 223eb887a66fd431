// The decoding core through the package: lab.speculativeVerify, lab.draftStream and
// lab.createBeamSearch: typed errors naming the argument, seeded runs that repeat, rows as a
// matrix or flat, and the documented keys (drafts on draftStream, the bonus as sampleToken draws it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, type Lab, type SampleTokenOptions } from 'sampling-lab';
import { argumentOf } from '../support/errors';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

const V = 500;
// A model over V tokens: the next-token logits after `token`.
const rowAfter = (token: number, seed = 0) => lab.syntheticLogits(V, 1000 * seed + token + 1);
const flat = (rows: Float32Array[]) => {
  const out = new Float32Array(rows.length * V);
  rows.forEach((row, r) => out.set(row, r * V));
  return out;
};

// Speculative decoding of `count` tokens after token 0: γ drafts from the draft model drawn as
// documented, then the verification; returns the tokens and the steps' results.
function decode(options: SampleTokenOptions, gamma: number, count: number, draftSeed = 1) {
  const sequence = [0];
  const steps = [];
  while (sequence.length <= count) {
    const step = sequence.length - 1;
    const at = { ...options, step, generatedIds: sequence };
    const drafts: number[] = [];
    const targetRows: Float32Array[] = [];
    const draftRows: Float32Array[] = [];
    for (let i = 0; i < gamma; i++) {
      const last = drafts.length > 0 ? drafts[drafts.length - 1] : sequence[sequence.length - 1];
      targetRows.push(rowAfter(last));
      draftRows.push(rowAfter(last, draftSeed));
      drafts.push(lab.sampleToken(draftRows[i], {
        ...options, stream: lab.draftStream(options.stream ?? 0), step: step + i, generatedIds: [...sequence, ...drafts],
      }));
    }
    targetRows.push(rowAfter(drafts.length > 0 ? drafts[drafts.length - 1] : sequence[sequence.length - 1]));
    const result = lab.speculativeVerify(targetRows, draftRows, drafts, at);
    steps.push({ drafts, result, targetRows, draftRows });
    sequence.push(...result.tokens);
  }
  return { tokens: sequence.slice(1, count + 1), steps };
}

describe('speculativeVerify', () => {
  it('a seeded run repeats, and another seed or stream gives other tokens', () => {
    const options = { temperature: 1, topK: 40, seed: 7, stream: 2 };
    const first = decode(options, 4, 30).tokens;
    expect(decode(options, 4, 30).tokens).toEqual(first);
    expect(decode({ ...options, seed: 8 }, 4, 30).tokens).not.toEqual(first);
    expect(decode({ ...options, stream: 3 }, 4, 30).tokens).not.toEqual(first);
  });

  it('gives the same result for rows as a matrix, a Float32Array, a Float64Array or a number[]', () => {
    const vocabulary = lab.qwen3Vocabulary;
    const target = [lab.syntheticLogits(vocabulary, 1), lab.syntheticLogits(vocabulary, 2), lab.syntheticLogits(vocabulary, 3)];
    const draft = [lab.syntheticLogits(vocabulary, 4), lab.syntheticLogits(vocabulary, 5)];
    const join = (rows: Float32Array[]) => {
      const out = new Float32Array(rows.length * vocabulary);
      rows.forEach((row, r) => out.set(row, r * vocabulary));
      return out;
    };
    const options = { topP: 0.95, seed: 3, stream: 4, step: 9 };
    const first = lab.sampleToken(draft[0], { ...options, stream: lab.draftStream(4) });
    const drafts = [first, lab.sampleToken(draft[1], { ...options, stream: lab.draftStream(4), step: 10, generatedIds: [first] })];
    const expected = lab.speculativeVerify(target, draft, drafts, options);
    for (const [rowsT, rowsD] of [
      [join(target), join(draft)],
      [new Float64Array(join(target)), new Float64Array(join(draft))],
      [Array.from(join(target)), Array.from(join(draft))],
      [target.map((row) => Array.from(row)), draft],
    ] as const) {
      expect(lab.speculativeVerify(rowsT, rowsD, Int32Array.from(drafts), options)).toEqual(expected);
    }
  });

  it('accepts every draft of an identical draft model; the bonus is sampleToken at step + γ', () => {
    const options = { temperature: 0.9, minP: 0.01, repetitionPenalty: 1.2, seed: 11, stream: 5 };
    for (const { drafts, result, targetRows } of decode(options, 3, 20, 0).steps) {
      expect(result.accepted).toBe(3);
      expect(result.fromResidual).toBe(false);
      expect(Array.from(result.acceptance)).toEqual([1, 1, 1]);
      expect(Array.from(result.tokens.subarray(0, 3))).toEqual(drafts);
    }
    const [{ drafts, result, targetRows }] = decode(options, 3, 3, 0).steps;
    expect(result.token).toBe(lab.sampleToken(targetRows[3], { ...options, step: 3, generatedIds: [0, ...drafts] }));
  });

  it('reports min(1, p/q) of the first draft in the distributions sampleToken draws from', () => {
    const options = { temperature: 1.1, topK: 60, seed: 2, stream: 9 };
    for (const { drafts, result, targetRows, draftRows } of decode(options, 2, 40).steps) {
      const p = lab.distribution(targetRows[0], { ...options, generatedIds: [] }).probs;
      const q = lab.distribution(draftRows[0], { ...options, generatedIds: [] }).probs;
      // The distributions' float32 rounding against the core's double ratio.
      expect(result.acceptance[0]).toBeCloseTo(Math.min(1, p[drafts[0]] / q[drafts[0]]), 5);
      if (result.accepted === 0) expect(result.tokens[0]).not.toBe(drafts[0]);
      expect(p[result.tokens[0]]).toBeGreaterThan(0);
    }
  });

  it('at temperature 0 emits exactly the target\'s greedy tokens', () => {
    const options = { temperature: 0, repetitionPenalty: 1.3, seed: 1 };
    const greedy = [0];
    while (greedy.length <= 25) greedy.push(lab.sampleToken(rowAfter(greedy[greedy.length - 1]), { ...options, generatedIds: greedy }));
    expect(decode(options, 4, 25).tokens).toEqual(greedy.slice(1));
  });

  it('draftStream is stream XOR 2^52', () => {
    expect(lab.draftStream(0)).toBe(2 ** 52);
    expect(lab.draftStream(2 ** 52 + 5)).toBe(5);
    expect(lab.draftStream(lab.draftStream(123))).toBe(123);
  });
});

describe('createBeamSearch', () => {
  // Runs a search on the model above; rows for each beam from its last token.
  function search(options: Parameters<Lab['createBeamSearch']>[0], asFlat = false) {
    const beam = lab.createBeamSearch(options);
    let last = [0];
    const steps = [];
    for (;;) {
      const rows = last.map((token) => rowAfter(token));
      const step = beam.step(asFlat ? flat(rows) : rows);
      steps.push(step);
      last = Array.from(step.tokens);
      if (step.done) break;
    }
    expect(beam.done).toBe(true);
    return { steps, best: beam.finish() };
  }

  it('gives the same steps for rows as a matrix or flat, and width 1 is greedy', () => {
    const options = { numBeams: 4, maxNewTokens: 6, eosTokenIds: [3], numReturnSequences: 2 };
    expect(search(options, true)).toEqual(search(options));
    const greedy = [0];
    while (greedy.length <= 6) greedy.push(lab.sampleToken(rowAfter(greedy[greedy.length - 1]), { temperature: 0 }));
    expect(search({ numBeams: 1, maxNewTokens: 6 }).best[0].tokens).toEqual(greedy.slice(1));
  });

  it('returns numReturnSequences hypotheses, best first, with their log-probabilities', () => {
    const { best } = search({ numBeams: 4, maxNewTokens: 5, numReturnSequences: 3, lengthPenalty: 0 });
    expect(best).toHaveLength(3);
    for (let k = 1; k < 3; k++) expect(best[k].score).toBeLessThanOrEqual(best[k - 1].score);
    for (const hypothesis of best) {
      let logProb = 0;
      let previous = 0;
      for (const token of hypothesis.tokens) {
        const logits = rowAfter(previous);
        logProb += logits[token] - lab.logSumExp(logits);
        previous = token;
      }
      expect(hypothesis.logProb).toBeCloseTo(logProb, 4);
      expect(hypothesis.score).toBeCloseTo(logProb, 4);  // lengthPenalty 0: the log-probability itself
    }
  });

  it('a stochastic search repeats with its seed and changes with it', () => {
    const options = { numBeams: 3, maxNewTokens: 6, stochastic: true, seed: 4, numReturnSequences: 3 };
    const first = search(options);
    expect(search(options)).toEqual(first);
    expect(search({ ...options, seed: 5 }).best).not.toEqual(first.best);
  });
});

it('docs/api.md\'s decoding block runs as written', async () => {
  const readme = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Decoding: speculative verification and beam search'));
  const block = /```js\n([\s\S]*?)```/.exec(section)![1];
  // The block's own lab, loaded as it loads it, stands in for its two first lines.
  const body = block.replace("import { loadSamplingLab } from 'sampling-lab';", '').replace('const lab = await loadSamplingLab();', '');
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const { accepted, tokens, best } = await new AsyncFunction('lab', `${body}\nreturn { accepted, tokens, best };`)(lab);
  expect(tokens).toHaveLength(accepted + 1);
  expect(best.tokens.length).toBeGreaterThan(0);
});

describe('typed errors', () => {
  // Built once the module is loaded.
  const rows = { target: [] as Float32Array[], draft: [] as Float32Array[], nan: new Float32Array(0), holes: [] as Float32Array[] };
  beforeAll(() => {
    rows.target = [rowAfter(0), rowAfter(1)];
    rows.draft = [rowAfter(0, 1)];
    rows.nan = rowAfter(5).slice();
    rows.nan[77] = NaN;
    rows.holes = [rows.target[0]];
    rows.holes[2] = rows.target[1];
  });
  type Overrides = { target?: unknown; draft?: unknown; tokens?: unknown; options?: unknown };
  const verify = (change: (r: typeof rows) => Overrides) => () => {
    const overrides = change(rows);
    const tokens = overrides.tokens ?? [lab.sampleToken(rows.draft[0], { stream: lab.draftStream(0) })];
    return lab.speculativeVerify((overrides.target ?? rows.target) as never, (overrides.draft ?? rows.draft) as never,
      tokens as never, (overrides.options ?? {}) as never);
  };
  const started = (steps: (r: typeof rows) => unknown[], maxNewTokens = 2) => () => {
    const search = lab.createBeamSearch({ numBeams: 2, maxNewTokens, eosTokenIds: [1] });
    for (const step of steps(rows)) search.step(step as never);
  };
  const beamOptions = { numBeams: 2, maxNewTokens: 4 };
  const cases: [string, () => unknown, string][] = [
    ['a valid verification', verify(() => ({})), '(no error)'],
    ['targetRows not an array', verify(() => ({ target: 'rows' })), 'targetRows'],
    ['targetRows with a hole', verify((r) => ({ target: r.holes })), 'targetRows'],
    ['targetRows of unequal rows', verify((r) => ({ target: [r.target[0], r.target[1].subarray(1)] })), 'targetRows'],
    ['a row with a string', verify((r) => ({ draft: [['1', ...Array.from(r.draft[0]).slice(1)]] })), 'draftRows[0]'],
    ['γ + 2 target rows', verify((r) => ({ target: [...r.target, r.target[0]] })), 'targetRows'],
    ['no draft rows for a draft token', verify(() => ({ draft: [] })), 'draftRows'],
    ['a NaN logit', verify((r) => ({ target: [r.nan, r.target[1]] })), 'targetRows'],
    ['a NaN draft logit', verify((r) => ({ draft: [r.nan] })), 'draftRows'],
    ['draftTokens not an array', verify(() => ({ tokens: 3 })), 'draftTokens'],
    ['draftTokens with a hole', verify(() => ({ tokens: [, 1] })), 'draftTokens'],
    ['a fractional draft token', verify(() => ({ tokens: [1.5] })), 'draftTokens'],
    ['a draft token outside the rows', verify(() => ({ tokens: [V] })), 'draftTokens'],
    ['65 draft tokens', verify(() => ({ tokens: new Array(65).fill(1) })), 'draftTokens'],
    ['a draft token the draft cannot draw', verify(() => ({ tokens: [0], options: { topK: 1 } })), 'draftTokens'],
    ['mirostat', verify(() => ({ options: { mirostat: { version: 2 } } })), 'mirostat'],
    ['an unknown option', verify(() => ({ options: { topQ: 1 } })), 'topQ'],
    ['a bad option', verify(() => ({ options: { topP: 2 } })), 'topP'],
    ['a history id outside the rows', verify(() => ({ options: { generatedIds: [V] } })), 'generatedIds'],
    ['draftStream a string', verify(() => ({ options: { draftStream: '1' } })), 'draftStream'],
    ['draftStream NaN', verify(() => ({ options: { draftStream: NaN } })), 'draftStream'],
    ['draftStream negative', verify(() => ({ options: { draftStream: -1 } })), 'draftStream'],
    ['options not an object', verify(() => ({ options: 3 })), 'options'],
    ['draftStream(−1)', () => lab.draftStream(-1), 'stream'],
    ['draftStream(2^53)', () => lab.draftStream(2 ** 53), 'stream'],
    ['draftStream(\'1\')', () => lab.draftStream('1' as never), 'stream'],
    ['beam options not an object', () => lab.createBeamSearch(3 as never), 'options'],
    ['no numBeams', () => lab.createBeamSearch({ maxNewTokens: 3 } as never), 'numBeams'],
    ['numBeams 0', () => lab.createBeamSearch({ ...beamOptions, numBeams: 0 }), 'numBeams'],
    ['numBeams 65', () => lab.createBeamSearch({ ...beamOptions, numBeams: 65 }), 'numBeams'],
    ['numBeams 1.5', () => lab.createBeamSearch({ ...beamOptions, numBeams: 1.5 }), 'numBeams'],
    ['no maxNewTokens', () => lab.createBeamSearch({ numBeams: 2 } as never), 'maxNewTokens'],
    ['maxNewTokens 2^16 + 1', () => lab.createBeamSearch({ ...beamOptions, maxNewTokens: 2 ** 16 + 1 }), 'maxNewTokens'],
    ['numReturnSequences > numBeams', () => lab.createBeamSearch({ ...beamOptions, numReturnSequences: 3 }), 'numReturnSequences'],
    ['lengthPenalty a string', () => lab.createBeamSearch({ ...beamOptions, lengthPenalty: '1' as never }), 'lengthPenalty'],
    ['lengthPenalty NaN', () => lab.createBeamSearch({ ...beamOptions, lengthPenalty: NaN }), 'lengthPenalty'],
    ['lengthPenalty 11', () => lab.createBeamSearch({ ...beamOptions, lengthPenalty: 11 }), 'lengthPenalty'],
    ['lengthPenalty with stochastic', () => lab.createBeamSearch({ ...beamOptions, lengthPenalty: 1, stochastic: true }), 'lengthPenalty'],
    ['earlyStopping 1', () => lab.createBeamSearch({ ...beamOptions, earlyStopping: 1 as never }), 'earlyStopping'],
    ['stochastic \'yes\'', () => lab.createBeamSearch({ ...beamOptions, stochastic: 'yes' as never }), 'stochastic'],
    ['65 end-of-sequence ids', () => lab.createBeamSearch({ ...beamOptions, eosTokenIds: new Array(65).fill(1) }), 'eosTokenIds'],
    ['an end-of-sequence id −1', () => lab.createBeamSearch({ ...beamOptions, eosTokenIds: [-1] }), 'eosTokenIds'],
    ['seed −1', () => lab.createBeamSearch({ ...beamOptions, seed: -1 }), 'seed'],
    ['an unknown beam option', () => lab.createBeamSearch({ ...beamOptions, beams: 2 } as never), 'beams'],
    ['two rows at the first step', started(() => [[rowAfter(0), rowAfter(1)]]), 'logitsRows'],
    ['one row at the second step as a matrix', started(() => [rowAfter(0), [rowAfter(1)]]), 'logitsRows'],
    ['a NaN in a beam row', started((r) => [r.nan]), 'logitsRows'],
    ['an end-of-sequence id outside the row', started(() => [[0]]), 'eosTokenIds'],
    ['a row with fewer free tokens than beams', started(() => [[0, 1]]), 'logitsRows'],
    ['one row at the second step', started(() => [rowAfter(0), rowAfter(1)]), 'logitsRows'],
    ['a step after the last', started(() => [rowAfter(0), [rowAfter(1), rowAfter(2)]], 1), 'search'],
    ['finish before a step', () => lab.createBeamSearch(beamOptions).finish(), 'search'],
  ];
  for (const [name, call, argument] of cases) {
    it(`${name} names ${argument} and leaves the module working`, () => {
      expect(argumentOf(call)).toBe(argument);
      expect(lab.speculativeVerify([rowAfter(0)], [], []).tokens).toHaveLength(1);
    });
  }
});
