// The samplers and Monte-Carlo error widgets in Chromium: they run in the Worker, show their
// results, react to their sliders and keep the page responsive.
import { afterAll, expect, it } from 'vitest';
import { openDevPage } from '../support/chromium';
import { expectWithin } from '../support/timing';

const { harness, page, problems } = await openDevPage();
afterAll(() => harness.close());

const samplers = () => page.locator('sampling-lab[experiment="samplers"]');
const mcError = () => page.locator('sampling-lab[experiment="mc-error"]');
const tableText = (host: ReturnType<typeof samplers>) => host.locator('.sl-body .sl-table tbody').innerText();

it('samplers: four methods\' deviations from p against the ±2 SE band, largest deviation and chi-square p-value', async () => {
  await samplers().scrollIntoViewIfNeeded();
  const rows = samplers().locator('.sl-body .sl-table tbody tr');
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(4);
  expect(await rows.locator('th').allInnerTexts()).toEqual(['逆 CDF', 'Gumbel-max', '指数竞赛', '别名法']);
  for (const row of await rows.all()) {
    const [deviation, pValue] = (await row.locator('td').allInnerTexts()).map(Number);
    expect(deviation).toBeLessThan(0.01);
    expect(pValue).toBeGreaterThan(1e-6);
  }
  expect(await samplers().locator('.sl-deviation rect.band').count()).toBe(5);
  expect(await samplers().locator('.sl-deviation circle.dot').count()).toBe(20); // 5 categories × 4 methods
  await expect(samplers().locator('.sl-body > .sl-note').innerText()).resolves.toMatch(/0\.05/);
});

it('samplers: the n slider and a new seed change the results', async () => {
  const before = await tableText(samplers());
  await samplers().getByLabel('采样次数 n').fill('0'); // 1,000 draws
  await expect.poll(() => tableText(samplers()), { timeout: 60_000 }).not.toBe(before);
  const atSmallN = await tableText(samplers());
  await samplers().getByRole('button', { name: '换一个种子重跑' }).click();
  await expect.poll(() => samplers().locator('.sl-seed').innerText()).toBe('种子 1');
  await expect.poll(() => tableText(samplers()), { timeout: 60_000 }).not.toBe(atSmallN);
});

it('mc-error: measured std follows sqrt(p(1-p)/n) within 5 %', async () => {
  await mcError().scrollIntoViewIfNeeded();
  const rows = mcError().locator('.sl-body .sl-table tbody tr');
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(7); // n = 10 … 10,000
  for (const row of await rows.all()) {
    const ratio = Number((await row.locator('td').allInnerTexts())[3]);
    expect(Math.abs(ratio - 1)).toBeLessThan(0.1);
  }
  expect(await mcError().locator('svg.sl-lines path.line').count()).toBeGreaterThan(0);
});

it('mc-error: the page keeps painting frames during a long run (gaps timed), with a progress bar', async () => {
  const before = await tableText(mcError());
  await mcError().getByLabel('重复次数').fill('5000');
  await mcError().locator('progress.sl-progress').waitFor({ state: 'visible' });
  // The main thread keeps painting frames while the Worker computes.
  const frameGaps = await page.evaluate(() => new Promise<number>((resolve) => {
    let last = performance.now();
    let worst = 0;
    let frames = 0;
    const tick = () => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      if (++frames < 30) requestAnimationFrame(tick); else resolve(worst);
    };
    requestAnimationFrame(tick);
  }));
  expect(frameGaps).toBeGreaterThan(0);
  expectWithin('mc-error: longest gap between frames', frameGaps, 200);
  await expect.poll(() => tableText(mcError()), { timeout: 60_000 }).not.toBe(before);
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
