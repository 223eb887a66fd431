// Issue 17, item 9: every public function driven from Node at, around and far past each of its
// size limits, with bad values mixed in. Each call is timed (a rejection within 50 ms, a call
// within the limits within 3 s: asserted by `npm run test:timing`, printed by `npm test`), must
// give a well-formed result or a SamplingLabError naming its
// argument, and is followed by a canary; after each group the heap is handed back. The calls come
// from a fixed seed, and the large inputs are built once and shared through subarrays.
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab, type OptionSpec, type Sampler, type ValueSpec } from 'sampling-lab/experiments';
import {
  ACCEPT_MS, HEAP_SLACK, Inputs, Random, SizeFuzz, checkDistances, checkDistribution, checkExperimentResult, checkFinite,
  checkLength, checkLogprobs, checkRanking, checkStages, checkToken, checkTokens, collectGarbage, DenseArray, farBeyond,
  readCountingProxy, scalarTrials, type Case, type Outcome, type Trial,
} from '../support/size-fuzz.js';

let lab: Lab;
let inputs: Inputs;
let heapBound: number;

beforeAll(async () => {
  lab = await loadSamplingLab();
  heapBound = lab.memory().heapInUse + HEAP_SLACK;
  inputs = new Inputs(lab.maxVocabulary);
});

// A group that broke the instance hands the next one a fresh instance, so each group reports its own failures.
beforeEach(async () => {
  let answer: unknown;
  try {
    answer = lab.sampleToken([0, 9, 1], { temperature: 0 });
  } catch (error) {
    answer = error;
  }
  if (answer !== 1) lab = await loadSamplingLab();
});

type Cases = (fuzz: SizeFuzz) => Iterable<Case>;

async function runGroup(group: string, cases: Cases): Promise<void> {
  // The collector starts the group with nothing to do, so its pauses stay out of the timings.
  await collectGarbage();
  const fuzz = new SizeFuzz(lab, group);
  for (const test of cases(fuzz)) {
    if (fuzz.broken) break;
    fuzz.run(test);
  }
  // Samplers' histories are freed when the samplers are collected.
  await collectGarbage();
  expect(fuzz.finish(heapBound)).toEqual([]);
}

// Work budgets from the README's Limits table (not in the schemas).
/** gumbel-max and exponential-race: n × V. */
const NOISE_VARIATES = 1.25e8;
/** inverse-cdf and alias: n × V. */
const TABLE_READS = 2 ** 42;
/** samplers: n × (len(p) + 16). */
const SAMPLER_VARIATES = 5e7;
/** speculative: n × (len(p) + 16). */
const SPECULATIVE_TOKENS = 1e8;
/** mc-error: Σ ns × repeats. */
const MC_DRAWS = 1e8;
/** importance: shifts × repeats × n. */
const IMPORTANCE_DRAWS = 1.5e7;
/** sequence: random mode models × (2 · nodes · vocab + Σ min(width · vocab, leaves) · depth); handbook mode
 * samples · depth · (vocab + 8) + leaves · depth + the same beam work. */
const BEAM_EXPANSIONS = 1e7;
/** logitBias as an object: at most this many keys. */
const OBJECT_BIAS_KEYS = 65536;
/** Small logits of 4 tokens: token 3 survives the narrow id lists (ids 0, 1, 2). */
const FOUR = [1, 2, 3, 4];

const outcome = (valid: boolean): Outcome => (valid ? 'accept' : 'reject');
const integerSpec = (min: number, max: number): ValueSpec => ({ kind: 'integer', min, max });

/** `{ xtc: { probability: v } }` for 'xtc.probability', `{ topK: v }` for 'topK'. */
function optionOf(name: string, value: unknown): Record<string, unknown> {
  const [outer, field] = name.split('.');
  return field === undefined ? { [outer]: value } : { [outer]: { [field]: value } };
}

function mergeOption(options: Record<string, unknown>, name: string, value: unknown): void {
  const [outer, field] = name.split('.');
  if (field === undefined) options[outer] = value;
  else options[outer] = { ...(options[outer] as object), [field]: value };
}

/** A small number[] with one bad entry: NaN, +∞, a hole, a string or a BigInt (−∞ is a masked token). */
function corrupted(random: Random, length: number): { label: string; values: unknown[] } {
  const values: unknown[] = Array.from({ length }, (_, i) => (i % 7) - 3);
  const at = random.int(length);
  const kind = random.pick(['NaN', 'Infinity', 'hole', 'string', 'BigInt']);
  if (kind === 'hole') delete values[at];
  else values[at] = { NaN, Infinity, string: '1', BigInt: 1n }[kind];
  return { label: `number[${length}] with ${kind} at ${at}`, values };
}

interface Logits {
  label: string;
  values: unknown;
  vocab: number;
  valid: boolean;
}

const SMALL_VOCABULARIES = [1, 2, 3, 4, 5, 17, 256, 1000, 4096];

/** Logits of a random size and form: mostly small, sometimes 151,936, past the limit or corrupted. */
function randomLogits(random: Random): Logits {
  const V = lab.maxVocabulary;
  const roll = random.next();
  if (roll < 0.05) return { label: 'Float32Array(151936)', values: inputs.logits32(151936), vocab: 151936, valid: true };
  if (roll < 0.1) return { label: 'Float32Array(V + 1)', values: inputs.logits32(V + 1), vocab: V + 1, valid: false };
  if (roll < 0.15) {
    const { label, value } = random.pick(farBeyond());
    return { label, values: value, vocab: 0, valid: false };
  }
  if (roll < 0.18) return { label: 'Float32Array(0)', values: new Float32Array(0), vocab: 0, valid: false };
  const vocab = random.pick(SMALL_VOCABULARIES);
  if (roll < 0.3) {
    const { label, values } = corrupted(random, vocab);
    return { label, values, vocab, valid: false };
  }
  const form = random.pick(['Float32Array', 'Float64Array', 'number[]']);
  const values = form === 'Float32Array' ? inputs.logits32(vocab).slice()
    : form === 'Float64Array' ? inputs.logits64(vocab).slice() : Array.from(inputs.logits32(vocab));
  return { label: `${form}(${vocab})`, values, vocab, valid: true };
}

const ID_LISTS = ['allowedTokens', 'bannedTokens', 'generatedIds', 'dry.sequenceBreakers'];

/** An id list for this vocabulary: valid, or too long, out of range, fractional, holey or far beyond. */
function randomIdList(random: Random, vocab: number): Trial {
  const V = lab.maxVocabulary;
  const roll = random.next();
  if (roll < 0.1) return { label: 'Int32Array(V + 1)', value: inputs.idsNarrow(V + 1), valid: false };
  if (roll < 0.15) {
    const { label, value } = random.pick(farBeyond());
    return { label, value, valid: false };
  }
  if (roll < 0.25) {
    const bad = random.pick([vocab, -1, 1.5, 2 ** 31, NaN, '1']);
    return { label: `[0, ${String(bad)}]`, value: [0, bad], valid: false };
  }
  if (roll < 0.3) return { label: '[0, hole, 0]', value: [0, , 0], valid: false };
  const length = random.pick([0, 1, 2, 10, 100]);
  const ids = Int32Array.from({ length }, (_, i) => i % vocab);
  return random.chance(0.5) ? { label: `Int32Array(${length})`, value: ids, valid: true } : { label: `number[${length}]`, value: Array.from(ids), valid: true };
}

/** 0 to 3 sampling options, each a schema trial or a list; `valid` when each one is within the schema. */
function randomOptions(random: Random, vocab: number): { label: string; options: Record<string, unknown>; valid: boolean } {
  const options: Record<string, unknown> = {};
  const labels: string[] = [];
  let valid = true;
  const scalars = lab.options.filter((spec: OptionSpec) => spec.kind !== 'array' && spec.kind !== 'bitmask');
  for (let k = random.int(4); k > 0; k--) {
    let name: string;
    let trial: Trial;
    const roll = random.next();
    if (roll < 0.15) {
      name = random.pick(ID_LISTS);
      trial = randomIdList(random, vocab);
    } else if (roll < 0.2) {
      name = 'logitBias';
      const ids = randomIdList(random, vocab);
      const length = (ids.value as ArrayLike<unknown>)?.length;
      const sameLength = ids.valid && random.chance(0.8);
      const biases = sameLength ? new Float32Array(length).fill(0.5) : new Float32Array(3);
      trial = { label: `[${ids.label}, biases]`, value: [ids.value, biases], valid: ids.valid && (sameLength || length === 3) };
    } else if (roll < 0.25) {
      name = 'order';
      trial = random.pick<Trial>([
        { label: "'llama.cpp'", value: 'llama.cpp', valid: true },
        { label: 'every stage', value: [...lab.stageNames], valid: true },
        { label: "['nosuch']", value: ['nosuch'], valid: false },
        { label: '[]', value: [], valid: false },
        { label: 'a stage twice', value: [...lab.stageNames, 'topK'], valid: false },
      ]);
    } else {
      const spec = random.pick(scalars);
      name = spec.name;
      const trials = scalarTrials(spec);
      // Mostly valid values, so that calls also get past the checks.
      trial = random.pick(random.chance(0.6) ? trials.filter((t) => t.valid) : trials);
    }
    // A name drawn twice would let a valid value hide an invalid one.
    if (labels.some((label) => label.startsWith(`${name}:`))) continue;
    mergeOption(options, name, trial.value);
    labels.push(`${name}: ${trial.label}`);
    valid &&= trial.valid;
  }
  return { label: `{ ${labels.join(', ')} }`, options, valid };
}

