// The generation widget's JSON mode in Chromium on the tiny model: the edited schema's output is
// shown parsed and validates (ajv), each step says how many of the 151,936 tokens the grammar
// allowed, the tokens equal generateTokens with the same grammar in Node, in Chinese and, after
// the language switch, in English.
import Ajv from 'ajv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { compileGrammar } from 'sampling-lab/grammar';
import { generateTokens, loadLocalModel, type LoadedModel } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';
import { openRealModelPage, outsideRequests, readyToLoad, type RealModelPage } from './real-model-page';

const SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 99 }, mood: { enum: ['calm', 'loud'] }, pair: { type: 'array', items: { type: 'boolean' }, minItems: 2, maxItems: 2 } },
  required: ['id', 'mood', 'pair'],
  additionalProperties: false,
};
const SEED = 5;
let opened: RealModelPage;
let page: Page;
let lab: Lab;
let tiny: LoadedModel;

beforeAll(async () => {
  [lab, tiny] = await Promise.all([loadSamplingLab(), loadLocalModel(ensureTinyModel(), { dtype: 'fp32' })]);
  opened = await openRealModelPage('?model=/models/tiny-qwen3');
  page = opened.page;
}, 60_000);

afterAll(async () => {
  await opened?.close();
});

it('loads the local model', async () => {
  await readyToLoad(page);
  await page.locator('button.rm-load').click();
  await expect.poll(() => page.locator('.rm-results > section').count(), { timeout: 60_000 }).toBe(5);
});

it('JSON mode: the output follows the edited schema, is shown parsed, and each step says what the grammar allowed', async () => {
  const section = page.locator('.rm-generate');
  await expect(section.locator('.rm-json-mode').textContent()).resolves.toMatch(/JSON 模式/);
  expect(await section.locator('.rm-schema').isVisible()).toBe(false);
  await section.locator('#rm-json-toggle').check();
  await section.locator('.rm-schema').fill(JSON.stringify(SCHEMA));
  await section.locator('#rm-seed').fill(String(SEED));
  const prompt = await section.locator('textarea.rm-prompt').inputValue();
  await section.locator('button.rm-go').click();
  await expect.poll(() => section.locator('.rm-parsed').textContent(), { timeout: 60_000 }).toMatch(/解析后的输出/);
  const parsed = JSON.parse(await section.locator('.rm-parsed-json').textContent() as string);
  expect(new Ajv().compile(SCHEMA)(parsed)).toBe(true);
  // The same tokens as in Node, with the page's filter defaults.
  const filters = await page.evaluate(() => Object.fromEntries(['temperature', 'topK', 'topP', 'minP'].map((name) => [name, Number((document.getElementById(`rm-${name}`) as HTMLInputElement).value)])));
  const grammar = await compileGrammar(tiny.tokenizer, { jsonSchema: SCHEMA }, { vocabSize: 151936 });
  const expected: string[] = [];
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, prompt, { lab, ...filters, seed: SEED, grammar, maxNewTokens: 160, topCandidates: 0 })) expected.push(step.text);
  expect(await section.locator('.rm-generated').allTextContents()).toEqual(expected);
  await section.locator('.rm-generated').first().hover();
  await expect(section.locator('.rm-grammar-allowed').textContent()).resolves.toMatch(/^语法允许 [\d,]+ \/ 151,936 个 token$/);
  await page.locator('.lang-switch').click();
  await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en');
  await expect(section.locator('.rm-json-mode').textContent()).resolves.toMatch(/^JSON mode/);
  await section.locator('.rm-generated').first().hover();
  await expect(section.locator('.rm-grammar-allowed').textContent()).resolves.toMatch(/^the grammar allowed [\d,]+ of 151,936 tokens$/);
}, 60_000);

it('made no request beyond 127.0.0.1 and logged no error', () => {
  expect(outsideRequests(opened.requests)).toEqual([]);
  expect(opened.problems).toEqual([]);
});
