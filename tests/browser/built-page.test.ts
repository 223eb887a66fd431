// The built page (web/dist) served from a sub-path: every widget renders and every slider moves
// its readouts; URL state, reset, attributes, change events, .npy loading, screenshots.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { watchProblems } from '../support/chromium';
import { formatFigure, HANDBOOK_CHAPTERS, HANDBOOK_FIGURES } from 'sampling-lab/handbook';
import { axeViolations } from '../support/axe';
import { openBuiltPage, type BuiltPage } from '../support/static-server';

const ARTIFACTS = join(__dirname, '../../test-results');
const WIDGETS = ['filters', 'samplers', 'mc-error', 'eval-error', 'sequence', 'speculative', 'importance', 'sample-size'];
let opened: BuiltPage;
let site: BuiltPage['site'];
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  opened = await openBuiltPage();
  ({ site, context, page, problems } = opened);
});

afterAll(async () => { await opened?.close(); });

// Everything a reader sees change: readouts, tables, chart descriptions.
const visibleState = (host: Locator) => host.evaluate((el) => {
  const parts = [...el.querySelectorAll('dd, tbody, .sl-seed, [aria-label]')].map((n) => n.textContent + (n.getAttribute('aria-label') ?? ''));
  return parts.join('|');
});

it('renders every widget in chapter order', async () => {
  const names = await page.locator('sampling-lab').evaluateAll((els) => els.map((e) => e.getAttribute('experiment')));
  expect(names).toEqual(WIDGETS);
  for (const host of await page.locator('sampling-lab').all()) {
    await host.scrollIntoViewIfNeeded();
    await expect.poll(() => host.locator('.sl-widget').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => host.locator('dd, tbody tr').count(), { timeout: 60_000 }).toBeGreaterThan(0);
  }
});

const moved = new Map<string, number>();

for (const name of WIDGETS) {
  it(`${name}: every visible slider changes what the widget shows`, async () => {
    const host = page.locator(`sampling-lab[experiment="${name}"]`);
    await host.scrollIntoViewIfNeeded();
    moved.set(name, 0);
    // A guess or the player's speed moves no result (lesson-widgets.test.ts covers them).
    for (const input of await host.locator('input[type=range]:visible:not([data-guess]):not([data-player])').all()) {
      // Some settings are masked by others (top-k 12 under top-p 0.9): some value must show.
      const [min, max, value] = await input.evaluate((el: HTMLInputElement) => [el.min, el.max, el.value].map(Number));
      const step = Number(await input.getAttribute('step'));
      const candidates = [max, min, min + step].filter((v) => v !== value);
      let changed = false;
      for (const candidate of candidates) {
        const before = await visibleState(host);
        await input.fill(String(candidate));
        changed = await expect.poll(() => visibleState(host), { timeout: 4_000 }).not.toBe(before).then(() => true, () => false);
        if (changed) break;
      }
      expect(changed, `${name} ${await input.getAttribute('name')}`).toBe(true);
      moved.set(name, moved.get(name)! + 1);
      await host.locator(':scope > .sl-footer .sl-reset').click();
    }
  });
}

it('moved 23 sliders in all', () => {
  expect([...moved.values()].reduce((a, b) => a + b, 0)).toBe(23); // 4 + 1 + 2 + 3 + 5 + 2 + 2 + 4 visible sliders
});

it('keeps slider values in the address, restores them, and resets', async () => {
  const temperature = page.locator('#shape').getByLabel('温度 T');
  await temperature.fill('0.5');
  await expect.poll(() => new URL(page.url()).searchParams.get('shape.temperature')).toBe('0.5');
  await page.reload();
  await expect.poll(() => page.locator('#shape').getByLabel('温度 T').inputValue(), { timeout: 60_000 }).toBe('0.5');
  await page.locator('#shape').getByRole('button', { name: '重置' }).click();
  await expect.poll(() => page.locator('#shape').getByLabel('温度 T').inputValue()).toBe('1');
  expect(new URL(page.url()).searchParams.get('shape.temperature')).toBeNull();
});