/** Random distribution/stages/sampleToken calls: rejected when anything is outside the schema, else either. */
function* randomTokenCalls(random: Random, count: number): Iterable<Case> {
  for (let i = 0; i < count; i++) {
    const logits = randomLogits(random);
    const { label, options, valid } = randomOptions(random, Math.max(logits.vocab, 1));
    const wanted: Outcome = logits.valid && valid ? 'either' : 'reject';
    const values = logits.values as number[];
    const vocab = logits.vocab;
    switch (random.int(4)) {
      case 0:
        yield { label: `distribution(${logits.label}, ${label})`, call: () => lab.distribution(values, options), expect: wanted, check: (r) => checkDistribution(r, vocab) };
        break;
      case 1:
        yield { label: `stages(${logits.label}, ${label})`, call: () => lab.stages(values, options), expect: wanted, check: (r) => checkStages(r, vocab, lab) };
        break;
      case 2:
        yield { label: `sampleToken(${logits.label}, ${label})`, call: () => lab.sampleToken(values, options), expect: wanted, check: (r) => checkToken(r, vocab) };
        break;
      default: {
        const logprobs = random.pick([0, 1, 5, 20, 21, -1, 1.5, NaN, '5']);
        const logprobsMode = random.pick(['raw', 'processed', undefined, 'other']);
        const ok = Number.isInteger(logprobs) && (logprobs as number) >= 0 && (logprobs as number) <= 20 && logprobsMode !== 'other';
        yield {
          label: `sampleToken(${logits.label}, { logprobs: ${String(logprobs)}, logprobsMode: ${String(logprobsMode)}, ...${label} })`,
          call: () => lab.sampleToken(values, { ...options, logprobs: logprobs as number, logprobsMode: logprobsMode as 'raw' }),
          expect: ok ? wanted : 'reject',
          check: (r) => checkLogprobs(r, vocab, logprobs as number),
        };
      }
    }
  }
}

it('distribution and stages: logits at, around and far past 2^24 entries, in every form', () => runGroup('distribution, stages', function* () {
  const V = lab.maxVocabulary;
  const zeros = new DenseArray(2 * V, 0);
  const atLimit: [string, (n: number) => unknown][] = [
    ['Float32Array', (n) => inputs.logits32(n)],
    ['Float64Array', (n) => inputs.logits64(n)],
    ['number[]', (n) => zeros.at(n)],
  ];
  for (const [form, make] of atLimit) {
    const logits = make(V) as number[];
    yield { label: `distribution(${form}(2^24))`, call: () => lab.distribution(logits), expect: 'accept', check: (r) => checkDistribution(r, V) };
    const over = make(V + 1) as number[];
    yield { label: `distribution(${form}(2^24 + 1))`, call: () => lab.distribution(over), expect: 'reject' };
  }
  const logits = inputs.logits32(V);
  yield { label: 'distribution(Float32Array(2^24 − 1))', call: () => lab.distribution(inputs.logits32(V - 1)), expect: 'accept', check: (r) => checkDistribution(r, V - 1) };
  yield { label: 'distribution(Float32Array(2^25))', call: () => lab.distribution(inputs.logits32(2 * V)), expect: 'reject' };
  const twice = zeros.at(2 * V);
  yield { label: 'distribution(number[2^25])', call: () => lab.distribution(twice), expect: 'reject' };
  zeros.at(0);
  for (const { label, value } of [...farBeyond(), { label: 'array proxy of 2^24 + 1 entries', value: readCountingProxy(V + 1) }]) {
    yield { label: `distribution(${label})`, call: () => lab.distribution(value as number[]), expect: 'reject' };
    yield { label: `stages(${label})`, call: () => lab.stages(value as number[]), expect: 'reject' };
  }
  const chain = { temperature: 0.7, typicalP: 0.9, topNSigma: 2, xtc: { probability: 1, threshold: 0.001 }, minP: 0.01, order: 'llama.cpp' } as const;
  yield { label: 'distribution(2^24, every truncation, llama.cpp order)', call: () => lab.distribution(logits, chain), expect: 'accept', check: (r) => checkDistribution(r, V) };
  yield { label: 'distribution(2^24, mirostat 2)', call: () => lab.distribution(logits, { mirostat: { version: 2, tau: 3 } }), expect: 'accept', check: (r) => checkDistribution(r, V) };
  const masked = { topK: 40, typicalP: 0.8, allowedTokens: inputs.idsWide(V / 2) };
  yield { label: 'stages(2^24, topK, typicalP, 2^23 allowed)', call: () => lab.stages(logits, masked), expect: 'accept', check: (r) => checkStages(r, V, lab) };
  yield { label: 'stages(2^24 + 1)', call: () => lab.stages(inputs.logits32(V + 1), { topK: 5 }), expect: 'reject' };
  // A bad value in the last entry is found only by reading the whole (valid-sized) input.
  for (const bad of [NaN, Infinity, -Infinity]) {
    const saved = logits[V - 1];
    logits[V - 1] = bad;
    const masked = bad === -Infinity;  // a masked token, not an error
    yield { label: `distribution(2^24 with ${bad} last)`, call: () => lab.distribution(logits), expect: masked ? 'accept' : 'reject', rejectMs: ACCEPT_MS, ...(masked && { check: (r: unknown) => checkDistribution(r, V) }) };
    logits[V - 1] = saved;
  }
  yield { label: 'distribution(all −∞)', call: () => lab.distribution([-Infinity, -Infinity]), expect: 'reject' };
  yield { label: 'distribution(Float64Array beyond float range)', call: () => lab.distribution(Float64Array.of(1, 1e39)), expect: 'either', check: (r) => checkDistribution(r, 2) };
  yield* randomTokenCalls(new Random(1), 300);
}));

it('sampleToken with and without logprobs: 2^24 logits, a resident buffer, and every scalar option at and past its bounds', () => runGroup('sampleToken', function* () {
  const V = lab.maxVocabulary;
  const logits = inputs.logits32(V);
  for (const [form, values] of [['Float32Array', logits], ['Float64Array', inputs.logits64(V)], ['number[]', new DenseArray(V, 0).at(V)]] as const) {
    yield { label: `sampleToken(${form}(2^24), topP, seed)`, call: () => lab.sampleToken(values as number[], { topP: 0.9, seed: 1 }), expect: 'accept', check: (r) => checkToken(r, V) };
  }
  for (const logprobsMode of ['raw', 'processed'] as const) {
    yield {
      label: `sampleToken(2^24, { logprobs: 20, logprobsMode: '${logprobsMode}' })`,
      call: () => lab.sampleToken(logits, { topP: 0.9, seed: 1, logprobs: 20, logprobsMode }),
      expect: 'accept',
      check: (r) => checkLogprobs(r, V, 20),
    };
  }
  yield { label: 'sampleToken(2^24 + 1)', call: () => lab.sampleToken(inputs.logits32(V + 1)), expect: 'reject' };
  yield { label: 'sampleToken(2^24 + 1, logprobs)', call: () => lab.sampleToken(inputs.logits32(V + 1), { logprobs: 1 }), expect: 'reject' };
  for (const { label, value } of farBeyond()) {
    yield { label: `sampleToken(${label})`, call: () => lab.sampleToken(value as number[]), expect: 'reject' };
  }
  // The zero-copy path: the model's logits written straight into WebAssembly memory.
  let argmax = 0;
  for (let i = 1; i < V; i++) if (logits[i] > logits[argmax]) argmax = i;
  let resident: Float32Array | undefined;
  yield { label: 'logitsBuffer(2^24)', call: () => (resident = lab.logitsBuffer(V)), expect: 'accept', check: (r) => checkLength(r, Float32Array, V) };
  if (resident) {
    resident.set(logits);
    const buffer = resident;
    yield { label: 'sampleToken(logitsBuffer(2^24), greedy)', call: () => lab.sampleToken(buffer, { temperature: 0 }), expect: 'accept', check: (r) => expect(r).toBe(argmax) };
    yield { label: 'sampleToken(logitsBuffer(2^24), logprobs)', call: () => lab.sampleToken(buffer, { logprobs: 3, seed: 2 }), expect: 'accept', check: (r) => checkLogprobs(r, V, 3) };
  }
  for (const trial of scalarTrials(integerSpec(0, 20))) {
    yield { label: `sampleToken(FOUR, { logprobs: ${trial.label} })`, call: () => lab.sampleToken(FOUR, { logprobs: trial.value as number }), expect: outcome(trial.valid), check: (r) => checkLogprobs(r, 4, trial.value as number) };
  }
  yield { label: "sampleToken(FOUR, { logprobs: 2, logprobsMode: 'other' })", call: () => lab.sampleToken(FOUR, { logprobs: 2, logprobsMode: 'other' as never }), expect: 'reject' };
  for (const spec of lab.options.filter((o: OptionSpec) => o.kind !== 'array' && o.kind !== 'bitmask')) {
    for (const trial of scalarTrials(spec)) {
      const options = optionOf(spec.name, trial.value);
      yield { label: `sampleToken(FOUR, { ${spec.name}: ${trial.label} })`, call: () => lab.sampleToken(FOUR, options), expect: outcome(trial.valid), check: (r) => checkToken(r, 4) };
    }
  }
  yield* randomTokenCalls(new Random(2), 300);
}));

