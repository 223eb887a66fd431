// The page in Chromium: the distribution widget loads, reacts to its sliders and switches language.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSamplingLab } from 'sampling-lab/experiments';
import { openDevPage, type Harness } from '../support/chromium';

let harness: Harness;
let page: Page;
let problems: string[];

beforeAll(async () => {
  ({ harness, page, problems } = await openDevPage());
  // Widgets start when they come into view; the self-test now sits above this one.
  await page.locator('#shape').scrollIntoViewIfNeeded();
  await page.locator('sampling-lab [data-readout="entropy"] dd').filter({ hasText: /\d/ }).waitFor();
});

afterAll(async () => { await harness?.close(); });

const readout = (name: string) => page.locator(`sampling-lab [data-readout="${name}"] dd`).innerText();

it('shows the handbook widget in Chinese with 12 labelled bars', async () => {
  expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
  expect(await page.locator('#shape .sl-bars text.label').allTextContents()).toEqual(
    ['的', '是', '了', '在', '和', '有', '人', '我', '他', '这', '中', '大']);
  expect(await page.getByLabel('温度 T').inputValue()).toBe('1');
  expect(await readout('entropy')).toMatch(/比特/);
});

it('shows the expectation and variance of the surprisal before and after the cut, as the core computes them', async () => {
  const lab = await loadSamplingLab();
  // The handbook's 12 logits at the widget's defaults (T 1, top-p 0.9).
  const logits = [4.2, 3.6, 3.1, 2.4, 2.0, 1.6, 1.1, 0.6, 0.1, -0.4, -1.0, -1.8];
  const { surprisal } = lab.runExperiment('filters', { logits, temperature: 1, topP: 0.9 });
  const table = page.locator('#shape .sl-moments-table');
  await expect(table.locator('caption').innerText()).resolves.toMatch(/惊讶度/);
  const cells = await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
  const keys = ['mean', 'meanSquare', 'variance', 'standardDeviation'] as const;
  expect(cells.map((row) => row.slice(1))).toEqual(keys.map((key) => [surprisal.tempered[key].toFixed(2), surprisal.kept[key].toFixed(2)]));
  expect(cells[0][0]).toMatch(/E\[f\] = 熵 H/);
  // The cut lowers the surprisal's mean and spread, and the readout above agrees with E[f].
  expect(surprisal.kept.variance).toBeLessThan(surprisal.tempered.variance);
  expect(await readout('entropy')).toContain(surprisal.kept.mean.toFixed(2));
  await expect(page.locator('#shape .sl-moments-summary').innerText()).resolves.toContain(`${surprisal.kept.standardDeviation.toFixed(2)} 比特`);
});

it('moving the temperature slider with the keyboard changes the entropy', async () => {
  const before = await readout('entropy');
  const slider = page.getByLabel('温度 T');
  await slider.focus();
  for (let i = 0; i < 6; i++) await slider.press('ArrowLeft');
  expect(await slider.inputValue()).toBe('0.7');
  await expect.poll(() => readout('entropy')).not.toBe(before);
  const colder = parseFloat(await readout('entropy'));
  expect(colder).toBeLessThan(parseFloat(before));
});

it('top-k fills only the kept bars over the tempered outlines and updates the candidate count', async () => {
  await page.getByLabel('top-k（0 = 不限）').fill('3');
  await expect.poll(() => readout('kept')).toMatch(/^3\b/);
  expect(await page.locator('#shape .sl-bars rect.kept').count()).toBe(3);
  expect(await page.locator('#shape .sl-bars rect.tempered').count()).toBe(12);
});

it('switches to the 151,936-token synthetic distribution and draws a log-rank chart', async () => {
  await page.getByRole('button', { name: /151,936/ }).click();
  await page.locator('sampling-lab svg.sl-lines path.line').first().waitFor();
  await page.getByLabel('top-k（0 = 不限）').fill('0');
  await expect.poll(async () => parseInt((await readout('tokens-for-90')).replace(/,/g, ''), 10)).toBeGreaterThan(12);
  const before = await readout('entropy');
  await page.getByLabel('温度 T').fill('1.5');
  await expect.poll(() => readout('entropy')).not.toBe(before);
});

it('the advanced samplers panel cuts with typical-p and the order, and colours each stage\'s tokens', async () => {
  const panel = page.locator('#shape details.sl-advanced');
  await panel.locator('summary').click();
  await page.getByLabel('typical-p（1 = 关闭）').fill('0.5');
  await expect.poll(() => readout('cuts')).toMatch(/typical 后剩/);
  const legend = () => page.locator('#shape svg.sl-lines ~ .sl-legend span').allTextContents();
  await expect.poll(legend).toContain('被截掉: typical');
  // Each result the widget shows arrives with the options it was computed for (its change event):
  // wait for the one of these options rather than for any number, which may still be the last one's.
  await page.evaluate(() => {
    document.querySelector('#shape')!.addEventListener('change', (event) => {
      const { params, result } = (event as CustomEvent).detail ?? {};
      if (params) (window as unknown as { shown: unknown }).shown = { temperature: params.temperature, typicalP: params.typicalP, reordered: params.order.length > 0, kept: result.kept };
    });
  });
  type Shown = { temperature: number; typicalP: number; reordered: boolean; kept: number };
  const shown = () => page.evaluate(() => (window as unknown as { shown?: Shown }).shown);
  const keptReadout = async () => parseInt((await readout('kept')).replace(/,/g, ''), 10);
  const shape = page.locator('#shape');
  await shape.getByLabel('typical-p（1 = 关闭）').fill('1');
  await shape.getByLabel('top-p', { exact: true }).fill('0.9');
  await shape.getByLabel('温度 T').fill('0.5');
  await expect.poll(shown).toMatchObject({ temperature: 0.5, typicalP: 1, reordered: false });
  const handbook = (await shown())!.kept;
  expect(await keptReadout()).toBe(handbook);
  await panel.getByRole('button', { name: /llama\.cpp/ }).click();
  await expect.poll(shown).toMatchObject({ temperature: 0.5, reordered: true });
  // Top-p before the temperature keeps far more of the tail.
  const llama = (await shown())!.kept;
  expect(llama).toBeGreaterThan(5 * handbook);
  expect(await keptReadout()).toBe(llama);
  await panel.getByRole('button', { name: /手册/ }).click();
});

it('follows <html lang="en">', async () => {
  await page.evaluate(() => { document.documentElement.lang = 'en'; });
  await expect.poll(() => page.locator('sampling-lab [data-readout="entropy"] dt').first().innerText()).toBe('Entropy H = E[−log₂ p] (after truncation)');
  expect(await page.getByLabel('Temperature T').count()).toBe(1);
  expect(await page.locator('h1').innerText()).toMatch(/Probability and sampling/);
  expect(await page.locator('#shape .sl-moments-title').innerText()).toBe('Expectation and variance: how surprising is a drawn token');
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
