// A conversation keeps the KV cache between turns: a follow-up turn runs only its new tokens
// through the model (counted at the model's input), and draws what a fresh run of the same
// prompt draws.
import { expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError } from 'sampling-lab';
import { createConversation, generateTokens, loadLocalModel, type GeneratedToken } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';

const tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } });
const lab = await loadSamplingLab();
// Positions each forward pass of the model runs (input_ids' length).
const positions: number[] = [];
const counted = new Proxy(tiny.model, {
  apply: (target, self, args) => {
    positions.push((args[0] as { input_ids: { dims: number[] } }).input_ids.dims[1]);
    return Reflect.apply(target, self, args);
  },
});
const OPTIONS = { lab, seed: 7, temperature: 0.9, maxNewTokens: 8, topCandidates: 0 };

async function all(run: AsyncIterable<GeneratedToken>): Promise<GeneratedToken[]> {
  const steps: GeneratedToken[] = [];
  for await (const step of run) steps.push(step);
  return steps;
}

it('a follow-up turn prefills only its new tokens, and draws what a fresh run of its prompt draws', async () => {
  const conversation = createConversation(counted, tiny.tokenizer, { ...OPTIONS, system: 'You are terse.' });
  positions.length = 0;
  const first = conversation.send('Name a colour.');
  const firstSteps = await all(first);
  const firstPrompt = conversation.lastPromptIds.length;
  expect(first.usage).toMatchObject({ promptTokens: firstPrompt, cachedPromptTokens: 0 });
  expect(positions[0]).toBe(firstPrompt);
  expect(conversation.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
  expect(conversation.messages[2].content).toBe(firstSteps.map((s) => s.textDelta).join(''));
  // The cache holds every position the model ran: the prompt and the reply but its last token.
  const cached = conversation.cachedTokens;
  expect(cached).toBe(firstPrompt + firstSteps.length - 1);

  positions.length = 0;
  const second = conversation.send('And another?');
  const secondSteps = await all(second);
  const secondPrompt = conversation.lastPromptIds;
  expect(secondPrompt.length).toBeGreaterThan(cached);
  // Only the tokens past the cache go through the model: the prefill's positions.
  expect(second.usage.cachedPromptTokens).toBe(cached);
  expect(positions[0]).toBe(secondPrompt.length - cached);
  expect(positions.slice(1).every((n) => n === 1)).toBe(true);

  // A fresh run of the same prompt: the same tokens, with the whole prompt prefilled.
  positions.length = 0;
  const fresh = await all(generateTokens(counted, tiny.tokenizer, [...secondPrompt], OPTIONS));
  expect(positions[0]).toBe(secondPrompt.length);
  expect(secondSteps.map((s) => s.token)).toEqual(fresh.map((s) => s.token));
  expect(conversation.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
});

it('a third turn builds on the second; options per turn; one turn at a time; bad input is named', async () => {
  const conversation = createConversation(tiny.model, tiny.tokenizer, OPTIONS);
  await all(conversation.send('One.'));
  await all(conversation.send('Two.', { maxNewTokens: 3 }));
  const before = conversation.cachedTokens;
  const third = conversation.send({ role: 'user', content: 'Three.' });
  const { value: firstStep } = await third.next();
  // Running: another turn must wait for it.
  expect(() => conversation.send('Four.')).toThrow(SamplingLabError);
  const steps = [firstStep as GeneratedToken, ...(await all(third))];
  expect(third.usage.cachedPromptTokens).toBe(before);
  expect(steps.length).toBeLessThanOrEqual(8);
  expect(conversation.messages).toHaveLength(6);
  // A turn never iterated is dropped by the next one.
  const dropped = conversation.send('Never read.');
  const fifth = await all(conversation.send('Five.', { maxNewTokens: 2 }));
  expect(await all(dropped)).toEqual([]);
  expect(fifth.length).toBeGreaterThan(0);
  expect(conversation.messages.map((m) => m.content)).not.toContain('Never read.');
  expect(() => createConversation(tiny.model, tiny.tokenizer, { ...OPTIONS, n: 2 } as never)).toThrow(expect.objectContaining({ argument: 'n' }));
  expect(() => conversation.send(3 as never)).toThrow(expect.objectContaining({ argument: 'message' }));
  expect(() => createConversation(tiny.model, tiny.tokenizer, { ...OPTIONS, system: 1 } as never)).toThrow(expect.objectContaining({ argument: 'system' }));
});
