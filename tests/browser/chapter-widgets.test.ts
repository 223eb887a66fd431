// Sequence, speculative, importance and sample-size widgets in Chromium.
import { afterAll, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { openDevPage } from '../support/chromium';

const { harness, page, problems } = await openDevPage();
afterAll(() => harness.close());

const widget = (name: string) => page.locator(`sampling-lab[experiment="${name}"]`);
const readout = (host: Locator, name: string) => host.locator(`[data-readout="${name}"] dd`).innerText();

it('sequence: greedy (A, a1) 0.30 and best (B, b1) 0.36 on the handbook tree, marked on it', async () => {
  const host = widget('sequence');
  await host.scrollIntoViewIfNeeded();
  // The paths are marked once the reader has guessed the most probable sequence.
  await host.locator('[data-predict="best-sequence"]').getByRole('button', { name: 'B b1' }).click();
  await host.getByRole('button', { name: '我猜好了，揭晓答案' }).first().click();
  await expect.poll(() => readout(host, 'best')).toBe('(B, b1) 0.36');
  expect(await readout(host, 'greedy')).toBe('(A, a1) 0.30');
  expect(await readout(host, 'beam')).toBe('(B, b1) 0.36');
  expect(await host.locator('line.edge.greedy').count()).toBe(2);
  expect(await host.locator('line.edge.best').count()).toBe(2);
});

it('sequence: editing P(b1 | B) moves the best path to greedy\'s', async () => {
  const host = widget('sequence');
  await host.getByLabel('P(b1 | B)').fill('0.5');
  await expect.poll(() => readout(host, 'best')).toBe('(A, a1) 0.30');
});

it('sequence: random models report greedy misses and the closing beam width', async () => {
  const host = widget('sequence');
  await host.getByRole('button', { name: '随机模型' }).click();
  await expect.poll(() => host.locator('.sl-body .sl-table tbody tr').count(), { timeout: 60_000 }).toBeGreaterThan(2);
  expect(parseFloat(await readout(host, 'greedy-miss'))).toBeGreaterThan(0);
  const before = await readout(host, 'greedy-miss');
  await host.getByLabel('分布尖锐程度').fill('4');
  await expect.poll(() => readout(host, 'greedy-miss'), { timeout: 60_000 }).not.toBe(before);
});

it('speculative: acceptance 0.700 for uniform q, output matches p, formula 2.77', async () => {
  const host = widget('speculative');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => readout(host, 'acceptance'), { timeout: 60_000 }).toBe('0.700');
  expect(await readout(host, 'tokens-formula')).toBe('2.77');
  expect(Number(await readout(host, 'chi-square'))).toBeGreaterThan(1e-6);
  await host.getByLabel('草稿长度 γ').fill('1');
  await expect.poll(() => readout(host, 'tokens-formula'), { timeout: 60_000 }).toBe('1.70');
});

it('speculative: top-2 keeps the output exact; the pitfall is rejected by chi-square', async () => {
  const host = widget('speculative');
  await host.getByRole('checkbox', { name: /top-2/ }).check();
  await expect.poll(async () => Number(await readout(host, 'chi-square')), { timeout: 60_000 }).toBeGreaterThan(1e-6);
  await host.getByRole('checkbox', { name: /未截断/ }).check();
  await expect.poll(async () => Number(await readout(host, 'chi-square')), { timeout: 60_000 }).toBeLessThan(1e-6);
  await host.getByRole('button', { name: '远离 p 的 q' }).click();
  await expect.poll(() => readout(host, 'acceptance'), { timeout: 60_000 }).not.toBe('0.875');
});

it('importance: shifts 0, 1 and 3 side by side on one axis; ESS falls with the shift; TIS trades bias for spread', async () => {
  const host = widget('importance');
  await host.scrollIntoViewIfNeeded();
  const rows = host.locator('.sl-body .sl-table tbody tr');
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(12); // 3 shifts × 4 estimators
  expect(await readout(host, 'true-mean')).toBe('6.20');
  expect(await host.locator('.sl-panel').count()).toBe(3);
  await host.getByRole('button', { name: '我猜好了，揭晓答案' }).click();  // the ESS waits for a guess
  const ess = (await readout(host, 'ess')).split('(')[0].split('/').map(Number);
  expect(ess[0]).toBe(1000);
  expect(ess[1]).toBeLessThan(ess[0]);
  expect(ess[2]).toBeLessThan(ess[1]);
  const cells = async (row: number) => (await rows.nth(row).locator('td').allInnerTexts()).slice(2).map(Number);
  // Shift 3: rows 8 … 11 are plain IS, TIS, MIS, self-normalised.
  const [plainBias, plainStd] = await cells(8);
  const [tisBias, tisStd, tisMse] = await cells(9);
  const [, , selfMse] = await cells(11);
  expect(tisStd).toBeLessThan(plainStd);
  expect(Math.abs(tisBias)).toBeGreaterThan(Math.abs(plainBias));
  expect(selfMse).toBeLessThan(tisMse);
});

it('sample-size: exercise 2 gives 1,152 per configuration and the sliders move it', async () => {
  const host = widget('sample-size');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => readout(host, 'n')).toBe('1,152');
  await host.getByLabel('要分辨的差距 δ').fill('0.2');
  await expect.poll(() => readout(host, 'n')).toBe('288');
  await host.getByRole('button', { name: '两个比例' }).click();
  await expect.poll(() => readout(host, 'n')).not.toBe('288');
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
