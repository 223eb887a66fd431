// engine.chat.completions.create takes OpenAI's (and web-llm's) chat-completion body and answers in
// OpenAI's shapes; each field gives the tokens its Sampling Lab option gives, streamed or not, and
// an unknown or malformed field is refused by name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError } from 'sampling-lab';
import { createEngine, generateTokens, loadLocalModel, OPENAI_FIELDS, type ChatCompletion, type ChatCompletionChunk } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';
import { PERSON_SCHEMA, validatePerson } from '../support/grammar-schema.js';

const tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } });
const lab = await loadSamplingLab();
const engine = createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer, name: 'tiny-qwen3' });
const messages = [{ role: 'user', content: 'Say something.' }];

// What generateTokens gives with the options a body maps to, sequence by sequence.
async function expected(options: object, n = 1): Promise<{ text: string[]; finish: (string | undefined)[] }> {
  const text = Array<string>(n).fill('');
  const finish: (string | undefined)[] = Array(n).fill(undefined);
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, { messages }, { lab, topCandidates: 0, ...options })) {
    text[step.sequence] += step.textDelta;
    if (step.finishReason) finish[step.sequence] = step.finishReason;
  }
  return { text, finish };
}

it('answers a body with OpenAI\'s chat.completion; every field gives what its option gives', async () => {
  const body = {
    model: 'tiny-qwen3', messages, temperature: 0.8, top_p: 0.9, max_tokens: 6, seed: 3, n: 2,
    logit_bias: { 11: 3 }, frequency_penalty: 0.5, presence_penalty: 0.3, stop: ['\n\n'], sampling_lab: { minP: 0.02 },
  };
  const reply = await engine.chat.completions.create(body);
  const { text, finish } = await expected({
    temperature: 0.8, topP: 0.9, maxNewTokens: 6, seed: 3, n: 2, logitBias: { 11: 3 }, frequencyPenalty: 0.5, presencePenalty: 0.3, stop: ['\n\n'], minP: 0.02,
  }, 2);
  expect(reply).toMatchObject({ object: 'chat.completion', model: 'tiny-qwen3' });
  expect(reply.id).toMatch(/^chatcmpl-/);
  expect(reply.choices.map((c) => c.message)).toEqual(text.map((content) => ({ role: 'assistant', content })));
  expect(reply.choices.map((c) => c.finish_reason)).toEqual(finish.map((f) => (f === 'length' ? 'length' : 'stop')));
  expect(reply.choices.map((c) => c.logprobs)).toEqual([null, null]);
  const { usage } = reply;
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  expect(usage.prompt_tokens).toBe((tiny.tokenizer.apply_chat_template(messages, { add_generation_prompt: true, tokenize: true, return_tensor: false, return_dict: false }) as unknown as number[]).length);
  expect(usage.completion_tokens).toBeLessThanOrEqual(12);
});

it('streams chat.completion.chunk objects that join to the same text, with usage last when asked', async () => {
  const body = { messages, max_completion_tokens: 8, seed: 5, temperature: 1 };
  const whole = await engine.chat.completions.create(body);
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of await engine.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
  expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  const content = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
  expect(content).toBe(whole.choices[0].message.content);
  const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter((f) => f !== null);
  expect(finishes).toEqual([whole.choices[0].finish_reason]);
  const last = chunks.at(-1)!;
  expect(last.choices).toEqual([]);
  expect(last.usage).toMatchObject({ prompt_tokens: whole.usage.prompt_tokens, completion_tokens: whole.usage.completion_tokens });
});

it('logprobs and top_logprobs come back per token, as OpenAI lists them', async () => {
  const reply = await engine.chat.completions.create({ messages, max_tokens: 4, seed: 2, logprobs: true, top_logprobs: 3 }) as ChatCompletion;
  const content = reply.choices[0].logprobs!.content;
  expect(content).toHaveLength(reply.usage.completion_tokens);
  for (const entry of content) {
    expect(entry.top_logprobs).toHaveLength(3);
    expect(entry.logprob).toBeLessThanOrEqual(0);
    expect(entry.bytes).toEqual(Array.from(new TextEncoder().encode(entry.token)));
  }
});

