// speculativeGenerate on the tiny target/draft pair (tests/support/tiny_qwen3.py): greedy equals
// the target's greedy decoding, an identical draft is always accepted, a seed repeats, and the
// KV caches cut back after a rejection give what a fresh prefill gives.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import {
  generateTokens, loadLocalModel, positionLogits, speculativeGenerate, type ForwardPass, type LoadedModel, type SpeculativeOptions,
  type SpeculativeStep,
} from 'sampling-lab/transformers';
import { ensureSpeculativePair } from '../support/tiny-model.js';

const PROMPT = 'Speculative decoding drafts a few tokens, then';
const EOS = 151645;
let lab: Lab;
let target: LoadedModel;
let draft: LoadedModel;
let pair: { target: string; draft: string };
// One onnxruntime thread each: on a shared 2-core machine a second thread mostly waits.
const ONE_THREAD = { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } };

beforeAll(async () => {
  pair = ensureSpeculativePair();
  lab = await loadSamplingLab();
  [target, draft] = await Promise.all([pair.target, pair.draft].map((folder) => loadLocalModel(folder, ONE_THREAD)));
});

async function speculate(options: Omit<SpeculativeOptions, 'lab'>, drafter = draft) {
  const run = speculativeGenerate(target.model, drafter.model, target.tokenizer, PROMPT, { lab, stopAtEos: false, ...options });
  const steps: SpeculativeStep[] = [];
  for await (const step of run) steps.push(step);
  return { steps, tokens: steps.flatMap((s) => s.tokens), stats: run.stats, usage: run.usage, finishReason: run.finishReason };
}

async function targetTokens(options: object, maxNewTokens: number): Promise<number[]> {
  const tokens: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, PROMPT, { lab, maxNewTokens, stopAtEos: false, topCandidates: 0, ...options })) {
    tokens.push(step.token);
  }
  return tokens;
}

it('greedy speculative decoding returns exactly the target\'s greedy tokens, for γ = 1, 3 and 5', async () => {
  const greedy = await targetTokens({ temperature: 0 }, 24);
  for (const gamma of [1, 3, 5]) {
    const { tokens, stats } = await speculate({ temperature: 0, gamma, maxNewTokens: 24 });
    expect(tokens, `γ = ${gamma}`).toEqual(greedy);
    // The draft is close but not the target: some proposals were rejected, most accepted.
    expect(stats.accepted).toBeLessThan(stats.proposed);
    expect(stats.accepted).toBeGreaterThan(stats.proposed / 3);
  }
});

it('lab.bestGamma maximises expected tokens per unit of time: every γ with a free draft, fewer as the verification grows or the draft costs', () => {
  expect(lab.bestGamma(0.8, 0, [1, 10], 8)).toBe(8);
  // The chapter's pair (α 0.87, c = 0.072) with a flat verification: the γ maximising E/(γc + 1).
  const rate = (g: number) => lab.expectedTokens(0.87, g) / (g * 0.072 + 1);
  const best = [1, 2, 3, 4, 5, 6, 7, 8].reduce((a, g) => (rate(g) > rate(a) ? g : a));
  expect(lab.bestGamma(0.87, 0.072, [1, 1], 8)).toBe(best);
  // A verification growing 0.5 per position; a draft as dear as the target; nothing timed.
  expect(lab.bestGamma(0.87, 0.072, [2, 2, 4, 3, 6, 4], 8)).toBeLessThan(best);
  expect(lab.bestGamma(0.5, 1, [1, 1], 8)).toBe(1);
  expect(lab.bestGamma(0.5, 0.1, [], 6)).toBe(6);
  expect(lab.expectedTokens(1, 4)).toBe(5);
  expect(lab.expectedTokens(0.5, 2)).toBeCloseTo(1.75, 12);
});

it('gamma \'auto\' picks γ in [1, 8] before each step from the run\'s acceptance and timed passes, and stays exact (greedy = the target\'s greedy)', async () => {
  const greedy = await targetTokens({ temperature: 0 }, 24);
  const { tokens, steps } = await speculate({ temperature: 0, gamma: 'auto', maxNewTokens: 24 });
  expect(tokens).toEqual(greedy);
  expect(steps[0].gamma).toBe(4);
  for (const step of steps) {
    expect(step.gamma).toBeGreaterThanOrEqual(1);
    expect(step.gamma).toBeLessThanOrEqual(8);
    expect(step.proposed.length).toBeLessThanOrEqual(step.gamma!);
  }
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, gamma: 'fast' as never })).toThrow(expect.objectContaining({ argument: 'gamma' }));
});

