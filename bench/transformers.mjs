// `npm run bench` (last part): Sampling Lab inside transformers.js's generate() on the tiny
// Qwen3-signature model (tests/support/tiny_qwen3.py): time of a decode step against the time
// the logits processor spends choosing the token, and how often generate() with top_p 0.01 on
// its own equals greedy decoding (it should always); then speculative decoding on the tiny
// target/draft pair against plain decoding, beside the chapter's formula. Writes the lines into
// docs/transformers.md between the transformers-bench and speculative-bench markers.
import { availableParallelism, loadavg } from 'node:os';
import { Tensor } from '@huggingface/transformers';
import { loadSamplingLab } from 'sampling-lab';
import { createLogitsProcessor, generateTokens, loadLocalModel, logitsRows, speculativeGenerate } from 'sampling-lab/transformers';
import { ensureSpeculativePair, ensureTinyModel } from '../tests/support/tiny-model.js';
import { writeReadmeSection } from './readme-section.mjs';

const STEPS = 64;
const RUNS = 20;
const lab = await loadSamplingLab();
const { model, tokenizer } = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
const inputs = tokenizer('语言模型在每个位置给出一个概率分布，');
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
// 'auto' minus the best fixed γ, seed by seed, as mean ± 2 standard errors (the bench's noise on
// "as fast as"). For seed i the best γ is chosen on the other seeds (leave one out): chosen on the
// same seeds, it would be whichever γ's noise ran high, and 'auto' would trail it by that noise.
function againstBestFixed(auto, fixed) {
  const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const d = auto.map((rate, i) => {
    const others = (gamma) => mean(fixed.get(gamma).filter((_, j) => j !== i));
    const best = [...fixed.keys()].reduce((g, h) => (others(h) > others(g) ? h : g));
    return rate - fixed.get(best)[i];
  });
  const average = mean(d);
  const variance = d.reduce((x, y) => x + (y - average) ** 2, 0) / (d.length - 1);
  return `${average >= 0 ? '+' : '−'}${Math.abs(average).toFixed(1)} ± ${(2 * Math.sqrt(variance / d.length)).toFixed(1)} tokens/s`;
}

// Timestamps around the processor: between two calls lies one decode step of generate().
const decode = [];
const sampling = [];
const processor = createLogitsProcessor(lab, { temperature: 0.8, topP: 0.9, minP: 0.02, seed: 1 });
let last;
const timed = (ids, logits) => {
  const start = performance.now();
  if (last !== undefined) decode.push(start - last);
  processor(ids, logits);
  last = performance.now();
  sampling.push(last - start);
  return logits;
};
for (let run = 0; run < 3; run++) {
  last = undefined;
  await model.generate({ ...inputs, max_new_tokens: STEPS, min_new_tokens: STEPS, do_sample: false, logits_processor: [timed] });
}

const tokensOf = (output) => Array.from(output.data.slice(inputs.input_ids.dims[1]), Number).join(',');
const greedy = tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: false }));
let alone = 0;
let withLab = 0;
for (let run = 0; run < RUNS; run++) {
  alone += tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: true, top_p: 0.01 })) === greedy;
  const chosen = createLogitsProcessor(lab, { topP: 0.01, seed: run });
  withLab += tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: false, logits_processor: [chosen] })) === greedy;
}

const lines = [
  `On the tiny model (151,936-token vocabulary, ${process.version}, Node's onnxruntime): a decode step of \`generate()\` (forward pass with the KV cache and transformers.js's own bookkeeping) takes ${median(decode).toFixed(2)} ms, median of ${decode.length}; choosing its token with Sampling Lab's processor (top-p 0.9, min-p 0.02, T 0.8) adds ${median(sampling).toFixed(2)} ms.`,
  `\`generate({ do_sample: true, top_p: 0.01 })\` alone matched greedy decoding in ${alone} of ${RUNS} runs (it keeps transformers.js's top_k 50 and ignores top_p); with Sampling Lab's processor and \`topP: 0.01\`, ${withLab} of ${RUNS}.`,
];
console.log(lines.join('\n'));

// Speculative decoding on the tiny target/draft pair (tests/support/tiny_qwen3.py), against plain
// decoding of the target, beside the chapter's formula from the measured α and c.
const pair = ensureSpeculativePair();
// One onnxruntime thread per model, as onnxruntime-web runs without cross-origin isolation; it also
// keeps the timing steady on a shared 2-core machine, where a spinning second thread waits.
const THREADS = { intraOpNumThreads: 1, interOpNumThreads: 1 };
const [target, draft] = await Promise.all([pair.target, pair.draft].map((folder) => loadLocalModel(folder, { dtype: 'fp32', sessionOptions: THREADS })));
const SPEC_PROMPT = 'The three laws of thermodynamics are';
const SPEC_TOKENS = 64;
const SPEC_ROUNDS = 9;
const GAMMAS = [1, 2, 3, 4, 5, 6];
const specSampling = { temperature: 1 };

