// `npm run bench` (grammar part): JSON-schema generation on the tiny Qwen3-signature model with
// the real Qwen3 tokenizer. Per step: xgrammar's own work (acceptToken, then getNextTokenBitmask
// and its copy out), and what allowedMask adds to Sampling Lab's draw (sampleToken on the step's
// logits with the mask, against the same call without it). Writes docs/transformers.md between the
// grammar-bench markers.
import { loadSamplingLab } from 'sampling-lab';
import { compileGrammar } from 'sampling-lab/grammar';
import { loadLocalModel, positionLogits } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../tests/support/tiny-model.js';
import { writeReadmeSection } from './readme-section.mjs';

const lab = await loadSamplingLab();
const { model, tokenizer } = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
const V = model.config.vocab_size;
const schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 40 }, age: { type: 'integer', minimum: 0, maximum: 120 }, tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 3 } },
  required: ['name', 'age', 'tags'],
};
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const compileStart = performance.now();
const grammar = await compileGrammar(tokenizer, { jsonSchema: schema }, { vocabSize: V });
const compileMs = performance.now() - compileStart;

const options = { temperature: 0.8, topP: 0.9, seed: 1 };
const xgrammarMs = [];
const withMask = [];
const withoutMask = [];
const allowed = [];
const REPEATS = 20;
for (let run = 0; run < 5; run++) {
  const matcher = await grammar.matcher();
  // The output starts inside the string, so that some steps have the dense mask a string has
  // (the model can otherwise step over it with tokens such as '":""').
  const ids = tokenizer.encode('A person as JSON:');
  for (const token of tokenizer.encode('{"name":"', { add_special_tokens: false })) {
    matcher.accept(token);
    ids.push(token);
  }
  await matcher.settled();
  while (!matcher.isTerminated() && ids.length < 200) {
    const logits = await positionLogits(model, ids, ids.length - 1);
    const mask = matcher.allowedMask;
    allowed.push(matcher.allowedCount);
    // Interleaved, so that drift in the machine's speed falls on both alike.
    let masked = 0;
    let plain = 0;
    let token = 0;
    for (let r = 0; r < REPEATS; r++) {
      let start = performance.now();
      token = lab.sampleToken(logits, { ...options, step: ids.length, allowedMask: mask });
      masked += performance.now() - start;
      start = performance.now();
      lab.sampleToken(logits, { ...options, step: ids.length });
      plain += performance.now() - start;
    }
    withMask.push(masked / REPEATS);
    withoutMask.push(plain / REPEATS);
    const start = performance.now();
    matcher.accept(token);
    await matcher.settled();
    xgrammarMs.push(performance.now() - start);
    ids.push(token);
  }
  matcher.dispose();
}
const f = (ms) => (ms * 1000).toFixed(0);
// Steps inside the string (the mask allows most of the vocabulary) and between tokens of JSON.
const dense = allowed.map((count, i) => [count, i]).filter(([count]) => count > V / 2).map(([, i]) => i);
const sparse = allowed.map((_, i) => i).filter((i) => !dense.includes(i));
const of = (values, steps) => median(steps.map((i) => values[i]));
const part = (steps, what) => steps.length === 0 ? `no step ${what}` :
  `${steps.length} steps ${what} (median ${median(steps.map((i) => allowed[i])).toLocaleString('en')} tokens allowed): xgrammar's acceptToken and getNextTokenBitmask ${f(of(xgrammarMs, steps))} µs, ` +
  `\`lab.sampleToken\` ${f(of(withMask, steps))} µs with the mask against ${f(of(withoutMask, steps))} µs without it`;
const line = `On the tiny model (${V.toLocaleString('en')} tokens, ${process.version}; a JSON schema with a string, an integer range and an enum array, T 0.8, top-p 0.9, 5 runs, each from inside the string): ` +
  `compiling the schema for Qwen3's tokenizer takes ${compileMs.toFixed(0)} ms; per step, medians: ${part(dense, 'inside the string')}; ${part(sparse, 'between JSON tokens')}.`;
console.log(line);
writeReadmeSection('grammar-bench', [line], new URL('../docs/transformers.md', import.meta.url));
