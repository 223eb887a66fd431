// The CLI runs the same experiments, reads .npy logits and reports errors by argument.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';

const execFileAsync = promisify(execFile);
// The package's bin entry, run the way npm's shim runs it.
const CLI = join(__dirname, '../../wasm/dist/cli.js');
const run = (cli: string, args: string[]) => execFileAsync(process.execPath, [cli, ...args]);
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

function npy(shape: number[], data: Float32Array | Float64Array): Uint8Array {
  const descr = data instanceof Float32Array ? '<f4' : '<f8';
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const prefix = new Uint8Array(10 + header.length);
  prefix.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(prefix.buffer).setUint16(8, header.length, true);
  prefix.set(new TextEncoder().encode(header), 10);
  const bytes = new Uint8Array(prefix.length + data.byteLength);
  bytes.set(prefix);
  bytes.set(new Uint8Array(data.buffer), prefix.length);
  return bytes;
}

it('prints JSON equal to runExperiment', async () => {
  const { stdout } = await run(CLI, ['filters', '--json', '--topK', '3', '--temperature', '0.7']);
  expect(JSON.parse(stdout)).toEqual(lab.runExperiment('filters', { topK: 3, temperature: 0.7 }));
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
  const first = JSON.parse((await run(CLI, ['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '0'])).stdout);
  const second = JSON.parse((await run(CLI, ['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '1'])).stdout);
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
