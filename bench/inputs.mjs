// `node bench/inputs.mjs` (part of `npm run bench`): every per-token call on the input classes a
// model or an adversary produces, not only the bench's synthetic logits, each as a multiple of
// one read (lab.sum: one SIMD pass summing the resident logits, nothing else) and of one exp pass
// (lab.logSumExp), all timed in this process with rounds interleaved, so that drift in the
// machine's speed falls on every call alike; then the peers (llama.cpp natively and in
// WebAssembly, transformers.js) on every class (llama.cpp's source fetched and built first, as
// bench/run.mjs does). `--quick` times fewer rounds, to check the script.
import { loadSamplingLab } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';
import { buildLlamaPeer, loadLlamaWasm, runLlamaNative } from './peers/llama.mjs';
import { createTransformersSampler } from './peers/transformers-sampler.mjs';
import { writeReadmeSection } from './readme-section.mjs';

const quick = process.argv.includes('--quick');
// Printed, and (unless --quick) written into docs/performance.md.
const lines = [];
const out = (line) => { console.log(line); lines.push(...line.split('\n')); };
const ROUNDS = quick ? 1 : 7;
const CALLS_PER_ROUND = quick ? 2 : 16;
const lab = await loadSamplingLab();
const experiments = await loadExperimentLab();

// A seeded uniform in [0, 1) and a standard normal (Box–Muller), for inputs that repeat run to run.
let state = 0x9e3779b9;
const uniform = () => {
  state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
  return state / 2 ** 32;
};
const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
const shuffle = (values) => {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(uniform() * (i + 1));
    [values[i], values[j]] = [values[j], values[i]];
  }
  return values;
};

// Language-model-like: a Gaussian body (σ 2.5) and 50 tokens at +8 … +15 above it.
const languageModel = (v) => {
  const logits = Float32Array.from({ length: v }, () => 2.5 * normal());
  for (let i = 0; i < 50; i++) logits[Math.floor(uniform() * v)] = 8 + 7 * uniform();
  return logits;
};
const zipf = (v) => Float32Array.from({ length: v }, (_, i) => -Math.log(i + 1));
// Each input class with the temperature its calls run at.
const CLASSES = {
  'synthetic (the bench\'s)': { make: (v) => lab.syntheticLogits(v), temperature: 1 },
  'LM-like, T 0.7': { make: languageModel, temperature: 0.7 },
  'LM-like, T 1': { make: languageModel, temperature: 1 },
  'LM-like, T 1.5': { make: languageModel, temperature: 1.5 },
  'Zipf, shuffled': { make: (v) => shuffle(zipf(v)), temperature: 1 },
  'Zipf, ascending': { make: (v) => zipf(v).reverse(), temperature: 1 },
  'flat tail (100 high)': { make: (v) => Float32Array.from({ length: v }, (_, i) => (i < 100 ? 5 + uniform() : 0)), temperature: 1 },
  'all equal': { make: (v) => new Float32Array(v), temperature: 1 },
};

// A 4,096-token history with a text's repetitions: ids drawn Zipf-like from 2,000, so that
// penalties and DRY have repeats and n-grams to find.
const HISTORY = Int32Array.from({ length: 4096 }, () => Math.floor(2000 ** uniform()) - 1);
const penalties = { repetitionPenalty: 1.1, presencePenalty: 0.3, frequencyPenalty: 0.3 };
const dry = { dry: { multiplier: 0.8 } };
const chain = { ...penalties, ...dry, logitBias: { 11: 2, 12: -100 }, topK: 40, topP: 0.95, minP: 0.05 };
// Each per-token call: its options (the class's temperature unless it sets its own).
const CALLS = {
  greedy: { temperature: 0 },
  'no filter': {},
  'top-k 50': { topK: 50 },
  'top-k 200': { topK: 200 },
  'top-k 1,000': { topK: 1000 },
  'top-k 4,096': { topK: 4096 },
  'top-k 20,000': { topK: 20000 },
  'top-p 0.9': { topP: 0.9 },
  'top-p 0.95': { topP: 0.95 },
  'top-p 0.99': { topP: 0.99 },
  'top-p 0.999': { topP: 0.999 },
  'min-p 0.05': { minP: 0.05 },
  'typical-p 0.95': { typicalP: 0.95 },
  'top-nσ 1': { topNSigma: 1 },
  'ε 3·10⁻⁴': { epsilonCutoff: 3e-4 },
  'η 3·10⁻⁴': { etaCutoff: 3e-4 },
  'p-less': { pLess: 1 },
  'XTC 0.5, 0.1': { xtc: { probability: 0.5, threshold: 0.1 } },
  'mirostat 2': { mirostat: { version: 2, tau: 5, eta: 0.1 } },
  'dynatemp ±0.5': { dynatemp: { range: 0.5 } },
  'adaptive-p 0.5': { adaptiveP: { target: 0.5 } },
  'penalties, 4,096 ids': { ...penalties, generatedIds: HISTORY },
  'DRY, 4,096 ids': { ...dry, generatedIds: HISTORY },
  'chain: penalties, bias, DRY, k, p, min-p': { ...chain, generatedIds: HISTORY },
};
// The same chain from a stateful sampler that holds the history.
const SAMPLER = 'stateful sampler, the chain';
const BATCH = 'sampleBatch, 64 rows (per row)';

