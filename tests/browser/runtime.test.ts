// The package in Chromium: the same seed gives the same tokens as in Node for every filter and
// every method, and a long sample() in the page's Worker reports progress and can be cancelled.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadSamplingLab } from 'sampling-lab';
import { openDevPage } from '../support/chromium';
import { expectWithin } from '../support/timing';

const { harness, page, problems } = await openDevPage();
const dist = join(__dirname, '../../wasm/dist');
afterAll(() => harness.close());

const FILTERS = [
  { temperature: 1 },
  { topK: 50 },
  { topP: 0.9 },
  { minP: 0.05 },
  { temperature: 0.7, topK: 50, topP: 0.95, minP: 0.05, repetitionPenalty: 1.1, generatedIds: [11, 523, 523] },
  { temperature: 0 },
  { typicalP: 0.9, topNSigma: 2, etaCutoff: 1e-4, xtc: { probability: 0.5, threshold: 0.05 } },
  { temperature: 0.5, topP: 0.9, order: 'llama.cpp', logitBias: { 5: 3 }, bannedTokens: [0] },
  { mirostat: { version: 2, tau: 4 }, dry: { multiplier: 0.8 }, generatedIds: [1, 2, 3, 1, 2] },
];
const METHODS = ['inverse-cdf', 'gumbel-max', 'exponential-race', 'alias'] as const;

// Runs in both Node and Chromium: tokens of every filter, draws of every method, a stateful sampler.
async function tokensAndDraws(load: () => Promise<import('sampling-lab').Lab>, filters: typeof FILTERS, methods: readonly string[]) {
  const lab = await load();
  const logits = lab.syntheticLogits();
  const tokens = filters.map((options) => Array.from({ length: 20 }, (_, step) => lab.sampleToken(logits, { ...options, seed: 7, stream: 3, step })));
  const draws = methods.map((method) => Array.from(lab.sample(logits, { method: method as never, n: 20, seed: 7, temperature: 0.8 })));
  // A stateful sampler: its history, μ and step carry from token to token.
  const sampler = lab.createSampler({ mirostat: { version: 1 }, repetitionPenalty: 1.3, dry: { multiplier: 1 }, seed: 7 });
  const stateful = Array.from({ length: 20 }, () => sampler.sample(logits));
  return { tokens, draws, stateful, state: sampler.state };
}

it('the same seed gives the same tokens and draws in Node and in Chromium', async () => {
  const node = await tokensAndDraws(loadSamplingLab, FILTERS, METHODS);
  // As text: the test runner would rewrite an import() written in a function.
  const chromium = await page.evaluate(`(async () => {
    const { loadSamplingLab } = await import('/@fs${dist}/entries/index.js');
    return (${tokensAndDraws.toString()})(loadSamplingLab, ${JSON.stringify(FILTERS)}, ${JSON.stringify(METHODS)});
  })()`);
  expect(chromium).toEqual(node);
  expect(new Set(node.tokens[0]).size).toBeGreaterThan(3);  // the key varies the draws
});

it('a long experiment in the Worker reports progress, can be cancelled, and the next job runs', async () => {
  const outcome: { ended: string; cancelledAfter: number; fractions: number[]; next: number[] } = await page.evaluate(`(async () => {
    const { runInWorker } = await import('/@fs${dist}/widgets/worker-client.js');
    const fractions = [];
    const controller = new AbortController();
    const started = performance.now();
    const long = runInWorker({ kind: 'experiment', name: 'mc-error', params: { repeats: 9900, ns: [100, 10000], seed: 1 } },
      (fraction) => { fractions.push(fraction); if (fractions.length === 3) controller.abort(); }, controller.signal)
      .then(() => 'finished', (error) => error.argument);
    const ended = await long;
    const cancelledAfter = performance.now() - started;
    const next = await runInWorker({ kind: 'experiment', name: 'mc-error', params: { repeats: 10, ns: [100, 400] } }, () => {});
    return { ended, cancelledAfter, fractions, next: next.rows.map((row) => row.n) };
  })()`);
  expect(outcome.ended).toBe('onProgress');
  expect(outcome.fractions.length).toBe(3);
  expect(outcome.fractions.every((f) => f > 0 && f < 1)).toBe(true);
  // The run takes about half a second here (about 10^8 draws, the most mc-error allows); the third
  // report comes 100 ms after the first, and cancelling ends the run at once.
  expectWithin('mc-error cancelled after', outcome.cancelledAfter, 2000);
  expect(outcome.next).toEqual([100, 400]);
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