/** The id lists and logitBias at 2^24 entries and one past, as Int32Array and number[]. */
it('option lists at 2^24 entries and past: sampleToken, distribution and checkOptions', () => runGroup('option lists', function* () {
  const V = lab.maxVocabulary;
  const zeros = new DenseArray(V + 1, 0);
  for (const name of ID_LISTS) {
    const ids = inputs.idsNarrow(V);
    yield { label: `sampleToken(FOUR, { ${name}: Int32Array(2^24) })`, call: () => lab.sampleToken(FOUR, optionOf(name, ids)), expect: 'accept', check: (r) => checkToken(r, 4) };
    yield { label: `checkOptions({ ${name}: Int32Array(2^24) }, 4)`, call: () => lab.checkOptions(optionOf(name, ids), 4), expect: 'accept' };
    const over = inputs.idsNarrow(V + 1);
    yield { label: `sampleToken(FOUR, { ${name}: Int32Array(2^24 + 1) })`, call: () => lab.sampleToken(FOUR, optionOf(name, over)), expect: 'reject' };
    yield { label: `checkOptions({ ${name}: Int32Array(2^24 + 1) })`, call: () => lab.checkOptions(optionOf(name, over)), expect: 'reject' };
    // Valid-sized lists beside 2^24 logits: a list check must not wait for the logits to be copied.
    yield { label: `sampleToken(2^24, { ${name}: Int32Array(2^24 + 1) })`, call: () => lab.sampleToken(inputs.logits32(V), optionOf(name, over)), expect: 'reject' };
    for (const { label, value } of farBeyond()) {
      yield { label: `sampleToken(FOUR, { ${name}: ${label} })`, call: () => lab.sampleToken(FOUR, optionOf(name, value)), expect: 'reject' };
    }
    yield { label: `sampleToken(FOUR, { ${name}: ids with 4 })`, call: () => lab.sampleToken(FOUR, optionOf(name, [0, 4])), expect: 'reject' };
    yield { label: `sampleToken(FOUR, { ${name}: ids with a hole })`, call: () => lab.sampleToken(FOUR, optionOf(name, [0, , 1])), expect: 'reject' };
  }
  const allowed = zeros.at(V);
  yield { label: 'sampleToken(FOUR, { allowedTokens: number[2^24] })', call: () => lab.sampleToken(FOUR, { allowedTokens: allowed }), expect: 'accept', check: (r) => expect(r).toBe(0) };
  const tooMany = zeros.at(V + 1);
  yield { label: 'sampleToken(FOUR, { allowedTokens: number[2^24 + 1] })', call: () => lab.sampleToken(FOUR, { allowedTokens: tooMany }), expect: 'reject' };
  yield { label: 'sampleToken(2^24, { allowedTokens: every id, 2^24 })', call: () => lab.sampleToken(inputs.logits32(V), { allowedTokens: inputs.idsWide(V), seed: 4 }), expect: 'accept', check: (r) => checkToken(r, V) };
  yield { label: 'distribution(FOUR, { bannedTokens: Int32Array(2^24) })', call: () => lab.distribution(FOUR, { bannedTokens: inputs.idsNarrow(V) }), expect: 'accept', check: (r) => expect(r.probs[3]).toBe(1) };

  const pair = [inputs.idsNarrow(V), inputs.biases(V)];
  yield { label: 'sampleToken(FOUR, { logitBias: [Int32Array(2^24), Float32Array(2^24)] })', call: () => lab.sampleToken(FOUR, { logitBias: pair }), expect: 'accept', check: (r) => checkToken(r, 4) };
  yield { label: 'sampleToken(FOUR, { logitBias: [2^24 + 1 ids, 2^24 + 1 biases] })', call: () => lab.sampleToken(FOUR, { logitBias: [inputs.idsNarrow(V + 1), inputs.biases(V + 1)] }), expect: 'reject' };
  yield { label: 'sampleToken(FOUR, { logitBias: [2^24 ids, 2^24 − 1 biases] })', call: () => lab.sampleToken(FOUR, { logitBias: [inputs.idsNarrow(V), inputs.biases(V - 1)] }), expect: 'reject' };
  yield { label: 'checkOptions({ logitBias: [2^24 + 1 ids, 2^24 + 1 biases] })', call: () => lab.checkOptions({ logitBias: [inputs.idsNarrow(V + 1), inputs.biases(V + 1)] }), expect: 'reject' };
  const bias = zeros.at(V);
  yield { label: 'sampleToken(FOUR, { logitBias: [number[2^24], number[2^24]] })', call: () => lab.sampleToken(FOUR, { logitBias: [bias, bias] }), expect: 'accept', check: (r) => checkToken(r, 4) };
  for (const { label, value } of farBeyond()) {
    yield { label: `sampleToken(FOUR, { logitBias: [${label}, biases] })`, call: () => lab.sampleToken(FOUR, { logitBias: [value, [1]] }), expect: 'reject' };
    yield { label: `sampleToken(FOUR, { logitBias: [[0], ${label}] })`, call: () => lab.sampleToken(FOUR, { logitBias: [[0], value] }), expect: 'reject' };
  }
  yield { label: 'sampleToken(FOUR, { logitBias: [[0], [NaN]] })', call: () => lab.sampleToken(FOUR, { logitBias: [[0], [NaN]] }), expect: 'reject' };

  // order names at most the 12 stages.
  yield { label: 'sampleToken(FOUR, { order: every stage })', call: () => lab.sampleToken(FOUR, { order: [...lab.stageNames] }), expect: 'accept', check: (r) => checkToken(r, 4) };
  yield { label: 'sampleToken(FOUR, { order: 13 stages })', call: () => lab.sampleToken(FOUR, { order: [...lab.stageNames, 'topK'] }), expect: 'reject' };
  const longOrder = zeros.at(V + 1);
  yield { label: 'sampleToken(FOUR, { order: number[2^24 + 1] })', call: () => lab.sampleToken(FOUR, { order: longOrder as never }), expect: 'reject' };
  for (const { label, value } of farBeyond()) {
    yield { label: `sampleToken(FOUR, { order: ${label} })`, call: () => lab.sampleToken(FOUR, { order: value as never }), expect: 'reject' };
  }

  for (const trial of scalarTrials(integerSpec(1, V))) {
    yield { label: `checkOptions({ topK: 3 }, ${trial.label})`, call: () => lab.checkOptions({ topK: 3 }, trial.value as number), expect: outcome(trial.valid) };
  }
}));

it('logitBias as { [tokenId]: bias } with 65,536 keys, and one more', () => runGroup('logitBias object', function* () {
  const V = lab.maxVocabulary;
  const biases: Record<number, number> = {};
  for (let id = 0; id < OBJECT_BIAS_KEYS; id++) biases[id] = 0.25;
  const logits = inputs.logits32(V);
  yield { label: 'sampleToken(2^24, { logitBias: 65,536 keys })', call: () => lab.sampleToken(logits, { logitBias: biases }), expect: 'accept', check: (r) => checkToken(r, V) };
  biases[OBJECT_BIAS_KEYS] = 0.25;
  yield { label: 'sampleToken(FOUR, { logitBias: 65,537 keys })', call: () => lab.sampleToken(FOUR, { logitBias: biases }), expect: 'reject' };
}));

it('sampleBatch: 2^14 rows and 2^24 logits, as options and as columns, matrix and flat, and past each limit', () => runGroup('sampleBatch', function* () {
  const V = lab.maxVocabulary;
  const R = lab.maxBatchRows;
  const width = V / R;
  const flat = inputs.logits32(V);
  const matrix = Array.from({ length: R }, (_, r) => flat.subarray(r * width, (r + 1) * width));
  const perRow = Array.from({ length: R }, (_, r) => ({ topK: 1 + (r % 50), seed: r }));
  const fewerRows = perRow.slice(1);
  const columns = { topP: new Float64Array(R).fill(0.9), seed: Float64Array.from({ length: R }, (_, r) => r), step: 3 };
  const tokens = (rows: number, of: number) => (r: unknown) => checkTokens(r, rows, of);
  yield { label: 'sampleBatch(flat 2^24, 2^14 option objects)', call: () => lab.sampleBatch(flat, perRow), expect: 'accept', check: tokens(R, width) };
  yield { label: 'sampleBatch(flat 2^24, 2^14-row columns)', call: () => lab.sampleBatch(flat, columns), expect: 'accept', check: tokens(R, width) };
  yield { label: 'sampleBatch(2^14 × 1024 matrix, option objects)', call: () => lab.sampleBatch(matrix, perRow), expect: 'accept', check: tokens(R, width) };
  yield { label: 'sampleBatch(2^14 × 1024 matrix, columns)', call: () => lab.sampleBatch(matrix, columns), expect: 'accept', check: tokens(R, width) };
  yield { label: 'sampleBatch(one row of 2^24)', call: () => lab.sampleBatch([flat], [{ topP: 0.5 }]), expect: 'accept', check: tokens(1, V) };
  yield { label: 'sampleBatch(flat (2^14 − 1) × 1024)', call: () => lab.sampleBatch(flat.subarray(0, (R - 1) * width), fewerRows), expect: 'accept', check: tokens(R - 1, width) };
  // Past the rows limit, the vocabulary limit and rows × width.
  const overRows = [...perRow, {}];
  yield { label: 'sampleBatch(flat, 2^14 + 1 option objects)', call: () => lab.sampleBatch(inputs.logits32(R + 1), overRows), expect: 'reject' };
  yield { label: 'sampleBatch(flat, 2^14 + 1-row column)', call: () => lab.sampleBatch(inputs.logits32(R + 1), { seed: new Float64Array(R + 1) }), expect: 'reject' };
  const rowsOfOne = Array.from({ length: R + 1 }, (_, r) => flat.subarray(r, r + 1));
  yield { label: 'sampleBatch(2^14 + 1 rows of 1)', call: () => lab.sampleBatch(rowsOfOne, { seed: 1 }), expect: 'reject' };
  yield { label: 'sampleBatch(two rows of 2^24)', call: () => lab.sampleBatch([flat, inputs.logits32(2 * V).subarray(V)], [{}, {}]), expect: 'reject' };
  yield { label: 'sampleBatch(flat 2^14 × 1025)', call: () => lab.sampleBatch(inputs.logits32(R * (width + 1)), perRow), expect: 'reject' };
  const wide = Array.from({ length: R }, (_, r) => inputs.logits32(2 * V).subarray(r * 2 * width, (r + 1) * 2 * width));
  yield { label: 'sampleBatch(2^14 × 2048 matrix)', call: () => lab.sampleBatch(wide, { seed: 1 }), expect: 'reject' };
  // Shapes: they are facts about lengths, found without reading the logits.
  yield { label: 'sampleBatch(flat 2^24, 2^14 − 1 option objects)', call: () => lab.sampleBatch(flat, fewerRows), expect: 'reject' };
  const shortColumn = { ...columns, seed: new Float64Array(R - 1) };
  yield { label: 'sampleBatch(flat 2^24, seed column of 2^14 − 1)', call: () => lab.sampleBatch(flat, shortColumn), expect: 'reject' };
  const ragged = [...matrix.slice(1), flat.subarray(0, width - 1)];
  yield { label: 'sampleBatch(matrix, one row shorter)', call: () => lab.sampleBatch(ragged, perRow), expect: 'reject' };
  const holey = [...perRow];
  delete holey[R - 1];
  yield { label: 'sampleBatch(matrix, option objects with a hole)', call: () => lab.sampleBatch(matrix, holey), expect: 'reject' };
  // Lists per row: each at the list limit, and one list shared by 2^14 rows.
  const ids = inputs.idsNarrow(V);
  yield { label: 'sampleBatch(2 rows, allowedTokens of 2^24 each)', call: () => lab.sampleBatch([FOUR, FOUR], [{ allowedTokens: ids }, { bannedTokens: ids }]), expect: 'accept', check: tokens(2, 4) };
  yield { label: 'sampleBatch(2 rows, generatedIds column of 2^24 each)', call: () => lab.sampleBatch([FOUR, FOUR], { generatedIds: [ids, ids], repetitionPenalty: 1.2 }), expect: 'accept', check: tokens(2, 4) };
  yield { label: 'sampleBatch(2 rows, allowedTokens of 2^24 + 1)', call: () => lab.sampleBatch([FOUR, FOUR], [{}, { allowedTokens: inputs.idsNarrow(V + 1) }]), expect: 'reject' };
  for (const { label, value } of farBeyond()) {
    yield { label: `sampleBatch(${label}, [{}])`, call: () => lab.sampleBatch(value as Float32Array, [{}]), expect: 'reject' };
    yield { label: `sampleBatch(FOUR, ${label} as options)`, call: () => lab.sampleBatch(FOUR, value as never), expect: 'reject' };
    yield { label: `sampleBatch([FOUR], { seed: ${label} })`, call: () => lab.sampleBatch([FOUR], { seed: value as never }), expect: 'reject' };
  }
  // Random batches: a few rows, options as objects or columns, some of them bad.
  const random = new Random(3);
  for (let i = 0; i < 200; i++) {
    const rows = 1 + random.int(6);
    const vocab = random.pick(SMALL_VOCABULARIES);
    const asMatrix = random.chance(0.5);
    const source = inputs.logits32(rows * vocab).slice();
    const logits = asMatrix ? Array.from({ length: rows }, (_, r) => source.subarray(r * vocab, (r + 1) * vocab)) : source;
    const drawn = Array.from({ length: rows }, () => randomOptions(random, vocab));
    let options: unknown = drawn.map((d) => d.options);
    let label = `[${drawn.map((d) => d.label).join(', ')}]`;
    let valid = drawn.every((d) => d.valid);
    if (random.chance(0.5)) {
      const topP = Array.from({ length: rows }, () => random.pick([0.5, 0.9, 1, 0, 1.5, NaN]));
      const seedRows = rows + (random.chance(0.1) ? random.pick([-1, 1]) : 0);
      options = { topP, seed: Float64Array.from({ length: seedRows }, (_, r) => r), temperature: random.pick([0, 0.8, -1]) };
      label = `{ topP: [${topP}], seed: ${seedRows} rows, temperature }`;
      valid = topP.every((p) => p > 0 && p <= 1) && seedRows === rows && (options as { temperature: number }).temperature >= 0;
    }
    yield {
      label: `sampleBatch(${asMatrix ? 'matrix' : 'flat'} ${rows} × ${vocab}, ${label})`,
      call: () => lab.sampleBatch(logits, options as never),
      expect: valid ? 'either' : 'reject',
      check: tokens(rows, vocab),
    };
  }
  // Last, since a rejected shared-list batch has left the instance failing every later call (the canary tells).
  const narrowRows = inputs.logits32(4 * R);
  yield { label: 'sampleBatch(2^14 rows of 4, one allowedTokens of 2^24 shared)', call: () => lab.sampleBatch(narrowRows, { allowedTokens: ids, seed: columns.seed }), expect: 'either', check: tokens(R, 4) };
  const sevenRows = inputs.logits32(4 * 7);
  yield { label: 'sampleBatch(7 rows of 4, one allowedTokens of 2^24 shared)', call: () => lab.sampleBatch(sevenRows, { allowedTokens: ids, seed: columns.seed.subarray(0, 7) }), expect: 'either', check: tokens(7, 4) };
}));