it('with a draft identical to the target every proposal is accepted, sampled or greedy', async () => {
  // The target's folder loaded again: the same weights.
  const identical = await loadLocalModel(pair.target, ONE_THREAD);
  for (const options of [{ temperature: 1, seed: 3 }, { temperature: 0.7, topP: 0.9, seed: 4 }, { temperature: 0 }]) {
    const { steps, stats } = await speculate({ ...options, gamma: 4, maxNewTokens: 20 }, identical);
    for (const step of steps) {
      expect(step.accepted, JSON.stringify(options)).toBe(step.proposed.length);
      expect(step.fromResidual).toBe(false);
      expect(step.tokens.slice(0, -1)).toEqual(step.proposed);
    }
    expect(stats.acceptance).toBe(1);
    expect(stats.tokensPerTargetPass).toBe(5);
  }
});

it('the same seed gives the same text twice, another seed another; the options bind both models', async () => {
  const options = { temperature: 0.9, topK: 40, seed: 21, gamma: 3, maxNewTokens: 24 };
  const first = await speculate(options);
  const again = await speculate(options);
  expect(again.steps).toEqual(first.steps);
  expect(first.steps.map((s) => s.text).join('')).toBe(target.tokenizer.decode(first.tokens));
  expect((await speculate({ ...options, seed: 22 })).tokens).not.toEqual(first.tokens);
  expect(first.steps.some((s) => s.fromResidual)).toBe(true);
  const allowed = [100, 200, 300, 400, 151000];
  const { tokens, steps } = await speculate({ allowedTokens: allowed, temperature: 1.5, seed: 2, maxNewTokens: 12 });
  expect(tokens.every((t) => allowed.includes(t)), String(tokens)).toBe(true);
  expect(steps.flatMap((s) => s.proposed).every((t) => allowed.includes(t))).toBe(true);
});

it('after a rejection both KV caches give the logits of a fresh prefill of the accepted sequence (1e-4)', async () => {
  const passes: { role: string; ids: number[]; rows: Float32Array; keep: number; vocab: number }[] = [];
  const onForward = ({ role, sequences, rows, keep, vocab }: ForwardPass) => passes.push({ role, ids: [...sequences[0]], rows: rows.slice(), keep, vocab });
  const { steps } = await speculate({ temperature: 1, seed: 5, gamma: 3, maxNewTokens: 16, onForward });
  // Rejections before the last step: the passes after them start from caches that were cut back.
  const rejections = steps.slice(0, -1).filter((s) => s.accepted < s.proposed.length).length;
  expect(rejections).toBeGreaterThan(0);
  expect(passes.filter((p) => p.role === 'target')).toHaveLength(steps.length);
  for (const [index, { role, ids, rows, keep, vocab }] of passes.entries()) {
    for (let r = 0; r < keep; r++) {
      const position = ids.length - keep + r;
      const fresh = await positionLogits((role === 'target' ? target : draft).model, ids, position);
      let worst = 0;
      for (let v = 0; v < vocab; v++) worst = Math.max(worst, Math.abs(rows[r * vocab + v] - fresh[v]));
      expect(worst, `pass ${index} (${role}), position ${position}`).toBeLessThan(1e-4);
    }
  }
});

it('keeps its totals, stops at maxNewTokens exactly, at EOS, on break and on an aborted signal', async () => {
  const { steps, tokens, stats, usage, finishReason } = await speculate({ temperature: 1, seed: 8, gamma: 4, maxNewTokens: 10 });
  expect(tokens).toHaveLength(10);
  expect(steps.map((s) => s.finishReason)).toEqual([...Array(steps.length - 1).fill(undefined), 'length']);
  expect(finishReason).toBe('length');
  expect(usage).toMatchObject({ promptTokens: target.tokenizer.encode(PROMPT).length, completionTokens: 10 });
  expect(usage.prefillMs + usage.decodeMs).toBeCloseTo(stats.wallMs, 6);
  expect(usage.tokensPerSecond).toBeCloseTo(10 / (stats.wallMs / 1000), 6);
  expect(stats).toMatchObject({
    tokens: 10, targetCalls: steps.length, draftCalls: steps.reduce((sum, s) => sum + s.proposed.length, 0),
    proposed: steps.reduce((sum, s) => sum + s.proposed.length, 0), accepted: steps.reduce((sum, s) => sum + s.accepted, 0),
  });
  expect(stats.acceptance).toBeCloseTo(stats.accepted / stats.proposed, 12);
  expect(stats.tokensPerTargetPass).toBeCloseTo(10 / steps.length, 12);
  expect(stats.wallMs).toBeGreaterThan(0);
  // A bias of 40 on both sides makes EOS all but certain: the first step ends with it.
  const eos = await speculate({ logitBias: { [EOS]: 40 }, seed: 1, stopAtEos: true });
  expect(eos.tokens).toEqual([EOS]);
  expect(eos.steps[0].finishReason).toBe('stop');
  const controller = new AbortController();
  let seen = 0;
  const aborted = speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, seed: 1, signal: controller.signal });
  for await (const _ of aborted) {
    if (++seen === 2) controller.abort();
  }
  expect(seen).toBe(2);
  expect(aborted.finishReason).toBe('abort');
  const before = speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, seed: 1, signal: AbortSignal.abort() });
  expect((await before.next()).done).toBe(true);
  expect(before.finishReason).toBe('abort');
  const run = speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, seed: 1 });
  for await (const _ of run) break;
  expect(run.stats.targetCalls).toBe(1);
  expect((await run.next()).done).toBe(true);
});