it('samples N tokens over the bars and offers its embed code', async () => {
  const host = page.locator('#shape');
  await host.getByRole('button', { name: /采样 1,000 次/ }).click();
  // The draws arrive in batches, dots with whiskers and a running count, until all 1,000 are in.
  await expect.poll(() => host.locator('.sl-legend').innerText()).toMatch(/已抽 1,000 次/);
  expect(await host.locator('circle.sampled').count()).toBe(12);
  expect(await host.locator('line.whisker').count()).toBe(12);
  const [fill, radius] = await host.locator('circle.sampled').first().evaluate((el) => [getComputedStyle(el).fill, Number(el.getAttribute('r'))]);
  expect(fill).not.toMatch(/none|rgba\(0, 0, 0, 0\)/);
  expect(radius).toBeGreaterThanOrEqual(3);
  await host.getByLabel('温度 T').fill('0.7');
  await host.getByRole('button', { name: '复制嵌入代码' }).click();
  const code = await host.locator('textarea.sl-embed-code').inputValue();
  expect(code).toContain(`${site.url}embed/filters.html?temperature=0.7&amp;lang=zh-CN&amp;theme=light`);
  expect(code).toContain('sampling-lab:height');
  await expect.poll(() => host.locator('.sl-copied').textContent()).toMatch(/已复制|已选中/);
  await host.getByRole('button', { name: '重置' }).click();
});

it('takes kebab-case attributes and emits change events', async () => {
  await page.evaluate(() => {
    const el = document.createElement('sampling-lab');
    el.id = 'added';
    el.setAttribute('experiment', 'filters');
    el.setAttribute('temperature', '0.7');
    el.setAttribute('top-p', '0.5');
    (window as unknown as { events: unknown[] }).events = [];
    el.addEventListener('change', (e) => (window as unknown as { events: unknown[] }).events.push((e as CustomEvent).detail));
    document.querySelector('main')!.prepend(el);
  });
  const added = page.locator('#added');
  await added.scrollIntoViewIfNeeded();
  await expect.poll(() => added.getByLabel('温度 T').inputValue(), { timeout: 60_000 }).toBe('0.7');
  expect(await added.getByLabel('top-p').inputValue()).toBe('0.5');
  const detail = await page.evaluate(() => (window as unknown as { events: { experiment: string; params: { topP: number }; result: { kept: number } }[] }).events.at(-1));
  expect(detail).toMatchObject({ experiment: 'filters', params: { topP: 0.5, temperature: 0.7 } });
  expect(detail!.result.kept).toBeGreaterThan(0);
});

