// Issue 28's silent and untyped cases: each is now a typed SamplingLabError naming its argument,
// and the entry keeps working after it.
import { Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { loadSamplingLab, parseNpy, SamplingLabError } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';
import { compileGrammar, GRAMMAR_LIMITS, type CompiledGrammar } from 'sampling-lab/grammar';
import { createLogitsProcessor, generateTokens } from 'sampling-lab/transformers';
import { loadPersonFixture } from '../support/grammar-schema.js';

const lab = await loadSamplingLab();
const { tiny, json } = await loadPersonFixture();

function argumentOf(call: () => unknown): string | undefined {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(SamplingLabError);
    return (error as SamplingLabError).argument;
  }
  return undefined;
}

async function rejectedArgument(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(SamplingLabError);
    return (error as SamplingLabError).argument;
  }
  return undefined;
}

describe('the lab', () => {
  it('names logitsRows for a missing batch, and numBeams × V past the limit at the first step', () => {
    expect(argumentOf(() => lab.sampleBatch(null as never, {}))).toBe('logitsRows');
    expect(argumentOf(() => lab.sampleBatch(undefined as never, {}))).toBe('logitsRows');
    const search = lab.createBeamSearch({ numBeams: 16, maxNewTokens: 4 });
    expect(argumentOf(() => search.step(new Float32Array(2 ** 21)))).toBe('logitsRows');
  });

  it('refuses a call made inside onProgress, then runs as before', async () => {
    const experiments = await loadExperimentLab();
    const nested = [
      () => experiments.runExperiment('mc-error', {}, { onProgress: () => { experiments.runExperiment('filters', {}); } }),
      () => experiments.sample([1, 2, 3], { n: 2e6, method: 'gumbel-max', seed: 1, onProgress: () => { experiments.sampleToken([1, 2]); } }),
    ];
    for (const call of nested) expect(argumentOf(call)).toBe('onProgress');
    expect(experiments.runExperiment('filters', { topP: 0.8 }).kept).toBeGreaterThan(0);
    expect(experiments.sampleToken([1, 2, 3], { temperature: 0 })).toBe(2);
  });

  it('reads a .npy shape as decimal sizes only', () => {
    const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0x4,), }";
    const padded = header.padEnd(118, ' ') + '\n';
    const bytes = new Uint8Array(10 + padded.length + 16);
    bytes.set([0x93, ...new TextEncoder().encode('NUMPY'), 1, 0, padded.length & 0xff, padded.length >> 8]);
    bytes.set(new TextEncoder().encode(padded), 10);
    expect(() => parseNpy(bytes)).toThrow(/decimal/);
  });
});

describe('the logits processor', () => {
  const logits = () => new Tensor('float32', Float32Array.from({ length: 8 }, (_, i) => i), [2, 4]);
  it('names inputIds when there are fewer sequences than logits rows, or an id past the vocabulary', () => {
    const processor = createLogitsProcessor(lab, { seed: 1 });
    expect(argumentOf(() => processor([[1n]], logits()))).toBe('inputIds');
    expect(argumentOf(() => processor([[1n], [2n ** 60n]], logits()))).toBe('inputIds');
    expect(() => processor([[1n], [2n]], logits())).not.toThrow();
  });

  it("refuses a matcher that answers from a browser Worker: transformers.js's processors run synchronously", () => {
    const workerMatcher = { accept: () => true, synchronous: false };
    expect(argumentOf(() => createLogitsProcessor(lab, { grammar: workerMatcher as never }))).toBe('grammar');
  });
});

