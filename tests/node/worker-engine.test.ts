// The engine across a Worker boundary (sampling-lab/worker and sampling-lab/worker-client): over a
// MessageChannel (every message structured-cloned, as between threads) each decoder and the chat
// endpoint give what the same call gives locally; aborts end runs with 'abort'; errors arrive as
// SamplingLabErrors naming the argument; and one run goes through a real worker_threads Worker.
import { Worker } from 'node:worker_threads';
import { afterAll, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError } from 'sampling-lab';
import { beamSearch, createEngine, generateTokens, loadLocalModel, speculativeGenerate, type GeneratedToken } from 'sampling-lab/transformers';
import { serveEngine } from 'sampling-lab/worker';
import { connectEngineWorker, createWorkerEngine } from 'sampling-lab/worker-client';
import { ensureTinyModel } from '../support/tiny-model.js';

const ONE_THREAD = { dtype: 'fp32' as const, sessionOptions: { intraOpNumThreads: 1 } };
const lab = await loadSamplingLab();
const tinyRef = { source: ensureTinyModel(), ...ONE_THREAD };
const tiny = await loadLocalModel(tinyRef.source, ONE_THREAD);

const { port1, port2 } = new MessageChannel();
serveEngine({
  lab,
  port: port2,
  jobs: {
    // A job of the Worker's own: its events, and the models it shares with the engine.
    async vocabulary(request: { times: number }, { emit, model }) {
      for (let i = 0; i < request.times; i++) emit(i);
      return ((await model(tinyRef)).model.config as { vocab_size?: number }).vocab_size;
    },
  },
});
const client = connectEngineWorker(port1);
const engine = client.engine({ model: tinyRef });
afterAll(() => {
  port1.close();
  port2.close();
});

const PROMPT = 'A worker keeps the page free';

async function collect<T>(run: AsyncIterable<T>): Promise<T[]> {
  const steps: T[] = [];
  for await (const step of run) steps.push(step);
  return steps;
}

it('generateTokens across the boundary gives the local steps, descriptions included, and the usage', async () => {
  const options = { temperature: 0.8, topP: 0.9, seed: 5, maxNewTokens: 6, n: 2, logprobs: 2, stop: ['\n\n'] };
  const run = engine.generateTokens(PROMPT, options);
  const remote = await collect(run);
  const local = generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options });
  const expected = (await collect(local)).map((step: GeneratedToken) => ({ ...step }));
  expect(remote).toEqual(expected);
  expect((await run.done).finishReasons).toEqual(local.finishReasons);
  expect(run.usage.completionTokens).toBe(local.usage.completionTokens);
  // Without descriptions: the same tokens, none of the described fields.
  const bare = await collect(engine.generateTokens(PROMPT, { ...options, describe: false }));
  expect(bare.map((s) => s.token)).toEqual(expected.map((s) => s.token));
  expect(bare[0]).not.toHaveProperty('top');
});

it('chat.completions.create: the same completion and chunks as the local engine', async () => {
  const local = createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer });
  const body = { messages: [{ role: 'user' as const, content: 'Hi.' }], max_tokens: 5, seed: 3, logprobs: true, top_logprobs: 1 };
  const [remote, expected] = await Promise.all([engine.chat.completions.create(body), local.chat.completions.create(body)]);
  expect(remote.choices).toEqual(expected.choices);
  const chunks = await collect(await engine.chat.completions.create({ ...body, stream: true }));
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(expected.choices[0].message.content);
  await expect(engine.chat.completions.create({ ...body, temprature: 1 } as never)).rejects.toMatchObject({ argument: 'temprature' });
});

it('beamSearch and speculativeGenerate across the boundary give the local sequences and steps', async () => {
  const beams = { numBeams: 3, maxNewTokens: 4, numReturnSequences: 2, eosTokenIds: [] };
  const search = engine.beamSearch(PROMPT, beams);
  const steps = await collect(search);
  const local = beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, ...beams });
  expect(steps).toEqual(await collect(local));
  expect(await search).toEqual(await local);
  // The model as its own draft: the protocol is under test here, not the pair.
  const speculative = client.engine({ model: tinyRef, draft: tinyRef });
  const options = { temperature: 1, seed: 9, gamma: 3, maxNewTokens: 10 };
  const remote = await collect(speculative.speculativeGenerate(PROMPT, options));
  expect(remote).toEqual(await collect(speculativeGenerate(tiny.model, tiny.model, tiny.tokenizer, PROMPT, { lab, ...options })));
  // Prompt lookup as the draft: no second model to load, the same steps as in this thread.
  const lookup = client.engine({ model: tinyRef, draft: { promptLookup: { ngramMax: 2 } } });
  const looked = await collect(lookup.speculativeGenerate(PROMPT, { ...options, temperature: 0 }));
  expect(looked).toEqual(await collect(speculativeGenerate(tiny.model, { promptLookup: { ngramMax: 2 } }, tiny.tokenizer, PROMPT, { lab, ...options, temperature: 0 })));
});

