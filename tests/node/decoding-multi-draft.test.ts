// Several drafts verified together (recursive rejection sampling) on the tiny target/draft pair:
// exact by χ² of the first emitted token and of the second after an accepted first, on the tiny
// models' own rows, with the negative control that verifies each draft alone and keeps whichever
// got furthest; in speculativeGenerate, drafts: k proposes k streams in batched passes, a step
// emits the tokens of the draft it names, the caches cut back to that draft give a fresh prefill's
// logits, and greedy is the target's greedy.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import { generateTokens, loadLocalModel, positionLogits, speculativeGenerate, type ForwardPass, type LoadedModel, type SpeculativeOptions, type SpeculativeStep } from 'sampling-lab/transformers';
import { bincount, chiSquare } from '../support/statistics.js';
import { ensureSpeculativePair } from '../support/tiny-model.js';

const PROMPT = 'Several drafts are verified together, so that';
let lab: Lab;
let target: LoadedModel;
let draft: LoadedModel;
const ONE_THREAD = { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } };

beforeAll(async () => {
  const pair = ensureSpeculativePair();
  lab = await loadSamplingLab();
  [target, draft] = await Promise.all([pair.target, pair.draft].map((folder) => loadLocalModel(folder, ONE_THREAD)));
});

async function speculate(options: Omit<SpeculativeOptions, 'lab'>, onForward?: (pass: ForwardPass) => void) {
  const run = speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, stopAtEos: false, onForward, ...options });
  const steps: SpeculativeStep[] = [];
  for await (const step of run) steps.push(step);
  return { steps, tokens: steps.flatMap((s) => s.tokens), stats: run.stats };
}

it('k = 3 drafts leave the first and second emitted tokens to the target (χ²); the best of separate verifications fails', async () => {
  const K = 3;
  const options = { temperature: 1, topK: 4 };
  const ids = Array.from(target.tokenizer.encode(PROMPT), Number);
  const [p0Full, q0Full] = await Promise.all([target, draft].map((side) => positionLogits(side.model, ids, ids.length - 1)));
  const kept = (row: Float32Array, history: number[]) => lab.distribution(row, { ...options, generatedIds: history }).probs;
  // The rows after each token either side can put first.
  const firsts = [...new Set([p0Full, q0Full].flatMap((row) => [...kept(row, ids).entries()].filter(([, p]) => p > 0).map(([token]) => token)))];
  const afterFull = new Map<number, Float32Array[]>();
  for (const token of firsts) afterFull.set(token, await Promise.all([target, draft].map((side) => positionLogits(side.model, [...ids, token], ids.length))));
  // Every row cut to the tokens any of them keeps (top 4 of each, which topK 4 leaves as they are):
  // the verification then runs on a few dozen logits instead of 151,936.
  const all = [p0Full, q0Full, ...[...afterFull.values()].flat()];
  const subset = [...new Set(all.flatMap((row) => [...lab.distribution(row, { topK: 8 }).probs.entries()].filter(([, p]) => p > 0).map(([token]) => token)))].sort((a, b) => a - b);
  const cut = (row: Float32Array) => Float32Array.from(subset, (token) => row[token]);
  const [p0, q0] = [cut(p0Full), cut(q0Full)];
  const after = new Map([...afterFull].map(([token, [p, q]]) => [subset.indexOf(token), { p: cut(p), q: cut(q) }]));
  const first: number[] = [], second = new Map<number, number[]>(), wrong: number[] = [];
  for (let t = 0; t < 3000; t++) {
    const key = { ...options, seed: 5, stream: t, step: ids.length };
    const drafts = Array.from({ length: K }, (_, j) => {
      const stream = lab.nthDraftStream(lab.draftStream(t), j);
      const x0 = lab.sampleToken(q0, { ...options, seed: 5, stream, step: ids.length });
      const x1 = lab.sampleToken(after.get(x0)!.q, { ...options, seed: 5, stream, step: ids.length + 1, generatedIds: [x0] });
      return [x0, x1];
    });
    // The bonus row (the third token's) is not looked at: p0 stands in.
    const targetRows = drafts.flatMap(([x0]) => [p0, after.get(x0)!.p, p0]);
    const draftRows = drafts.flatMap(([x0]) => [q0, after.get(x0)!.q]);
    const verdict = lab.speculativeVerify(targetRows, draftRows, drafts, key);
    expect(Array.from(verdict.tokens.subarray(0, verdict.accepted))).toEqual(drafts[verdict.draft].slice(0, verdict.accepted));
    first.push(verdict.tokens[0]);
    if (verdict.accepted > 0) {
      const [a, b] = verdict.tokens;
      second.set(a, [...(second.get(a) ?? []), b]);
    }
    // The wrong rule: each draft verified alone against p, the furthest kept.
    const alone = drafts.map((tokens, j) => lab.speculativeVerify(targetRows.slice(3 * j, 3 * j + 3), draftRows.slice(2 * j, 2 * j + 2), tokens, {
      ...key, draftStream: lab.nthDraftStream(lab.draftStream(t), j),
    }));
    wrong.push(alone.reduce((best, verdict) => (verdict.accepted > best.accepted ? verdict : best)).tokens[0]);
  }
  const v = subset.length;
  const firstFit = chiSquare(bincount(first, v), kept(p0, []));
  // The second token after the commonest accepted first.
  const [a, seconds] = [...second.entries()].reduce((best, entry) => (entry[1].length > best[1].length ? entry : best));
  const secondFit = chiSquare(bincount(seconds, v), kept(after.get(a)!.p, [a]));
  const wrongFit = chiSquare(bincount(wrong, v), kept(p0, []));
  console.log(`${K} drafts, χ² p-values on the tiny pair: first ${firstFit.pValue.toPrecision(3)}, second ${secondFit.pValue.toPrecision(3)} (${seconds.length} draws after token ${subset[a]}), best of separate verifications ${wrongFit.pValue.toExponential(2)}`);
  expect(seconds.length).toBeGreaterThan(500);
  expect(firstFit.pValue).toBeGreaterThan(1e-3);
  expect(secondFit.pValue).toBeGreaterThan(1e-3);
  expect(wrongFit.pValue).toBeLessThan(1e-6);
});

