// Serves the page with Vite and drives Debian's Chromium through playwright-core.
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { launchChromium } from './launch-chromium.js';

export { launchChromium };

export interface Harness {
  url: string;
  context: BrowserContext;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const server: ViteDevServer = await createServer({
    configFile: join(__dirname, '../../web/vite.config.ts'),
    server: { host: '127.0.0.1', port: 0 },
    logLevel: 'warn',
  });
  await server.listen();
  const url = server.resolvedUrls!.local[0];
  const context = await launchChromium();
  return {
    url,
    context,
    close: async () => { await context.close(); await server.close(); },
  };
}

export interface DevPage {
  harness: Harness;
  page: Page;
  problems: string[];
}

/** The page served by Vite's dev server, opened in a fresh Chromium, with its problems watched. */
export async function openDevPage(): Promise<DevPage> {
  const harness = await startHarness();
  const page = await harness.context.newPage();
  const problems = watchProblems(page);
  await page.goto(harness.url);
  return { harness, page, problems };
}

/** Collects console errors, uncaught exceptions and failed requests of a page. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.stack ?? e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return problems;
}
