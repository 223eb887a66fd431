// Prompt lookup decoding on the tiny target (tests/support/tiny_qwen3.py): speculativeGenerate
// with { promptLookup } and no second model, its proposals copied from the sequence and verified as
// point drafts. Exact by χ² on the tiny model's own rows (the first emitted token against p, the
// second, after an accepted first, against the next row's p), with the negative control that
// redraws a rejection from p itself; greedy gives the target's greedy tokens; a step with nothing
// to match costs one plain target pass.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import {
  generateTokens, loadLocalModel, positionLogits, speculativeGenerate, type ForwardPass, type LoadedModel, type SpeculativeOptions,
} from 'sampling-lab/transformers';
import { bincount, chiSquare } from '../support/statistics.js';
import { ensureSpeculativePair } from '../support/tiny-model.js';

const PROMPT = 'Prompt lookup copies what followed the last few tokens before; prompt lookup copies';
// A prompt whose greedy continuation repeats pairs of tokens, which prompt lookup then proposes.
const REPEATING = 'a b a b a b a b a b';
let lab: Lab;
let target: LoadedModel;
const ONE_THREAD = { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } };

beforeAll(async () => {
  lab = await loadSamplingLab();
  target = await loadLocalModel(ensureSpeculativePair().target, ONE_THREAD);
});

async function lookUp(options: Omit<SpeculativeOptions, 'lab'>, promptLookup = {}, prompt = PROMPT) {
  const passes: ForwardPass[] = [];
  const run = speculativeGenerate(target.model, { promptLookup }, target.tokenizer, prompt, {
    lab, stopAtEos: false, onForward: (pass) => passes.push(pass), ...options,
  });
  const steps = [];
  for await (const step of run) steps.push(step);
  return { steps, tokens: steps.flatMap((s) => s.tokens), stats: run.stats, passes };
}

it('the emitted tokens follow the target: χ² of the first token and of the second after an accepted first; redrawing from p fails', async () => {
  const options = { temperature: 0.3, topK: 12 };
  const ids = Array.from(target.tokenizer.encode(PROMPT), Number);
  const argmax = (probs: Float32Array) => probs.reduce((best, p, i) => (p > probs[best] ? i : best), 0);
  const row0 = await positionLogits(target.model, ids, ids.length - 1);
  const p0 = lab.distribution(row0, options).probs;
  const x0 = argmax(p0);
  const row1 = await positionLogits(target.model, [...ids, x0], ids.length);
  const p1 = lab.distribution(row1, options).probs;
  const x1 = argmax(p1);
  const row2 = await positionLogits(target.model, [...ids, x0, x1], ids.length + 1);
  const rows = [row0, row1, row2];
  const first: number[] = [], second: number[] = [], wrong: number[] = [];
  for (let t = 0; t < 3000; t++) {
    const verdict = lab.speculativeVerify(rows, null, [x0, x1], { ...options, seed: 7, stream: t, step: ids.length });
    first.push(verdict.tokens[0]);
    if (verdict.accepted > 0) second.push(verdict.tokens[1]);
    // The wrong rule: a rejected x0 redrawn from p0 with x0 still in it.
    wrong.push(verdict.accepted > 0 ? x0 : lab.sampleToken(row0, { ...options, seed: 8, stream: t }));
  }
  const v = p0.length;
  const [firstFit, secondFit, wrongFit] = [chiSquare(bincount(first, v), p0), chiSquare(bincount(second, v), p1), chiSquare(bincount(wrong, v), p0)];
  console.log(`prompt lookup χ² p-values on the tiny model: first ${firstFit.pValue.toPrecision(3)}, second ${secondFit.pValue.toPrecision(3)} (${second.length} draws), wrong rule ${wrongFit.pValue.toExponential(2)}`);
  expect(second.length).toBeGreaterThan(500);
  expect(firstFit.pValue).toBeGreaterThan(1e-3);
  expect(secondFit.pValue).toBeGreaterThan(1e-3);
  expect(wrongFit.pValue).toBeLessThan(1e-6);
});

it('greedy prompt lookup returns exactly the target\'s greedy tokens, in fewer target passes where the output repeats', async () => {
  const greedy: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, REPEATING, { lab, maxNewTokens: 48, stopAtEos: false, topCandidates: 0, temperature: 0 })) {
    greedy.push(step.token);
  }
  const { tokens, stats, steps } = await lookUp({ temperature: 0, gamma: 4, maxNewTokens: 48 }, {}, REPEATING);
  expect(tokens).toEqual(greedy);
  expect(stats.draftCalls).toBe(0);
  expect(stats.accepted).toBeGreaterThan(0);
  expect(stats.tokensPerTargetPass).toBeGreaterThan(1);
  // Each step with a match names the n-gram: the sequence's last n tokens before the step.
  const seen = Array.from(target.tokenizer.encode(REPEATING), Number);
  for (const step of steps) {
    if (step.lookup) expect(seen.slice(seen.length - step.lookup.ngram.length)).toEqual(step.lookup.ngram);
    if (step.lookup) expect(seen.slice(step.lookup.at, step.lookup.at + step.lookup.ngram.length)).toEqual(step.lookup.ngram);
    seen.push(...step.tokens);
  }
});