/** Calls on one sampler, each a case (the sampler is made by the first). */
function* samplerCalls(name: string, make: () => Sampler, historyLength: number, logits: Float32Array, afterReset: number): Iterable<Case> {
  let sampler: Sampler | undefined;
  yield { label: `createSampler(${name})`, call: () => (sampler = make()), expect: 'accept' };
  if (!sampler) return;
  const live = sampler;
  const vocab = logits.length;
  yield { label: 'sampler.sample(1000 logits)', call: () => live.sample(logits), expect: 'accept', check: (r) => checkToken(r, vocab) };
  yield { label: 'sampler.accept(2)', call: () => live.accept(2), expect: 'accept' };
  const checkState = (length: number) => (state: Sampler['state']) => {
    expect(state.history).toHaveLength(length);
    expect(Number.isInteger(state.step) && state.step >= 0).toBe(true);
    expect(state.mirostatMu === null || Number.isFinite(state.mirostatMu)).toBe(true);
  };
  yield { label: 'sampler.state', call: () => live.state, expect: 'accept', check: checkState(historyLength + 2) };
  let copy: Sampler | undefined;
  yield { label: 'sampler.clone()', call: () => (copy = live.clone()), expect: 'accept' };
  if (copy) {
    const clone = copy;
    yield { label: 'clone.sample(1000 logits)', call: () => clone.sample(logits), expect: 'accept', check: (r) => checkToken(r, vocab) };
  }
  yield { label: 'sampler.reset()', call: () => live.reset(), expect: 'accept' };
  yield { label: 'sampler.state after reset', call: () => live.state.history.length, expect: 'accept', check: (r) => expect(r).toBe(afterReset) };
  yield { label: 'sampler.sample(2^24 + 1 logits)', call: () => live.sample(inputs.logits32(lab.maxVocabulary + 1)), expect: 'reject' };
  for (const { label, value } of farBeyond()) {
    yield { label: `sampler.sample(${label})`, call: () => live.sample(value as Float32Array), expect: 'reject' };
  }
  for (const trial of scalarTrials(integerSpec(0, lab.maxVocabulary - 1))) {
    yield { label: `sampler.accept(${trial.label})`, call: () => live.accept(trial.value as number), expect: outcome(trial.valid) };
  }
}

it('createSampler with generatedIds of 2^24 tokens: sample, accept, state, clone, reset', () => runGroup('createSampler (2^24 generatedIds)', function* () {
  const V = lab.maxVocabulary;
  const logits = inputs.logits32(1000);
  const options = { generatedIds: inputs.idsNarrow(V), repetitionPenalty: 1.1, frequencyPenalty: 0.1, dry: { multiplier: 0.8, penaltyLastN: 256 }, seed: 3 };
  yield* samplerCalls('{ generatedIds: Int32Array(2^24), penalties, DRY }', () => lab.createSampler(options), V, logits, V);
  // DRY is one pass over its window, however repetitive, with the breakers sorted once (issue 28).
  const breakers = Int32Array.from({ length: 1024 }, (_, i) => i + 3);
  const wide = inputs.logits32(4096);
  yield {
    label: 'sampleToken(4096 logits, { generatedIds: Int32Array(2^24) of 0, 1, 2, dry with 2^10 sequenceBreakers })',
    call: () => lab.sampleToken(wide, { generatedIds: inputs.idsNarrow(V), dry: { multiplier: 0.8, sequenceBreakers: breakers }, seed: 1 }),
    expect: 'accept', check: (r) => checkToken(r, 4096),
  };
  // reset() goes back to the options' start (their generatedIds), not to a restored state.
  const history = new DenseArray(V, 0).at(V);
  yield* samplerCalls('{}, { history: number[2^24] }', () => lab.createSampler({ seed: 5 }, { history, step: 0, mirostatMu: null }), V, logits, 0);
  yield { label: 'createSampler({ generatedIds: Int32Array(2^24 + 1) })', call: () => lab.createSampler({ generatedIds: inputs.idsNarrow(V + 1) }), expect: 'reject' };
  for (const { label, value } of farBeyond()) {
    yield { label: `createSampler({ generatedIds: ${label} })`, call: () => lab.createSampler({ generatedIds: value as number[] }), expect: 'reject' };
  }
  const random = new Random(4);
  for (let i = 0; i < 150; i++) {
    const { label, options: drawn, valid } = randomOptions(random, 1000);
    yield { label: `createSampler(${label}).sample(1000 logits)`, call: () => lab.createSampler(drawn).sample(logits), expect: valid ? 'either' : 'reject', check: (r) => checkToken(r, 1000) };
  }
}));

it('a sampler state with lab.maxHistory (2^25) tokens, and past it', () => runGroup('createSampler (maxHistory)', function* () {
  const H = lab.maxHistory;
  const logits = inputs.logits32(1000);
  const history = new DenseArray(H + 1, 3);
  const state = (length: number) => ({ history: history.at(length), step: 0, mirostatMu: null });
  let sampler: Sampler | undefined;
  const almostFull = state(H - 1);
  yield { label: 'createSampler({ repetitionPenalty }, 2^25 − 1 history)', call: () => (sampler = lab.createSampler({ repetitionPenalty: 1.1 }, almostFull)), expect: 'accept' };
  if (sampler) {
    const live = sampler;
    yield { label: 'sampler.sample() to 2^25 tokens', call: () => live.sample(logits), expect: 'accept', check: (r) => checkToken(r, 1000) };
    yield { label: 'sampler.sample() past 2^25 tokens', call: () => live.sample(logits), expect: 'reject' };
    yield { label: 'sampler.accept(1) past 2^25 tokens', call: () => live.accept(1), expect: 'reject' };
    yield { label: 'sampler.state at 2^25 tokens', call: () => live.state.history.length, expect: 'accept', check: (r) => expect(r).toBe(H) };
    yield { label: 'sampler.clone() at 2^25 tokens', call: () => live.clone(), expect: 'accept' };
    yield { label: 'sampler.reset() to 2^25 − 1 tokens', call: () => live.reset(), expect: 'accept' };
  }
  sampler = undefined;
  const overFull = state(H + 1);
  yield { label: 'createSampler({}, 2^25 + 1 history)', call: () => lab.createSampler({}, overFull), expect: 'reject' };
  history.at(0);
  for (const { label, value } of farBeyond()) {
    yield { label: `createSampler({}, { history: ${label} })`, call: () => lab.createSampler({}, { history: value as number[], step: 0, mirostatMu: null }), expect: 'reject' };
  }
  for (const trial of scalarTrials(integerSpec(0, 2 ** 53 - 1))) {
    yield { label: `createSampler({}, { step: ${trial.label} }).sample`, call: () => lab.createSampler({}, { history: [1], step: trial.value as number, mirostatMu: null }).sample(logits), expect: outcome(trial.valid), check: (r) => checkToken(r, 1000) };
  }
  const mu = lab.options.find((o: OptionSpec) => o.name === 'mirostat.mu')!;
  for (const trial of scalarTrials(mu)) {
    yield {
      label: `createSampler(mirostat 2, { mirostatMu: ${trial.label} }).sample`,
      call: () => lab.createSampler({ mirostat: { version: 2 } }, { history: [], step: 0, mirostatMu: trial.value as number }).sample(logits),
      expect: outcome(trial.valid),
      check: (r) => checkToken(r, 1000),
    };
  }
}));

