// The built page in Chromium with its real-model section pointed at the tiny models under
// /models/, its problems and requests watched, and its main-thread long tasks recorded from its
// first script on ('longtask' entries, buffered) to be checked against the phases of a test.
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchProblems } from '../support/chromium';
import { serveDist } from '../support/static-server';
import { ensureSpeculativePair, ensureTinyModel, MODELS_DIR } from '../support/tiny-model.js';

export interface RealModelPage {
  page: Page;
  /** Console errors, uncaught exceptions and failed requests. */
  problems: string[];
  /** Every URL the page asked for. */
  requests: string[];
  close(): Promise<void>;
}

/** The page at `query` (e.g. '?model=/models/tiny-qwen3'), set up by `prepare` before it loads. */
export async function openRealModelPage(query: string, prepare: (page: Page) => Promise<void> = async () => {}): Promise<RealModelPage> {
  // The models it serves, built unless this checkout has them.
  ensureTinyModel();
  ensureSpeculativePair();
  const site = await serveDist('/handbook/sampling/', { '/models/': MODELS_DIR });
  let context: BrowserContext | undefined;
  try {
    context = await launchChromium();
    const page = await context.newPage();
    const problems = watchProblems(page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await watchLongTasks(page);
    await prepare(page);
    await page.goto(`${site.url}${query}`);
    const opened = context;
    return { page, problems, requests, close: async () => { await opened.close(); await site.close(); } };
  } catch (error) {
    await context?.close();
    await site.close();
    throw error;
  }
}

/** Requests that left 127.0.0.1 (blob: and data: URLs stay in the page). */
export const outsideRequests = (requests: readonly string[]): string[] => requests.filter((url) => !/^(http:\/\/127\.0\.0\.1:|blob:|data:)/.test(url));

interface LongTask {
  start: number;
  duration: number;
}

declare global {
  interface Window {
    longTasks: LongTask[];
  }
}

/** Records every main-thread task over 50 ms of each document `page` opens from now on. */
export async function watchLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** A stretch of a test on the page's clock. */
export interface Phase {
  name: string;
  start: number;
  end: number;
}

/** Runs `during` and returns the stretch of the page's clock it took. */
export async function phase(page: Page, name: string, during: () => Promise<unknown>): Promise<Phase> {
  const start = await page.evaluate(() => performance.now());
  await during();
  return { name, start, end: await page.evaluate(() => performance.now()) };
}

/**
 * Scrolls the real-model section's load button into view and waits until no task over 50 ms has
 * ended for `ms`: the page's own start and the widgets that scrolling reveals (their first
 * drawing) are over before a phase that loads a model begins.
 */
export async function readyToLoad(page: Page, ms = 500): Promise<void> {
  await page.locator('button.rm-load').scrollIntoViewIfNeeded();
  await page.waitForFunction((quiet) => {
    const last = window.longTasks.at(-1);
    return performance.now() - (last ? last.start + last.duration : 0) > quiet;
  }, ms, { timeout: 60_000, polling: 100 });
}

/** The tasks longer than `limitMs` that overlap one of `phases`, described. */
export async function longTasksDuring(page: Page, phases: readonly Phase[], limitMs: number): Promise<string[]> {
  // An entry arrives after its task ends: let the last ones come in.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
  const tasks = await page.evaluate(() => window.longTasks);
  return tasks.flatMap((task) => phases
    .filter((phase) => task.duration > limitMs && task.start < phase.end && task.start + task.duration > phase.start)
    .map((phase) => `${phase.name}: a ${task.duration.toFixed(0)} ms task at ${task.start.toFixed(0)} ms`));
}

/**
 * Blocks the main thread for `ms` in a task of the page's own (the observer's negative control;
 * a script evaluated by the test itself is no task of the page's event loop).
 */
export function blockMainThread(page: Page, ms: number): Promise<Phase> {
  return phase(page, 'blocked', () => page.evaluate((duration) => new Promise<void>((resolve) => setTimeout(() => {
    const until = performance.now() + duration;
    while (performance.now() < until) { /* busy */ }
    resolve();
  }, 0)), ms));
}