const timed = (run, calls) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) run(i);
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
};
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Median µs of each run, interleaved round by round. */
function measure(runs) {
  for (const run of Object.values(runs)) timed(run, 4);  // warm-up, tier-up
  const samples = Object.fromEntries(Object.keys(runs).map((key) => [key, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [key, run] of Object.entries(runs)) samples[key].push(timed(run, CALLS_PER_ROUND));
  }
  return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)]));
}

const floors = (resident) => ({ read: () => lab.sum(resident), exp: () => lab.logSumExp(resident) });

function sampleTokenRuns(resident, temperature, calls) {
  return Object.fromEntries(Object.entries(calls).map(([call, options]) =>
    [call, (i) => lab.sampleToken(resident, { temperature, ...options, seed: 1, step: i })]));
}

// 1. Every call on every class at Qwen3's vocabulary.
// The resident buffer is taken after anything that may grow WebAssembly memory (a batch, many
// rows), which detaches views of it.
const V = 151936;
const byClass = {};
for (const [name, { make, temperature }] of Object.entries(CLASSES)) {
  const logits = make(V);
  const sampler = lab.createSampler({ temperature, ...chain, seed: 1 });
  for (const id of HISTORY) sampler.accept(id);
  const rows = new Float32Array(64 * V);
  for (let r = 0; r < 64; r++) rows.set(logits, r * V);
  const runs = (input) => ({
    ...floors(input),
    ...sampleTokenRuns(input, temperature, CALLS),
    [SAMPLER]: () => sampler.sample(input),
  });
  for (const run of Object.values(runs(logits))) run(0);
  const resident = lab.logitsBuffer(V);
  resident.set(logits);
  byClass[name] = measure(runs(resident));
  // A batch's 64 rows take WebAssembly memory that the resident buffer gives back: timed apart.
  // The seed as a column of 64 makes the flat array 64 rows (one options object would make it one
  // row of 64 · V logits).
  const seeds = Float64Array.from({ length: 64 }, (_, r) => r + 1);
  byClass[name][BATCH] = measure({ batch: (i) => lab.sampleBatch(rows, { temperature, topP: 0.95, seed: seeds, step: i }) }).batch / 64;
}

const cell = (us, floor) => `${(us / floor.read).toFixed(1)} / ${(us / floor.exp).toFixed(2)}`;
const classNames = Object.keys(CLASSES);
out(`Per-token calls on ${V.toLocaleString('en')} float32 logits, medians of ${ROUNDS} interleaved rounds: × one read (lab.sum) / × one exp pass (lab.logSumExp)\n`);
out(`| call | ${classNames.join(' | ')} |`);
out(`|---|${classNames.map(() => '---').join('|')}|`);
out(`| one read, one exp pass (µs) | ${classNames.map((n) => `${byClass[n].read.toFixed(1)}, ${byClass[n].exp.toFixed(1)}`).join(' | ')} |`);
for (const call of [...Object.keys(CALLS), SAMPLER, BATCH]) {
  out(`| ${call} | ${classNames.map((n) => cell(byClass[n][call], byClass[n])).join(' | ')} |`);
}
const lm = byClass['LM-like, T 1'];
out(`\nstateful sampler against sampleToken with the same options and history (LM-like, T 1): ${(lm[SAMPLER] / lm['chain: penalties, bias, DRY, k, p, min-p']).toFixed(2)}×`);

// 2. Vocabulary sizes, on language-model-like logits at T 1.
const SIZES = [32000, 128256, 151936, 262144];
const SIZE_CALLS = { greedy: CALLS.greedy, 'no filter': {}, 'top-k 50': CALLS['top-k 50'], 'top-k 1,000': CALLS['top-k 1,000'], 'top-p 0.95': CALLS['top-p 0.95'], 'min-p 0.05': CALLS['min-p 0.05'] };
out(`\nLM-like logits at T 1 by vocabulary size: × one read / × one exp pass\n`);
out(`| V | one read (µs) | ${Object.keys(SIZE_CALLS).join(' | ')} |`);
out(`|---|---|${Object.keys(SIZE_CALLS).map(() => '---').join('|')}|`);
for (const v of SIZES) {
  const buffer = lab.logitsBuffer(v);
  buffer.set(languageModel(v));
  const result = measure({ ...floors(buffer), ...sampleTokenRuns(buffer, 1, SIZE_CALLS) });
  out(`| ${v.toLocaleString('en')} | ${result.read.toFixed(1)} | ${Object.keys(SIZE_CALLS).map((c) => cell(result[c], result)).join(' | ')} |`);
}

