// docs/transformers.md's speculative decoding and beam search block (fenced ```javascript, beside the
// transformers.js block that transformers-readme.test.ts runs) runs as written, with the tiny
// target and draft standing in for the two model folders it loads.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ensureSpeculativePair } from '../support/tiny-model.js';

const README = join(__dirname, '../../docs/transformers.md');
// Inside the checkout, so that the block's imports resolve as in a reader's project.
const workspace = join(__dirname, '../../build/readme-decoding');

// A folder of links to `model`'s files whose onnx/model<suffix>.onnx is its fp32 graph.
function standIn(folder: string, model: string, suffix: string): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'onnx'), { recursive: true });
  for (const name of readdirSync(model)) if (name !== 'onnx') symlinkSync(join(model, name), join(folder, name));
  symlinkSync(join(model, 'onnx/model.onnx'), join(folder, `onnx/model${suffix}.onnx`));
}

it('docs/transformers.md\'s speculative decoding and beam search block runs and prints each step, the totals and the beams', async () => {
  const blocks = [...readFileSync(README, 'utf8').matchAll(/```javascript\n([\s\S]*?)```/g)].map((m) => m[1]);
  const usage = blocks.filter((block) => block.includes('speculativeGenerate'));
  expect(usage).toHaveLength(1);
  const pair = ensureSpeculativePair();
  const folders = [...usage[0].matchAll(/loadLocalModel\('\.\/([^']+)', \{ dtype: '(\w+)' \}\)/g)].map((m) => [m[1], m[2]]);
  expect(folders).toHaveLength(2);
  const suffix = (dtype: string) => ({ fp32: '', q4: '_q4', fp16: '_fp16', q8: '_quantized' })[dtype] ?? `_${dtype}`;
  mkdirSync(workspace, { recursive: true });
  standIn(join(workspace, folders[0][0]), pair.target, suffix(folders[0][1]));
  standIn(join(workspace, folders[1][0]), pair.draft, suffix(folders[1][1]));
  writeFileSync(join(workspace, 'usage.mjs'), usage[0]);
  const { stdout } = await promisify(execFile)(process.execPath, ['usage.mjs'], { cwd: workspace });
  const lines = stdout.trimEnd().split('\n');
  expect(lines.filter((line) => /^\d+\/\d+ accepted: /.test(line)).length).toBeGreaterThan(3);
  expect(stdout).toMatch(/acceptance: 0\.\d+/);
  expect(stdout).toMatch(/tokensPerTargetPass: \d/);
  expect(lines.slice(-4).every((line) => /^-\d+\.\d\d -\d+\.\d{3} /.test(line)), lines.slice(-4).join('\n')).toBe(true);
});
