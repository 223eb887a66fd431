// Prompts as text, token ids or chat messages through the tokenizer's chat template (Qwen3's, on
// the tiny model): each gives the tokens the same ids give, and a bad one is a SamplingLabError
// naming what is wrong, before any forward pass.
import { expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError } from 'sampling-lab';
import { beamSearch, generateTokens, loadLocalModel, type Prompt } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';

const tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } });
const { model, tokenizer } = tiny;
const lab = await loadSamplingLab();
const MESSAGES = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: '你好，what is 2 + 2?' }];

async function tokens(prompt: Prompt): Promise<number[]> {
  const out: number[] = [];
  for await (const step of generateTokens(model, tokenizer, prompt, { lab, seed: 4, temperature: 0.8, maxNewTokens: 6, stopAtEos: false, topCandidates: 0 })) out.push(step.token);
  return out;
}

const templated = (options: object) => tokenizer.apply_chat_template(MESSAGES, { tokenize: true, return_tensor: false, return_dict: false, ...options }) as unknown as number[];

it('chat messages go through the chat template with the generation prompt, and draw what their ids draw', async () => {
  const ids = templated({ add_generation_prompt: true });
  expect(tokenizer.decode(ids)).toMatch(/^<\|im_start\|>system\nYou are terse\.<\|im_end\|>\n<\|im_start\|>user\n你好，what is 2 \+ 2\?<\|im_end\|>\n<\|im_start\|>assistant\n$/);
  expect(await tokens({ messages: MESSAGES })).toEqual(await tokens(ids));
  expect(await tokens({ messages: MESSAGES, addGenerationPrompt: false })).toEqual(await tokens(templated({ add_generation_prompt: false })));
});

it('text and its ids draw the same tokens; Int32Array ids too', async () => {
  const text = 'The three laws of thermodynamics are';
  const ids = Array.from(tokenizer(text).input_ids.data as BigInt64Array, Number);
  const fromText = await tokens(text);
  expect(await tokens(ids)).toEqual(fromText);
  expect(await tokens(Int32Array.from(ids))).toEqual(fromText);
});

it('enableThinking and tools reach the template', async () => {
  const off = tokenizer.decode(templated({ add_generation_prompt: true, enable_thinking: false }));
  expect(off.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  const tool = { type: 'function', function: { name: 'add', description: 'Adds two numbers', parameters: { type: 'object', properties: {} } } };
  const withTool = tokenizer.decode(templated({ add_generation_prompt: true, tools: [tool] }));
  expect(withTool).toContain('"name": "add"');
  // The decoders pass both through: the same tokens as those ids.
  expect(await tokens({ messages: MESSAGES, enableThinking: false })).toEqual(await tokens(templated({ add_generation_prompt: true, enable_thinking: false })));
  expect(await tokens({ messages: MESSAGES, tools: [tool] })).toEqual(await tokens(templated({ add_generation_prompt: true, tools: [tool] })));
});

it('beamSearch takes chat messages too', async () => {
  const [best] = await beamSearch(model, tokenizer, { messages: MESSAGES }, { lab, numBeams: 2, maxNewTokens: 3 });
  const [same] = await beamSearch(model, tokenizer, templated({ add_generation_prompt: true }), { lab, numBeams: 2, maxNewTokens: 3 });
  expect(best.ids).toEqual(same.ids);
});

it('a bad prompt is a SamplingLabError naming what is wrong, before any forward pass', async () => {
  const passes: string[] = [];
  const watched = new Proxy(model, { apply: (target, self, args) => { passes.push('pass'); return Reflect.apply(target, self, args); } });
  const cases: [unknown, string][] = [
    [{ messages: [] }, 'messages'], [{ messages: [{ role: 'user' }] }, 'messages'], [{ messages: 'hi' }, 'messages'],
    [{ messages: MESSAGES, addGenerationPrompt: 'yes' }, 'addGenerationPrompt'], [{ messages: MESSAGES, tools: [3] }, 'tools'],
    [{ messages: MESSAGES, enableThinking: 1 }, 'enableThinking'], [{ messages: MESSAGES, chatTemplate: 'x' }, 'chatTemplate'],
    [[1, -2], 'prompt'], [[1, 2.5], 'prompt'], [[151936], 'prompt'], [[], 'prompt'], [42, 'prompt'], [{ text: 'hi' }, 'prompt'],
  ];
  for (const [prompt, argument] of cases) {
    const error = await (async () => { for await (const _ of generateTokens(watched, tokenizer, prompt as Prompt, { lab })) break; })().then(() => undefined, (e: unknown) => e);
    expect(error, JSON.stringify(prompt)).toBeInstanceOf(SamplingLabError);
    expect((error as SamplingLabError).argument, `${JSON.stringify(prompt)}: ${(error as Error).message}`).toBe(argument);
  }
  const bare = new Proxy(tokenizer, { get: (target, name) => (name === 'chat_template' ? null : Reflect.get(target, name)) });
  const error = await (async () => { for await (const _ of generateTokens(model, bare, { messages: MESSAGES }, { lab })) break; })().then(() => undefined, (e: unknown) => e);
  expect((error as SamplingLabError).message).toMatch(/no chat template/);
  expect(passes).toEqual([]);
});
