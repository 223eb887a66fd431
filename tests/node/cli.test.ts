// The CLI runs the same experiments, reads .npy logits and reports errors by argument.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { npy } from '../support/npy';

const execFileAsync = promisify(execFile);
// The package's bin entry, run the way npm's shim runs it.
const CLI = join(__dirname, '../../wasm/dist/cli.js');
const run = (cli: string, args: string[]) => execFileAsync(process.execPath, [cli, ...args]);
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

it('prints JSON equal to runExperiment, with flags in camel or kebab case', async () => {
  const { stdout } = await run(CLI, ['filters', '--json', '--topK', '3', '--temperature', '0.7', '--epsilon-cutoff', '0.1']);
  expect(JSON.parse(stdout)).toEqual(lab.runExperiment('filters', { topK: 3, temperature: 0.7, epsilonCutoff: 0.1 }));
});

it('prints a readable table by default and takes comma-separated arrays', async () => {
  const { stdout } = await run(CLI, ['temperature', '--logits', '3,2.5,2,1,0.5,0,-1,-2', '--temperatures', '0.5,1']);
  expect(stdout).toMatch(/temperature\s+/);
  expect(stdout).toMatch(/vocabSize: 8/);
  expect(stdout.trim().split('\n').filter((l) => /^\s+(0\.5|1)\s/.test(l))).toHaveLength(2);
});

it('loads 1-D and 2-D .npy logits, with --position for a row', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sampling-lab-'));
  const rows = new Float64Array([3, 2.5, 2, 1, 0.5, 0, -1, -2, 0, 0, 0, 0, 0, 0, 0, 0]);
  writeFileSync(join(dir, 'two.npy'), npy([2, 8], rows));
  writeFileSync(join(dir, 'one.npy'), npy([8], new Float32Array(rows.subarray(0, 8))));
  const first = JSON.parse((await run(CLI, ['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '1'])).stdout);
  const second = JSON.parse((await run(CLI, ['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '2'])).stdout);
  const flat = JSON.parse((await run(CLI, ['filters', '--json', '--logits', join(dir, 'one.npy')])).stdout);
  expect(first.probs[0]).toBeCloseTo(0.4412, 4);
  expect(second.probs).toEqual(Array(8).fill(0.125));
  expect(flat.kept).toBe(8);
  await expect(run(CLI, ['filters', '--logits', join(dir, 'two.npy')])).rejects.toMatchObject({ stderr: expect.stringMatching(/position/) });
});

it('exits non-zero naming the argument on bad input', async () => {
  await expect(run(CLI, ['filters', '--topP', '7'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/topP/) });
  await expect(run(CLI, ['nope'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/experiment/) });
});

it('parses each flag by the kind its schema gives it', async () => {
  const random = JSON.parse((await run(CLI, ['sequence', '--json', '--mode', 'random', '--vocab', '3', '--depth', '3', '--models', '20'])).stdout);
  expect(random).toMatchObject({ mode: 'random', vocab: 3, depth: 3, models: 20 });
  const nullable = JSON.parse((await run(CLI, ['sequence', '--json', '--vocab', 'null'])).stdout);
  expect(nullable.vocab).toBe(2);
  await expect(run(CLI, ['filters', '--topK', 'many'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/topK/) });
  await expect(run(CLI, ['filters', '--topQ', '1'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/topQ/) });
});

it('lists every experiment with its parameters', async () => {
  const { stdout } = await run(CLI, ['list']);
  for (const info of lab.experiments) {
    expect(stdout).toContain(info.name);
    for (const param of info.params) expect(stdout).toContain(`--${param.name} (${param.kind}`);
  }
});
