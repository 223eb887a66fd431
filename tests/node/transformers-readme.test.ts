// The transformers.js blocks of README.md and the docs run as written, with the tiny model (same files and graph as
// the download) standing in for the ./Qwen3-0.6B-ONNX folder it loads.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ensureTinyModel } from '../support/tiny-model.js';

const root = join(__dirname, '../../README.md');
// Inside the checkout, so that the block's imports resolve as in a reader's project.
const workspace = join(__dirname, '../../build/readme-transformers');

it('docs/transformers.md\'s transformers.js block runs and prints the generation and each step', async () => {
  const blocks = [...readFileSync(join(__dirname, '../../docs/transformers.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const usage = blocks.filter((block) => block.includes("from 'sampling-lab/transformers'"));
  expect(usage).toHaveLength(1);
  mkdirSync(workspace, { recursive: true });
  if (!existsSync(join(workspace, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(workspace, 'Qwen3-0.6B-ONNX'));
  writeFileSync(join(workspace, 'usage.mjs'), usage[0]);
  const { stdout } = await promisify(execFile)(process.execPath, ['usage.mjs'], { cwd: workspace });
  const prompt = /const prompt = '([^']+)'/.exec(usage[0])![1];
  expect(stdout.startsWith(prompt), stdout).toBe(true);
  expect(stdout.split('\n').length).toBeGreaterThan(8);
});

it('docs/openai.md\'s block runs as written and prints the reply and its usage', async () => {
  const doc = join(__dirname, '../../docs/openai.md');
  const [block] = [...readFileSync(doc, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  mkdirSync(workspace, { recursive: true });
  if (!existsSync(join(workspace, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(workspace, 'Qwen3-0.6B-ONNX'));
  writeFileSync(join(workspace, 'openai.mjs'), block);
  const { stdout } = await promisify(execFile)(process.execPath, ['openai.mjs'], { cwd: workspace });
  expect(stdout).toMatch(/prompt_tokens: \d+/);
  expect(stdout).toMatch(/completion_tokens: \d+/);
});

it('the README\'s quick start streams a chat, decodes speculatively, follows a JSON schema and answers as OpenAI', async () => {
  const blocks = [...readFileSync(root, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const [usage] = blocks.filter((block) => block.includes("from 'sampling-lab/transformers'"));
  mkdirSync(workspace, { recursive: true });
  if (!existsSync(join(workspace, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(workspace, 'Qwen3-0.6B-ONNX'));
  writeFileSync(join(workspace, 'quick-start.mjs'), usage);
  const { stdout } = await promisify(execFile)(process.execPath, ['quick-start.mjs'], { cwd: workspace });
  expect(stdout).toMatch(/^\{ name: .* \}$/m);
  expect(stdout).toMatch(/prompt_tokens: \d+/);
}, 30_000);
