// `npm run bench`: lab.sampleToken on 151,936 synthetic float32 logits along five filter paths,
// against a straightforward JavaScript sampler and the native build of the same core (Google
// Benchmark, AVX and SSE4 builds), all in this one run, and its peers (bench/peers/:
// transformers.js's generate() sampling step, llama.cpp's sampler chain natively and in
// WebAssembly) on the same logits and paths. Prints the tables and writes them into docs/bench.md
// between the bench markers.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSamplingLab } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';
import { compileGrammar } from 'sampling-lab/grammar';
import { loadLocalModel } from 'sampling-lab/transformers';
import { referenceSampleToken } from '../tests/support/reference-sampler.js';
import { ensureTinyModel } from '../tests/support/tiny-model.js';
import { measurePeers, peerLines } from './peers/index.mjs';
import { writeReadmeSection } from './readme-section.mjs';

const root = new URL('..', import.meta.url).pathname;
// The paths and the general chain's stages, named once: the native benchmark reads the same file
// and reports by key.
const ENTRIES = JSON.parse(readFileSync(join(root, 'bench/paths.json'), 'utf8'));
const PATHS = ENTRIES.filter((entry) => !entry.stage);
const STAGES = ENTRIES.filter((entry) => entry.stage);

// Median and interquartile spread (µs per call) of `rounds` timings of `calls` calls each.
function measure(run, calls, rounds) {
  for (let i = 0; i < calls; i++) run(i); // warm-up
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) run(i);
    perCall.push(Number(process.hrtime.bigint() - start) / 1e3 / calls);
  }
  perCall.sort((a, b) => a - b);
  const at = (q) => perCall[Math.min(perCall.length - 1, Math.floor(q * perCall.length))];
  return { median: at(0.5), spread: at(0.75) - at(0.25) };
}