it('loads logits from a 2-D .npy file with a position slider and the three-temperature readout', async () => {
  const host = page.locator('#shape');
  await host.getByRole('button', { name: '.npy 文件' }).click();
  const rows = 3;
  const vocab = 5000;
  const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${vocab}), }`;
  const padded = header + ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const bytes = Buffer.alloc(10 + padded.length + rows * vocab * 4);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  bytes.writeUInt16LE(padded.length, 8);
  bytes.write(padded, 10, 'latin1');
  for (let i = 0; i < rows * vocab; i++) bytes.writeFloatLE(Math.sin(i * 12.9898) * 4 + (i % vocab === 7 ? 12 : 0), 10 + padded.length + 4 * i);
  await host.locator('input[type=file]').setInputFiles({ name: 'logits.npy', mimeType: 'application/octet-stream', buffer: bytes });
  await expect.poll(() => host.locator('.sl-temperatures caption').innerText(), { timeout: 60_000 }).toContain('5,000');
  expect(await host.locator('.sl-temperatures tbody tr').count()).toBe(3);
  const position = host.getByLabel('位置（第几行）');
  expect(await position.getAttribute('max')).toBe('2');
  const before = await host.locator('.sl-temperatures tbody').innerText();
  await position.fill('2');
  await expect.poll(() => host.locator('.sl-temperatures tbody').innerText()).not.toBe(before);
});

it.each([[1280, 'light'], [360, 'dark']] as const)('works at %i px wide in %s (and at 390 px after 360), and saves screenshots', async (width, scheme) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  {
    const view = await context.newPage();
    problems.push(...watchProblems(view));
    await view.emulateMedia({ colorScheme: scheme });
    await view.setViewportSize({ width, height: 900 });
    await view.goto(site.url);
    for (const host of await view.locator('sampling-lab').all()) {
      await host.scrollIntoViewIfNeeded();
      await expect.poll(() => host.locator('.sl-widget').count(), { timeout: 60_000 }).toBe(1);
    }
    await view.waitForTimeout(1500);
    const overflow = await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const background = await view.locator('sampling-lab .sl-widget').first().evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background === 'rgb(246, 247, 249)').toBe(scheme === 'light');
    await view.screenshot({ path: join(ARTIFACTS, `page-${width}.png`), fullPage: true });
    if (width === 360) {
      expect(await axeViolations(view)).toEqual([]);
      // A common phone width too, from the same page: the layout must reflow without a reload.
      await view.setViewportSize({ width: 390, height: 900 });
      await view.waitForTimeout(300);
      expect(await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await view.screenshot({ path: join(ARTIFACTS, 'page-390.png'), fullPage: true });
    }
    await view.close();
  }
});


it('gives every chart an accessible description and a hidden data table', async () => {
  for (const host of await page.locator('sampling-lab').all()) {
    await host.scrollIntoViewIfNeeded();
    for (const chart of await host.locator('[role=img]').all()) {
      expect((await chart.getAttribute('aria-label'))?.length ?? 0).toBeGreaterThan(10);
    }
  }
  // Widgets that run in the Worker draw their charts when their first run ends.
  const tables = page.locator('sampling-lab .sl-chart table.sl-visually-hidden');
  await expect.poll(() => tables.count(), { timeout: 8_000 }).toBeGreaterThanOrEqual(6);
  for (const table of await tables.all()) expect(await table.locator('tr').count()).toBeGreaterThan(1);
});

it('shows every figure the handbook prints beside its live value, with the standard error where chance enters', async () => {
  for (const host of await page.locator('sampling-lab').all()) await host.scrollIntoViewIfNeeded();
  const rows = page.locator('main > section > sampling-lab .sl-handbook tbody tr');
  await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(HANDBOOK_FIGURES.length);
  // Live values arrive from the Worker after the runs the slider tests queued: "…" until then.
  await expect.poll(() => rows.evaluateAll((trs) => trs.some((tr) => tr.textContent!.includes('…'))), { timeout: 60_000 }).toBe(false);
  const shown = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
  // figure, source, handbook, here, agreement
  const printed = shown.map((cells) => cells[2]);
  for (const figure of HANDBOOK_FIGURES) {
    const text = (Array.isArray(figure.printed) ? figure.printed : [figure.printed]).map((x) => formatFigure(x, figure.digits)).join(', ');
    expect(printed, figure.id).toContain(text);
  }
  const chance = shown.filter((cells) => cells[4].includes('标准误'));
  expect(chance).toHaveLength(HANDBOOK_FIGURES.filter((f) => f.standardError).length);
  expect(shown.filter((cells) => cells[4].startsWith('相同'))).toHaveLength(HANDBOOK_FIGURES.filter((f) => !f.standardError).length);
  // Each row names the chapter that prints it; the other chapters' figures say which.
  for (const [i, figure] of HANDBOOK_FIGURES.entries()) expect(shown[i][1], figure.id).toContain(HANDBOOK_CHAPTERS[figure.chapter].zh);
  // Sample size: 1,152 here against the chapter's ≈ 1150, explained.
  const sampleSize = shown.find((cells) => cells[2] === '1,150')!;
  expect(sampleSize[3]).toBe('1,152');
  await expect(page.locator('sampling-lab#sample-size .sl-handbook-explained').textContent()).resolves.toMatch(/1,152.*1\.7.*1,156.*1150/);
  await expect(page.locator('sampling-lab#importance .sl-handbook-note').textContent()).resolves.toMatch(/PyTorch.*Philox/);
});

it('has no axe-core violation (WCAG 2.1 A and AA, best practices) once every widget has drawn', async () => {
  expect(await axeViolations(page)).toEqual([]);
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
