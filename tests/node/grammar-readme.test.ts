// docs/transformers.md's JSON-schema block (fenced ```javascript, with compileGrammar) runs as written, the
// tiny model standing in for the ./Qwen3-0.6B-ONNX folder it loads, and prints an object of its
// schema.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ensureTinyModel } from '../support/tiny-model.js';

const README = join(__dirname, '../../docs/transformers.md');
const workspace = join(__dirname, '../../build/readme-grammar');

it("docs/transformers.md's JSON-schema block runs and prints an object with the schema's keys", async () => {
  const blocks = [...readFileSync(README, 'utf8').matchAll(/```javascript\n([\s\S]*?)```/g)].map((m) => m[1]);
  const usage = blocks.filter((block) => block.includes('compileGrammar'));
  expect(usage).toHaveLength(1);
  mkdirSync(workspace, { recursive: true });
  if (!existsSync(join(workspace, 'Qwen3-0.6B-ONNX'))) symlinkSync(ensureTinyModel(), join(workspace, 'Qwen3-0.6B-ONNX'));
  writeFileSync(join(workspace, 'usage.mjs'), usage[0]);
  const { stdout } = await promisify(execFile)(process.execPath, ['usage.mjs'], { cwd: workspace });
  expect(stdout).toMatch(/^\{ name: .*, age: \d+ \}\n$/s);
}, 30_000);