// Builds the native benchmark for `arch`; returns a run of it: every entry's median (µs), the read
// pass and the exp pass.
function nativeBench(buildDir, arch) {
  execFileSync('cmake', ['-S', root, '-B', join(root, buildDir), '-DCMAKE_BUILD_TYPE=Release', `-DSAMPLING_LAB_ARCH=${arch}`], { stdio: 'ignore' });
  execFileSync('cmake', ['--build', join(root, buildDir), '--target', 'sampling_lab_bench', '-j2'], { stdio: 'ignore' });
  return () => {
    const out = execFileSync(join(root, buildDir, 'sampling_lab_bench'), [
      '--benchmark_format=json', '--benchmark_repetitions=3', '--benchmark_report_aggregates_only=true', '--benchmark_min_time=0.05',
    ]).toString();
    const rows = JSON.parse(out).benchmarks.filter((b) => b.aggregate_name === 'median');
    const us = (name) => rows.find((b) => b.run_name === name).real_time;
    return { paths: Object.fromEntries(ENTRIES.map(({ key }) => [key, us(`sample_token/${key}`)])), read: us('read_pass'), expPass: us('exp_pass') };
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const lab = await loadSamplingLab();
const logits = lab.syntheticLogits();
// The model's output written straight into WebAssembly memory: no copy per token.
const resident = lab.logitsBuffer(logits.length);
resident.set(logits);

// The fixed cost of a call: sampleToken on 8 logits, as a generation loop calls it (only the
// step changes), and with options that change every call. First, while the heap is small: the
// JavaScript baseline's garbage makes the collector's pauses a part of a 1 µs call.
const eight = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
const fixedLoop = measure((step) => lab.sampleToken(eight, { temperature: 0.7, seed: 1, step }), 5000, 15);
const fixedFresh = measure((step) => lab.sampleToken(eight, { temperature: 0.7, seed: step, step }), 5000, 15);

// Timed before the JavaScript baseline fills the heap with garbage for the collector to chase.
// The first run includes WebAssembly's tier-up from baseline to optimised code.
const experimentLab = await loadExperimentLab();
const samplersRuns = Array.from({ length: 16 }, () => {
  const start = process.hrtime.bigint();
  experimentLab.runExperiment('samplers', { n: 200000 });
  return Number(process.hrtime.bigint() - start) / 1e6;
});
const samplersFirst = samplersRuns[0];
const warmRuns = samplersRuns.slice(1).sort((a, b) => a - b);
const samplersMs = warmRuns[Math.floor(warmRuns.length / 2)];

const runNative = nativeBench('build/native', 'native');
const runSse4 = nativeBench('build/native-sse4', 'x86-64-v2');
// Every path once before any is timed, so none pays for the optimising compiler's tier-up.
for (const { options } of ENTRIES) for (let step = 0; step < 300; step++) lab.sampleToken(resident, { ...options, seed: 1, step });
lab.range(resident);
// Rounds that alternate the native builds with WebAssembly, so that drift in the machine's speed
// falls on all three alike; each ratio is the median of the rounds' ratios.
// Each step's options are made before the timing, which then holds only the call, as natively.
const ROUNDS = 5;
const stepOptions = Object.fromEntries(ENTRIES.map(({ key, options }) =>
  [key, Array.from({ length: 200 }, (_, step) => ({ ...options, seed: 1, step }))]));
const rounds = [];
for (let round = 0; round < ROUNDS; round++) {
  const native = runNative();
  const sse4 = runSse4();
  const wasm = Object.fromEntries(ENTRIES.map(({ key }) =>
    [key, measure((step) => lab.sampleToken(resident, stepOptions[key][step]), stepOptions[key].length, 3)]));
  rounds.push({ native, sse4, wasm });
}
const interleaved = (key) => {
  const wasm = rounds.map((r) => r.wasm[key].median);
  return {
    wasm: { median: median(wasm), spread: median(rounds.map((r) => r.wasm[key].spread)) },
    native: median(rounds.map((r) => r.native.paths[key])),
    sse4: median(rounds.map((r) => r.sse4.paths[key])),
    perSse4: median(rounds.map((r, i) => wasm[i] / r.sse4.paths[key])),
  };
};
const native = { read: median(rounds.map((r) => r.native.read)), expPass: median(rounds.map((r) => r.native.expPass)) };
const sse4 = { read: median(rounds.map((r) => r.sse4.read)), expPass: median(rounds.map((r) => r.sse4.expPass)) };
const rows = PATHS.map(({ key, label, options }) => {
  const copied = measure((step) => lab.sampleToken(logits, { ...options, seed: 1, step }), 100, 9);
  const js = measure((step) => referenceSampleToken(logits, options, ((step * 0.618) % 1)), 2, 5);
  return { key, label, ...interleaved(key), copied, js };
});
// Each stage of the general chain alone, against the same builds.
const stageRows = STAGES.map(({ key, label }) => ({ key, label, ...interleaved(key) }));
const byKey = (key) => rows.find((r) => r.key === key);
const expPass = measure(() => lab.logSumExp(resident, 1), 200, 15);
// allowedMask's cost: sampleToken with xgrammar's mask (Qwen3's tokenizer, a JSON schema with a
// string) against the same options on the logits it lets through, both on the fast path the
// options take (temperature alone): inside the string, where the mask allows nearly every
// token, and after '{', where it allows two.
const { tokenizer } = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
const grammar = await compileGrammar(tokenizer, { jsonSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, { vocabSize: logits.length });
const popcount = (word) => {
  let n = 0;
  for (let w = word >>> 0; w !== 0; w &= w - 1) n++;
  return n;
};
const maskRows = await Promise.all([['inside a string', '{"name":"'], ["after '{'", '{']].map(async ([label, prefix]) => {
  const matcher = await grammar.matcher();
  for (const token of tokenizer.encode(prefix, { add_special_tokens: false })) matcher.accept(token);
  await matcher.settled();
  const mask = matcher.allowedMask;
  // Both resident in WebAssembly memory: the tokens it lets through in a lab of their own (a lab has
  // one resident buffer).
  const throughLab = await loadSamplingLab();
  const through = throughLab.logitsBuffer(mask.reduce((n, word) => n + popcount(word), 0));
  through.set(logits.filter((_, i) => (mask[i >>> 5] >>> (i & 31)) & 1));
  // Interleaved rounds, so that drift in the machine's speed falls on both alike.
  const masked = [];
  const unmasked = [];
  for (let round = 0; round < 9; round++) {
    masked.push(measure((step) => lab.sampleToken(resident, { allowedMask: mask, seed: 1, step }), 30, 1).median);
    unmasked.push(measure((step) => throughLab.sampleToken(through, { seed: 1, step }), 30, 1).median);
  }
  return { label, allowed: through.length, masked: median(masked), unmasked: median(unmasked), cost: median(masked) - median(unmasked) };
}));
// One read of the logits, the floor of any path: a min/max pass (lab.range), as natively.
const maxPass = measure(() => lab.range(resident), 200, 15);
const benchJson = Object.fromEntries([...rows, ...stageRows].map((r) => [r.key, { wasm: r.wasm.median, native: r.native, sse4: r.sse4, read: maxPass.median, expPass: expPass.median }]));
writeFileSync(join(root, 'build/bench.json'), JSON.stringify({ paths: benchJson, native: { read: native.read, expPass: native.expPass }, sse4: { read: sse4.read, expPass: sse4.expPass } }, null, 2));
// Gumbel-max and the race draw one exponential per token: cost per token of the vocabulary.
const noiseDraws = 20;
const noisePerToken = Object.fromEntries(['gumbel-max', 'exponential-race'].map((method) => {
  const t = measure((seed) => lab.sample(resident, { method, n: noiseDraws, seed }), 3, 9);
  return [method, (t.median * 1e3) / (noiseDraws * logits.length)];
}));
// The stateful sampler's overhead over sampleToken with the same history, step and μ.
const history = Array.from({ length: 64 }, (_, i) => (i * 7919) % 1000);
const statefulOptions = { temperature: 0.8, topP: 0.9, repetitionPenalty: 1.1, penaltyLastN: 64, dry: { multiplier: 0.8, penaltyLastN: 64 }, seed: 1 };
// On a 1,000-token row, where the sampler's own work is not lost in the vocabulary-sized noise.
const row = lab.syntheticLogits(1000, 1);
const sampler = lab.createSampler({ ...statefulOptions, generatedIds: history });
const stateful = measure(() => sampler.sample(row), 5000, 9);
const stateless = measure((step) => lab.sampleToken(row, { ...statefulOptions, generatedIds: history, step }), 5000, 9);
// A sampler's cost at 10 and at 2^24 tokens of history, on the full vocabulary, interleaved
// (rounds alternate) so that drift in the machine's speed falls on both alike.
const longHistory = Array.from({ length: 2 ** 24 }, (_, i) => (i * 7919) % logits.length);
const historyCosts = [{ temperature: 0.8 }, statefulOptions].map((options) => {
  const short = lab.createSampler(options, { history: longHistory.slice(0, 10), step: 10, mirostatMu: null });
  const long = lab.createSampler(options, { history: longHistory, step: longHistory.length, mirostatMu: null });
  // The long history grew WebAssembly memory (and does again at its first accept, when its
  // capacity doubles), which detached the resident view.
  long.accept(0);
  const buffer = lab.logitsBuffer(logits.length);
  buffer.set(logits);
  const at = { short: [], long: [] };
  for (let round = 0; round < 9; round++) {
    at.short.push(measure(() => short.sample(buffer), 20, 1).median);
    at.long.push(measure(() => long.sample(buffer), 20, 1).median);
  }
  return { options, short: median(at.short), long: median(at.long) };
});
const peers = await measurePeers({ root, lab, logits, paths: PATHS, measure });

const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const lines = [
  `Sampling one token from 151,936 synthetic logits (\`lab.sampleToken\`), µs per call, median (interquartile spread); ${new Date().toISOString().slice(0, 10)}, ${process.version}, ${execFileSync('nproc').toString().trim()} cores.`,
  '',
  `Every column times the same checked entry the bindings call (options read and checked, the logits tested for NaN and ±∞), natively and in WebAssembly, on the same logits, in ${ROUNDS} rounds that alternate the three builds; each ratio to SSE4 is the median of the rounds' ratios.`,
  '',
  '| path | WASM | WASM incl. copy-in | native (this CPU) | native SSE4 | JS baseline | WASM / SSE4 | WASM / one read | WASM / one exp pass | JS / WASM |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| (${r.key}) ${r.label} | ${f(r.wasm.median)} (±${f(r.wasm.spread)}) | ${f(r.copied.median)} | ${f(r.native)} | ${f(r.sse4)} | ${f(r.js.median)} (±${f(r.js.spread)}) | ${r.perSse4.toFixed(2)} | ${(r.wasm.median / maxPass.median).toFixed(1)} | ${(r.wasm.median / expPass.median).toFixed(2)} | ${f(r.js.median / r.wasm.median)} |`),
  '',
  `Fixed cost of a call (\`sampleToken\` on 8 logits): ${fixedLoop.median.toFixed(2)} µs in a generation loop (only \`step\` changes; target ≤ 3 µs), ${fixedFresh.median.toFixed(2)} µs when the options change every call.`,
  `One read of the logits (a min/max pass, \`lab.range\`): WASM ${f(maxPass.median)} µs, native ${f(native.read)} µs, SSE4 ${f(sse4.read)} µs. The figures are also in build/bench.json.`,
  `One exp pass over the vocabulary (\`lab.logSumExp\`): WASM ${f(expPass.median)} µs, native ${f(native.expPass)} µs, SSE4 ${f(sse4.expPass)} µs. ` +
    `Paths (b) and (d) take ${(byKey('b').wasm.median / expPass.median).toFixed(2)}× and ${(byKey('d').wasm.median / expPass.median).toFixed(2)}× of it (target ≤ 1.5×).`,
  `Against one read: greedy (g) ${(byKey('g').wasm.median / maxPass.median).toFixed(2)}× (target ≤ 3×), top-k 50 (b) ${(byKey('b').wasm.median / maxPass.median).toFixed(2)}× and min-p (d) ${(byKey('d').wasm.median / maxPass.median).toFixed(2)}× (target ≤ 5×). Every path and stage against SSE4: target ≤ 1.3×.`,
  `\`allowedMask\` (xgrammar's mask for Qwen3's tokenizer, 4,748 words; read by the draw's first pass, kernels::masked_max, when it allows half the vocabulary or more, else gathered, kernels::gather_allowed): ${maskRows.map((r) =>
    `${r.label} (${r.allowed.toLocaleString('en')} tokens allowed) ${f(r.masked)} µs against ${f(r.unmasked)} µs on the tokens it lets through, +${f(r.cost)} µs = ${(r.cost / expPass.median).toFixed(3)}× one exp pass`).join('; ')} (target ≤ 0.15×).`,
  `Noise per vocabulary token in WASM (\`lab.sample\`, ${noiseDraws} draws): Gumbel-max ${noisePerToken['gumbel-max'].toFixed(2)} ns, exponential race ${noisePerToken['exponential-race'].toFixed(2)} ns (target ≤ 4 ns).`,
  `\`samplers\` experiment at n = 200,000 in WASM: ${samplersMs.toFixed(1)} ms median of ${warmRuns.length} warm runs, ${samplersFirst.toFixed(1)} ms the first (target < 20 ms).`,
  '',
  'Each stage of the general chain alone, µs per sampleToken, the same checked entry in each build (targets: ≤ 1.3× SSE4, ≤ 1.5× one exp pass):',
  '',
  '| stage | WASM | native (this CPU) | native SSE4 | WASM / SSE4 | WASM / one exp pass |',
  '|---|---|---|---|---|---|',
  ...stageRows.map((r) => `| ${r.label} | ${f(r.wasm.median)} (±${f(r.wasm.spread)}) | ${f(r.native)} | ${f(r.sse4)} | ${r.perSse4.toFixed(2)} | ${(r.wasm.median / expPass.median).toFixed(2)} |`),
  '',
  `Stateful sampler (\`lab.createSampler\`, T 0.8, top-p 0.9, repetition 1.1, DRY, windows of 64 ids, 1,000-token rows): ${stateful.median.toFixed(1)} µs per token against ${stateless.median.toFixed(1)} µs for sampleToken with the same options, +${(stateful.median - stateless.median).toFixed(1)} µs (target < 5 µs).`,
  `Stateful sampler's cost against its history's length (151,936 logits, rounds interleaved; target ≤ 1.2×): ${historyCosts.map(({ options, short, long }) =>
    `${JSON.stringify(options)}: ${f(short)} µs at 10 tokens, ${f(long)} µs at 2^24 (${(long / short).toFixed(2)}×)`).join('; ')}.`,
  '',
  ...peerLines(rows, peers, f),
];
const table = lines.join('\n');
console.log(table);
writeReadmeSection('bench', lines, new URL('../docs/bench.md', import.meta.url));
