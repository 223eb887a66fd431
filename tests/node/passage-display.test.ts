// The real-model passage as the page displays it: the chapter's 400 token ids unchanged, each
// character whole (its byte tokens merged), the Markdown source's markup hidden.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { partialTokenText, passageUnits, shownTexts, type PassageUnit } from '../../web/src/passage-display';
import { ensureTinyModel, MODELS_DIR } from '../support/tiny-model.js';

const PASSAGE = readFileSync(join(__dirname, '../../web/public/sample-passage.txt'), 'utf8');
let ids: number[];
let decode: (ids: number[]) => string;
let units: PassageUnit[];
let shown: string[];

// The Node files share one process (scripts/test.sh): transformers.js's env is put back after.
const found = { allowRemoteModels: env.allowRemoteModels, localModelPath: env.localModelPath };
afterAll(() => Object.assign(env, found));

beforeAll(async () => {
  ensureTinyModel();
  env.allowRemoteModels = false;
  env.localModelPath = `${MODELS_DIR}/`;
  const tokenizer = await AutoTokenizer.from_pretrained('tiny-qwen3');
  ids = Array.from((tokenizer(PASSAGE.replace(/[#*`>|\-[\]()!]/g, '')).input_ids.data as BigInt64Array).subarray(0, 400), Number);
  decode = (some) => tokenizer.decode(some);
  units = passageUnits(decode, ids);
  shown = shownTexts(units);
});

it('covers every token once, in order, and decodes to the same text', () => {
  expect(units.reduce((n, u) => n + u.count, 0)).toBe(400);
  units.forEach((u, i) => expect(u.first).toBe(i === 0 ? 0 : units[i - 1].first + units[i - 1].count));
  expect(units.map((u) => u.text).join('')).toBe(decode(ids));
});

it('merges the byte tokens of a character: no U+FFFD is left', () => {
  // The negative control: alone, some of these tokens are bytes of a character.
  expect(ids.filter((id) => decode([id]).includes('\uFFFD')).length).toBeGreaterThan(10);
  expect(units.some((u) => u.count > 1)).toBe(true);
  expect(shown.join('')).not.toContain('\uFFFD');
});

it('hides the source\'s markup and keeps its words', () => {
  const text = shown.join('');
  for (const markup of ['<p class="lead"', '</p', '??? success', ' question "', '$', '\\dots', '\\prod', 'x_1']) expect(text).not.toContain(markup);
  expect(text).toContain('不管模型有多大');
  expect(text).toContain('自测参考答案（先自己答，再展开对照）');
  expect(text).toContain('x₁ … x');
  expect(text).toContain('x<t');
  // Shown in the source, so the page would show it: the hidden markup is markup, not text.
  expect(units.map((u) => u.text).join('')).toContain('<p class="lead"');
});

it('shows a token that is part of a character as its bytes', () => {
  // Byte-level pieces: 'Ġ' is the space, 'ä¸Ń' the three bytes of 中.
  expect(partialTokenText('ä¸Ń')).toBe('中');
  expect(partialTokenText('Ġä¸')).toBe('␣‹e4›‹b8›');
  expect(partialTokenText('Ġthe')).toBe(' the');
});