it('a step with nothing to match proposes nothing and costs one plain target pass; a seed repeats', async () => {
  // ngramMin past anything that recurs in a short run: no proposal, one pass and one token a step.
  const { steps, passes, stats } = await lookUp({ temperature: 1, seed: 3, maxNewTokens: 6 }, { ngramMin: 12, ngramMax: 12 });
  expect(steps.every((s) => s.proposed.length === 0 && s.tokens.length === 1 && s.lookup === undefined)).toBe(true);
  expect(passes.map((p) => p.keep)).toEqual([1, 1, 1, 1, 1, 1]);
  expect(stats.targetCalls).toBe(6);
  const plain: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, PROMPT, { lab, maxNewTokens: 6, stopAtEos: false, topCandidates: 0, temperature: 1, seed: 3 })) {
    plain.push(step.token);
  }
  expect(steps.flatMap((s) => s.tokens)).toEqual(plain);
  const options = { temperature: 0.8, seed: 11, gamma: 3, maxNewTokens: 20 };
  expect((await lookUp(options)).steps).toEqual((await lookUp(options)).steps);
});

it('with drafts: k, up to k distinct matches are verified together: greedy is still the target\'s greedy, and each step names the match it emitted', async () => {
  // The lab's proposals: the next occurrences, longer n-grams first, each continuation new.
  const found = lab.promptLookup([1, 2, 3, 1, 2, 4, 9, 2, 3, 1, 2, 3, 5, 2], { ngramMax: 2, gamma: 2, drafts: 4 });
  expect(found.drafts.map((match) => match.tokens)).toEqual([[3, 1], [4, 9], [3, 5]]);
  expect(found.tokens).toEqual([3, 1]);
  expect(lab.promptLookup([1, 2, 3], { drafts: 3 }).drafts).toEqual([]);
  const greedy: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, REPEATING, { lab, maxNewTokens: 32, stopAtEos: false, topCandidates: 0, temperature: 0 })) {
    greedy.push(step.token);
  }
  const { tokens, steps, passes } = await lookUp({ temperature: 0, gamma: 3, maxNewTokens: 32, drafts: 3 }, { ngramMax: 2 }, REPEATING);
  expect(tokens).toEqual(greedy);
  const several = steps.filter((step) => step.drafts);
  expect(several.length).toBeGreaterThan(0);
  const seen = Array.from(target.tokenizer.encode(REPEATING), Number);
  for (const step of steps) {
    if (step.drafts) {
      // Distinct proposals, the emitted one's match named, its tokens the step's accepted ones.
      expect(new Set(step.drafts.proposals.map((p) => p.join())).size).toBe(step.drafts.proposals.length);
      expect(step.proposed).toEqual(step.drafts.proposals[step.drafts.emitted]);
      expect(seen.slice(step.lookup!.at, step.lookup!.at + step.lookup!.ngram.length)).toEqual(step.lookup!.ngram);
    }
    expect(step.tokens.slice(0, step.accepted)).toEqual(step.proposed.slice(0, step.accepted));
    seen.push(...step.tokens);
  }
  // Several proposals run as one batched target pass.
  expect(passes.some((pass) => pass.sequences.length > 1)).toBe(true);
  // Sampled, a seed repeats.
  const options = { temperature: 0.8, seed: 4, gamma: 3, maxNewTokens: 16, drafts: 3 };
  expect((await lookUp(options, {}, REPEATING)).tokens).toEqual((await lookUp(options, {}, REPEATING)).tokens);
});

it('bad prompt lookup options are SamplingLabErrors naming the argument', () => {
  const start = (promptLookup: object, options: object = {}) => () =>
    speculativeGenerate(target.model, { promptLookup } as never, target.tokenizer, PROMPT, { lab, ...options });
  for (const [promptLookup, argument] of [[{ ngramMin: 0 }, 'ngramMin'], [{ ngramMax: 65 }, 'ngramMax'], [{ ngramMin: 3, ngramMax: 2 }, 'ngramMax'],
    [{ ngram: 2 }, 'ngram'], [{ ngramMax: '3' }, 'ngramMax']] as const) {
    expect(start(promptLookup), JSON.stringify(promptLookup)).toThrow(expect.objectContaining({ argument }));
  }
  expect(start({}, { gamma: 0 })).toThrow(SamplingLabError);
  expect(() => lab.promptLookup(new Int32Array(lab.maxLookupContext + 1))).toThrow(expect.objectContaining({ argument: 'context' }));
  for (const drafts of [0, lab.maxDrafts + 1, 1.5]) expect(() => lab.promptLookup([1, 2, 1], { drafts })).toThrow(expect.objectContaining({ argument: 'drafts' }));
});
