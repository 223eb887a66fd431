// Grammars leak nothing: 200 compiles (each disposed) and 1,000 constrained runs (a matcher each,
// disposed) leave the process's resident memory within 5 % of where it stood after a warm-up.
import { expect, it } from 'vitest';
import { compileGrammar, type GrammarTokenizer } from 'sampling-lab/grammar';

// A small byte-level-free vocabulary, so that a compile takes milliseconds: what could leak is
// per compile and per matcher, not per token.
const tokenizer: GrammarTokenizer = {
  get_vocab: () => Object.fromEntries([...'abcdefghijklmnopqrstuvwxyz0123456789', '</s>'].map((token, id) => [token, id])),
  eos_token_id: 36,
};

async function compileAndRun(index: number, runs: number): Promise<void> {
  // A spec of its own each time, so that the cache does not answer.
  const grammar = await compileGrammar(tokenizer, { regex: `[a-z]{1,${2 + (index % 50)}}[0-9]{${index % 7}}` });
  for (let r = 0; r < runs; r++) {
    const matcher = await grammar.matcher();
    for (const token of [0, 1, 2]) {
      if (!matcher.accept(token)) break;
      await matcher.settled();
    }
    matcher.dispose();
  }
  grammar.dispose();
}

it('compiles 200 grammars and runs 1,000 matchers with resident memory flat within 5 %', async () => {
  for (let i = 0; i < 20; i++) await compileAndRun(1000 + i, 5);
  const before = process.memoryUsage().rss;
  for (let i = 0; i < 200; i++) await compileAndRun(i, 5);
  const after = process.memoryUsage().rss;
  console.log(`grammar soak: RSS ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB over 200 compiles and 1,000 runs`);
  expect(after / before).toBeLessThan(1.05);
});
