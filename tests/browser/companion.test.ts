// The built page as the chapter's companion: readable before JavaScript runs, no layout shift on
// load or on a deep link, chart text at least 11 px on a phone, tables as cards and 44 px touch
// targets there, the language from ?lang= kept across reloads, formulas rendered by KaTeX.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchProblems } from '../support/chromium';
import { serveDist } from '../support/static-server';

let site: Awaited<ReturnType<typeof serveDist>>;
let context: BrowserContext;
const problems: string[] = [];

beforeAll(async () => {
  site = await serveDist('/book/sampling/');
  context = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
});

async function open(path: string, width: number, options: { javaScript?: boolean } = {}): Promise<Page> {
  const page = await (options.javaScript === false
    ? (await context.browser()!.newContext({ javaScriptEnabled: false, viewport: { width, height: 900 } })).newPage()
    : context.newPage());
  if (options.javaScript !== false) {
    await page.setViewportSize({ width, height: 900 });
    problems.push(...watchProblems(page));
  }
  // Layout shifts as the page reports them, from the first paint on.
  await page.addInitScript(() => {
    (window as unknown as { shift: number }).shift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
        if (!entry.hadRecentInput) (window as unknown as { shift: number }).shift += entry.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(site.url + path);
  return page;
}

const layoutShift = (page: Page) => page.evaluate(() => (window as unknown as { shift: number }).shift);

it('is readable without JavaScript: headings, text, contents and formulas are in the HTML', async () => {
  const page = await open('', 1280, { javaScript: false });
  expect(await page.locator('h1').innerText()).toBe('概率与采样 · 交互实验');
  expect(await page.locator('main h2').count()).toBe(9);
  for (const text of await page.locator('main h2 + p').allInnerTexts()) expect(text.length).toBeGreaterThan(20);
  expect(await page.locator('nav.toc li a').count()).toBe(9);
  expect(await page.locator('.formula .katex-mathml math').count()).toBe(7);
  expect(await page.locator('noscript').count()).toBe(1);
  await page.context().close();
});

for (const [path, width] of [['', 1280], ['', 390], ['#speculative-title', 1280], ['#importance-title', 390]] as const) {
  it(`shifts its layout by less than 0.1 loading ${path || 'the top'} at ${width} px`, async () => {
    const page = await open(path, width);
    // Until every widget in view has started, run in the Worker and drawn, then a moment to settle.
    await page.waitForFunction(() => [...document.querySelectorAll('sampling-lab')]
      .filter((el) => { const box = el.getBoundingClientRect(); return box.bottom > 0 && box.top < innerHeight; })
      .every((el) => el.querySelector('.sl-widget') && !el.classList.contains('sl-starting')), null, { timeout: 60_000 });
    await page.waitForTimeout(500);
    expect(await layoutShift(page)).toBeLessThan(0.1);
    await page.close();
  });
}

it('draws chart text at 11 px or more on a 390 px phone, with tables as cards and 44 px targets', async () => {
  const page = await open('', 390);
  for (const host of await page.locator('main sampling-lab').all()) {
    await host.scrollIntoViewIfNeeded();
    await expect.poll(() => host.evaluate((el) => el.classList.contains('sl-starting') || !el.querySelector('.sl-widget')), { timeout: 60_000 }).toBe(false);
  }
  await page.waitForTimeout(500);
  const smallest = await page.evaluate(() => {
    let min = Infinity;
    for (const text of document.querySelectorAll<SVGTextElement>('sampling-lab svg text')) {
      if (!text.textContent?.trim() || text.getBoundingClientRect().width === 0) continue;
      const scale = text.ownerSVGElement!.getScreenCTM()!.a;
      min = Math.min(min, parseFloat(getComputedStyle(text).fontSize) * scale);
    }
    return min;
  });
  expect(smallest).toBeGreaterThanOrEqual(11);
  // A table row is a card: its header row hidden, each value beside its column's name.
  const table = page.locator('sampling-lab#shape .sl-temperatures');
  expect(await table.locator('thead').evaluate((el) => getComputedStyle(el).display)).toBe('none');
  expect(await table.locator('tbody td').first().evaluate((el) => getComputedStyle(el, '::before').content)).not.toBe('none');
  const tooSmall = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('sampling-lab button, sampling-lab input[type=range]')]
    .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().height < 44).length);
  expect(tooSmall).toBe(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
  await page.close();
});

it('takes ?lang=en, keeps the choice across reloads, and switches back with the toggle', async () => {
  const page = await open('?lang=en', 1280);
  await expect.poll(() => page.locator('h1').innerText()).toBe('Probability and sampling · live experiments');
  expect(await page.locator('html').getAttribute('lang')).toBe('en');
  await page.goto(site.url);
  await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en');
  expect(new URL(page.url()).searchParams.get('lang')).toBe('en');
  await page.locator('.lang-switch').click();
  await expect.poll(() => page.locator('h1').innerText()).toBe('概率与采样 · 交互实验');
  expect(new URL(page.url()).searchParams.get('lang')).toBeNull();
  await page.reload();
  expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
  await page.close();
});

it('renders the same KaTeX formulas in both languages, none of them a tab stop', async () => {
  const page = await open('', 1280);
  const formulas = () => page.locator('.formula .katex-html').evaluateAll((els) => els.map((e) => e.textContent));
  const chinese = await formulas();
  await page.locator('.lang-switch').click();
  await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en');
  expect(await formulas()).toEqual(chinese);
  expect(await page.locator('.formula [tabindex], .formula[tabindex]').count()).toBe(0);
  await page.locator('.lang-switch').click();
  await page.close();
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
