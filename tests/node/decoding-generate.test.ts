// generateTokens' sequence options on the tiny model: n parallel sequences in one batch, stop
// strings, stop token ids and minNewTokens, each against a plain reading of its documentation.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import { generateTokens, loadLocalModel, type GenerateOptions, type GeneratedToken, type LoadedModel } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';

const PROMPT = 'The three laws of thermodynamics are';
const EOS = 151645;
let lab: Lab;
let tiny: LoadedModel;

beforeAll(async () => {
  lab = await loadSamplingLab();
  tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
});

async function steps(options: Omit<GenerateOptions, 'lab'>): Promise<GeneratedToken[]> {
  const all: GeneratedToken[] = [];
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, stopAtEos: false, ...options })) all.push(step);
  return all;
}

const tokensOf = (all: GeneratedToken[], sequence = 0) => all.filter((s) => s.sequence === sequence).map((s) => s.token);

it('n sequences in one batch: sequence i draws exactly what n = 1 draws on stream + i, one token per sequence per step', async () => {
  for (const options of [
    { temperature: 0.9, topP: 0.9, repetitionPenalty: 1.3, seed: 3, stream: 5 },
    { mirostat: { version: 2 as const, tau: 3, eta: 0.5 }, seed: 4 },
  ]) {
    const batched = await steps({ ...options, n: 3, maxNewTokens: 6 });
    expect(batched.map((s) => s.sequence)).toEqual(Array.from({ length: 18 }, (_, i) => i % 3));
    for (let i = 0; i < 3; i++) {
      const alone = await steps({ ...options, stream: (options.stream ?? 0) + i, maxNewTokens: 6 });
      expect(tokensOf(batched, i), `${JSON.stringify(options)} sequence ${i}`).toEqual(tokensOf(alone));
    }
    expect(new Set([0, 1, 2].map((i) => tokensOf(batched, i).join())).size).toBe(3);
  }
});

it('a sequence that stops leaves the batch; the others go on as they would alone', async () => {
  const options = { temperature: 1.2, seed: 9 };
  const alone = await Promise.all([0, 1, 2].map(async (stream) => tokensOf(await steps({ ...options, stream, maxNewTokens: 8 }))));
  const stopId = alone[1][2];
  const expected = alone.map((tokens) => (tokens.includes(stopId) ? tokens.slice(0, tokens.indexOf(stopId) + 1) : tokens));
  const batched = await steps({ ...options, n: 3, maxNewTokens: 8, stopTokenIds: [stopId] });
  for (let i = 0; i < 3; i++) {
    expect(tokensOf(batched, i)).toEqual(expected[i]);
    const last = batched.filter((s) => s.sequence === i).at(-1)!;
    expect(last.finishReason).toBe(expected[i].length < 8 ? 'stop' : 'length');
    if (expected[i].length < 8) expect(last.stopReason).toBe(stopId);
  }
  expect(batched.filter((s) => s.finishReason).length).toBe(3);
});

it('a stop string ends the sequence at the token whose text completes it, also across tokens; not before minNewTokens', async () => {
  const options = { temperature: 0.8, seed: 12, maxNewTokens: 16 };
  const free = tokensOf(await steps(options));
  const decode = (ids: number[]) => tiny.tokenizer.decode(ids);
  // Two characters across the boundary of two whole-character tokens.
  const k = free.findIndex((id, i) => i > 2 && i < 14 && !/\uFFFD/.test(decode([id]) + decode([free[i + 1]])) && decode([id]).length > 0 && decode([free[i + 1]]).length > 0);
  const stop = decode([free[k]]).slice(-1) + decode([free[k + 1]]).slice(0, 1);
  // The documented rule, read plainly: the first token, from minNewTokens on, after which the text holds one more match.
  const count = (text: string) => text.split(stop).length - 1;
  const completes = (i: number) => count(decode(free.slice(0, i + 1))) > (i === 0 ? 0 : count(decode(free.slice(0, i))));
  const end = (min: number) => {
    const index = free.findIndex((_, i) => i + 1 >= min && completes(i));
    return index === -1 ? free.length : index + 1;
  };
  const stopped = await steps({ ...options, stop: ['never appears here', stop] });
  expect(tokensOf(stopped)).toEqual(free.slice(0, end(0)));
  expect(end(0)).toBeLessThanOrEqual(k + 2);
  expect(stopped.at(-1)).toMatchObject({ finishReason: 'stop', stopReason: stop });
  for (const min of [end(0), end(0) + 1]) {
    expect(tokensOf(await steps({ ...options, stop: [stop], minNewTokens: min })), `minNewTokens ${min}`).toEqual(free.slice(0, end(min)));
  }
});

it('minNewTokens holds back EOS and the stop tokens (when they stop the sequence), as vLLM\'s min_tokens', async () => {
  // A bias of 40 makes the token all but certain wherever it is allowed.
  const eosFirst = await steps({ logitBias: { [EOS]: 40 }, seed: 1, stopAtEos: true });
  expect(eosFirst.map((s) => s.token)).toEqual([EOS]);
  expect(eosFirst[0]).toMatchObject({ finishReason: 'stop', stopReason: EOS });
  const held = await steps({ logitBias: { [EOS]: 40 }, seed: 1, stopAtEos: true, minNewTokens: 5 });
  expect(held.map((s) => s.token).slice(0, 5)).not.toContain(EOS);
  expect(held.map((s) => s.token)).toHaveLength(6);
  expect(held[5]).toMatchObject({ token: EOS, finishReason: 'stop', stopReason: EOS });
  const stopToken = await steps({ logitBias: { 100: 40 }, seed: 1, stopTokenIds: [100], minNewTokens: 3 });
  expect(stopToken.map((s) => s.token).slice(0, 3)).not.toContain(100);
  expect(stopToken.map((s) => s.token)).toHaveLength(4);
  expect(stopToken[3]).toMatchObject({ token: 100, finishReason: 'stop', stopReason: 100 });
  // With stopAtEos false, EOS neither stops the sequence nor is held back.
  const ignored = await steps({ logitBias: { [EOS]: 40 }, seed: 1, minNewTokens: 3, maxNewTokens: 5 });
  expect(ignored.map((s) => s.token)).toEqual(Array(5).fill(EOS));
  expect(ignored.at(-1)!.finishReason).toBe('length');
  expect(ignored.slice(0, -1).every((s) => s.finishReason === undefined)).toBe(true);
});