it('a grammar crosses as its spec; an abort, before or during a run, ends it with finishReason abort', async () => {
  const steps = await collect(engine.generateTokens(PROMPT, { grammar: { regex: '[a-c]{3}-[0-9]{2}' }, maxNewTokens: 12, seed: 1, describe: false }));
  expect(tiny.tokenizer.decode(steps.map((s) => s.token), { skip_special_tokens: true })).toMatch(/^[a-c]{3}-[0-9]{2}$/);
  const controller = new AbortController();
  const run = engine.generateTokens(PROMPT, { maxNewTokens: 40, seed: 2, describe: false, signal: controller.signal });
  const seen: GeneratedToken[] = [];
  for await (const step of run) {
    seen.push(step);
    if (seen.length === 3) controller.abort();
  }
  const { finishReasons } = await run.done;
  expect(finishReasons).toEqual(['abort']);
  expect(seen.length).toBeLessThan(40);
  const before = engine.generateTokens(PROMPT, { maxNewTokens: 4, signal: AbortSignal.abort() });
  expect(await collect(before)).toEqual([]);
  expect((await before.done).finishReasons).toEqual(['abort']);
  expect(await engine.beamSearch(PROMPT, { numBeams: 2, signal: AbortSignal.abort() })).toMatchObject([{ ids: [], finishReason: 'abort' }]);
});

it('errors arrive as SamplingLabErrors naming the argument; what cannot cross is refused at the call', async () => {
  await expect(engine.generateTokens(PROMPT, { topP: 2 }).done).rejects.toMatchObject({ name: 'SamplingLabError', argument: 'topP' });
  await expect(collect(engine.beamSearch(PROMPT, { numBeams: 0 }))).rejects.toMatchObject({ argument: 'numBeams' });
  await expect(client.run('nothing', {})).rejects.toMatchObject({ argument: 'job' });
  await expect(client.engine({ model: { source: '/no/such/model' } }).load()).rejects.toBeInstanceOf(Error);
  expect(() => engine.generateTokens(PROMPT, { grammar: { matcher: () => 0, vocabSize: 3 } as never })).toThrow(SamplingLabError);
  expect(() => engine.generateTokens(PROMPT, { onToken: () => 0 } as never)).toThrow(expect.objectContaining({ argument: 'onToken' }));
  expect(() => engine.speculativeGenerate(PROMPT)).toThrow(expect.objectContaining({ argument: 'draft' }));
  expect(() => connectEngineWorker({} as never)).toThrow(expect.objectContaining({ argument: 'worker' }));
  expect(() => serveEngine({ lab, port: port2, jobs: { chat: async () => 0 } })).toThrow(expect.objectContaining({ argument: 'jobs' }));
});

it('a job of the Worker\'s own streams its events and shares the loaded models', async () => {
  const events: unknown[] = [];
  expect(await client.run('vocabulary', { times: 3 }, { onEvent: (event) => events.push(event) })).toBe(151936);
  expect(events).toEqual([0, 1, 2]);
});

it('runs in a worker_threads Worker: the same tokens, the model loaded there', async () => {
  const worker = new Worker(new URL('../support/engine-worker.mjs', import.meta.url));
  try {
    const remote = createWorkerEngine(worker, { model: tinyRef });
    let loading = 0;
    expect(await remote.load({ onLoading: () => loading++ })).toEqual({ vocabSize: 151936 });
    const options = { temperature: 0.7, seed: 4, maxNewTokens: 5 };
    const tokens = (await collect(remote.generateTokens(PROMPT, { ...options, describe: false }))).map((s) => s.token);
    expect(tokens).toEqual((await collect(generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options }))).map((s) => s.token));
  } finally {
    await worker.terminate();
  }
});
