// The page as a reader meets it (issue 20, items 4, 5 and 7): the real-model passage readable and
// reachable by keyboard, a position under its own tab with its tokens named, no U+FFFD anywhere,
// the English page in English, disclosures that look like disclosures on a phone, a temperature
// sweep that ends, legends that are no tab stops, and an embed that points nowhere outside itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, watchProblems } from '../support/chromium';
import { axeViolations } from '../support/axe';
import { serveDist } from '../support/static-server';
import { longTasksDuring, openRealModelPage, phase, readyToLoad, type Phase, type RealModelPage } from './real-model-page';
import { expectNoneOver } from '../support/timing';

const MODEL = '?model=/models/tiny-qwen3';
// Han, kana and CJK punctuation: what a reader of the English page should not have to read.
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/g;

async function loadModel(page: Page): Promise<void> {
  await readyToLoad(page);
  await page.locator('button.rm-load').click();
  await expect.poll(() => page.locator('.rm-token').count(), { timeout: 60_000 }).toBeGreaterThan(100);
}

/** CJK characters the page shows outside the passage (the chapter's Chinese text) and the language toggle. */
function cjkOutsidePassage(page: Page): Promise<string[]> {
  return page.evaluate((pattern) => {
    const skip = (node: Node) => node.parentElement?.closest('.rm-passage, .lang-switch, noscript, script, style');
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (skip(node) || !node.parentElement?.checkVisibility()) continue;
      found.push(...(node.textContent!.match(new RegExp(pattern, 'g')) ?? []));
    }
    return found;
  }, CJK.source);
}

