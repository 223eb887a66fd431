// textDelta: a sequence's text in pieces safe to join. Characters spread over byte-level tokens
// (CJK, emoji with joiners and variation selectors, combining marks) through the real Qwen3
// tokenizer, fed one byte token at a time: no piece holds U+FFFD and the pieces joined are the
// text and tokenizer.decode of the ids; special tokens are left out unless asked for; and the
// decoders' steps join to the decode of their tokens.
import { expect, it } from 'vitest';
import { loadSamplingLab } from 'sampling-lab';
import { compileGrammar } from 'sampling-lab/grammar';
import { generateTokens, loadLocalModel, speculativeGenerate, TextDeltas, type PreTrainedTokenizer } from 'sampling-lab/transformers';
import { ensureSpeculativePair, ensureTinyModel } from '../support/tiny-model.js';

const ONE_THREAD = { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } } as const;
const tiny = await loadLocalModel(ensureTinyModel(), ONE_THREAD);
const tokenizer = tiny.tokenizer;
const lab = await loadSamplingLab();
const IM_END = 151645;

const TEXTS = [
  '你好，世界',
  '🌡️ 👩‍👩‍👧 🇨🇳',
  'e\u0301 café naïve',
  'नमस्ते ภาษาไทย',
  'mixed: ASCII, 漢字 and 😀!',
];

// GPT-2's byte-level alphabet: byte b is the token whose text is this character.
function byteCharacter(byte: number): string {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  if (printable(byte)) return String.fromCharCode(byte);
  let shifted = 0;
  for (let b = 0; b < byte; b++) if (!printable(b)) shifted++;
  return String.fromCharCode(256 + shifted);
}

function byteTokens(text: string): number[] {
  const characters = [...new TextEncoder().encode(text)].map(byteCharacter);
  const ids = tokenizer.convert_tokens_to_ids(characters) as number[];
  expect(ids.every((id) => Number.isInteger(id) && id < 256 + 100)).toBe(true);  // byte tokens, not the unknown token
  return ids;
}

function streamed(ids: number[], skipSpecialTokens = true): string[] {
  const deltas = new TextDeltas(tokenizer as PreTrainedTokenizer, skipSpecialTokens);
  return [...ids.map((id) => deltas.push(id)), deltas.flush()];
}

it('one byte token at a time: no piece holds U+FFFD, and the pieces join to the text', () => {
  for (const text of TEXTS) {
    const ids = byteTokens(text);
    expect(tokenizer.decode(ids)).toBe(text);
    const pieces = streamed(ids);
    expect(pieces.filter((piece) => piece.includes('\uFFFD'))).toEqual([]);
    expect(pieces.join('')).toBe(text);
    // Held bytes come out with the character they complete: at most one piece per character.
    expect(pieces.filter((piece) => piece !== '').length).toBeLessThanOrEqual([...text].length);
  }
});

it('the tokenizer\'s own tokens, and decoding each token alone as the negative control', () => {
  for (const text of TEXTS) {
    const ids = tokenizer.encode(text, { add_special_tokens: false });
    expect(streamed(ids).join('')).toBe(tokenizer.decode(ids));
  }
  // Each token decoded alone breaks the characters spread over byte tokens.
  const alone = byteTokens(TEXTS[0]).map((id) => tokenizer.decode([id])).join('');
  expect(alone).toContain('\uFFFD');
  expect(alone).not.toBe(TEXTS[0]);
});

it('special tokens are left out unless skipSpecialTokens is false; bytes never completed come out at the end', () => {
  const ids = [...tokenizer.encode('Hi 👋', { add_special_tokens: false }), IM_END];
  expect(streamed(ids).join('')).toBe('Hi 👋');
  expect(streamed(ids, false).join('')).toBe('Hi 👋<|im_end|>');
  const cut = byteTokens('好').slice(0, 2);
  const pieces = streamed(cut);
  expect(pieces.slice(0, -1).join('')).toBe('');
  expect(pieces.at(-1)).toBe(tokenizer.decode(cut));
});

it('generateTokens under a grammar of CJK, emoji and accents: each sequence\'s deltas join to its decode', async () => {
  const grammar = await compileGrammar(tokenizer, { regex: '(你好|🌡|é|e\u0301)+' }, { vocabSize: 151936 });
  let split = 0;
  for (let seed = 0; seed < 4; seed++) {
    const steps = [];
    for await (const step of generateTokens(tiny.model, tokenizer, 'Say hello:', { lab, grammar, seed, n: 2, maxNewTokens: 24, topCandidates: 0 })) steps.push(step);
    for (const sequence of [0, 1]) {
      const own = steps.filter((step) => step.sequence === sequence);
      const decoded = tokenizer.decode(own.map((step) => step.token), { skip_special_tokens: true });
      expect(own.map((step) => step.textDelta).join('')).toBe(decoded);
      // Only a sequence cut by maxNewTokens inside a character ends in U+FFFD.
      if (own.at(-1)!.finishReason !== 'length') expect(decoded).toMatch(/^(你好|🌡|é|e\u0301)+$/u);
      split += own.filter((step) => step.text.includes('\uFFFD')).length;
    }
  }
  // Tokens that split a character, whose own text breaks it: the deltas above held their bytes.
  expect(split).toBeGreaterThan(0);
}, 30_000);

it('speculativeGenerate\'s steps join to the decode of every emitted token', async () => {
  const pair = ensureSpeculativePair();
  const [target, draft] = await Promise.all([loadLocalModel(pair.target, ONE_THREAD), loadLocalModel(pair.draft, ONE_THREAD)]);
  const steps = [];
  for await (const step of speculativeGenerate(target.model, draft.model, target.tokenizer, '你好', { lab, seed: 1, maxNewTokens: 32 })) steps.push(step);
  const tokens = steps.flatMap((step) => step.tokens);
  expect(steps.map((step) => step.textDelta).join('')).toBe(target.tokenizer.decode(tokens, { skip_special_tokens: true }));
}, 30_000);