// 3. Speculative verification at γ 1–8: γ + 1 target rows and γ draft rows of LM-like logits,
// the draft a perturbed copy of the target; and the page's filters experiment.
const target = languageModel(V);
const draft = target.map((z) => z + 0.5 * normal());
const argmax = (row) => row.reduce((best, z, i) => (z > row[best] ? i : best), 0);
const verify = {};
for (let gamma = 1; gamma <= 8; gamma++) {
  const targetRows = new Float32Array((gamma + 1) * V);
  const draftRows = new Float32Array(gamma * V);
  for (let r = 0; r <= gamma; r++) targetRows.set(target, r * V);
  for (let r = 0; r < gamma; r++) draftRows.set(draft, r * V);
  const tokens = Array.from({ length: gamma }, () => argmax(draft));
  verify[`γ ${gamma}`] = (i) => lab.speculativeVerify(targetRows, draftRows, tokens, { topP: 0.95, seed: 1, step: i });
}
verify['γ 8'](0);
const resident = lab.logitsBuffer(V);
resident.set(target);
const { exp } = measure(floors(resident));
const verified = measure(verify);
out(`\nspeculativeVerify (LM-like rows, top-p 0.95), × one exp pass: ${Object.entries(verified).map(([gamma, us]) => `${gamma} ${(us / exp).toFixed(1)}`).join(', ')}`);
const synthetic = lab.syntheticLogits();
const filters = measure({ filters: () => experiments.runExperiment('filters', { logits: synthetic, topP: 0.9 }) }).filters;
out(`runExperiment('filters', 151,936 synthetic logits, top-p 0.9): ${(filters / 1000).toFixed(2)} ms = ${(filters / exp).toFixed(1)} exp passes`);

// 4. The peers on every class, on the calls each has: llama.cpp's chain (WebAssembly in this
// process, interleaved with Sampling Lab's call; native in its own benchmark) and transformers.js's
// generate() sampling step (asynchronous: timed in its own rounds).
const PEER_CALLS = Object.fromEntries(['greedy', 'no filter', 'top-k 50', 'top-p 0.95', 'min-p 0.05'].map((call) => [call, CALLS[call]]));
const dirs = buildLlamaPeer(new URL('..', import.meta.url).pathname);
const timedAsync = async (run, calls) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await run(i);
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
};
const peerRows = [];
for (const [name, { make, temperature }] of Object.entries(CLASSES)) {
  const logits = make(V);
  const paths = Object.entries(PEER_CALLS).map(([call, options]) => ({ key: call, options: { temperature, ...options } }));
  const llamaNative = runLlamaNative(new URL('..', import.meta.url).pathname, dirs, lab, logits, paths.map(({ key, options }, i) => ({ key: String(i), options })));
  const llama = await loadLlamaWasm(dirs, lab, logits);
  const resident = lab.logitsBuffer(V);
  resident.set(logits);
  for (const [i, { key: call, options }] of paths.entries()) {
    const chain = llama.sampler(options);
    const { lab: ours, llama: theirs } = measure({ lab: (step) => lab.sampleToken(resident, { ...options, seed: 1, step }), llama: () => chain.sample() });
    const transformers = createTransformersSampler(options);
    await timedAsync(() => transformers.sample(logits), 2);
    const transformersUs = [];
    for (let round = 0; round < ROUNDS; round++) transformersUs.push(await timedAsync(() => transformers.sample(logits), quick ? 1 : 4));
    const ignored = [...new Set([...chain.ignored, ...transformers.ignored])];
    peerRows.push({ name, call, ours, llamaWasm: theirs, llamaNative: llamaNative[String(i)], transformers: median(transformersUs), ignored });
  }
}
const times = (peer, ours) => `${(peer / ours).toFixed(1)}×`;
out(`\nPeers on every class (${V.toLocaleString('en')} logits, the class's temperature), µs per token and the peer's time over Sampling Lab's WebAssembly time\n`);
out('| class | call | Sampling Lab WASM | llama.cpp WASM | llama.cpp native | transformers.js | what a peer ignores |');
out('|---|---|---|---|---|---|---|');
for (const r of peerRows) {
  out(`| ${r.name} | ${r.call} | ${r.ours.toFixed(1)} | ${r.llamaWasm.toFixed(1)} (${times(r.llamaWasm, r.ours)}) | ${r.llamaNative.toFixed(1)} (${times(r.llamaNative, r.ours)}) | ${r.transformers.toFixed(0)} (${times(r.transformers, r.ours)}) | ${r.ignored.join(', ') || '—'} |`);
}
const behind = peerRows.flatMap((r) => [['llama.cpp WASM', r.llamaWasm], ['llama.cpp native', r.llamaNative], ['transformers.js', r.transformers]]
  .filter(([, us]) => us < r.ours).map(([peer]) => `${peer} on ${r.name}, ${r.call}`));
out(`\nWhere a peer is faster than Sampling Lab's WebAssembly: ${behind.length ? behind.join('; ') : 'nowhere'}.`);
if (!quick) writeReadmeSection('inputs', [`${new Date().toISOString().slice(0, 10)}, Node ${process.version}.`, '', ...lines], new URL('../docs/performance.md', import.meta.url));
