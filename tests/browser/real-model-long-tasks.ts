// Main-thread long tasks of a page, recorded from its first script on ('longtask' entries,
// buffered), and the phases of a test they are checked against.
import type { Page } from 'playwright-core';

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