describe('grammars', () => {
  it('checks compile options and the vocabulary, caches per (tokenizer, spec), and refuses a disposed grammar or matcher', async () => {
    const spec = { regex: '[ab]+' };
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, spec, null as never))).toBe('options');
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, spec, { vocab: 3 } as never))).toBe('vocab');
    expect(await rejectedArgument(() => compileGrammar({ get_vocab: () => ({}) }, spec))).toBe('tokenizer');
    expect(await rejectedArgument(() => compileGrammar({ get_vocab: () => ({ a: 0, b: 2 ** 30 }) }, spec))).toBe('tokenizer');
    const grammar = await compileGrammar(tiny.tokenizer, spec, { vocabSize: 151936 });
    expect(await compileGrammar(tiny.tokenizer, spec, { vocabSize: 151936 })).toBe(grammar);
    const matcher = await grammar.matcher();
    matcher.dispose();
    expect(argumentOf(() => matcher.accept(0))).toBe('grammar');
    grammar.dispose();
    expect(await rejectedArgument(() => grammar.matcher())).toBe('grammar');
    // Compiled again once disposed: a new object that works, its stages reported (its worker, kept
    // from the disposed grammar, has read the vocabulary).
    const stages: string[] = [];
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, spec, { onProgress: 'log' } as never))).toBe('onProgress');
    const again = await compileGrammar(tiny.tokenizer, spec, { vocabSize: 151936, onProgress: (stage) => stages.push(stage) });
    expect(stages).toEqual(['loading', 'compiling']);
    expect(again).not.toBe(grammar);
    expect((await again.matcher()).allowedCount).toBeGreaterThan(0);
  });
});

describe('grammars xgrammar would compile wrong', () => {
  it('refuses a negated class whose shorthand spans non-ASCII (xgrammar clamps it to ASCII), by its key, and compiles other negated classes', async () => {
    // [^\s\S] matches nothing, yet xgrammar's clamped class allowed 18,670 of these tokens.
    for (const regex of ['[^\\s\\S]', '[^\\d\\D]', 'a[^\\w\\W]']) {
      expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, { regex }, { vocabSize: 151936 })), regex).toBe('regex');
    }
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, { jsonSchema: { type: 'string', pattern: '[^\\s\\S]' } }, { vocabSize: 151936 }))).toBe('jsonSchema');
    // A bad EBNF names ebnf; ASCII negated classes compile.
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, { ebnf: 'root ::= ' }, { vocabSize: 151936 }))).toBe('ebnf');
    for (const regex of ['[^a]', '[^你]']) {
      const negated = await compileGrammar(tiny.tokenizer, { regex }, { vocabSize: 151936 });
      expect((await negated.matcher()).allowedCount).toBeGreaterThan(1000);
    }
  });
});

describe('grammar sizes', () => {
  const nested = (depth: number): object => (depth === 0 ? { type: 'integer' } : { type: 'array', items: nested(depth - 1) });
  const manyRules = Array.from({ length: 20000 }, (_, i) => `r${i} ::= r${i + 1}`).join('\n') + '\nr20000 ::= "a"';
  const cases: [string, object, string][] = [
    ['JSON nested 64 deep', { jsonSchema: nested(64) }, 'jsonSchema'],
    ['minItems 1e8', { jsonSchema: { type: 'array', items: { const: 1 }, minItems: 1e8 } }, 'jsonSchema'],
    ['maxLength 1e9', { jsonSchema: { type: 'string', maxLength: 1e9 } }, 'jsonSchema'],
    ['10,000 required properties', { jsonSchema: { type: 'object', required: Array.from({ length: 10000 }, (_, i) => `p${i}`) } }, 'jsonSchema'],
    ['a pattern (a{0,1000}){0,1000}', { jsonSchema: { type: 'string', pattern: '(a{0,1000}){0,1000}' } }, 'jsonSchema'],
    ['regex (a{0,1000}){0,1000}', { regex: '(a{0,1000}){0,1000}' }, 'regex'],
    ['regex (a{0,100}){0,100}', { regex: '(a{0,100}){0,100}' }, 'regex'],
    ['20,000 chained EBNF rules', { ebnf: `root ::= r0\n${manyRules}` }, 'ebnf'],
    ['a 10^6-character literal', { ebnf: `root ::= "${'a'.repeat(1e6)}"` }, 'ebnf'],
  ];
  it('refuses each spec past GRAMMAR_LIMITS before xgrammar sees it, then compiles and generates with a normal schema', async () => {
    // Compiled, the first would poison xgrammar and the others take seconds to minutes: refused from their size.
    for (const [label, spec, argument] of cases) {
      expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, spec as never, { vocabSize: 151936 })), label).toBe(argument);
    }
    expect(await rejectedArgument(() => compileGrammar(tiny.tokenizer, { regex: 'a' }, { vocabSize: 151936, stopTokenIds: [] }))).toBe('stopTokenIds');
    expect(GRAMMAR_LIMITS.jsonDepth).toBeLessThan(50);
    // Within the limits: a regex at its bound compiles, and generation with the person schema works.
    await compileGrammar(tiny.tokenizer, { regex: '(a{0,64}){0,64}' }, { vocabSize: 151936 });
    let tokens = 0;
    for await (const _ of generateTokens(tiny.model, tiny.tokenizer, 'A person:', { lab, grammar: json, maxNewTokens: 8, seed: 2 })) tokens++;
    expect(tokens).toBeGreaterThan(0);
  });
});