it('stop strings and stop token ids end the sequence where the same run without them reaches them', async () => {
  const options = { temperature: 1, seed: 11, gamma: 3, maxNewTokens: 24 };
  const whole = await speculate(options);
  // A token that first appears after the first step, and a stop string completed inside a step.
  const index = whole.tokens.findIndex((token, i) => i >= 4 && whole.tokens.indexOf(token) === i);
  const byId = await speculate({ ...options, stopTokenIds: [whole.tokens[index]] });
  expect(byId.tokens).toEqual(whole.tokens.slice(0, index + 1));
  expect(byId.steps.at(-1)).toMatchObject({ finishReason: 'stop', stopReason: whole.tokens[index] });
  const text = target.tokenizer.decode(whole.tokens, { skip_special_tokens: true });
  const stop = text.slice(10, 13);
  const byString = await speculate({ ...options, stop: [stop] });
  const endsAt = byString.tokens.length;
  expect(byString.tokens).toEqual(whole.tokens.slice(0, endsAt));
  expect(target.tokenizer.decode(byString.tokens, { skip_special_tokens: true })).toContain(stop);
  expect(target.tokenizer.decode(byString.tokens.slice(0, -1), { skip_special_tokens: true })).not.toContain(stop);
  expect(byString.steps.at(-1)).toMatchObject({ finishReason: 'stop', stopReason: stop });
});

it('minNewTokens holds EOS, the stop tokens and the stop strings back in both models, as generateTokens does', async () => {
  // Greedy: the tokens are the target's greedy tokens under the same mask, which generateTokens applies.
  const greedy = { temperature: 0, gamma: 3, maxNewTokens: 16 };
  const free = await speculate(greedy);
  const early = free.tokens[1];
  const endsAt = free.tokens.indexOf(early);
  expect((await speculate({ ...greedy, stopTokenIds: [early] })).tokens).toHaveLength(endsAt + 1);
  const held = await speculate({ ...greedy, stopTokenIds: [early], minNewTokens: 8 });
  expect(held.tokens.slice(0, 7)).not.toContain(early);
  expect(held.tokens.length).toBeGreaterThanOrEqual(8);
  expect(held.tokens).toEqual(await targetTokens({ temperature: 0, stopTokenIds: [early], minNewTokens: 8 }, 16));
  // Sampled, with a stop string the free run completes within its first tokens.
  const sampled = { temperature: 1, seed: 11, gamma: 3, maxNewTokens: 24 };
  const whole = await speculate(sampled);
  const stop = target.tokenizer.decode(whole.tokens.slice(0, 2), { skip_special_tokens: true }).slice(-2);
  expect(stop).toHaveLength(2);
  expect((await speculate({ ...sampled, stop: [stop] })).tokens.length).toBeLessThanOrEqual(2);
  const late = await speculate({ ...sampled, stop: [stop], minNewTokens: 10 });
  expect(late.tokens.length).toBeGreaterThanOrEqual(10);
  if (late.finishReason === 'stop') expect(late.steps.at(-1)?.stopReason).toBe(stop);
});