const shape = ({ config }) => `${config.num_hidden_layers} layer${config.num_hidden_layers > 1 ? 's' : ''}, FFN ${config.intermediate_size.toLocaleString('en')}`;

// Cost per call: a forward pass of `rows` new positions after a cache of `past`, median.
async function passMs(model, rows, past = 48, calls = 40) {
  const ids = (n, from) => new Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)), [1, n]);
  const ones = (n) => new Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]);
  const prefill = await model({ input_ids: ids(past, 1000), attention_mask: ones(past), num_logits_to_keep: new Tensor('int64', [1n], []) });
  const cache = Object.fromEntries(Object.entries(prefill).filter(([name]) => name.startsWith('present')).map(([name, t]) => [name.replace('present', 'past_key_values'), t]));
  const times = [];
  for (let call = 0; call < calls; call++) {
    const start = performance.now();
    await model({ input_ids: ids(rows, 5000), attention_mask: ones(past + rows), past_key_values: cache, num_logits_to_keep: new Tensor('int64', [BigInt(rows)], []) });
    times.push(performance.now() - start);
  }
  return median(times);
}

async function plainRun(seed) {
  const tokens = [];
  const start = performance.now();
  for await (const { token } of generateTokens(target.model, target.tokenizer, SPEC_PROMPT, { lab, ...specSampling, seed, maxNewTokens: SPEC_TOKENS, stopAtEos: false })) tokens.push(token);
  return { tokens, ms: performance.now() - start };
}

// The loop's own time: the run's wall time less its forward passes' (verification, masking, cache
// cuts, text), summed over the runs at γ 4.
// The draft's passes at γ 4 by their position after a target pass, to compare with its cost alone.
const loop = { passMs: 0, wallMs: 0, draftByPosition: [[], [], [], []] };
async function speculativeRun(gamma, seed) {
  let passMs = 0, position = 0;
  const heard = ({ role, ms }) => {
    passMs += ms;
    if (role === 'target') position = 0;
    else if (gamma === 4 && position < 4) loop.draftByPosition[position++].push(ms);
  };
  const run = speculativeGenerate(target.model, draft.model, target.tokenizer, SPEC_PROMPT, {
    lab, ...specSampling, seed, gamma, maxNewTokens: SPEC_TOKENS, stopAtEos: false, onForward: heard,
  });
  for await (const _ of run);
  if (gamma === 4) loop.passMs += passMs, loop.wallMs += run.stats.wallMs;
  return run.stats;
}

// α = Σ_v min(p, q) at each position of the target's own text, p and q as sampled (the chapter's α).
async function overlapAlong(tokens, seed) {
  const ids = [...Array.from(target.tokenizer(SPEC_PROMPT).input_ids.data, Number), ...tokens];
  const from = ids.length - tokens.length - 1;
  const rows = async (model) => {
    const kept = [];
    for await (const { index, logits } of logitsRows(model, ids.slice(0, -1), 16)) {
      if (index >= from) kept.push(lab.distribution(logits, { ...specSampling, seed, step: index + 1 }).probs);
    }
    return kept;
  };
  const [p, q] = [await rows(target.model), await rows(draft.model)];
  return p.map((row, i) => lab.distance(row, q[i]).overlap);
}

