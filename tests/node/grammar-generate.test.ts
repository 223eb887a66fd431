// sampling-lab/grammar on the tiny model with the real Qwen3 tokenizer: JSON-schema outputs of
// generateTokens (n = 1 and n = 3) all parse and validate (ajv), an EBNF grammar, a regex and a
// one-string grammar give their language, and each step says how many tokens the grammar allowed.
import { expect, it, vi } from 'vitest';
import { SamplingLabError } from 'sampling-lab';
import { compileGrammar, type CompiledGrammar } from 'sampling-lab/grammar';
import { generateTokens, type GeneratedToken } from 'sampling-lab/transformers';
import { loadPersonFixture, PERSON_SCHEMA as SCHEMA, validatePerson as validate } from '../support/grammar-schema.js';

const PROMPT = 'A person as JSON:';
const V = 151936;
const { lab, tiny, json } = await loadPersonFixture();

async function run(grammar: CompiledGrammar, options: object): Promise<GeneratedToken[]> {
  const steps: GeneratedToken[] = [];
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, grammar, maxNewTokens: 200, topCandidates: 0, ...options })) steps.push(step);
  return steps;
}

it('30 seeds of generateTokens: every output parses and validates, and ends when the grammar does', async () => {
  let valid = 0;
  let forced = 0;
  for (let seed = 0; seed < 30; seed++) {
    const steps = await run(json, { seed, temperature: 1 });
    const text = tiny.tokenizer.decode(steps.map((s) => s.token), { skip_special_tokens: true });
    const value = JSON.parse(text);
    expect(validate(value), `${text}: ${JSON.stringify(validate.errors)}`).toBe(true);
    valid++;
    expect(steps.at(-1)!.finishReason).toBe('stop');
    for (const step of steps) {
      if (step.forced) forced++;
      else expect(step.grammarAllowed).toBeGreaterThan(0);
    }
    expect(steps.some((s) => !s.forced && s.grammarAllowed! < V)).toBe(true);
  }
  console.log(`generateTokens: ${valid}/30 outputs valid; ${forced} tokens from jump-forward strings`);
  expect(forced).toBeGreaterThan(0);
}, 60_000);

it('n = 3 sequences, a matcher each: every output validates', async () => {
  for (let seed = 0; seed < 4; seed++) {
    const steps = await run(json, { seed, n: 3 });
    for (let s = 0; s < 3; s++) {
      const text = tiny.tokenizer.decode(steps.filter((step) => step.sequence === s).map((step) => step.token), { skip_special_tokens: true });
      expect(validate(JSON.parse(text)), text).toBe(true);
    }
  }
}, 30_000);

it('an EBNF grammar gives its language; one whose language is a single string gives that string', async () => {
  const ebnf = await compileGrammar(tiny.tokenizer, { ebnf: 'root ::= "(" digit+ ("," digit+)* ")"\ndigit ::= [0-9]' }, { vocabSize: V });
  for (let seed = 0; seed < 5; seed++) {
    const text = tiny.tokenizer.decode((await run(ebnf, { seed, maxNewTokens: 60 })).map((s) => s.token), { skip_special_tokens: true });
    expect(text).toMatch(/^\([0-9]+(,[0-9]+)*\)$/);
  }
  const only = 'Sampling Lab, constrained.';
  const single = await compileGrammar(tiny.tokenizer, { ebnf: `root ::= ${JSON.stringify(only)}` }, { vocabSize: V });
  for (let seed = 0; seed < 3; seed++) {
    const steps = await run(single, { seed });
    expect(tiny.tokenizer.decode(steps.map((s) => s.token), { skip_special_tokens: true })).toBe(only);
    // The whole string is one jump forward: the model is asked only for the stop token.
    expect(steps.filter((s) => !s.forced).length).toBeLessThanOrEqual(2);
  }
  const regex = await compileGrammar(tiny.tokenizer, { regex: '[a-c]{3}-[0-9]{2}' }, { vocabSize: V });
  const text = tiny.tokenizer.decode((await run(regex, { seed: 1 })).map((s) => s.token), { skip_special_tokens: true });
  expect(text).toMatch(/^[a-c]{3}-[0-9]{2}$/);
}, 30_000);

it('refuses what it cannot use, naming the argument', async () => {
  await expect(compileGrammar(tiny.tokenizer, { jsonSchema: SCHEMA, ebnf: 'root ::= "a"' })).rejects.toThrow(SamplingLabError);
  // xgrammar aborts on a bad grammar: its reason becomes the message, and nothing is printed.
  const printed = vi.spyOn(console, 'error');
  await expect(compileGrammar(tiny.tokenizer, { ebnf: 'root ::= ' })).rejects.toMatchObject({
    argument: 'ebnf', message: 'xgrammar could not compile the grammar: EBNF parser error at line 1, column 10: Expect element, but got',
  });
  expect(printed).not.toHaveBeenCalled();
  printed.mockRestore();
  const small = await compileGrammar(tiny.tokenizer, { ebnf: 'root ::= "a"' });
  await expect(run(small, {})).rejects.toMatchObject({ argument: 'grammar' });
  await expect(run(json, { allowedMask: new Uint32Array(4748) })).rejects.toMatchObject({ argument: 'allowedMask' });
});
