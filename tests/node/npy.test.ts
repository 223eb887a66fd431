// Damaged, unsupported and hostile .npy files: the reader says what is wrong with an Error, and
// the CLI reports it in one line with exit code 2 — never a stack trace or a silent fallback.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { npy } from '../support/npy';
import { fuzzNpy } from '../fuzz/fuzz_npy.mjs';

const run = promisify(execFile);
const CLI = join(__dirname, '../../wasm/dist/entries/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'sampling-lab-npy-'));
const good = npy([2, 4], new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]));
const encoder = new TextEncoder();

// A version-1 file with this header text (padded as NumPy does) and these data bytes.
function withHeader(header: string, data = new Uint8Array(32)): Uint8Array {
  const padded = header + ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const bytes = new Uint8Array(10 + padded.length + data.length);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(bytes.buffer).setUint16(8, padded.length, true);
  bytes.set(encoder.encode(padded), 10);
  bytes.set(data, 10 + padded.length);
  return bytes;
}
const header = (descr: string, fortran: string, shape: string) => `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;

const damaged: [string, Uint8Array][] = [
  ['empty', new Uint8Array()],
  ['wrong magic', Uint8Array.from(good, (b, i) => (i === 1 ? 0x4f : b))],
  ['magic only', good.slice(0, 6)],
  ['version 0', Uint8Array.from(good, (b, i) => (i === 6 ? 0 : b))],
  ['version 4', Uint8Array.from(good, (b, i) => (i === 6 ? 4 : b))],
  ['truncated header length', good.slice(0, 9)],
  ['header beyond the file', good.slice(0, 40)],
  ['version 2 cut short', Uint8Array.from([...good.slice(0, 6), 2, 0, 200, 0, 0])],
  ['garbage header', withHeader('hello world')],
  ['no descr', withHeader("{'fortran_order': False, 'shape': (4,), }")],
  ['no shape', withHeader("{'descr': '<f4', 'fortran_order': False, }")],
  ['Fortran order', withHeader(header('<f4', 'True', '(2, 2)'))],
  ['big-endian', withHeader(header('>f4', 'False', '(4,)'))],
  ['int32', withHeader(header('<i4', 'False', '(4,)'))],
  ['float16', withHeader(header('<f2', 'False', '(4,)'))],
  ['3-D', withHeader(header('<f4', 'False', '(2, 2, 2)'))],
  ['scalar shape', withHeader(header('<f4', 'False', '()'))],
  ['negative dimension', withHeader(header('<f4', 'False', '(-4,)'))],
  ['huge shape', withHeader(header('<f4', 'False', '(1099511627776,)'))],
  ['truncated data', withHeader(header('<f8', 'False', '(400,)'))],
  ['empty array', withHeader(header('<f4', 'False', '(0,)'), new Uint8Array())],
  ['NaN logits', npy([3], new Float32Array([1, NaN, 2]))],
  ['non-numeric shape', withHeader(header('<f4', 'False', "('a',)"))],
];

for (const [name, bytes] of damaged) {
  it(`${name}: one line on stderr, exit code 2`, async () => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.npy`);
    writeFileSync(file, bytes);
    const failure = await run(process.execPath, [CLI, 'filters', '--logits', file]).then(() => null, (e) => e);
    expect(failure, 'the CLI accepted it').not.toBeNull();
    expect(failure.code).toBe(2);
    const lines = failure.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sampling-lab: logits: /);
  });
}

it('a missing file, a directory and a bad position are one-line errors too', async () => {
  for (const args of [['--logits', join(dir, 'absent.npy')], ['--logits', `${dir}/x.npy`], ['--topK', '1', '--position', 'x']]) {
    const failure = await run(process.execPath, [CLI, 'filters', ...args]).then(() => null, (e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr.trim().split('\n')).toHaveLength(1);
  }
  writeFileSync(join(dir, 'rows.npy'), good);
  const failure = await run(process.execPath, [CLI, 'filters', '--logits', join(dir, 'rows.npy'), '--position', '5']).then(() => null, (e) => e);
  expect(failure.code).toBe(2);
  expect(failure.stderr).toMatch(/--position 5 is beyond its 2 rows/);
});

it('survives its regression inputs and 2 seconds of mutation fuzzing (npm run fuzz runs it longer)', () => {
  expect(fuzzNpy(2000)).toBeGreaterThan(1000);
});
