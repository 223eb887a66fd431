// The browser blocks of README.md and the docs run as written in Chromium, served by Vite's dev
// server as a reader's bundler would serve them:
// - README.md's and docs/widgets.md's <sampling-lab> element with its npm import, and
//   docs/widgets.md's placeholders with embed.js from the built site where the block says your.site;
// - docs/worker.md's Worker engine, the tiny model standing in for the folder it loads and
//   onnxruntime's files served from this checkout: the model loads and decodes in a Worker, the chat
//   streams into the page, the decoder's steps arrive and an abort ends the run with 'abort', and
//   the page's thread runs no task over 50 ms meanwhile (asserted by the timing suite; a 150 ms one
//   in the same window is always seen).
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, watchProblems } from '../support/chromium';
import { codeBlocks } from '../support/docs';
import { serveDist } from '../support/static-server';
import { ensureTinyModel } from '../support/tiny-model.js';
import { expectNoneOver } from '../support/timing';
import { watchLongTasks } from './real-model-page';

const root = join(__dirname, '../..');
const folder = join(root, 'build/docs-browser');
const [readmeElement] = codeBlocks('html', 'README.md');
const [placeholders, element] = codeBlocks('html', 'widgets.md');
const [elementImport] = codeBlocks('js', 'widgets.md');
const [workerBlock, pageBlock] = codeBlocks('js', 'worker.md');
const documentOf = (body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>${body}</body></html>`;

let server: ViteDevServer;
let site: Awaited<ReturnType<typeof serveDist>>;
let context: BrowserContext;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'readme.html'), documentOf(readmeElement));
  writeFileSync(join(folder, 'element.html'), documentOf(`<script type="module">${elementImport}</script>${element}`));
  writeFileSync(join(folder, 'blank.html'), documentOf(''));
  if (!existsSync(join(folder, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(folder, 'Qwen3-0.6B-ONNX'));
  // Offline: onnxruntime's WebAssembly from node_modules, not the CDN transformers.js names.
  writeFileSync(join(folder, 'engine-worker.js'), `import { env } from '@huggingface/transformers';
env.backends.onnx.wasm.wasmPaths = '/@fs${root}/node_modules/onnxruntime-web/dist/';
${workerBlock}`);
  writeFileSync(join(folder, 'main.js'), pageBlock);
  // No pre-bundling: the package's .wasm URL stays as it is (as the page's own Vite config keeps
  // it), and no dependency found while a page runs reloads that page.
  server = await createServer({ configFile: false, root: folder, logLevel: 'warn', optimizeDeps: { noDiscovery: true, include: [] },
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

async function open(url: string, prepare: (page: Page) => Promise<void> = async () => {}): Promise<Page> {
  const page = await context.newPage();
  problems.push(...watchProblems(page));
  await prepare(page);
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

it('docs/worker.md: the chat streams and the decoder runs in a Worker, an abort ends it, main-thread tasks timed (bound 50 ms)', async () => {
  const logs: string[] = [];
  const page = await open(`${server.resolvedUrls!.local[0]}blank.html`, watchLongTasks);
  page.on('console', (message) => logs.push(message.text()));
  const { start, end } = await page.evaluate(`(async () => {
    const start = performance.now();
    await import('/main.js');
    return { start, end: performance.now() };
  })()`) as { start: number; end: number };
  const control = await page.evaluate(async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = performance.now();
    while (performance.now() - busy < 150);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return busy;
  });
  const longTasks = await page.evaluate(() => window.longTasks);
  // The load's progress, then the steps: 8 of them, then the abort.
  expect(logs.some((line) => /^loading \d+ \/ \d+ bytes$/.test(line))).toBe(true);
  expect(logs.filter((line) => /^".*" \d\.\d{3}$/.test(line))).toHaveLength(8);
  expect(logs.at(-1)).toBe('[abort]');
  expect((await page.textContent('body'))!.length).toBeGreaterThan(0);
  const during = longTasks.filter((task) => task.start + task.duration > start && task.start < end);
  expectNoneOver(`main-thread tasks over 50 ms in ${Math.round(end - start)} ms of loading and decoding`, during.map((task) => `${Math.round(task.duration)} ms`));
  expect(longTasks.filter((task) => task.start >= control - 1)).toHaveLength(1);
  await page.close();
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
