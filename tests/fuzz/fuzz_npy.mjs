// Mutation fuzzing of the package's .npy reader, which is TypeScript and so is fuzzed in Node:
// bytes from valid and damaged seeds, randomly edited and cut. A damaged file must be an Error
// with a message; a TypeError or RangeError from inside the reader is a crash.
// Usage: node tests/fuzz/fuzz_npy.mjs [seconds | --runs N]   (inputs that crash go to tests/fuzz/regressions/fuzz_npy/)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNpy } from 'sampling-lab';

const here = new URL('.', import.meta.url).pathname;
const regressions = join(here, 'regressions/fuzz_npy');
const seeds = join(here, 'seeds/fuzz_npy');

function check(bytes) {
  try {
    parseNpy(bytes);
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError || !(error instanceof Error) || !error.message) throw error;
  }
}

/** Runs every regression input, then fuzzes for `milliseconds` (or `runs` mutations); returns the executions. */
export function fuzzNpy(milliseconds, seed = 1, maxRuns = Infinity) {
  const load = (dir) => { try { return readdirSync(dir).map((f) => new Uint8Array(readFileSync(join(dir, f)))); } catch { return []; } };
  for (const bytes of load(regressions)) check(bytes);
  const pool = load(seeds);
  let state = seed;
  const random = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const end = Date.now() + milliseconds;
  let runs = 0;
  while (Date.now() < end && runs < maxRuns) {
    const bytes = Uint8Array.from(pool[Math.floor(random() * pool.length)]);
    for (let edits = 1 + Math.floor(random() * 4); edits > 0 && bytes.length > 0; edits--) {
      bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    }
    const input = random() < 0.2 ? bytes.slice(0, Math.floor(random() * bytes.length)) : bytes;
    try {
      check(input);
    } catch (error) {
      mkdirSync(regressions, { recursive: true });
      writeFileSync(join(regressions, `crash-${runs}`), input);
      throw error;
    }
    runs++;
  }
  return runs;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  if (process.argv[2] === '--runs') {
    const runs = Number(process.argv[3]);
    console.log(`fuzz_npy: ${fuzzNpy(Infinity, 1, runs)} mutations, no crash`);
  } else {
    const seconds = Number(process.argv[2] ?? 60);
    console.log(`fuzz_npy: ${fuzzNpy(seconds * 1000)} executions in ${seconds} s, no crash`);
  }
}