const SAMPLING_METHODS = ['inverse-cdf', 'alias', 'gumbel-max', 'exponential-race'] as const;

for (const method of SAMPLING_METHODS) {
  it(`sample, ${method}: n and the vocabulary at, around and past their limits`, () => runGroup(`sample (${method})`, function* (fuzz) {
    const V = lab.maxVocabulary;
    // n ≤ 2^24; the noise methods draw one variate per token per draw: n × V ≤ 1.25·10^8 too,
    // and the tables of inverse-cdf and alias outgrow the caches: n × V ≤ 2^42.
    const noise = method === 'gumbel-max' || method === 'exponential-race';
    const most = (vocab: number) => Math.min(V, Math.floor((noise ? NOISE_VARIATES : TABLE_READS) / vocab));
    const qwen = lab.syntheticLogits();
    for (const [label, values] of [['2^24 logits', inputs.logits32(V)], ['151,936 logits', qwen]] as const) {
      const n = most(values.length);
      yield {
        label: `sample(${label}, { method: '${method}', n: ${n} })`,
        call: () => lab.sample(values, { method, n, seed: 7, onProgress: fuzz.watchdog }),
        expect: 'accept',
        check: (r) => checkTokens(r, n, values.length),
      };
      yield { label: `sample(${label}, { method: '${method}', n: ${n + 1} })`, call: () => lab.sample(values, { method, n: n + 1 }), expect: 'reject' };
    }
    yield { label: `sample(2^24 + 1 logits, '${method}')`, call: () => lab.sample(inputs.logits32(V + 1), { method }), expect: 'reject' };
    yield { label: `sample(uniform 2^24 probs, '${method}')`, call: () => lab.sample(inputs.uniform(), { method, isProbs: true }), expect: 'accept', check: (r) => checkTokens(r, 1, V) };
    for (const { label, value } of farBeyond()) {
      yield { label: `sample(${label}, '${method}')`, call: () => lab.sample(value as number[], { method }), expect: 'reject' };
    }
    for (const trial of scalarTrials(integerSpec(1, V))) {
      yield { label: `sample(FOUR, '${method}', n: ${trial.label})`, call: () => lab.sample(FOUR, { method, n: trial.value as number, onProgress: fuzz.watchdog }), expect: outcome(trial.valid), check: (r) => checkTokens(r, trial.value as number, 4) };
    }
    const seedSpec = lab.options.find((o: OptionSpec) => o.name === 'seed')!;
    for (const key of ['seed', 'stream']) {
      for (const trial of scalarTrials(seedSpec)) {
        yield { label: `sample(FOUR, '${method}', ${key}: ${trial.label})`, call: () => lab.sample(FOUR, { method, n: 2, [key]: trial.value }), expect: outcome(trial.valid), check: (r) => checkTokens(r, 2, 4) };
      }
    }
    for (const temperature of [0, 1e-30, 0.5, 1e30, -1, NaN, Infinity]) {
      yield { label: `sample(FOUR, '${method}', temperature: ${temperature})`, call: () => lab.sample(FOUR, { method, n: 2, temperature }), expect: temperature >= 0 && Number.isFinite(temperature) ? 'either' : 'reject', check: (r) => checkTokens(r, 2, 4) };
    }
    yield { label: `sample(FOUR, '${method}', isProbs: 'yes')`, call: () => lab.sample(FOUR, { method, isProbs: 'yes' as never }), expect: 'reject' };
    yield { label: `sample(FOUR, '${method}', onProgress: 5)`, call: () => lab.sample(FOUR, { method, onProgress: 5 as never }), expect: 'reject' };
  }));
}

it('sample: methods that do not exist', () => runGroup('sample (methods)', function* () {
  for (const method of ['nosuch', 5, null, '']) {
    yield { label: `sample(FOUR, { method: ${JSON.stringify(method)} })`, call: () => lab.sample(FOUR, { method: method as never }), expect: 'reject' };
  }
}));

it('randomWords, logitsBuffer, syntheticLogits and ranking at and past 2^24', () => runGroup('randomWords, logitsBuffer, syntheticLogits, ranking', function* () {
  const V = lab.maxVocabulary;
  const seedSpec = lab.options.find((o: OptionSpec) => o.name === 'seed')!;
  for (const trial of scalarTrials(integerSpec(1, V))) {
    const n = trial.value as number;
    yield { label: `randomWords(1, 2, ${trial.label})`, call: () => lab.randomWords(1, 2, n), expect: outcome(trial.valid), check: (r) => checkLength(r, Uint32Array, n) };
    yield { label: `logitsBuffer(${trial.label})`, call: () => lab.logitsBuffer(n), expect: outcome(trial.valid), check: (r) => checkLength(r, Float32Array, n) };
    // 2^24 − 1 costs as much as 2^24 and tells nothing more.
    if (n === V - 1) continue;
    yield { label: `syntheticLogits(${trial.label})`, call: () => lab.syntheticLogits(n), expect: outcome(trial.valid), check: (r: Float32Array) => { checkLength(r, Float32Array, n); checkFinite(r); } };
  }
  for (const trial of scalarTrials(seedSpec)) {
    yield { label: `randomWords(${trial.label}, 0, 4)`, call: () => lab.randomWords(trial.value as number, 0, 4), expect: outcome(trial.valid), check: (r) => checkLength(r, Uint32Array, 4) };
    yield { label: `randomWords(0, ${trial.label}, 4)`, call: () => lab.randomWords(0, trial.value as number, 4), expect: outcome(trial.valid), check: (r) => checkLength(r, Uint32Array, 4) };
    yield { label: `syntheticLogits(10, ${trial.label})`, call: () => lab.syntheticLogits(10, trial.value as number), expect: outcome(trial.valid), check: (r) => checkLength(r, Float32Array, 10) };
  }
  const logits = inputs.logits32(V);
  yield { label: 'ranking(2^24)', call: () => lab.ranking(logits), expect: 'accept', check: (r) => checkRanking(r, logits) };
  const qwenSized = logits.subarray(0, 151936);
  yield { label: 'ranking(151,936)', call: () => lab.ranking(qwenSized), expect: 'accept', check: (r) => checkRanking(r, qwenSized) };
  for (const { label, values } of oversizedArrays()) yield { label: `ranking(${label})`, call: () => lab.ranking(values), expect: 'reject' };
  const random = new Random(5);
  for (let i = 0; i < 150; i++) {
    const { label, values, valid } = randomLogits(random);
    yield { label: `ranking(${label})`, call: () => lab.ranking(values as number[]), expect: valid ? 'accept' : 'reject', check: (r) => checkRanking(r, values as number[]) };
  }
}));

it('promptLookup at lab.maxLookupContext tokens (the slowest for a direct search) and past it', () => runGroup('promptLookup', function* () {
  const L = lab.maxLookupContext;
  // Zeros with a 1 just before the end: the last 64 tokens (a 1, then zeros) agree with every run
  // of zeros for 63 tokens before failing, which a direct search pays L · 64² / 2 for.
  const adversarial = new Int32Array(L);
  adversarial[L - 64] = 1;
  const check = (r: { tokens: number[]; ngram: number }) => { if (r.tokens.length > 64 || r.ngram > 64) throw new Error('proposal too long'); };
  yield { label: 'promptLookup(maxLookupContext, ngramMax 64)', call: () => lab.promptLookup(adversarial, { ngramMax: 64, ngramMin: 1, gamma: 64 }), expect: 'accept', check };
  yield { label: 'promptLookup(all equal, maxLookupContext)', call: () => lab.promptLookup(new Int32Array(L), { ngramMax: 64, gamma: 64 }), expect: 'accept', check };
  // Several drafts: every occurrence read, each continuation told from the proposals before it.
  // A 1 every 64 zeros gives 64 continuations that share long prefixes (the dearest to compare).
  const periodic = Int32Array.from({ length: L }, (_, i) => (i % 64 === 63 ? 1 : 0));
  const checkDrafts = (r: { tokens: number[]; ngram: number; drafts: { tokens: number[] }[] }) => {
    check(r);
    if (r.drafts.length > lab.maxDrafts || new Set(r.drafts.map((d) => d.tokens.join())).size !== r.drafts.length) throw new Error('repeated or too many proposals');
  };
  for (const [name, context] of [['adversarial', adversarial], ['all equal', new Int32Array(L)], ['a 1 every 64', periodic]] as const) {
    yield { label: `promptLookup(${name}, maxLookupContext, ${lab.maxDrafts} drafts)`, call: () => lab.promptLookup(context, { ngramMax: 64, ngramMin: 1, gamma: 64, drafts: lab.maxDrafts }), expect: 'accept', check: checkDrafts };
  }
  yield { label: 'promptLookup(maxLookupContext + 1)', call: () => lab.promptLookup(new Int32Array(L + 1)), expect: 'reject' };
  for (const [name, value] of [['ngramMax', 65], ['ngramMin', 0], ['gamma', 0], ['gamma', 65], ['ngramMax', 2 ** 53], ['drafts', 0], ['drafts', 17]] as const) {
    yield { label: `promptLookup({ ${name}: ${value} })`, call: () => lab.promptLookup([1, 2, 1], { [name]: value }), expect: 'reject' };
  }
  for (const { label, value } of farBeyond()) yield { label: `promptLookup(${label})`, call: () => lab.promptLookup(value as never), expect: 'reject' };
}));

