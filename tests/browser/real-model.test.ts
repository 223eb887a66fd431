// The page's real-model section end to end in Chromium against the tiny Qwen3-signature model
// (?model=/models/tiny-qwen3: fp32 target, q4 draft), every file from 127.0.0.1; its numbers and
// tokens equal what the same package computes in Node, and the models run in the page's model
// Worker: no main-thread task reaches 100 ms while they load, prefill, measure or generate. Last,
// the generation widget's JSON mode: the edited schema's output is shown parsed and validates
// (ajv), each step says how many tokens the grammar allowed, the tokens equal generateTokens with
// the same grammar in Node, in Chinese and, after the language switch, in English.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSamplingLab, type AcceptanceResult, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { compileGrammar } from 'sampling-lab/grammar';
import { REAL_MODEL_FIGURES } from 'sampling-lab/handbook';
import { generateTokens, loadLocalModel, logitsRows, passageIds, positionLogits, type LoadedModel } from 'sampling-lab/transformers';
import { ensureTinyModel, MODELS_DIR } from '../support/tiny-model.js';
import {
  blockMainThread, longTasksDuring, openRealModelPage, outsideRequests, phase, readyToLoad, type Phase, type RealModelPage,
} from './real-model-page';
import { expectNoneOver } from '../support/timing';

const PASSAGE = readFileSync(join(__dirname, '../../web/public/sample-passage.txt'), 'utf8');
const GENERATION = { temperature: 0.9, topK: 40, topP: 0.9, minP: 0.02, seed: 42 };
const SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 99 }, mood: { enum: ['calm', 'loud'] }, pair: { type: 'array', items: { type: 'boolean' }, minItems: 2, maxItems: 2 } },
  required: ['id', 'mood', 'pair'],
  additionalProperties: false,
};
const JSON_SEED = 5;
let opened: RealModelPage;
let page: Page;
let lab: Lab;
let fp32: LoadedModel;
let acceptanceInNode: AcceptanceResult;
const phases: Phase[] = [];

beforeAll(async () => {
  ensureTinyModel();
  lab = await loadSamplingLab();
  fp32 = await loadLocalModel(join(MODELS_DIR, 'tiny-qwen3'), { dtype: 'fp32' });
  acceptanceInNode = await nodeAcceptance();
  opened = await openRealModelPage('?model=/models/tiny-qwen3');
  page = opened.page;
});

afterAll(async () => {
  await opened?.close();
});

it('loads the local model on request and shows the five experiments', async () => {
  const load = page.locator('button.rm-load');
  await expect.poll(() => load.textContent()).toMatch(/本地模型/);
  await expect(page.locator('.rm-source').textContent()).resolves.toMatch(/\/models\/tiny-qwen3/);
  await readyToLoad(page);
  phases.push(await phase(page, 'loading and prefilling', async () => {
    await load.click();
    await expect.poll(() => page.locator('.rm-results > section').count(), { timeout: 60_000 }).toBe(5);
    await expect.poll(() => page.locator('.rm-temperature tbody tr').count(), { timeout: 60_000 }).toBe(3);
  }));
});

it('the temperature experiment at position 50 equals the Node computation, beside the chapter\'s figures', async () => {
  const ids = passageIds(fp32.tokenizer, PASSAGE);
  const expected = lab.runExperiment('temperature', {
    logits: await positionLogits(fp32.model, ids, 49), temperatures: REAL_MODEL_FIGURES.temperature.rows.map((r) => r.temperature),
  });
  const rows = page.locator('.rm-temperature tbody tr');
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(3);
  const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  expect(cells).toEqual(expected.rows.map((r, i) => [
    String(r.temperature), r.topProb.toFixed(3), r.tokensForMass.toLocaleString('en'),
    `${REAL_MODEL_FIGURES.temperature.rows[i].topProb.toFixed(3)} / ${REAL_MODEL_FIGURES.temperature.rows[i].tokensFor90.toLocaleString('en')}`,
  ]));
  // All 400 tokens are there, as whole characters: the last piece ends at the last token.
  expect(await page.locator('.rm-token').last().getAttribute('data-index')).toBe('399');
});