await plainRun(99);
for (const gamma of GAMMAS) await speculativeRun(gamma, 99);
Object.assign(loop, { passMs: 0, wallMs: 0, draftByPosition: [[], [], [], []] });
const loadBefore = loadavg()[0];
// Interleaved, one run of each per seed; a rate is the median of the runs' tokens/s, which a burst
// of another process on the machine moves less than a total would.
const plainRates = [];
const runs = new Map([...GAMMAS, 'auto'].map((gamma) => [gamma, { rates: [], tokens: 0, targetCalls: 0 }]));
const overlaps = [];
for (let seed = 0; seed < SPEC_ROUNDS; seed++) {
  const run = await plainRun(seed);
  plainRates.push(run.tokens.length / (run.ms / 1000));
  overlaps.push(...await overlapAlong(run.tokens, seed));
  for (const gamma of [...GAMMAS, 'auto']) {
    const stats = await speculativeRun(gamma, seed);
    const total = runs.get(gamma);
    total.rates.push(stats.tokens / (stats.wallMs / 1000));
    total.tokens += stats.tokens;
    total.targetCalls += stats.targetCalls;
  }
}
// The chapter's c is one draft pass over one target pass; its formula takes a target pass of γ + 1
// positions to cost one of a single position, which the last column replaces by the measured cost.
const loadAfter = loadavg()[0];
const [targetMs, draftMs] = [await passMs(target.model, 1), await passMs(draft.model, 1)];
const verifyMs = new Map();
for (const gamma of GAMMAS) verifyMs.set(gamma, await passMs(target.model, gamma + 1));
const alpha = overlaps.reduce((a, b) => a + b, 0) / overlaps.length;
const c = draftMs / targetMs;
const plainRate = median(plainRates);
const specRows = GAMMAS.map((gamma) => {
  const expected = (1 - alpha ** (gamma + 1)) / (1 - alpha);
  const { rates, tokens, targetCalls } = runs.get(gamma);
  const rate = median(rates);
  return {
    gamma, expected, perPass: tokens / targetCalls, predicted: expected / (gamma * c + 1), rate, measured: rate / plainRate,
    withVerify: (expected * targetMs) / (gamma * draftMs + verifyMs.get(gamma)), verifyRatio: verifyMs.get(gamma) / targetMs,
  };
});
const slower = specRows.filter((r) => r.predicted > 1 && r.measured <= 1).map((r) => r.gamma);
const auto = runs.get('auto');
const bestFixed = specRows.reduce((a, b) => (b.rate > a.rate ? b : a));
const specLines = [
  `Speculative decoding on the tiny pair (\`speculativeGenerate\`, T 1, ${SPEC_TOKENS} tokens, median tokens/s of ${SPEC_ROUNDS} seeds per γ, ${process.version}, Node's onnxruntime on one thread, load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${availableParallelism()} cores): ` +
    `target tiny-qwen3-target (${shape(target.model)}, FFN weights stored as INT8), draft tiny-qwen3-draft (${shape(draft.model)}, the target's first layer pruned). ` +
    `Measured α = ${alpha.toFixed(3)} (Σ min(p, q) over ${overlaps.length} positions of the target's text); a one-position pass with the KV cache takes ${targetMs.toFixed(2)} ms on the target and ${draftMs.toFixed(2)} ms on the draft, so c = ${c.toFixed(3)}. ` +
    `Plain decoding (\`generateTokens\`): ${plainRate.toFixed(1)} tokens/s.`,
  '',
  '| γ | E[tokens per target pass] = (1 − α^(γ+1))/(1 − α) | tokens per target pass, measured | speed-up E/(γc + 1) | tokens/s | speed-up, measured | target pass of γ + 1 positions / of 1 | E·T(1)/(γ·D + T(γ+1)) |',
  '|---|---|---|---|---|---|---|---|',
  ...specRows.map((r) => `| ${r.gamma} | ${r.expected.toFixed(2)} | ${r.perPass.toFixed(2)} | ${r.predicted.toFixed(2)} | ${r.rate.toFixed(1)} | ${r.measured.toFixed(2)} | ${r.verifyRatio.toFixed(2)} | ${r.withVerify.toFixed(2)} |`),
  '',
  slower.length === 0
    ? `Faster than plain decoding at every γ where the formula predicts a speed-up (${specRows.filter((r) => r.predicted > 1).length} of ${GAMMAS.length}).`
    : `Not faster than plain decoding at γ = ${slower.join(', ')}, where the formula predicts a speed-up.`,
  '',
  `\`gamma: 'auto'\` (γ chosen before each step by \`lab.bestGamma\` from the run's acceptance and its timed passes), in the same rounds: ` +
    `${median(auto.rates).toFixed(1)} tokens/s (speed-up ${(median(auto.rates) / plainRate).toFixed(2)}), ${(auto.tokens / auto.targetCalls).toFixed(2)} tokens per target pass; ` +
    `the best fixed γ, ${bestFixed.gamma}: ${bestFixed.rate.toFixed(1)} tokens/s; 'auto' minus the best fixed γ, seed by seed, that γ chosen on the other seeds: ${againstBestFixed(auto.rates, new Map(GAMMAS.map((gamma) => [gamma, runs.get(gamma).rates])))} (mean ± 2 standard errors).`,
  '',
  `The loop's own share of a run at γ 4 (its wall time less its forward passes': verification, masking, cache cuts, text): ` +
    `${(100 * (1 - loop.passMs / loop.wallMs)).toFixed(1)} % (${((loop.wallMs - loop.passMs) / SPEC_ROUNDS).toFixed(1)} ms of ${(loop.wallMs / SPEC_ROUNDS).toFixed(0)} ms a run; issue 33's ceiling: 3 %). ` +
    `The draft's passes in those runs by position after a target pass (medians over every step): ${loop.draftByPosition.map((times) => median(times).toFixed(2)).join(', ')} ms, against ${draftMs.toFixed(2)} ms alone.`,
];
console.log(specLines.join('\n'));