it('speculativeVerify with lab.maxDrafts drafts of lab.maxDraftTokens tokens over 2^24 logits, bestGamma with 1,024 passes, expectedTokens, and past each limit', () => runGroup('speculativeVerify (drafts), bestGamma, expectedTokens', function* () {
  const [K, G] = [lab.maxDrafts, lab.maxDraftTokens];
  // k·(γ + 1) rows of V filling 2^24 logits with the most drafts and tokens.
  const V = Math.floor(lab.maxVocabulary / (K * (G + 1)));
  const targetRows = new Float32Array(K * (G + 1) * V);
  const draftRows = new Float32Array(K * G * V);
  const drafts = Array.from({ length: K }, (_, j) => Array.from({ length: G }, (__, i) => (i + j) % V));
  const check = (r: { accepted: number; draft: number; tokens: Int32Array }) => {
    if (r.draft < 0 || r.draft >= K || r.tokens.length !== r.accepted + 1) throw new Error('malformed verification');
  };
  yield { label: `speculativeVerify(${K} drafts × ${G}, V ${V})`, call: () => lab.speculativeVerify(targetRows, draftRows, drafts, { seed: 1 }), expect: 'accept', check };
  yield { label: `speculativeVerify(${K} point drafts × ${G}, V ${V})`, call: () => lab.speculativeVerify(targetRows, null, drafts, { seed: 1 }), expect: 'accept', check };
  yield { label: `speculativeVerify(${K + 1} drafts)`, call: () => lab.speculativeVerify(targetRows, null, [...drafts, drafts[0]], { seed: 1 }), expect: 'reject' };
  yield { label: 'speculativeVerify(drafts of unequal lengths)', call: () => lab.speculativeVerify(targetRows, null, [drafts[0], drafts[1].slice(1)], { seed: 1 }), expect: 'reject' };
  yield { label: `speculativeVerify(${K} drafts × ${G + 1})`, call: () => lab.speculativeVerify(targetRows, null, drafts.map((d) => [...d, 0]), { seed: 1 }), expect: 'reject' };
  for (const j of [-1, K, 0.5, 2 ** 53]) yield { label: `nthDraftStream(0, ${j})`, call: () => lab.nthDraftStream(0, j), expect: 'reject' };
  yield { label: 'nthDraftStream(2^53 − 1, 15)', call: () => lab.nthDraftStream(2 ** 53 - 1, K - 1), expect: 'accept' };
  // bestGamma: at most 1,024 timed passes as (positions, cost) pairs; expectedTokens' γ at most maxDraftTokens.
  const passes = (n: number) => Float64Array.from({ length: 2 * n }, (_, i) => (i % 2 ? 20 + i % 7 : 1 + (i >> 1) % 9));
  const gammaCheck = (g: number) => { if (!(Number.isInteger(g) && g >= 1 && g <= G)) throw new Error(`γ ${g}`); };
  yield { label: 'bestGamma(1,024 passes, maxGamma 64)', call: () => lab.bestGamma(0.9, 1.5, passes(1024), G), expect: 'accept', check: gammaCheck };
  yield { label: 'bestGamma(1,025 passes)', call: () => lab.bestGamma(0.9, 1.5, passes(1025), 8), expect: 'reject' };
  for (const [label, args] of [['acceptance 1.5', [1.5, 1, passes(2), 8]], ['draftCost −1', [0.5, -1, passes(2), 8]], ['maxGamma 65', [0.5, 1, passes(2), G + 1]],
    ['an odd number of values', [0.5, 1, new Float64Array(3), 8]], ['a cost of NaN', [0.5, 1, Float64Array.of(2, NaN), 8]], ['0 positions', [0.5, 1, [0, 3], 8]]] as const) {
    yield { label: `bestGamma(${label})`, call: () => lab.bestGamma(...(args as unknown as [number, number, Float64Array, number])), expect: 'reject' };
  }
  for (const { label, value } of farBeyond()) yield { label: `bestGamma(passes: ${label})`, call: () => lab.bestGamma(0.5, 1, value as never, 8), expect: 'reject' };
  yield { label: 'expectedTokens(0.999999, 64)', call: () => lab.expectedTokens(0.999999, G), expect: 'accept', check: (e: number) => { if (!(e > 64 && e <= 65)) throw new Error(`E ${e}`); } };
  for (const [alpha, gamma] of [[1.5, 4], [-0.1, 4], [0.5, G + 1], [0.5, 2.5], [NaN, 4]]) {
    yield { label: `expectedTokens(${alpha}, ${gamma})`, call: () => lab.expectedTokens(alpha, gamma), expect: 'reject' };
  }
  for (const { label, value } of farBeyond()) {
    yield { label: `speculativeVerify(draftTokens: ${label})`, call: () => lab.speculativeVerify(targetRows, null, value as never), expect: 'reject' };
    yield { label: `speculativeVerify(draftTokens: [[0], ${label}])`, call: () => lab.speculativeVerify(targetRows, null, [[0], value] as never), expect: 'reject' };
  }
}));

/** Inputs no function may take: past 2^24, twice it, empty, and the far-beyond ones. */
function oversizedArrays(): { label: string; values: Float32Array }[] {
  const V = lab.maxVocabulary;
  return [
    { label: '2^24 + 1', values: inputs.logits32(V + 1) },
    { label: '2^25', values: inputs.logits32(2 * V) },
    { label: '[]', values: new Float32Array(0) },
    ...farBeyond().map(({ label, value }) => ({ label, values: value as Float32Array })),
  ];
}

it('logSumExp, coverCount, range, sum and distance at and past 2^24', () => runGroup('logSumExp, coverCount, range, sum, distance', function* () {
  const V = lab.maxVocabulary;
  const logits = inputs.logits32(V);
  const valid = [
    { label: 'Float32Array(2^24)', values: logits },
    { label: 'Float64Array(2^24)', values: inputs.logits64(V) },
  ];
  const finite = (r: number) => expect(Number.isFinite(r)).toBe(true);
  const count = (most: number) => (r: number) => expect(Number.isInteger(r) && r >= 1 && r <= most).toBe(true);
  const range = (r: { min: number; max: number }) => expect(Number.isFinite(r.min) && r.min <= r.max && Number.isFinite(r.max)).toBe(true);
  for (const { label, values } of valid) {
    yield { label: `logSumExp(${label})`, call: () => lab.logSumExp(values), expect: 'accept', check: finite };
    yield { label: `coverCount(${label}, 0.9)`, call: () => lab.coverCount(values, 0.9), expect: 'accept', check: count(V) };
    yield { label: `range(${label})`, call: () => lab.range(values), expect: 'accept', check: range };
    yield { label: `sum(${label})`, call: () => lab.sum(values), expect: 'accept', check: finite };
  }
  const zeros = new DenseArray(V, 0).at(V);
  yield { label: 'range(number[2^24])', call: () => lab.range(zeros), expect: 'accept', check: (r) => expect(r).toEqual({ min: 0, max: 0 }) };
  for (const { label, values } of oversizedArrays()) {
    yield { label: `logSumExp(${label})`, call: () => lab.logSumExp(values), expect: 'reject' };
    yield { label: `coverCount(${label}, 0.9)`, call: () => lab.coverCount(values, 0.9), expect: 'reject' };
    yield { label: `range(${label})`, call: () => lab.range(values), expect: 'reject' };
    // Σ of no values is 0; every other of these is too long.
    if (label === '[]') yield { label: 'sum([])', call: () => lab.sum(values), expect: 'accept', check: (r) => expect(r).toBe(0) };
    else yield { label: `sum(${label})`, call: () => lab.sum(values), expect: 'reject' };
    yield { label: `distance(${label}, [1])`, call: () => lab.distance(values, [1]), expect: 'reject' };
    yield { label: `distance([1], ${label})`, call: () => lab.distance([1], values), expect: 'reject' };
  }
  for (const temperature of scalarTrials({ kind: 'number', min: 0, minExclusive: true })) {
    yield { label: `logSumExp(FOUR, ${temperature.label})`, call: () => lab.logSumExp(FOUR, temperature.value as number), expect: outcome(temperature.valid), check: finite };
    yield { label: `coverCount(FOUR, 0.5, { temperature: ${temperature.label} })`, call: () => lab.coverCount(FOUR, 0.5, { temperature: temperature.value as number }), expect: temperature.value === 0 ? 'either' : outcome(temperature.valid), check: count(4) };
  }
  for (const mass of scalarTrials({ kind: 'probability', min: 0, max: 1, minExclusive: true })) {
    yield { label: `coverCount(FOUR, ${mass.label})`, call: () => lab.coverCount(FOUR, mass.value as number), expect: outcome(mass.valid), check: count(4) };
  }
  const uniform = inputs.uniform();
  yield { label: 'coverCount(uniform 2^24 probs, 0.5)', call: () => lab.coverCount(uniform, 0.5, { isProbs: true }), expect: 'accept', check: (r) => expect(r).toBe(V / 2) };
  yield { label: 'distance(uniform 2^24, uniform 2^24)', call: () => lab.distance(uniform, uniform), expect: 'accept', check: (r: { tv: number }) => { checkDistances(r as never); expect(r.tv).toBe(0); } };
  yield { label: 'distance(uniform 2^24, 2^24 − 1 entries)', call: () => lab.distance(uniform, uniform.subarray(1)), expect: 'reject' };
  yield { label: 'distance(logits as probabilities)', call: () => lab.distance(logits, logits), expect: 'reject', rejectMs: ACCEPT_MS };
  yield { label: 'distance([0.5, 0.5], [1, 0])', call: () => lab.distance([0.5, 0.5], [1, 0]), expect: 'either', check: checkDistances };
  const random = new Random(6);
  for (let i = 0; i < 200; i++) {
    const { label, values, vocab, valid } = randomLogits(random);
    const v = values as number[];
    switch (random.int(3)) {
      case 0:
        yield { label: `logSumExp(${label})`, call: () => lab.logSumExp(v, 0.5), expect: outcome(valid), check: finite };
        break;
      case 1:
        yield { label: `range(${label})`, call: () => lab.range(v), expect: outcome(valid), check: range };
        break;
      default:
        yield { label: `coverCount(${label}, 0.5)`, call: () => lab.coverCount(v, 0.5), expect: outcome(valid), check: count(vocab) };
    }
  }
}));

// ---- Experiments ----

