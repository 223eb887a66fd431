// speculativeGenerate with a grammar (the tiny model as target, the pair's one-layer draft as
// draft): 30 seeds of JSON-schema outputs that parse and validate (ajv) although proposals are
// rejected, and a matcher rolled back after a rejected proposal is the matcher that never saw it.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { compileGrammar, type CompiledGrammar } from 'sampling-lab/grammar';
import { loadLocalModel, speculativeGenerate, type LoadedModel } from 'sampling-lab/transformers';
import { PERSON_SCHEMA as SCHEMA, validatePerson as validate } from '../support/grammar-schema.js';
import { ensureSpeculativePair, ensureTinyModel } from '../support/tiny-model.js';

const V = 151936;
let lab: Lab;
let target: LoadedModel;
let draft: LoadedModel;
let json: CompiledGrammar;

beforeAll(async () => {
  lab = await loadSamplingLab();
  const ONE_THREAD = { dtype: 'fp32' as const, sessionOptions: { intraOpNumThreads: 1 } };
  [target, draft] = await Promise.all([ensureTinyModel(), ensureSpeculativePair().draft].map((folder) => loadLocalModel(folder, ONE_THREAD)));
  json = await compileGrammar(target.tokenizer, { jsonSchema: SCHEMA }, { vocabSize: V });
}, 30_000);

// 30 seeds in six tests of five, each inside the time a test may take.
let proposed = 0;
let accepted = 0;
for (const first of [0, 5, 10, 15, 20, 25]) {
  it(`seeds ${first}–${first + 4}: every output validates, with proposals rejected and rolled back`, async () => {
    for (let seed = first; seed < first + 5; seed++) {
      const run = speculativeGenerate(target.model, draft.model, target.tokenizer, 'A person as JSON:', { lab, grammar: json, gamma: 2, seed, maxNewTokens: 120 });
      const tokens: number[] = [];
      for await (const step of run) {
        tokens.push(...step.tokens);
        expect(step.grammarAllowed).toHaveLength(step.tokens.length);
      }
      const text = target.tokenizer.decode(tokens, { skip_special_tokens: true });
      expect(validate(JSON.parse(text)), text).toBe(true);
      proposed += run.stats.proposed;
      accepted += run.stats.accepted;
    }
    console.log(`speculativeGenerate: seeds ${first}–${first + 4}, 5/5 outputs valid; ${accepted} of ${proposed} proposals accepted so far`);
    expect(accepted).toBeLessThan(proposed);
  });
}

it('rolling back a rejected proposal leaves the matcher as if it had never been accepted', async () => {
  const ids = target.tokenizer.encode('{"name":"grace","age":42,"address":{"zip":7', { add_special_tokens: false });
  const rolled = await json.matcher();
  const fresh = await json.matcher();
  for (const [i, token] of ids.entries()) {
    // Every other token first goes in as a proposal followed by the next one, both then rolled back.
    if (i % 2 === 0 && i + 1 < ids.length) {
      expect(rolled.accept(token) && rolled.accept(ids[i + 1])).toBe(true);
      rolled.rollBack(2);
    }
    await Promise.all([rolled.settled(), fresh.settled()]);
    expect(rolled.length).toBe(fresh.length);
    expect(rolled.allowedMask).toEqual(fresh.allowedMask);
    expect(await rolled.jumpForward()).toBe(await fresh.jumpForward());
    expect(rolled.accept(token)).toBe(true);
    expect(fresh.accept(token)).toBe(true);
  }
  await Promise.all([rolled.settled(), fresh.settled()]);
  expect(rolled.allowedMask).toEqual(fresh.allowedMask);
  expect(rolled.allowedCount).toBeGreaterThan(0);
});
