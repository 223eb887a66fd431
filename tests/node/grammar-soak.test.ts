// Grammars leak nothing: 200 compiles (each disposed) and 1,000 constrained runs (a matcher each,
// disposed) leave a process's resident memory within 5 % of where it stood after a warm-up. The
// soak runs in a child process, whose memory no other test shares.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const SOAK = join(__dirname, '../support/grammar-soak.mjs');

async function soak(...flags: string[]): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', SOAK, ...flags]);
  const { before, after } = JSON.parse(stdout) as { before: number; after: number };
  console.log(`grammar soak${flags.length ? ` (${flags.join(' ')})` : ''}: RSS ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB over ${flags.length ? '20 compiles kept' : '200 compiles and 1,000 runs'}`);
  return after / before;
}

it('compiles 200 grammars and runs 1,000 matchers with resident memory flat within 5 %', async () => {
  expect(await soak()).toBeLessThan(1.05);
});

it('fails the same bound when nothing is disposed (negative control)', async () => {
  expect(await soak('--keep')).toBeGreaterThan(1.05);
});
