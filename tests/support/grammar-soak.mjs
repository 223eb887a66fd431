// The grammar soak in a process of its own, so that its resident memory is its own: 100 warm-up
// rounds, then 200 compiles (a spec each, disposed) and 1,000 matcher runs (each disposed).
// Prints the RSS before and after, in bytes, as JSON. `--keep` leaves the measured rounds'
// grammars and matchers undisposed, 20 of them (the negative control: in Node each compiled
// grammar lives in a worker thread of its own).
import { compileGrammar } from 'sampling-lab/grammar';

const keeping = process.argv.includes('--keep');
// A small vocabulary, so that a compile takes milliseconds: what could leak is per compile and
// per matcher, not per token.
const tokenizer = {
  get_vocab: () => Object.fromEntries([...'abcdefghijklmnopqrstuvwxyz0123456789', '</s>'].map((token, id) => [token, id])),
  eos_token_id: 36,
};

async function compileAndRun(index, runs, keep = false) {
  // A spec of its own each time, so that the cache does not answer.
  const grammar = await compileGrammar(tokenizer, { regex: `[a-z]{1,${2 + (index % 50)}}[0-9]{${index % 7}}` });
  for (let r = 0; r < runs; r++) {
    const matcher = await grammar.matcher();
    for (const token of [0, 1, 2]) {
      if (!matcher.accept(token)) break;
      await matcher.settled();
    }
    if (!keep) matcher.dispose();
  }
  if (!keep) grammar.dispose();
}

const settle = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
for (let i = 0; i < 100; i++) await compileAndRun(1000 + i, 5);
const before = settle();
if (keeping) for (let i = 0; i < 20; i++) await compileAndRun(i, 5, true);
else for (let i = 0; i < 200; i++) await compileAndRun(i, 5);
console.log(JSON.stringify({ before, after: settle() }));
