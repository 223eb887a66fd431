// The README's change listener on <sampling-lab> (`e => e.detail.experiment`) sees only the widget's
// own change events: the native change of a slider or checkbox moved inside stays inside.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchProblems } from '../support/chromium';
import { serveDist } from '../support/static-server';

let site: Awaited<ReturnType<typeof serveDist>>;
let context: BrowserContext;

beforeAll(async () => {
  site = await serveDist('/');
  context = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
});

interface Seen { host: string[]; document: string[]; native: number }

/** Adds a widget with the README's listener on it and a listener above it; returns what each saw. */
async function widgetWithListeners(page: Page, experiment: string): Promise<() => Promise<Seen>> {
  await page.evaluate((name) => {
    const el = document.createElement('sampling-lab');
    el.id = 'listened';
    el.setAttribute('experiment', name);
    const seen: Seen = { host: [], document: [], native: 0 };
    (window as unknown as { seen: Seen }).seen = seen;
    // As the README writes it: this throws (a page error) on any event without a detail.
    el.addEventListener('change', (e) => { seen.host.push((e as CustomEvent).detail.experiment); });
    document.addEventListener('change', (e) => {
      if (el.contains(e.target as Node)) seen.document.push((e as CustomEvent).detail?.experiment ?? 'native');
    });
    // The inner controls' own listeners still get their native events.
    el.addEventListener('change', (e) => { if (e.target !== el) seen.native++; }, { capture: true });
    document.body.prepend(el);
  }, experiment);
  const seen = () => page.evaluate(() => (window as unknown as { seen: Seen }).seen);
  await expect.poll(async () => (await seen()).host.length, { timeout: 60_000 }).toBeGreaterThan(0);
  return seen;
}

// A slider and a checkbox, each moved by keyboard: both fire a native change inside the widget.
const CONTROLS = [
  { kind: 'slider', experiment: 'filters', control: 'input[name="temperature"]', keys: ['ArrowRight', 'ArrowRight'] },
  { kind: 'checkbox', experiment: 'speculative', control: 'input[type="checkbox"]', keys: ['Space'] },
];

for (const { kind, experiment, control, keys } of CONTROLS) {
  it(`a ${kind} moved by keyboard: the ${experiment} host and the page above it see only the widget's change`, async () => {
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${site.url}embed/${experiment}.html`);
    const seen = await widgetWithListeners(page, experiment);
    const before = (await seen()).host.length;
    await page.locator(`#listened ${control}`).first().focus();
    for (const key of keys) await page.keyboard.press(key);
    await expect.poll(async () => (await seen()).host.length, { timeout: 60_000 }).toBeGreaterThan(before);
    const { host, document, native } = await seen();
    expect(native).toBeGreaterThan(0);
    expect(host.every((name) => name === experiment)).toBe(true);
    expect(document).toEqual(host);
    expect(problems).toEqual([]);
    await page.close();
  });
}