/** Parameters that keep each experiment's default run cheap, so that the others can vary alone. */
const CHEAP: Record<string, Record<string, unknown>> = {
  temperature: { logits: [3, 1, 2, 0.5] },
  samplers: { n: 1000 },
  'mc-error': { ns: [100], repeats: 10 },
  sequence: { samples: 100 },
  speculative: { n: 1000 },
};

/** An array parameter's item spec (arrays, and optional arrays). */
function arraySpec(spec: ValueSpec): ValueSpec | undefined {
  if (spec.kind === 'array' || spec.kind === 'bitmask') return spec;
  if (spec.kind === 'optional' && spec.of?.kind === 'array') return spec.of;
  return undefined;
}

/** A valid item: 1/n for probabilities (they sum to 1), else a number inside the range. */
function itemValue(items: ValueSpec, length: number): number {
  if (items.kind === 'probability') return 1 / length;
  const lowest = items.min ?? -Infinity;
  return items.kind === 'integer' ? Math.max(1, lowest) : Math.min(Math.max(0.5, lowest), items.max ?? Infinity);
}

// number[]s are costly to build and to scan: past 2^16 entries they are tried only where the
// limit decides (its two sides), typed arrays everywhere.
const LARGE = 2 ** 16;

function arrayForms(items: ValueSpec, length: number, withNumberArray: boolean): [string, unknown][] {
  const value = itemValue(items, length);
  const forms: [string, unknown][] = [
    ['Float64Array', new Float64Array(length).fill(value)],
    ['Float32Array', new Float32Array(length).fill(value)],
  ];
  if (items.kind === 'integer') forms.push(['Int32Array', new Int32Array(length).fill(value)]);
  if (withNumberArray) forms.unshift(['number[]', new Array(length).fill(value)]);
  return forms;
}

/** Arrays of a valid length with one bad item (the last, so that all of it must be read). */
function badArrays(items: ValueSpec, length: number): [string, unknown][] {
  const value = itemValue(items, length);
  const withLast = (bad: unknown) => {
    const values: unknown[] = new Array(length).fill(value);
    values[length - 1] = bad;
    return values;
  };
  const holey = new Array(length).fill(value);
  delete holey[length - 1];
  const typed = new Float64Array(length).fill(value);
  typed[length - 1] = NaN;
  const bad: [string, unknown][] = [['NaN last', withLast(NaN)], ['a hole last', holey], ['Float64Array with NaN last', typed]];
  if (length > LARGE) return bad;
  bad.push(['Infinity last', withLast(Infinity)], ["'1' last", withLast('1')], ['1n last', withLast(1n)], ['BigInt64Array', new BigInt64Array(length)]);
  // Just below the least item (when a double can tell it apart), and far above the largest.
  if (items.min !== undefined && items.min - 1 < items.min) bad.push([`${items.min - 1} last`, withLast(items.min - 1)]);
  if (items.max !== undefined && Number.isFinite(items.max)) bad.push([`${items.max * 2 + 1} last`, withLast(items.max * 2 + 1)]);
  if (items.kind === 'integer') bad.push(['1.5 last', withLast(1.5)]);
  return bad;
}

/** Cases of runExperiment calls, each watched through onProgress and its result checked. */
const experimentCases = (fuzz: SizeFuzz) =>
  (name: string, label: string, params: Record<string, unknown>, wanted: Outcome, rejectMs?: number): Case => ({
    label: `runExperiment('${name}', ${label})`,
    call: () => lab.runExperiment(name as never, params as never, { onProgress: fuzz.watchdog }),
    expect: wanted,
    check: (r) => checkExperimentResult(r),
    rejectMs,
  });

function* schemaCases(fuzz: SizeFuzz, names: readonly string[]): Iterable<Case> {
  for (const { name, params } of lab.experiments.filter((e) => names.includes(e.name))) {
    const base = CHEAP[name] ?? {};
    const experiment = experimentCases(fuzz);
    const run = (label: string, values: Record<string, unknown>, wanted: Outcome, rejectMs?: number) =>
      experiment(name, label, { ...base, ...values }, wanted, rejectMs);
    yield run('cheap defaults', {}, 'accept');
    for (const param of params) {
      const items = arraySpec(param);
      if (!items) {
        for (const trial of scalarTrials(param)) yield run(`{ ${param.name}: ${trial.label} }`, { [param.name]: trial.value }, trial.valid ? 'either' : 'reject');
        continue;
      }
      if (param.kind === 'optional') yield run(`{ ${param.name}: null }`, { [param.name]: null }, 'either');
      const { minLength = 0, maxLength = 0 } = items;
      const lengths = new Set([minLength - 1, minLength, Math.min(4, maxLength), maxLength, maxLength + 1, 2 * maxLength].filter((n) => n >= 0));
      for (const length of lengths) {
        const valid = length >= minLength && length <= maxLength;
        const withNumberArray = length <= LARGE || length === maxLength || length === maxLength + 1;
        for (const [form, values] of arrayForms(items.items!, length, withNumberArray)) {
          yield run(`{ ${param.name}: ${form}(${length}) }`, { [param.name]: values }, valid ? 'either' : 'reject');
        }
      }
      for (const length of new Set([Math.max(minLength, 1), maxLength])) {
        // A bad last item of a large array is found only by reading all of it.
        const rejectMs = length > LARGE ? ACCEPT_MS : undefined;
        for (const [label, values] of badArrays(items.items!, length)) yield run(`{ ${param.name}: ${length} entries, ${label} }`, { [param.name]: values }, 'reject', rejectMs);
      }
      for (const { label, value } of farBeyond()) yield run(`{ ${param.name}: ${label} }`, { [param.name]: value }, 'reject');
      yield run(`{ ${param.name}: DataView }`, { [param.name]: new DataView(new ArrayBuffer(8)) }, 'reject');
    }
    yield run('{ nosuch: 1 }', { nosuch: 1 }, 'reject');
    yield { label: `runExperiment('${name}', 5)`, call: () => lab.runExperiment(name as never, 5 as never), expect: 'reject' };
    yield { label: `runExperiment('${name}', {}, { onProgress: 5 })`, call: () => lab.runExperiment(name as never, base as never, { onProgress: 5 as never }), expect: 'reject' };
  }
}

// The experiments whose arrays are vocabulary-sized, and the others.
const VOCABULARY_EXPERIMENTS = ['filters', 'temperature', 'samplers', 'speculative'];

it('runExperiment: filters, temperature, samplers and speculative, every parameter at, around and past its schema (number[] and typed arrays)', () =>
  runGroup('runExperiment (schemas 1)', (fuzz) => schemaCases(fuzz, VOCABULARY_EXPERIMENTS)));

it('runExperiment: every other experiment, every parameter at, around and past its schema, and unknown names', () => runGroup('runExperiment (schemas 2)', function* (fuzz) {
  yield* schemaCases(fuzz, lab.experiments.map((e) => e.name).filter((name) => !VOCABULARY_EXPERIMENTS.includes(name)));
  yield { label: "runExperiment('nosuch')", call: () => lab.runExperiment('nosuch' as never), expect: 'reject' };
  yield { label: 'runExperiment(5)', call: () => lab.runExperiment(5 as never), expect: 'reject' };
}));

it('runExperiment: samplers, speculative, temperature, filters and acceptance at their work budgets and array limits', () => runGroup('runExperiment (budgets 1)', function* (fuzz) {
  const E = 2 ** 20;  // the schema's array limit
  const p = new Float64Array(E).fill(1 / E);
  const run = experimentCases(fuzz);
  // samplers: n ≤ 4·10^6 and n × (len(p) + 16) ≤ 5·10^7.
  const samplerN = Math.floor(SAMPLER_VARIATES / (E + 16));
  yield run('samplers', `{ p: 2^20, n: ${samplerN} }`, { p, n: samplerN }, 'accept');
  yield run('samplers', `{ p: 2^20, n: ${samplerN + 1} }`, { p, n: samplerN + 1 }, 'reject');
  const samplerSmall = Math.floor(SAMPLER_VARIATES / (2 + 16));
  yield run('samplers', `{ p: 2 entries, n: ${samplerSmall} }`, { p: [0.5, 0.5], n: samplerSmall }, 'accept');
  yield run('samplers', `{ p: 2 entries, n: ${samplerSmall + 1} }`, { p: [0.5, 0.5], n: samplerSmall + 1 }, 'reject');
  yield run('samplers', '{ p: 2^20 + 1 }', { p: new Float64Array(E + 1).fill(1 / (E + 1)), n: 1 }, 'reject');
  // speculative: n × (len(p) + 16) ≤ 10^8, n ≤ 10^7.
  const speculativeN = Math.floor(SPECULATIVE_TOKENS / (E + 16));
  yield run('speculative', `{ p, q: 2^20, n: ${speculativeN}, gamma: 64 }`, { p, q: new Float32Array(E).fill(1 / E), n: speculativeN, gamma: 64 }, 'accept');
  yield run('speculative', `{ p: 2^20, n: ${speculativeN}, topK: 2^24, mode: 'pitfall', closeness: 1 }`, { p, n: speculativeN, topK: 2 ** 24, mode: 'pitfall', closeness: 1 }, 'accept');
  yield run('speculative', `{ p: 2^20, n: ${speculativeN + 1} }`, { p, n: speculativeN + 1 }, 'reject');
  const speculativeSmall = Math.floor(SPECULATIVE_TOKENS / (10 + 16));
  yield run('speculative', `{ p: 10 entries, n: ${speculativeSmall}, gamma: 1 }`, { p: new Array(10).fill(0.1), n: speculativeSmall, gamma: 1 }, 'accept');
  yield run('speculative', `{ p: 10 entries, n: ${speculativeSmall + 1} }`, { p: new Array(10).fill(0.1), n: speculativeSmall + 1 }, 'reject');
  yield run('speculative', '{ p: 2^20, q: 2^20 − 1 }', { p, q: new Float64Array(E - 1).fill(1 / (E - 1)), n: 1 }, 'reject');
  // temperature: at most 16 temperatures, logits at most 2^20.
  yield run('temperature', '{ logits: 2^20, 16 temperatures }', { logits: new Float32Array(E), temperatures: new Array(16).fill(1e-30), mass: 1 }, 'accept');
  yield run('temperature', '{ 17 temperatures }', { logits: [1, 2], temperatures: new Array(17).fill(1) }, 'reject');
  // filters: logits at most 2^20, every truncation on.
  const every = { topK: 1000, topP: 0.5, typicalP: 0.5, topNSigma: 1, epsilonCutoff: 1e-9, etaCutoff: 1e-9, 'xtc.probability': 1, 'mirostat.version': 2 };
  yield run('filters', '{ logits: 2^20, every truncation }', { logits: new Float32Array(E).map((_, i) => i % 97), ...every }, 'accept');
  yield run('filters', '{ logits: number[2^20] }', { logits: new Array(E).fill(0) }, 'accept');
  // acceptance: accept and tv of the same length, at most 10^6.
  const positions = 1e6;
  yield run('acceptance', '{ accept, tv: 10^6 }', { accept: new Float64Array(positions).fill(0.5), tv: new Array(positions).fill(0.5), bins: 200 }, 'accept');
  yield run('acceptance', '{ accept: 10^6, tv: 10^6 − 1 }', { accept: new Float64Array(positions).fill(0.5), tv: new Float64Array(positions - 1).fill(0.5) }, 'reject');
}));

