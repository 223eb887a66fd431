// `npm run bench`: several drafts verified together (speculativeGenerate's `drafts: k`, recursive
// rejection sampling) against one, on the tiny target/draft pair (γ 4, T 1, seeds interleaved):
// acceptance per position, tokens per target pass and tokens/s; and on synthetic rows, the chance
// that a position accepts one of k drafts drawn from a draft row near the target's. Writes the
// lines into docs/transformers.md between the multi-draft-bench markers.
import { availableParallelism } from 'node:os';
import { loadSamplingLab } from 'sampling-lab';
import { loadLocalModel, speculativeGenerate } from 'sampling-lab/transformers';
import { ensureSpeculativePair } from '../tests/support/tiny-model.js';
import { writeReadmeSection } from './readme-section.mjs';

const lab = await loadSamplingLab();
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pair = ensureSpeculativePair();
const THREADS = { intraOpNumThreads: 1, interOpNumThreads: 1 };
const [target, draft] = await Promise.all([pair.target, pair.draft].map((folder) => loadLocalModel(folder, { dtype: 'fp32', sessionOptions: THREADS })));
const PROMPT = 'The three laws of thermodynamics are';
const TOKENS = 64;
const ROUNDS = 5;
const KS = [1, 2, 3, 4];

async function run(k, seed) {
  const generation = speculativeGenerate(target.model, draft.model, target.tokenizer, PROMPT, {
    lab, temperature: 1, seed, gamma: 4, drafts: k, maxNewTokens: TOKENS, stopAtEos: false,
  });
  for await (const _ of generation);
  return generation.stats;
}

for (const k of KS) await run(k, 99);
const totals = new Map(KS.map((k) => [k, { rates: [], accepted: 0, proposed: 0, tokens: 0, targetCalls: 0 }]));
for (let seed = 0; seed < ROUNDS; seed++) {
  for (const k of KS) {
    const stats = await run(k, seed);
    const total = totals.get(k);
    total.rates.push(stats.tokens / (stats.wallMs / 1000));
    total.accepted += stats.accepted; total.proposed += stats.proposed; total.tokens += stats.tokens; total.targetCalls += stats.targetCalls;
  }
}
const one = totals.get(1);
const pairRows = KS.map((k) => {
  const t = totals.get(k);
  return `| ${k} | ${(t.accepted / t.proposed).toFixed(3)} | ${(t.tokens / t.targetCalls).toFixed(2)} | ${median(t.rates).toFixed(1)} | ${(median(t.rates) / median(one.rates)).toFixed(2)} |`;
});

// Prompt lookup with k matches (one model), on the prompt the tiny target continues by copying.
const REPEATING = 'a b a b a b a b a b';
async function lookupRun(k, temperature, seed) {
  const generation = speculativeGenerate(target.model, { promptLookup: { ngramMax: 3 } }, target.tokenizer, REPEATING, {
    lab, temperature, seed, gamma: 4, drafts: k, maxNewTokens: TOKENS, stopAtEos: false,
  });
  for await (const _ of generation);
  return generation.stats;
}
const lookupRows = [];
for (const [sampling, temperature] of [['greedy', 0], ['T 1', 1]]) {
  const lookupTotals = new Map([1, 3].map((k) => [k, { rates: [], accepted: 0, proposed: 0, tokens: 0, targetCalls: 0 }]));
  for (let seed = 0; seed < ROUNDS; seed++) {
    for (const k of [1, 3]) {
      const stats = await lookupRun(k, temperature, seed);
      const total = lookupTotals.get(k);
      total.rates.push(stats.tokens / (stats.wallMs / 1000));
      total.accepted += stats.accepted; total.proposed += stats.proposed; total.tokens += stats.tokens; total.targetCalls += stats.targetCalls;
    }
  }
  for (const k of [1, 3]) {
    const t = lookupTotals.get(k);
    lookupRows.push(`| ${sampling} | ${k} | ${t.proposed ? (t.accepted / t.proposed).toFixed(3) : '—'} | ${(t.tokens / t.targetCalls).toFixed(2)} | ${median(t.rates).toFixed(1)} | ${(median(t.rates) / median(lookupTotals.get(1).rates)).toFixed(2)} |`);
  }
}

// Synthetic rows: the target's 151,936 logits and a draft's, the target's plus Gaussian noise of
// σ 1.5; k drafts drawn on their own streams, one position verified (γ 1), over TRIALS streams.
const TRIALS = 1500;
const targetRow = lab.syntheticLogits(lab.qwen3Vocabulary, 1);
const noise = lab.syntheticLogits(lab.qwen3Vocabulary, 2);
const mean = noise.reduce((a, b) => a + b, 0) / noise.length;
const spread = Math.sqrt(noise.reduce((a, b) => a + (b - mean) ** 2, 0) / noise.length);
const draftRow = targetRow.map((z, i) => z + 1.5 * (noise[i] - mean) / spread);
const synthetic = KS.map((k) => {
  let accepted = 0;
  for (let t = 0; t < TRIALS; t++) {
    const drafts = Array.from({ length: k }, (_, j) => [lab.sampleToken(draftRow, { seed: 3, stream: lab.nthDraftStream(lab.draftStream(t), j), step: 0 })]);
    const verdict = lab.speculativeVerify(Array(2 * k).fill(targetRow), Array(k).fill(draftRow), drafts, { seed: 3, stream: t, step: 0 });
    accepted += verdict.accepted;
  }
  return accepted / TRIALS;
});
const se = (p) => Math.sqrt(p * (1 - p) / TRIALS);

const lines = [
  `Several drafts verified together (\`speculativeGenerate(target, draft, …, { drafts: k })\`, γ 4, T 1, ${TOKENS} tokens, median tokens/s of ${ROUNDS} seeds, k interleaved, ${process.version}, one onnxruntime thread, ${availableParallelism()} cores). ` +
    'Acceptance counts a position once whatever k: the share of positions that accepted one of the drafts.',
  '',
  '| drafts k | acceptance per position | tokens per target pass | tokens/s | against k = 1 |',
  '|---|---|---|---|---|',
  ...pairRows,
  '',
  `Prompt lookup with up to k matches (\`{ promptLookup: { ngramMax: 3 } }\`, \`drafts: k\`, γ 4) on the prompt the tiny target continues by copying ("${REPEATING}"), ${ROUNDS} seeds:`,
  '',
  '| sampling | k | acceptance per position | tokens per target pass | tokens/s | against k = 1 |',
  '|---|---|---|---|---|---|',
  ...lookupRows,
  '',
  `On synthetic rows (151,936 logits; the draft's are the target's plus Gaussian noise of σ 1.5; one position, ${TRIALS} streams), the chance that the position accepts one of k drafts: ` +
    KS.map((k, i) => `k = ${k}: ${synthetic[i].toFixed(3)} ± ${se(synthetic[i]).toFixed(3)}`).join('; ') + '.',
];
console.log(lines.join('\n'));
writeReadmeSection('multi-draft-bench', lines, new URL('../docs/transformers.md', import.meta.url));