it('clicking a token of the passage loads that position into the shape widget', async () => {
  const shape = page.locator('sampling-lab#shape');
  const option = page.locator('.rm-token').nth(9);
  const index = Number(await option.getAttribute('data-index'));
  // The first load: the model's tab, its log-rank chart and its named tokens are built here.
  expect(await shape.locator('.sl-segment[data-value="model"]').isVisible()).toBe(false);
  phases.push(await phase(page, 'the first passage-position load', async () => {
    await option.click();
    await expect.poll(() => shape.locator('.sl-source').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`第 ${index + 1} 个位置`));
    await expect.poll(() => shape.locator('.sl-temperatures tbody tr').count()).toBe(3);
  }));
  // Under its own tab, not the file's: no drop box.
  await expect.poll(() => shape.locator('.sl-segment[data-value="model"]').getAttribute('aria-pressed')).toBe('true');
  expect(await shape.locator('.sl-drop').isVisible()).toBe(false);
  const ids = passageIds(fp32.tokenizer, PASSAGE);
  const logits = await positionLogits(fp32.model, ids, index);
  const expected = lab.coverCount(logits, 0.9, { temperature: 1 });
  await expect.poll(() => shape.locator('.sl-temperatures tbody tr:nth-child(2) td:nth-child(3)').textContent()).toBe(expected.toLocaleString());
  // The most likely tokens by name, on the chart and in the list, as the tokenizer spells them.
  const top = Array.from(lab.ranking(logits).subarray(0, 10), (id) => fp32.tokenizer.decode([id]));
  await expect.poll(() => shape.locator('.sl-top-tokens tbody tr').count()).toBe(10);
  const listed = await shape.locator('.sl-top-tokens tbody tr td:nth-child(2)').allTextContents();
  listed.forEach((text, i) => {
    if (!top[i].includes('\uFFFD')) expect(text.replace(/␣/g, ' ').replace(/↵/g, '\n')).toBe(top[i]);
  });
  const onChart = await shape.locator('.sl-top-chart text.label').allTextContents();
  expect(onChart.length).toBeGreaterThanOrEqual(4);
  expect(listed.slice(0, onChart.length).map((t) => (t.length > 6 ? `${t.slice(0, 5)}…` : t))).toEqual(onChart);
});

it('decodes speculatively with the folder\'s q4 file as draft, saying so and showing its download', async () => {
  const section = page.locator('.rm-decode');
  await expect(section.locator('.rm-draft-which').textContent()).resolves.toBe('目标：fp32；草稿：q4，同一个模型精度更低的文件。');
  await section.locator('#rm-spec-tokens').fill('8');
  // Every status the panel shows, as it shows it.
  await section.locator('.rm-status').evaluate((status) => {
    (window as unknown as { statuses: string[] }).statuses = [];
    new MutationObserver(() => (window as unknown as { statuses: string[] }).statuses.push(status.textContent ?? ''))
      .observe(status, { childList: true, characterData: true, subtree: true });
  });
  phases.push(await phase(page, 'speculative decoding', async () => {
    await section.locator('button.rm-spec-go').click();
    await expect.poll(() => section.locator('.rm-spec-stats tbody tr').count(), { timeout: 60_000 }).toBe(4);
  }));
  const statuses = await page.evaluate(() => (window as unknown as { statuses: string[] }).statuses);
  expect(statuses.some((text) => /^正在下载模型：[\d.]+ \/ [\d.]+ MB$/.test(text))).toBe(true);
  expect(await section.locator('.rm-spec-step').count()).toBeGreaterThan(0);
});

// Σ min(p, q) and TV per position of the passage, fp32 target against the q4 draft, in Node.
async function nodeAcceptance(): Promise<AcceptanceResult> {
  const [ids, draft] = [passageIds(fp32.tokenizer, PASSAGE), await loadLocalModel(join(MODELS_DIR, 'tiny-qwen3'), { dtype: 'q4' })];
  const accept: number[] = [];
  const tv: number[] = [];
  const [target, drafted] = [logitsRows(fp32.model, ids), logitsRows(draft.model, ids)];
  for (;;) {
    const [p, q] = [await target.next(), await drafted.next()];
    if (p.done || q.done) break;
    const d = lab.distance(lab.distribution(p.value.logits).probs, lab.distribution(q.value.logits).probs);
    accept.push(d.overlap);
    tv.push(d.tv);
  }
  return lab.runExperiment('acceptance', { accept, tv });
}

it('the acceptance experiment over 400 positions equals Σ min(p, q) computed in Node', async () => {
  const expected = acceptanceInNode;
  const rows = page.locator('.rm-acceptance table.rm-table:not(.rm-visually-hidden) tbody tr');
  phases.push(await phase(page, 'measuring acceptance', async () => {
    await page.locator('.rm-speculative button.rm-run').click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(5);
  }));
  const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.children[1].textContent));
  expect(shown.slice(0, 4)).toEqual([expected.mean, expected.median, expected.min, expected.meanOneMinusTV].map((x) => x.toFixed(2)));
  expect(await page.locator('.rm-bar').count()).toBe(20);
});