it('n sequences run one after another, sequence i as a run of its own on stream i; logprobs score each token in the target\'s row', async () => {
  const options = { temperature: 1, topK: 50, seed: 7, gamma: 3, maxNewTokens: 10 };
  const both = await speculate({ ...options, n: 2 });
  expect(both.steps.map((s) => s.sequence)).toEqual([...both.steps].map((s) => s.sequence).sort());
  for (const sequence of [0, 1]) {
    const alone = await speculate({ ...options, stream: sequence });
    const mine = both.steps.filter((s) => s.sequence === sequence);
    expect(mine.flatMap((s) => s.tokens)).toEqual(alone.tokens);
    expect(mine.map((s) => s.textDelta).join('')).toBe(alone.steps.map((s) => s.textDelta).join(''));
  }
  expect(both.usage.completionTokens).toBe(both.tokens.length);
  // Each token's logprobs are those of the target's fresh logits at its position, as lab.tokenLogprobs scores them.
  const prompt = Array.from(target.tokenizer.encode(PROMPT), Number);
  const rows: Float32Array[] = [];
  for (const logprobsMode of ['raw', 'processed'] as const) {
    const { steps, tokens } = await speculate({ ...options, logprobs: 2, logprobsMode });
    const scored = steps.flatMap((s) => s.logprobs!);
    expect(scored).toHaveLength(tokens.length);
    for (const [k, token] of tokens.entries()) {
      // The logprobs do not change the tokens: both modes' runs read the same rows.
      const fresh = rows[k] ??= await positionLogits(target.model, [...prompt, ...tokens.slice(0, k)], prompt.length + k - 1);
      const expected = lab.tokenLogprobs(fresh, token, { topK: 50, temperature: 1, logprobs: 2, logprobsMode });
      expect(scored[k].logprob, `token ${k}`).toBeCloseTo(expected.logprob, 3);
      expect(scored[k].rank).toBe(expected.rank);
      expect(scored[k].top.map((t) => t.token)).toEqual(expected.top.map((t) => t.token));
      expect(scored[k].top[0].text).toBe(target.tokenizer.decode([expected.top[0].token]));
    }
  }
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, n: 0 })).toThrow(expect.objectContaining({ argument: 'n' }));
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, logprobs: 21 })).toThrow(expect.objectContaining({ argument: 'logprobs' }));
  expect(() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab, logprobsMode: 'raw' })).toThrow(expect.objectContaining({ argument: 'logprobsMode' }));
});

it('bad arguments are SamplingLabErrors naming the argument, thrown at the call', async () => {
  await expect(loadLocalModel(pair.draft, { sessionOptions: 'one thread' as never })).rejects.toMatchObject({ argument: 'sessionOptions' });
  const narrower = new Proxy(draft.model, { get: (model, name) => (name === 'config' ? { ...model.config, vocab_size: 1000 } : Reflect.get(model, name)) });
  const call = (options: object, drafter = draft.model) => () => speculativeGenerate(target.model, drafter, target.tokenizer, PROMPT, { lab, ...options } as SpeculativeOptions);
  const cases: [() => unknown, string][] = [
    [call({ gamma: 0 }), 'gamma'], [call({ gamma: lab.maxDraftTokens + 1 }), 'gamma'], [call({ gamma: 2.5 }), 'gamma'],
    [call({ maxNewTokens: -1 }), 'maxNewTokens'], [call({ minNewTokens: -1 }), 'minNewTokens'],
    [call({ maxNewTokens: 8, minNewTokens: 9 }), 'minNewTokens'], [call({ stopAtEos: 1 }), 'stopAtEos'], [call({ signal: {} }), 'signal'],
    [call({ onForward: 'log' }), 'onForward'], [call({ mirostat: { version: 2 } }), 'mirostat'], [call({ topp: 0.9 }), 'topp'],
    [call({ step: 3 }), 'step'], [call({ generatedIds: [1] }), 'generatedIds'], [call({ topP: 2 }), 'topP'],
    [call({ bannedTokens: [151936] }), 'bannedTokens'], [call({ draftStream: -1 }), 'draftStream'],
    [call({}, {} as never), 'draft'], [call({}, narrower), 'draft'],
    [() => speculativeGenerate({} as never, draft.model, target.tokenizer, PROMPT, { lab }), 'target'],
    [() => speculativeGenerate(target.model, draft.model, {} as never, PROMPT, { lab }), 'tokenizer'],
    [() => speculativeGenerate(target.model, draft.model, target.tokenizer, 3 as never, { lab }), 'prompt'],
    [() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, undefined as never), 'lab'],
    [() => speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, { lab: {} } as never), 'lab'],
  ];
  for (const [run, argument] of cases) {
    let error: unknown;
    try {
      run();
    } catch (caught) {
      error = caught;
    }
    expect(error, argument).toBeInstanceOf(SamplingLabError);
    expect((error as SamplingLabError).argument, (error as Error).message).toBe(argument);
  }
});