it('an abort never throws: before the first step every sequence ends with \'abort\'; during, the step handed over says it', async () => {
  const before = generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, n: 2, signal: AbortSignal.abort() });
  const none: GeneratedToken[] = [];
  for await (const step of before) none.push(step);
  expect(none).toEqual([]);
  expect(before.finishReasons).toEqual(['abort', 'abort']);
  // Aborted while drawing the third step (a stop string's check reads the text): its tokens end the sequences.
  const controller = new AbortController();
  const during = generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, n: 2, seed: 1, maxNewTokens: 10, stopAtEos: false, signal: controller.signal });
  const got: GeneratedToken[] = [];
  for await (const step of during) {
    got.push(step);
    if (got.length === 3) controller.abort();
  }
  // Sequence 0's third token came before the abort; sequence 1's was drawn after it and says so.
  expect(got.map((s) => s.finishReason)).toEqual([undefined, undefined, undefined, 'abort']);
  expect(during.finishReasons).toEqual(['abort', 'abort']);
  // The tokens so far are those of a run that was not aborted.
  const whole = await steps({ n: 2, seed: 1, maxNewTokens: 10 });
  expect(tokensOf(got, 1)).toEqual(tokensOf(whole, 1).slice(0, 2));
});

it('usage: prompt and completion tokens, prefill and decode time, tokens per second; finish reasons per sequence', async () => {
  const run = generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, n: 2, seed: 2, maxNewTokens: 5, stopAtEos: false, stopTokenIds: [100] });
  const all: GeneratedToken[] = [];
  let waited = 0;
  const started = performance.now();
  for await (const step of run) {
    all.push(step);
    const pause = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));  // the consumer's time, left out
    waited += performance.now() - pause;
  }
  const wall = performance.now() - started;
  const { usage } = run;
  expect(usage.promptTokens).toBe(tiny.tokenizer.encode(PROMPT).length);
  expect(usage.completionTokens).toBe(all.length);
  expect(usage.prefillMs).toBeGreaterThan(0);
  expect(usage.decodeMs).toBeGreaterThan(0);
  // The generator's time and the consumer's add up to at most the loop's: none counted twice.
  expect(usage.prefillMs + usage.decodeMs + waited).toBeLessThanOrEqual(wall + 1);
  expect(usage.tokensPerSecond).toBeCloseTo(usage.completionTokens / ((usage.prefillMs + usage.decodeMs) / 1000), 6);
  expect(run.finishReasons).toEqual([0, 1].map((i) => all.filter((s) => s.sequence === i).at(-1)!.finishReason));
  expect(run.finishReasons.every((reason) => reason === 'length' || reason === 'stop')).toBe(true);
});

it('a step\'s description, computed when first read, is the same read at once or after the loop moved on', async () => {
  const options = { temperature: 0.9, topK: 30, topP: 0.8, seed: 7, maxNewTokens: 4, topCandidates: 6, stopAtEos: false };
  const describe = ({ prob, entropyBits, kept, top, cuts }: GeneratedToken) => ({ prob, entropyBits, kept, top, cuts });
  const atOnce: object[] = [];
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options })) atOnce.push(describe(step));
  const later = (await steps(options)).map(describe);
  expect(later).toEqual(atOnce);
  expect(later.every((d) => (d as { kept: number }).kept <= 30)).toBe(true);
});

it('bad sequence options are SamplingLabErrors naming the option, before any forward pass', async () => {
  const cases: [object, string][] = [
    [{ n: 0 }, 'n'], [{ n: 1.5 }, 'n'], [{ n: 129 }, 'n'], [{ n: '2' }, 'n'],
    [{ stop: 'end' }, 'stop'], [{ stop: [''] }, 'stop'], [{ stop: [7] }, 'stop'], [{ stop: Array(65).fill('x') }, 'stop'],
    [{ stopTokenIds: [-1] }, 'stopTokenIds'], [{ stopTokenIds: [151936] }, 'stopTokenIds'], [{ stopTokenIds: 5 }, 'stopTokenIds'],
    [{ stopTokenIds: [1.5] }, 'stopTokenIds'],
    [{ minNewTokens: -1 }, 'minNewTokens'], [{ minNewTokens: 9, maxNewTokens: 8 }, 'minNewTokens'], [{ minNewTokens: 'x' }, 'minNewTokens'],
    [{ n: 4, stream: 2 ** 53 - 2 }, 'stream'],
  ];
  for (const [options, argument] of cases) {
    const error = await steps(options as never).then(() => undefined, (e: unknown) => e);
    expect(error, JSON.stringify(options)).toBeInstanceOf(SamplingLabError);
    expect((error as SamplingLabError).argument, `${JSON.stringify(options)}: ${(error as Error).message}`).toBe(argument);
  }
});
