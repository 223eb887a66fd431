// `node bench/inputs.mjs` (part of `npm run bench`): lab.sampleToken on input classes a model or
// an adversary produces, not only the bench's synthetic logits, each call as a multiple of one
// read (lab.range over the resident logits) and of one exp pass (lab.logSumExp), all timed in
// this process, rounds interleaved so that drift in the machine's speed falls on every call alike.
import { loadSamplingLab } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';

const V = 151936;  // Qwen3's vocabulary, the synthetic logits' length
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
const languageModel = () => {
  const logits = Float32Array.from({ length: V }, () => 2.5 * normal());
  for (let i = 0; i < 50; i++) logits[Math.floor(uniform() * V)] = 8 + 7 * uniform();
  return logits;
};
const zipf = () => Float32Array.from({ length: V }, (_, i) => -Math.log(i + 1));
const CLASSES = {
  'synthetic (the bench\'s)': () => lab.syntheticLogits(),
  'language-model-like': languageModel,
  'Zipf, shuffled': () => shuffle(zipf()),
  'Zipf, ascending': () => zipf().reverse(),
  'flat tail (100 high, the rest equal)': () => Float32Array.from({ length: V }, (_, i) => (i < 100 ? 5 + uniform() : 0)),
  'all equal': () => new Float32Array(V),
};
const CALLS = {
  greedy: { temperature: 0 },
  'T 1': { temperature: 1 },
  'top-k 50': { topK: 50 },
  'top-k 1,000': { topK: 1000 },
  'top-k 4,096': { topK: 4096 },
  'top-k 20,000': { topK: 20000 },
  'top-p 0.9': { topP: 0.9 },
  'top-p 0.99': { topP: 0.99 },
  'T 1.5, top-p 0.95': { temperature: 1.5, topP: 0.95 },
  'min-p 0.05': { minP: 0.05 },
};

const resident = lab.logitsBuffer(V);
const ROUNDS = 7;
const timed = (run, calls) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) run(i);
  return Number(process.hrtime.bigint() - start) / 1e3 / calls;
};
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const rows = [];
for (const [name, make] of Object.entries(CLASSES)) {
  resident.set(make());
  const runs = {
    read: () => lab.range(resident),
    exp: () => lab.logSumExp(resident),
    ...Object.fromEntries(Object.entries(CALLS).map(([call, options]) => [call, (i) => lab.sampleToken(resident, { ...options, seed: 1, step: i })])),
  };
  for (const run of Object.values(runs)) timed(run, 20);  // warm-up, tier-up
  const samples = Object.fromEntries(Object.keys(runs).map((key) => [key, []]));
  for (let round = 0; round < ROUNDS; round++) for (const [key, run] of Object.entries(runs)) samples[key].push(timed(run, 20));
  const read = median(samples.read);
  const exp = median(samples.exp);
  rows.push({ name, read, exp, calls: Object.fromEntries(Object.keys(CALLS).map((call) => [call, median(samples[call])])) });
}

// The page's filters experiment on the handbook's default logits and on 151,936 synthetic ones.
const filtersUs = timed(() => experiments.runExperiment('filters', { logits: lab.syntheticLogits(), topP: 0.9 }), 10);

console.log(`lab.sampleToken on ${V.toLocaleString('en')} float32 logits, median of ${ROUNDS} interleaved rounds: × one read (lab.range) / × one exp pass (lab.logSumExp)\n`);
console.log(`| input | one read | one exp pass | ${Object.keys(CALLS).join(' | ')} |`);
console.log(`|---|---|---|${Object.keys(CALLS).map(() => '---').join('|')}|`);
for (const { name, read, exp, calls } of rows) {
  console.log(`| ${name} | ${read.toFixed(1)} µs | ${exp.toFixed(1)} µs | ${Object.values(calls).map((us) => `${(us / read).toFixed(1)} / ${(us / exp).toFixed(2)}`).join(' | ')} |`);
}
console.log(`\nrunExperiment('filters', 151,936 synthetic logits, top-p 0.9): ${(filtersUs / 1000).toFixed(2)} ms = ${(filtersUs / rows[0].exp).toFixed(1)} exp passes`);