describe('the Chinese page with the local model', () => {
  let opened: RealModelPage;
  let page: Page;
  const phases: Phase[] = [];

  beforeAll(async () => {
    opened = await openRealModelPage(MODEL);
    page = opened.page;
  });
  afterAll(async () => { await opened?.close(); });

  it('loads the local model', async () => { await loadModel(page); });

  it('names the model ?model= chose in the section heading', async () => {
    await expect(page.locator('#real-model-title').textContent()).resolves.toBe('在真实模型上：/models/tiny-qwen3');
  });

  it('shows the passage as text: whole characters, no markup, wrapping inside its box at 390 px', async () => {
    const passage = page.locator('.rm-passage');
    const text = await passage.innerText();
    expect(text).toContain('不管模型有多大');
    for (const markup of ['<p class="lead"', '??? success', '$', '\\dots', '\uFFFD']) expect(text).not.toContain(markup);
    await page.setViewportSize({ width: 390, height: 900 });
    // Nothing is cut at the right edge, and no line starts with a "？".
    const layout = await passage.evaluate((box) => {
      const right = box.getBoundingClientRect().right;
      const pieces = [...box.querySelectorAll('.rm-token')].map((o) => ({ text: o.textContent!, rects: [...o.getClientRects()] }));
      const lefts = pieces.flatMap((p) => p.rects.map((r) => r.left));
      const lineStart = Math.min(...lefts);
      return {
        overflow: Math.max(...pieces.flatMap((p) => p.rects.map((r) => r.right))) - right,
        questionMarksStartingALine: pieces.filter((p) => p.text.startsWith('？') && Math.abs(p.rects[0].left - lineStart) < 2).length,
        scrollsSideways: box.scrollWidth > box.clientWidth,
      };
    });
    expect(layout.overflow).toBeLessThanOrEqual(0);
    expect(layout.scrollsSideways).toBe(false);
    expect(layout.questionMarksStartingALine).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('is one tab stop; the arrow keys move inside it and Enter loads a position under its own tab', async () => {
    const passage = page.locator('.rm-passage');
    expect(await passage.locator('[tabindex="0"]').count()).toBe(1);
    expect(await passage.locator('[tabindex]:not([tabindex="-1"]):not([tabindex="0"])').count()).toBe(0);
    // Tab from the element before it lands in it, and one more Tab leaves it.
    await page.locator('.rm-temperature .rm-passage-note').evaluate((note) => {
      note.tabIndex = -1;
      (note as HTMLElement).focus();
    });
    await page.keyboard.press('Tab');
    const first = await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index);
    expect(await page.evaluate(() => document.activeElement?.closest('.rm-passage') !== null)).toBe(true);
    await page.keyboard.press('ArrowRight');
    const next = await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index);
    expect(Number(next)).toBeGreaterThan(Number(first));
    // Where the focused token sits in the passage's text, whatever the page or the passage has scrolled.
    const top = () => page.evaluate(() => {
      const passage = document.activeElement!.closest('.rm-passage')!;
      return document.activeElement!.getBoundingClientRect().top - passage.getBoundingClientRect().top + passage.scrollTop;
    });
    const before = await top();
    await page.keyboard.press('ArrowDown');
    expect(await top()).toBeGreaterThan(before);
    await page.keyboard.press('ArrowUp');
    expect(await top()).toBeCloseTo(before, 0);
    const load = async () => {
      const chosen = Number(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index));
      await page.keyboard.press('Enter');
      const shape = page.locator('sampling-lab#shape');
      await expect.poll(() => shape.locator('.sl-source').textContent(), { timeout: 60_000 }).toContain(`第 ${chosen + 1} 个位置`);
      await expect.poll(() => shape.locator('.sl-top-tokens tbody tr').count()).toBe(10);
      await page.locator('.rm-passage [tabindex="0"]').focus();
    };
    // The first vocabulary-sized view is the WebAssembly core's cold start; a reader's next positions are measured.
    await load();
    await page.keyboard.press('ArrowRight');
    phases.push(await phase(page, 'loading a position', load));
    const shape = page.locator('sampling-lab#shape');
    expect(await shape.locator('.sl-segment[data-value="model"]').getAttribute('aria-pressed')).toBe('true');
    expect(await shape.locator('.sl-segment[data-value="file"]').getAttribute('aria-pressed')).toBe('false');
    expect(await shape.locator('.sl-drop').isVisible()).toBe(false);
    expect(await shape.locator('.sl-top-chart text.label').count()).toBeGreaterThanOrEqual(4);
    await page.locator('.rm-passage [tabindex="0"]').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('.rm-passage'))).toBeNull();
  });

  it('shows no U+FFFD anywhere, with the passage, a position, a greedy generation and its candidates shown', async () => {
    const section = page.locator('.rm-generate');
    phases.push(await phase(page, 'greedy generation', async () => {
      await section.locator('button.rm-greedy').click();
      await expect.poll(() => section.locator('button.rm-go').isDisabled(), { timeout: 60_000 }).toBe(false);
    }));
    expect(await section.locator('#rm-temperature').inputValue()).toBe('0');
    await section.locator('.rm-generated').first().hover();
    await expect.poll(() => section.locator('.rm-step tbody tr').count()).toBeGreaterThan(0);
    // T → 0: the same text twice, and what repeats is marked and counted.
    const text = await section.locator('.rm-output').innerText();
    await section.locator('button.rm-go').click();
    await expect.poll(() => section.locator('button.rm-go').isDisabled(), { timeout: 60_000 }).toBe(false);
    expect(await section.locator('.rm-output').innerText()).toBe(text);
    const repeated = await section.locator('.rm-repeat').count();
    await expect(section.locator('.rm-repeats').textContent()).resolves.toContain(`48 个 token 中有 ${repeated} 个在重复前文`);
    const replacement = await page.evaluate(() => document.body.innerText.includes('\uFFFD') || [...document.querySelectorAll('[title], [aria-label]')]
      .some((el) => (el.getAttribute('title') ?? '').includes('\uFFFD') || (el.getAttribute('aria-label') ?? '').includes('\uFFFD')));
    expect(replacement).toBe(false);
  });

  it('has no axe-core violation with the passage and a loaded position shown', async () => {
    expect(await axeViolations(page)).toEqual([]);
  });

  it('keeps legend rows out of the tab order', async () => {
    const shape = page.locator('sampling-lab#shape');
    await shape.scrollIntoViewIfNeeded();
    await expect.poll(() => shape.locator('svg.sl-lines ~ .sl-legend span').count()).toBeGreaterThan(1);
    const focusable = await page.locator('.sl-legend *').evaluateAll((nodes) => nodes.filter((n) => (n as HTMLElement).tabIndex >= 0 || n.getAttribute('role') === 'button').length);
    expect(focusable).toBe(0);
  });

  it('sweeps the temperature once and stops: at its end, on reset, and out of view', async () => {
    const shape = page.locator('sampling-lab#shape');
    const play = shape.locator('button.sl-play');
    const temperature = shape.getByLabel('温度 T');
    await shape.locator('.sl-toolbar .sl-segment[data-value="handbook"]').click();
    expect(await play.textContent()).not.toMatch(/[\u23f8\u25b6]/);
    // Reset stops it where reset puts T.
    await play.click();
    expect(await play.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => temperature.inputValue()).not.toBe('0.05');
    await shape.locator(':scope > .sl-footer .sl-reset').click();
    expect(await play.getAttribute('aria-pressed')).toBe('false');
    await page.waitForTimeout(400);
    expect(await temperature.inputValue()).toBe('1');
    // Scrolled away, it stops.
    await play.click();
    await page.locator('sampling-lab#sample-size').scrollIntoViewIfNeeded();
    await expect.poll(() => play.getAttribute('aria-pressed'), { timeout: 3_000 }).toBe('false');
    const stoppedAt = await temperature.inputValue();
    await page.waitForTimeout(400);
    expect(await temperature.inputValue()).toBe(stoppedAt);
    // Left alone in view, it ends at the highest temperature.
    await shape.scrollIntoViewIfNeeded();
    await play.click();
    await expect.poll(() => play.getAttribute('aria-pressed'), { timeout: 8_000 }).toBe('false');
    expect(await temperature.inputValue()).toBe(await temperature.getAttribute('max'));
    await shape.locator(':scope > .sl-footer .sl-reset').click();
  });

  it('shows each disclosure\'s marker at 390 px, and card labels whole', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    for (const host of await page.locator('sampling-lab').all()) await host.scrollIntoViewIfNeeded();
    const summaries = await page.locator('summary').evaluateAll((nodes) => nodes.map((n) => {
      const style = getComputedStyle(n);
      return `${n.className || n.textContent?.slice(0, 20)}: ${style.display} ${style.listStyleType}`;
    }));
    expect(summaries.length).toBeGreaterThan(5);
    for (const line of summaries) expect(line).toMatch(/: list-item (disclosure-closed|disclosure-open)$/);
    // Opened, a card's short label ("手册", "这里") sits on one line beside its value.
    const details = page.locator('sampling-lab#samplers details.sl-handbook');
    await details.evaluate((d) => { (d as HTMLDetailsElement).open = true; });
    const tall = await details.locator('tbody td').evaluateAll((cells) => cells.filter((cell) => {
      const label = cell.getAttribute('data-label') ?? '';
      const lineHeight = parseFloat(getComputedStyle(cell).lineHeight);
      return label.length <= 4 && (cell.textContent ?? '').length <= 8 && cell.getBoundingClientRect().height > 1.6 * lineHeight;
    }).map((cell) => `${cell.getAttribute('data-label')}: ${cell.textContent}`));
    expect(tall).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('timed every main-thread task (bound 100 ms) and logged no error', async () => {
    expect(phases.map((p) => p.name)).toEqual(['loading a position', 'greedy generation']);
    expectNoneOver('main-thread tasks over 100 ms', await longTasksDuring(page, phases, 100));
    expect(opened.problems).toEqual([]);
  });
});