it('runExperiment: mc-error, importance, eval-error and sample-size at their work budgets and bounds', () => runGroup('runExperiment (budgets 2)', function* (fuzz) {
  const run = experimentCases(fuzz);
  // mc-error: Σ ns × repeats ≤ 10^8.
  const mcN = MC_DRAWS / 2000;
  yield run('mc-error', `{ ns: [${mcN}], repeats: 2000 }`, { ns: [mcN], repeats: 2000 }, 'accept');
  yield run('mc-error', `{ ns: [${mcN + 1}], repeats: 2000 }`, { ns: [mcN + 1], repeats: 2000 }, 'reject');
  yield run('mc-error', `{ ns: [${MC_DRAWS / 1e6}], repeats: 10^6 }`, { ns: [MC_DRAWS / 1e6], repeats: 1e6 }, 'accept');
  const mcNs = Math.floor(MC_DRAWS / 2000 / 32);
  yield run('mc-error', `{ ns: 32 × ${mcNs}, repeats: 2000 }`, { ns: new Int32Array(32).fill(mcNs), repeats: 2000 }, 'accept');
  yield run('mc-error', '{ ns: [10^8], repeats: 2 }', { ns: [1e8], repeats: 2 }, 'reject');
  // importance: shifts × repeats × n ≤ 1.5·10^7.
  const shifts = [0, 1, 3, 4, 5];
  const importanceN = IMPORTANCE_DRAWS / shifts.length / 1000;
  yield run('importance', `{ 5 shifts, n: ${importanceN}, repeats: 1000 }`, { shifts, n: importanceN, repeats: 1000 }, 'accept');
  yield run('importance', `{ 5 shifts, n: ${importanceN + 1}, repeats: 1000 }`, { shifts, n: importanceN + 1, repeats: 1000 }, 'reject');
  const manyShifts = Float64Array.from({ length: 50 }, (_, i) => (i % 2 ? 10 : -10));
  yield run('importance', `{ 50 shifts of ±10, n: ${IMPORTANCE_DRAWS / 50 / 1000}, repeats: 1000, bins: 200 }`, { shifts: manyShifts, n: IMPORTANCE_DRAWS / 50 / 1000, repeats: 1000, bins: 200 }, 'accept');
  yield run('importance', '{ 1 shift, n: 10^7 }', { shifts: [10], n: 1e7 }, 'accept');
  yield run('importance', '{ 2 shifts, n: 10^7 }', { shifts: [-10, 10], n: 1e7 }, 'reject');
  // eval-error and sample-size: only bounds, and model B's accuracy (accuracy + gap) at most 1.
  yield run('eval-error', '{ questions: 10^9, accuracy: 0.5, gap: 0.5 }', { questions: 1e9, accuracy: 0.5, gap: 0.5 }, 'accept');
  yield run('eval-error', '{ questions: 10^9, accuracy: 1, gap: 0 }', { questions: 1e9, accuracy: 1, gap: 0 }, 'accept');
  yield run('eval-error', '{ accuracy: 1, gap: 0.5 }', { accuracy: 1, gap: 0.5 }, 'reject');
  yield run('eval-error', '{ questions: 1, accuracy: 0, gap: 0 }', { questions: 1, accuracy: 0, gap: 0 }, 'accept');
  yield run('sample-size', '{ delta: 1e-9, std: 10^6, z: 10 }', { delta: 1e-9, std: 1e6, z: 10 }, 'either');
  yield run('sample-size', "{ proportions, p1: 1e-9, p2: 0.999999999 }", { mode: 'proportions', p1: 1e-9, p2: 0.999999999 }, 'accept');
  yield run('sample-size', '{ n: 10^9 }', { n: 1e9 }, 'accept');
  // eval-error's simulated evals: evals × questions ≤ 10^7.
  yield run('eval-error', '{ questions: 1000, evals: 10^4 }', { questions: 1000, evals: 1e4 }, 'accept');
  yield run('eval-error', '{ questions: 1001, evals: 10^4 }', { questions: 1001, evals: 1e4 }, 'reject');
  yield run('eval-error', '{ questions: 10^9, evals: 1 }', { questions: 1e9, evals: 1 }, 'reject');
}));

it('runExperiment: sequence at its largest tree and at its beam budget', () => runGroup('runExperiment (sequence)', function* (fuzz) {
  const experiment = experimentCases(fuzz);
  const run = (label: string, params: Record<string, unknown>, wanted: Outcome) => experiment('sequence', label, params, wanted);
  // Handbook mode lists every leaf: vocab^depth ≤ 4096, so vocab 8, depth 4 is its largest tree
  // (585 distributions of 8); vocab 10, depth 4 is past it.
  const tree = new Float64Array(585 * 8).fill(0.125);
  // samples · depth · (vocab + 8) + leaves · depth + beam work ≤ 10^7, where a width w expands
  // Σ_t min(w, vocab^t) · vocab over the depth steps (585 · 8 for any w ≥ 512 here).
  const leafWork = 4096 * 4;
  const widths = [1e5, 1e5, 1e5, 1e5, 1e5, 1e5];
  const samples = Math.floor((BEAM_EXPANSIONS - leafWork - widths.length * 585 * 8) / (4 * 16));
  yield run(`{ handbook, vocab 8, depth 4, samples ${samples}, draws 64, 6 widths of 10^5 }`, { tree, vocab: 8, depth: 4, samples, draws: 64, widths }, 'accept');
  yield run(`{ handbook, vocab 8, depth 4, samples ${samples + 1}, … }`, { tree, vocab: 8, depth: 4, samples: samples + 1, draws: 64, widths }, 'reject');
  yield run('{ handbook, tree of 131,073 }', { tree: new Float64Array(131073).fill(0.5), vocab: 2, depth: 2 }, 'reject');
  yield run('{ handbook, vocab 10, depth 4 }', { tree: new Float64Array(1111 * 10).fill(0.1), vocab: 10, depth: 4 }, 'reject');
  yield run('{ handbook, vocab 8, depth 5 }', { tree, vocab: 8, depth: 5 }, 'reject');
  // random: models × (2 · nodes · vocab + beam work) ≤ 10^7; width 1 expands 10 per step.
  const perModel = 2 * 11111 * 10 + 10 * 5;
  const models = Math.floor(BEAM_EXPANSIONS / perModel);
  yield run(`{ random, vocab 10, depth 5, widths [1], models ${models} }`, { mode: 'random', vocab: 10, depth: 5, widths: [1], models }, 'accept');
  yield run(`{ random, vocab 10, depth 5, widths [1], models ${models + 1} }`, { mode: 'random', vocab: 10, depth: 5, widths: [1], models: models + 1 }, 'reject');
  // beam-steps: vocab^depth ≤ 10^5; unnamed, it searches models within the same budget.
  yield experiment('beam-steps', '{ vocab 8, depth 5, width 16 }', { vocab: 8, depth: 5, width: 16 }, 'accept');
  yield experiment('beam-steps', '{ vocab 2, depth 8, width 16, sharpness 100 }', { vocab: 2, depth: 8, width: 16, sharpness: 100 }, 'accept');
  yield experiment('beam-steps', '{ vocab 8, depth 6 }', { vocab: 8, depth: 6 }, 'reject');
  yield run('{ random, vocab 2, depth 10, 10^4 models, widths 32 × 10^5 }', { mode: 'random', vocab: 2, depth: 10, widths: new Array(32).fill(1e5), models: 1e4 }, 'reject');
}));

it('the driver fails a TypeError, a slow rejection, a slow call, an accepted call that must fail, a malformed result, a runaway run and a grown heap', () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  const fuzz = new SizeFuzz(lab, 'negative control', { rejectMs: 5, acceptMs: 20 }, true);
  const cases: Case[] = [
    { label: 'TypeError', call: () => (null as unknown as number[]).length, expect: 'either' },
    { label: 'slow rejection', call: () => { busy(8); return lab.distribution([]); }, expect: 'reject' },
    { label: 'slow call', call: () => busy(25), expect: 'accept' },
    { label: 'accepted', call: () => lab.distribution([1, 2]), expect: 'reject' },
    { label: 'malformed', call: () => lab.sampleToken([1, 2], { temperature: 0 }), expect: 'accept', check: (r) => checkToken(r, 1) },
    { label: 'runaway run', call: () => lab.runExperiment('mc-error', { ns: [25000], repeats: 2000 }, { onProgress: fuzz.watchdog }), expect: 'accept' },
    { label: 'good', call: () => lab.sampleToken([1, 2], { temperature: 0 }), expect: 'accept', check: (r) => expect(r).toBe(1) },
  ];
  for (const test of cases) fuzz.run(test);
  const failures = fuzz.finish(0);
  expect(failures.map((failure) => failure.split(':')[0])).toEqual(
    ['TypeError', 'slow rejection', 'slow call', 'accepted', 'malformed', 'runaway run', 'heap after the group']);
  expect(failures[5]).toMatch(/stopped through onProgress/);
  expect(fuzz.calls).toBe(cases.length);
});
