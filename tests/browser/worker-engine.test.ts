// docs/worker.md's two blocks run as written in Chromium (served by Vite's dev server, the tiny
// model standing in for the folder they load, onnxruntime's files served from this checkout): the
// model loads and decodes in a Worker, the chat streams into the page, the decoder's steps arrive
// and an abort ends the run with 'abort', and the page's thread runs no task over 50 ms meanwhile
// (a 150 ms one in the same window is seen: the observer works).
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startHarness, watchProblems } from '../support/chromium';
import { ensureTinyModel } from '../support/tiny-model.js';
import { watchLongTasks } from './real-model-page';

const root = join(__dirname, '../..');
const folder = join(root, 'build/readme-worker');
const [workerBlock, pageBlock] = [...readFileSync(join(root, 'docs/worker.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
mkdirSync(folder, { recursive: true });
if (!existsSync(join(folder, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(folder, 'Qwen3-0.6B-ONNX'));
// Offline: onnxruntime's WebAssembly from node_modules, not the CDN transformers.js names.
writeFileSync(join(folder, 'engine-worker.js'), `import { env } from '@huggingface/transformers';
env.backends.onnx.wasm.wasmPaths = '/@fs${root}/node_modules/onnxruntime-web/dist/';
${workerBlock}`);
writeFileSync(join(folder, 'main.js'), pageBlock);

const harness = await startHarness();
const page = await harness.context.newPage();
const problems = watchProblems(page);
const logs: string[] = [];
page.on('console', (message) => logs.push(message.text()));
await watchLongTasks(page);
await page.goto(`${harness.url}mkdocs-sample.html`);
afterAll(() => harness.close());

it('docs/worker.md: the chat streams and the decoder runs in a Worker, an abort ends it, no main-thread task over 50 ms', async () => {
  // Quiet first: the page's own start is over.
  await page.waitForTimeout(500);
  await page.evaluate(() => { document.body.textContent = ''; });
  const { start, end } = await page.evaluate(`(async () => {
    const start = performance.now();
    await import('/@fs${folder}/main.js');
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
  const steps = logs.filter((line) => /^".*" \d\.\d{3}$/.test(line));
  expect(steps).toHaveLength(8);
  expect(logs.at(-1)).toBe('[abort]');
  expect((await page.textContent('body'))!.length).toBeGreaterThan(0);
  const loaded = logs.findIndex((line) => line.startsWith('loading'));
  expect(loaded).toBeGreaterThanOrEqual(0);
  const during = longTasks.filter((task) => task.start + task.duration > start && task.start < end);
  expect(during, `main-thread tasks over 50 ms in ${Math.round(end - start)} ms of loading and decoding`).toEqual([]);
  expect(longTasks.filter((task) => task.start >= control - 1)).toHaveLength(1);
  expect(problems).toEqual([]);
});