it('generates the same tokens in Chromium as generateTokens in Node, and explains each step', async () => {
  const section = page.locator('.rm-generate');
  const prompt = await section.locator('textarea.rm-prompt').inputValue();
  for (const [name, value] of Object.entries(GENERATION)) {
    await section.locator(`#rm-${name}`).fill(String(value));
  }
  phases.push(await phase(page, 'generating', async () => {
    await section.locator('button.rm-go').click();
    await expect.poll(() => section.locator('button.rm-go').isDisabled(), { timeout: 60_000 }).toBe(false);
  }));
  const shown = await section.locator('.rm-generated').evaluateAll((spans) => spans.map((span) => Number((span as HTMLElement).dataset.token)));
  const expected: number[] = [];
  for await (const step of generateTokens(fp32.model, fp32.tokenizer, prompt, { lab, ...GENERATION, maxNewTokens: 48 })) expected.push(step.token);
  expect(shown.length).toBeGreaterThan(0);
  expect(shown).toEqual(expected);
  await section.locator('.rm-generated').nth(2).hover();
  await expect.poll(() => section.locator('.rm-step tbody tr').count()).toBe(8);
  await expect(section.locator('.rm-cuts').textContent()).resolves.toMatch(/top-k.*top-p.*min-p/);
});

it('stops generating on request, between tokens', async () => {
  const section = page.locator('.rm-generate');
  // Stop is pressed in the page as the first token shows: a click from here could arrive after the
  // last token on a fast machine.
  await section.evaluate((element) => {
    new MutationObserver((_, observer) => {
      if (!element.querySelector('.rm-generated')) return;
      observer.disconnect();
      element.querySelector<HTMLButtonElement>('button.rm-stop')!.click();
    }).observe(element, { childList: true, subtree: true });
  });
  await section.locator('button.rm-go').click();
  await expect.poll(() => section.locator('.rm-generated').count(), { timeout: 60_000 }).toBeGreaterThan(0);
  await expect.poll(() => section.locator('button.rm-go').isDisabled(), { timeout: 60_000 }).toBe(false);
  expect(await section.locator('.rm-generated').count()).toBeLessThan(48);
});

it('timed every main-thread task (bound 100 ms) while the models loaded, prefilled, loaded a position, decoded, measured and generated, and sees a 150 ms one', async () => {
  expect(phases.map((p) => p.name)).toEqual(['loading and prefilling', 'the first passage-position load', 'speculative decoding', 'measuring acceptance', 'generating']);
  expectNoneOver('main-thread tasks over 100 ms', await longTasksDuring(page, phases, 100));
  // The observer does see a task that long.
  expect(await longTasksDuring(page, [await blockMainThread(page, 150)], 100)).toHaveLength(1);
});

it('JSON mode: the output follows the edited schema, is shown parsed, and each step says what the grammar allowed', async () => {
  const section = page.locator('.rm-generate');
  await expect(section.locator('.rm-json-mode').textContent()).resolves.toMatch(/JSON 模式/);
  expect(await section.locator('.rm-schema').isVisible()).toBe(false);
  await section.locator('#rm-json-toggle').check();
  await section.locator('.rm-schema').fill(JSON.stringify(SCHEMA));
  await section.locator('#rm-seed').fill(String(JSON_SEED));
  const prompt = await section.locator('textarea.rm-prompt').inputValue();
  await section.locator('button.rm-go').click();
  await expect.poll(() => section.locator('.rm-parsed').textContent(), { timeout: 60_000 }).toMatch(/解析后的输出/);
  const parsed = JSON.parse(await section.locator('.rm-parsed-json').textContent() as string);
  expect(new Ajv().compile(SCHEMA)(parsed)).toBe(true);
  // The same tokens as in Node, with the filters the page shows.
  const filters = await page.evaluate(() => Object.fromEntries(['temperature', 'topK', 'topP', 'minP'].map((name) => [name, Number((document.getElementById(`rm-${name}`) as HTMLInputElement).value)])));
  const grammar = await compileGrammar(fp32.tokenizer, { jsonSchema: SCHEMA }, { vocabSize: 151936 });
  const expected: string[] = [];
  for await (const step of generateTokens(fp32.model, fp32.tokenizer, prompt, { lab, ...filters, seed: JSON_SEED, grammar, maxNewTokens: 160, topCandidates: 0 })) expected.push(step.text);
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
  expect(opened.requests.length).toBeGreaterThan(0);
  expect(outsideRequests(opened.requests)).toEqual([]);
  expect(opened.problems).toEqual([]);
});