it('speculativeGenerate with drafts: 3 emits the named draft\'s tokens with the target\'s logprobs, its caches match a fresh prefill, a seed repeats and greedy is the target\'s greedy', async () => {
  const passes: ForwardPass[] = [];
  const { steps, tokens, stats } = await speculate({ drafts: 3, gamma: 3, maxNewTokens: 24, seed: 9, logprobs: 1 }, (pass) => passes.push(pass));
  for (const step of steps) {
    expect(step.drafts!.proposals).toHaveLength(3);
    expect(step.proposed).toEqual(step.drafts!.proposals[step.drafts!.emitted]);
    expect(step.tokens.slice(0, step.accepted)).toEqual(step.proposed.slice(0, step.accepted));
  }
  // The draft's passes after the first position of a step run one batch row per draft, and every verification scores 3.
  expect(passes.some((pass) => pass.role === 'draft' && pass.sequences.length === 3)).toBe(true);
  expect(passes.filter((pass) => pass.role === 'target').slice(1).every((pass) => pass.sequences.length === 3)).toBe(true);
  expect(stats.tokens).toBe(24);
  // Each token's logprob is read from the emitted draft's rows: the target's own at its position.
  const ids = Array.from(target.tokenizer.encode(PROMPT), Number);
  const scored = steps.flatMap((step) => step.tokens.map((token, k) => ({ token, logprob: step.logprobs![k].logprob })));
  for (const [i, { token, logprob }] of scored.slice(0, 8).entries()) {
    const sequence = [...ids, ...tokens.slice(0, i)];
    const row = await positionLogits(target.model, sequence, sequence.length - 1);
    expect(lab.tokenLogprobs(row, token, { logprobs: 1 }).logprob).toBeCloseTo(logprob, 4);
  }
  expect((await speculate({ drafts: 3, gamma: 3, maxNewTokens: 24, seed: 9 })).tokens).toEqual(tokens);
  // Each verification after the first starts where the caches, cut back to the emitted draft's
  // row, left off: its first row is a fresh prefill's of the sequence so far.
  const verifications = passes.filter((pass) => pass.role === 'target').slice(1);
  for (const s of [0, 1, 2]) {
    const sequence = [...ids, ...steps.slice(0, s + 1).flatMap((step) => step.tokens)];
    const fresh = await positionLogits(target.model, sequence, sequence.length - 1);
    const row = verifications[s + 1].rows.subarray(0, fresh.length);
    expect(row.reduce((worst, value, i) => Math.max(worst, Math.abs(value - fresh[i])), 0), `after step ${s}`).toBeLessThan(1e-4);
  }
  const greedy: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, PROMPT, { lab, maxNewTokens: 16, stopAtEos: false, topCandidates: 0, temperature: 0 })) greedy.push(step.token);
  expect((await speculate({ drafts: 2, gamma: 3, maxNewTokens: 16, temperature: 0 })).tokens).toEqual(greedy);
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, drafts: 0 })).toThrow(SamplingLabError);
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, drafts: 2, grammar: {} as never })).toThrow(expect.objectContaining({ argument: 'drafts' }));
});