describe('the English page', () => {
  let opened: RealModelPage;

  beforeAll(async () => { opened = await openRealModelPage(`${MODEL}&lang=en`); });
  afterAll(async () => { await opened?.close(); });

  it('shows fewer than 10 CJK characters outside the passage and the toggle, before and after a reload', async () => {
    const { page } = opened;
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/Probability and sampling/);
    // Widgets not started yet say "Loading" in English too.
    expect(await page.locator('sampling-lab .sl-status').allTextContents()).not.toContain('正在加载 WebAssembly…');
    expect(await cjkOutsidePassage(page)).toEqual([]);
    await loadModel(page);
    for (const host of await page.locator('sampling-lab').all()) await host.scrollIntoViewIfNeeded();
    await expect.poll(() => page.locator('.sl-handbook-title').count(), { timeout: 60_000 }).toBe(7);
    expect((await cjkOutsidePassage(page)).length).toBeLessThan(10);
    await expect(page.locator('.rm-passage-note').textContent()).resolves.toMatch(/the chapter's own Chinese text/);
    await page.reload();
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/Probability and sampling/);
    expect((await cjkOutsidePassage(page)).length).toBeLessThan(10);
    expect(opened.problems).toEqual([]);
  });
});

describe('an embedded widget', () => {
  let site: Awaited<ReturnType<typeof serveDist>>;
  let context: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    site = await serveDist('/handbook/sampling/');
    context = await launchChromium();
  });
  afterAll(async () => {
    await context?.close();
    await site?.close();
  });

  it('points to nothing outside itself, speaks English, and is as tall as what it draws', async () => {
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.setViewportSize({ width: 700, height: 900 });
    await page.goto(`${site.url}embed/filters.html?lang=en`);
    const widget = page.locator('sampling-lab');
    await expect.poll(() => widget.locator('.sl-temperatures caption').textContent(), { timeout: 60_000 }).toMatch(/stand-in/);
    const caption = await widget.locator('.sl-temperatures caption').textContent();
    expect(caption).not.toMatch(/real-model section|at the top/);
    expect(await widget.locator('.sl-handbook-title').textContent()).not.toMatch(CJK);
    // No blank space under the footer: the element ends where its content does.
    const gap = await widget.evaluate((el) => el.getBoundingClientRect().bottom - el.querySelector(':scope > .sl-footer')!.getBoundingClientRect().bottom);
    expect(gap).toBeLessThan(20);
    expect(problems).toEqual([]);
  });
});
