// The handbook drop-in: placeholders on a MkDocs-style page become widgets in Chinese and English,
// again after instant navigation swaps the content, following the host's dark scheme; the
// one-script embed.js on a foreign page; an iframe embed that reports its height.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchProblems } from '../support/chromium';
import { serveDist } from '../support/static-server';

let site: Awaited<ReturnType<typeof serveDist>>;
let context: BrowserContext;
const problems: string[] = [];

beforeAll(async () => {
  site = await serveDist('/docs/');
  context = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
});

async function open(url: string): Promise<Page> {
  const page = await context.newPage();
  problems.push(...watchProblems(page));
  await page.goto(url);
  return page;
}

const readoutTerm = (page: Page) => page.locator('.aig-widget sampling-lab [data-readout="entropy"] dt').first();

it('upgrades the placeholders in Chinese, with data-* parameters', async () => {
  const page = await open(`${site.url}mkdocs-sample.html`);
  await expect.poll(() => page.locator('.aig-widget[data-ready] sampling-lab').count(), { timeout: 60_000 }).toBe(3);
  expect(await page.locator('.aig-widget sampling-lab').evaluateAll((els) => els.map((e) => e.getAttribute('experiment'))))
    .toEqual(['filters', 'samplers', 'speculative']);
  await expect.poll(() => readoutTerm(page).innerText(), { timeout: 60_000 }).toBe('熵 H = E[−log₂ p]（截断后）');
  const speculative = page.locator('sampling-lab[experiment="speculative"]');
  await speculative.scrollIntoViewIfNeeded();
  await expect.poll(() => speculative.getByLabel('草稿长度 γ').inputValue(), { timeout: 60_000 }).toBe('3');
  await page.close();
});

it('follows lang="en" and the host\'s slate scheme, and re-scans after instant navigation', async () => {
  const page = await open(`${site.url}mkdocs-sample.html`);
  await page.evaluate(() => {
    document.documentElement.lang = 'en';
    document.documentElement.setAttribute('data-md-color-scheme', 'slate');
  });
  await expect.poll(() => readoutTerm(page).innerText(), { timeout: 60_000 }).toBe('Entropy H = E[−log₂ p] (after truncation)');
  const background = () => page.locator('sampling-lab .sl-widget').first().evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await background()).toBe('rgb(29, 33, 41)');
  // Material's instant navigation replaces the article without a reload.
  await page.evaluate(() => {
    document.querySelector('article')!.innerHTML = '<h1>Next page</h1>'
      + '<div class="aig-widget" data-widget="sample-size"></div><div class="aig-widget" data-widget="mc-error"></div>';
  });
  const sampleSize = page.locator('sampling-lab[experiment="sample-size"]');
  await expect.poll(() => sampleSize.locator('[data-readout="n"] dd').count(), { timeout: 60_000 }).toBe(1);
  await expect.poll(() => sampleSize.locator('[data-readout="n"] dd').innerText()).toBe('1,152');
  expect(await sampleSize.locator('[data-readout="n"] dt').innerText()).toBe('Samples per configuration');
  expect(await page.locator('.aig-widget[data-ready]').count()).toBe(2);
  await page.close();
});

it('embed.js alone upgrades placeholders on a foreign page', async () => {
  const page = await open(`${site.url}embed/filters.html`); // any page of the site, for its origin
  await page.setContent(`<!doctype html><html lang="en"><head><link rel="icon" href="data:,"></head><body>
    <div class="aig-widget" data-widget="softmax" data-temperature="0.5"></div>
    <script type="module" src="${site.url}embed.js"></script></body></html>`);
  const widget = page.locator('sampling-lab');
  await expect.poll(() => widget.getByLabel('Temperature T').count(), { timeout: 60_000 }).toBe(1);
  expect(await widget.getByLabel('Temperature T').inputValue()).toBe('0.5');
  await page.close();
});

it('an iframe embed stands alone under its own heading and reports its content\'s height, shrinking too, on an opaque themed page', async () => {
  const page = await open(`${site.url}embed/filters.html`);
  // The host sizes the iframe from the messages, as the copied embed code does; it starts far too tall.
  await page.setContent(`<!doctype html><html><head><link rel="icon" href="data:,"></head><body>
    <script>window.heights = []; addEventListener('message', (e) => { if (e.data && e.data.type === 'sampling-lab:height') {
      window.heights.push(e.data.height); document.querySelector('iframe').style.height = e.data.height + 'px'; } });</script>
    <iframe src="${site.url}embed/sample-size.html?lang=en&theme=dark" style="width:100%;height:3000px;border:0"></iframe></body></html>`);
  const frame = page.frameLocator('iframe');
  await expect.poll(() => frame.locator('[data-readout="n"] dt').innerText(), { timeout: 60_000 }).toBe('Samples per configuration');
  expect(await frame.locator('h1').innerText()).toBe('How many samples?');
  // The heading and the widget: the frame's body, no more.
  const shownHeight = await frame.locator('body').evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
  const widgetHeight = await frame.locator('sampling-lab').evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
  await expect.poll(() => page.evaluate(() => (window as unknown as { heights: number[] }).heights.at(-1))).toBe(shownHeight);
  expect(shownHeight).toBeGreaterThan(widgetHeight);
  expect(shownHeight).toBeLessThan(2000);
  expect(await page.locator('iframe').evaluate((el) => el.getBoundingClientRect().height)).toBe(shownHeight);
  // Opaque and themed: a dark iframe on a light host keeps its own background; the widget's font.
  const [background, font] = await frame.locator('body').evaluate((el) => [getComputedStyle(el.ownerDocument.documentElement).backgroundColor, getComputedStyle(el).fontFamily]);
  expect(background).toBe('rgb(20, 23, 29)');
  expect(font).toMatch(/system-ui/);
  await page.close();
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
