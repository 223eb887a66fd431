// The HTML blocks of README.md and docs/widgets.md run as written in Chromium: the element with
// its npm import (Vite's dev server resolving 'sampling-lab/define', as a reader's bundler does),
// and the drop-in placeholders with embed.js from the built site where the block says your.site.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, watchProblems } from '../support/chromium';
import { codeBlocks } from '../support/docs';
import { serveDist } from '../support/static-server';

const root = join(__dirname, '../..');
const folder = join(root, 'build/docs-html');
const [readmeElement] = codeBlocks('html', 'README.md');
const [placeholders, element] = codeBlocks('html', 'widgets.md');
const [elementImport] = codeBlocks('js', 'widgets.md');
const documentOf = (body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>${body}</body></html>`;

let server: ViteDevServer;
let site: Awaited<ReturnType<typeof serveDist>>;
let context: BrowserContext;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'readme.html'), documentOf(readmeElement));
  writeFileSync(join(folder, 'element.html'), documentOf(`<script type="module">${elementImport}</script>${element}`));
  // The package's .wasm URL stays as it is (no pre-bundling), as the page's own Vite config keeps it.
  server = await createServer({ configFile: false, root: folder, logLevel: 'warn', optimizeDeps: { exclude: ['sampling-lab'] },
    server: { host: '127.0.0.1', port: 0, fs: { allow: [root] } } });
  await server.listen();
  site = await serveDist('/docs/');
  context = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
  await server?.close();
});

async function open(url: string): Promise<Page> {
  const page = await context.newPage();
  problems.push(...watchProblems(page));
  await page.goto(url);
  return page;
}

it.each([['README.md', 'readme.html'], ['docs/widgets.md', 'element.html']])('%s: <sampling-lab> with its npm import becomes the filters widget at T 0.7', async (_, file) => {
  const page = await open(`${server.resolvedUrls!.local[0]}${file}`);
  const temperature = page.locator('sampling-lab').getByLabel('Temperature T');
  await expect.poll(() => temperature.count(), { timeout: 60_000 }).toBe(1);
  expect(await temperature.inputValue()).toBe('0.7');
  expect(await page.locator('sampling-lab').getByLabel('Top-p').inputValue()).toBe('0.9');
  await page.close();
});

it('docs/widgets.md: the placeholders and embed.js become two widgets, the second with γ 3', async () => {
  const page = await open(`${site.url}embed/filters.html`); // any page of the site, for its origin
  await page.setContent(documentOf(placeholders.replace('https://your.site/sampling-lab/', site.url)));
  await expect.poll(() => page.locator('.aig-widget[data-ready]').count(), { timeout: 60_000 }).toBe(2);
  const speculative = page.locator('sampling-lab[experiment="speculative"]');
  // A widget starts when it is first seen.
  await speculative.scrollIntoViewIfNeeded();
  await expect.poll(() => speculative.getByLabel('Draft length γ').inputValue(), { timeout: 60_000 }).toBe('3');
  await page.close();
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