// Prompt lookup (one model) against plain decoding, interleaved per seed: on a prompt whose
// continuation the tiny target repeats (its greedy output cycles through pairs of tokens) and on
// the speculative prompt, whose continuation it does not; greedy and at T 1.
const LOOKUP_PROMPTS = { 'repeating (a b a b …)': 'a b a b a b a b a b', 'not repeating (the speculative prompt)': SPEC_PROMPT };
const LOOKUP_ROUNDS = 5;
async function timedPlain(prompt, options) {
  let tokens = 0;
  const start = performance.now();
  for await (const _ of generateTokens(target.model, target.tokenizer, prompt, { lab, ...options, maxNewTokens: SPEC_TOKENS, stopAtEos: false })) tokens++;
  return tokens / ((performance.now() - start) / 1000);
}
async function timedLookup(prompt, options) {
  const run = speculativeGenerate(target.model, { promptLookup: { ngramMax: 3 } }, target.tokenizer, prompt, { lab, gamma: 4, ...options, maxNewTokens: SPEC_TOKENS, stopAtEos: false });
  for await (const _ of run);
  return run.stats;
}
const LOOKUP_GAMMAS = [1, 2, 3, 4, 6, 8];
const rate = (stats) => stats.tokens / (stats.wallMs / 1000);
const lookupRows = [];
for (const [name, prompt] of Object.entries(LOOKUP_PROMPTS)) {
  for (const [sampling, options] of [['greedy', { temperature: 0 }], ['T 1', { temperature: 1 }]]) {
    const plain = [], auto = [];
    const fixed = new Map(LOOKUP_GAMMAS.map((gamma) => [gamma, []]));
    let accepted = 0, proposed = 0, tokens = 0, targetCalls = 0;
    await timedLookup(prompt, { ...options, seed: 99 });
    for (let seed = 0; seed < LOOKUP_ROUNDS; seed++) {
      plain.push(await timedPlain(prompt, { ...options, seed }));
      for (const gamma of LOOKUP_GAMMAS) {
        const stats = await timedLookup(prompt, { ...options, seed, gamma });
        fixed.get(gamma).push(rate(stats));
        if (gamma === 4) accepted += stats.accepted, proposed += stats.proposed, tokens += stats.tokens, targetCalls += stats.targetCalls;
      }
      auto.push(rate(await timedLookup(prompt, { ...options, seed, gamma: 'auto' })));
    }
    const lookup = fixed.get(4);
    const best = LOOKUP_GAMMAS.reduce((a, g) => (median(fixed.get(g)) > median(fixed.get(a)) ? g : a));
    lookupRows.push(`| ${name} | ${sampling} | ${median(plain).toFixed(1)} | ${median(lookup).toFixed(1)} | ${(median(lookup) / median(plain)).toFixed(2)} | ${proposed ? (accepted / proposed).toFixed(3) : '—'} (${accepted} of ${proposed}) | ${(tokens / targetCalls).toFixed(2)} | γ ${best}: ${median(fixed.get(best)).toFixed(1)} | ${median(auto).toFixed(1)} (${againstBestFixed(auto, fixed)}) |`);
  }
}
const lookupLines = [
  `Prompt lookup on the tiny target (\`speculativeGenerate(target, { promptLookup: { ngramMax: 3 } }, …)\`, γ 4 but in the last two columns, ${SPEC_TOKENS} tokens, median tokens/s of ${LOOKUP_ROUNDS} seeds, plain decoding and fixed γ ${LOOKUP_GAMMAS.join(', ')} interleaved, ${process.version}, one onnxruntime thread). The last column is gamma 'auto', and beside it 'auto' minus the best fixed γ seed by seed, that γ chosen on the other seeds (mean ± 2 standard errors):`,
  '',
  '| prompt | sampling | plain tokens/s | prompt lookup tokens/s | speed-up | acceptance | tokens per target pass | best fixed γ, tokens/s | gamma \'auto\', tokens/s |',
  '|---|---|---|---|---|---|---|---|---|',
  ...lookupRows,
];
console.log(lookupLines.join('\n'));

const doc = new URL('../docs/transformers.md', import.meta.url);
writeReadmeSection('transformers-bench', lines, doc);
writeReadmeSection('speculative-bench', specLines, doc);
writeReadmeSection('lookup-bench', lookupLines, doc);