describe('grammars in worker threads', () => {
  const generate = async (grammar: CompiledGrammar, maxNewTokens: number) => {
    const tokens: number[] = [];
    for await (const step of generateTokens(tiny.model, tiny.tokenizer, 'A:', { lab, grammar, maxNewTokens, seed: 3 })) tokens.push(step.token);
    return tokens;
  };

  it('ends a jump-forward string that never ends with a typed error, and the next grammar works', async () => {
    const endless = await compileGrammar(tiny.tokenizer, { ebnf: 'root ::= "a" root' }, { vocabSize: 151936 });
    expect(await rejectedArgument(() => generate(endless, 32))).toBe('grammar');
    // Its worker is gone: the grammar says so, and a new compile gets a new worker.
    expect(await rejectedArgument(() => endless.matcher())).toBe('grammar');
    expect((await generate(json, 6)).length).toBeGreaterThan(0);
  });

  it('compiles off the caller\'s thread: a timer set after a slow compile starts fires before it ends', async () => {
    const order: string[] = [];
    const compiling = compileGrammar(tiny.tokenizer, { jsonSchema: { type: 'string', maxLength: 48 } }, { vocabSize: 151936 })
      .then((grammar) => { order.push('compiled'); grammar.dispose(); });
    await new Promise((resolve) => setTimeout(resolve, 10));
    order.push('timer');
    await compiling;
    expect(order).toEqual(['timer', 'compiled']);
  });

  it('stops a compile on its signal, and compiles the same spec afterwards', async () => {
    const spec = { jsonSchema: { type: 'string', maxLength: 40 } };
    const controller = new AbortController();
    const compiling = compileGrammar(tiny.tokenizer, spec, { vocabSize: 151936, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(await rejectedArgument(() => compiling)).toBe('signal');
    const grammar = await compileGrammar(tiny.tokenizer, spec, { vocabSize: 151936 });
    expect((await grammar.matcher()).allowedCount).toBeGreaterThan(0);
    grammar.dispose();
  });
});

describe('prompts', () => {
  const run = async (prompt: string, options: object) => {
    for await (const _ of generateTokens(tiny.model, tiny.tokenizer, prompt, { lab, maxNewTokens: 1, seed: 1, ...options })) { /* one token */ }
  };
  it('are checked against maxPromptTokens and the model\'s vocab_size before any forward pass', async () => {
    expect(await rejectedArgument(() => run('the the the the', { maxPromptTokens: 2 }))).toBe('prompt');
    expect(await rejectedArgument(() => run('x', { maxPromptTokens: 10 ** 9 }))).toBe('maxPromptTokens');
    const config = tiny.model.config as { vocab_size: number };
    const vocab = config.vocab_size;
    config.vocab_size = 100;
    try {
      expect(await rejectedArgument(() => run('语言模型', {}))).toBe('prompt');
    } finally {
      config.vocab_size = vocab;
    }
    await run('the', { maxPromptTokens: 2 });
  });
});