it('with a draft, n and logprobs answer as without one: greedy choices equal the plain engine\'s, token by token', async () => {
  const speculative = createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer, draft: tiny.model });
  const body = { messages, temperature: 0, max_tokens: 6, n: 2, logprobs: true, top_logprobs: 2 };
  const plain = await engine.chat.completions.create({ ...body, n: 1 });
  const reply = await speculative.chat.completions.create(body);
  expect(reply.choices).toHaveLength(2);
  expect(reply.usage.completion_tokens).toBe(2 * plain.usage.completion_tokens);
  for (const choice of reply.choices) {
    expect(choice.message).toEqual(plain.choices[0].message);
    const [scored, expected] = [choice.logprobs!.content, plain.choices[0].logprobs!.content];
    expect(scored.map((e) => [e.token, e.top_logprobs.map((t) => t.token)])).toEqual(expected.map((e) => [e.token, e.top_logprobs.map((t) => t.token)]));
    scored.forEach((entry, i) => expect(entry.logprob).toBeCloseTo(expected[i].logprob, 4));
  }
  // Streamed, a chunk carries a step's tokens together, one logprobs entry each.
  let tokens = 0;
  for await (const chunk of await speculative.chat.completions.create({ ...body, n: 1, stream: true })) tokens += chunk.choices[0]?.logprobs?.content.length ?? 0;
  expect(tokens).toBe(plain.usage.completion_tokens);
});

it('with { promptLookup } as the draft (one model), greedy choices equal the plain engine\'s; its options are checked at creation', async () => {
  const lookup = createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer, draft: { promptLookup: { ngramMax: 2 } } });
  const body = { messages, temperature: 0, max_tokens: 8 };
  const [plain, reply] = [await engine.chat.completions.create(body), await lookup.chat.completions.create(body)];
  expect(reply.choices[0].message).toEqual(plain.choices[0].message);
  expect(() => createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer, draft: { promptLookup: { ngramMin: 0 } } })).toThrow(expect.objectContaining({ argument: 'ngramMin' }));
  expect(() => createEngine({ lab, model: tiny.model, tokenizer: tiny.tokenizer, draft: { promptLookup: { n: 2 } } as never })).toThrow(expect.objectContaining({ argument: 'n' }));
});

it('response_format json_schema gives output that parses and validates', async () => {
  const reply = await engine.chat.completions.create({
    messages: [{ role: 'user', content: 'A person as JSON:' }], max_tokens: 200, seed: 1,
    response_format: { type: 'json_schema', json_schema: { name: 'person', schema: PERSON_SCHEMA } },
  });
  const value = JSON.parse(reply.choices[0].message.content);
  expect(validatePerson(value)).toBe(true);
}, 20_000);

it('an aborted request ends with finish_reason abort, never a throw', async () => {
  const reply = await engine.chat.completions.create({ messages, max_tokens: 5 }, { signal: AbortSignal.abort() });
  expect(reply.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'abort' });
});

it('refuses an unknown or malformed field by name; every accepted field is in the table', async () => {
  const cases: [object, string][] = [
    [{ messages, temprature: 1 }, 'temprature'], [{ messages, functions: [] }, 'functions'], [{ messages, stream: 'yes' }, 'stream'],
    [{ messages, top_logprobs: 2 }, 'top_logprobs'], [{ messages, logprobs: true, top_logprobs: 30 }, 'top_logprobs'],
    [{ messages, response_format: { type: 'xml' } }, 'response_format'], [{ messages, stream_options: { include_usage: true } }, 'stream_options'],
    [{ messages, max_tokens: 3, max_completion_tokens: 3 }, 'max_tokens'], [{ messages: [] }, 'messages'], [{ messages, top_p: 2 }, 'topP'],
    [{ messages, logit_bias: [1] }, 'logit_bias'],
  ];
  for (const [body, argument] of cases) {
    const error = await engine.chat.completions.create(body as never).then(() => undefined, (e: unknown) => e);
    expect(error, JSON.stringify(body)).toBeInstanceOf(SamplingLabError);
    expect((error as SamplingLabError).argument, `${JSON.stringify(body)}: ${(error as Error).message}`).toBe(argument);
  }
  // docs/openai.md's table lists every accepted field.
  const doc = readFileSync(join(__dirname, '../../docs/openai.md'), 'utf8');
  for (const field of Object.keys(OPENAI_FIELDS)) expect(doc, field).toContain(`| \`${field}\` |`);
  expect(Object.keys(OPENAI_FIELDS)).toEqual(expect.arrayContaining(['messages', 'temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'stop', 'n', 'seed', 'logprobs',
    'top_logprobs', 'response_format', 'logit_bias', 'frequency_penalty', 'presence_penalty', 'stream']));
});
