// sampling-lab/transformers on a tiny model with Qwen3's graph signature and vocabulary, built
// offline from the numpy weights its reference forward pass uses; nothing reaches the hub.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { env, Tensor, type PreTrainedModel } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, parseNpy, SamplingLabError, type Lab } from 'sampling-lab';
import { loadSamplingLab as loadExperimentLab } from 'sampling-lab/experiments';
import {
  createLogitsProcessor, generateTokens, loadHubModel, loadLocalModel, logitsRows, passageIds, positionLogits, type LoadedModel,
} from 'sampling-lab/transformers';
import { ensureTinyModel, referenceIds } from '../support/tiny-model.js';

const PASSAGE = join(__dirname, '../../web/public/sample-passage.txt');
const CLI = join(__dirname, '../../wasm/dist/entries/cli.js');
const PROMPT = '语言模型在每个位置给出一个分布';
let lab: Lab;
let fp32: LoadedModel;
let q4: LoadedModel;
let modelDir: string;

beforeAll(async () => {
  modelDir = ensureTinyModel();
  lab = await loadSamplingLab();
  fp32 = await loadLocalModel(modelDir, { dtype: 'fp32' });
  q4 = await loadLocalModel(modelDir, { dtype: 'q4' });
});

function reference(variant: 'fp32' | 'q4', index: number): Float32Array {
  const array = parseNpy(new Uint8Array(readFileSync(join(modelDir, `reference/${variant}-logits.npy`))));
  return Float32Array.from(array.data.subarray(index * 151936, (index + 1) * 151936));
}

async function manualTokens(options: object, maxNewTokens = 12): Promise<number[]> {
  const tokens: number[] = [];
  for await (const step of generateTokens(fp32.model, fp32.tokenizer, PROMPT, { lab, maxNewTokens, stopAtEos: false, ...options })) {
    tokens.push(step.token);
  }
  return tokens;
}

async function processorTokens(options: object, maxNewTokens = 12): Promise<number[]> {
  const encoded = fp32.tokenizer(PROMPT);
  const generated = await fp32.model.generate({
    ...encoded, max_new_tokens: maxNewTokens, do_sample: false, logits_processor: [createLogitsProcessor(lab, options)],
  }) as Tensor;
  return Array.from((generated.data as BigInt64Array).subarray(encoded.input_ids.dims[1]), Number);
}

describe('positionLogits', () => {
  it('equals the numpy reference forward pass of the same weights (fp32 and the INT4 draft, 1e-4)', async () => {
    const ids = referenceIds();
    for (const [variant, loaded] of [['fp32', fp32], ['q4', q4]] as const) {
      for (const index of [0, 11, ids.length - 1]) {
        const logits = await positionLogits(loaded.model, ids, index);
        const expected = reference(variant, index);
        expect(logits.length).toBe(151936);
        let worst = 0;
        for (let i = 0; i < logits.length; i++) worst = Math.max(worst, Math.abs(logits[i] - expected[i]));
        expect(worst, `${variant} at ${index}`).toBeLessThan(1e-4);
      }
    }
    // The draft differs from the target: their distributions are not the same.
    const [p, q] = [lab.distribution(await positionLogits(fp32.model, ids, 5)), lab.distribution(await positionLogits(q4.model, ids, 5))];
    expect(lab.distance(p.probs, q.probs).tv).toBeGreaterThan(1e-3);
  });

  it('logitsRows gives every row of a chunked, cached prefill equal to the reference', async () => {
    const ids = referenceIds();
    let rows = 0;
    for await (const { index, logits } of logitsRows(fp32.model, ids, 5)) {
      expect(index).toBe(rows++);
      const expected = reference('fp32', index);
      let worst = 0;
      for (let i = 0; i < logits.length; i++) worst = Math.max(worst, Math.abs(logits[i] - expected[i]));
      expect(worst, `row ${index}`).toBeLessThan(1e-4);
    }
    expect(rows).toBe(ids.length);
  });

  it('prepares the passage as the chapter does and rejects an index outside it', async () => {
    const ids = passageIds(fp32.tokenizer, readFileSync(PASSAGE, 'utf8'));
    expect(ids).toHaveLength(400);
    expect(fp32.tokenizer.decode(ids.slice(0, 5))).not.toMatch(/[#*`>|\-[\]()!]/);
    await expect(positionLogits(fp32.model, ids, 400)).rejects.toMatchObject({ argument: 'index' });
    await expect(positionLogits(fp32.model, ids, 1.5)).rejects.toMatchObject({ argument: 'index' });
  });
});

describe('createLogitsProcessor and generateTokens', () => {
  const SETTINGS = [
    { seed: 1 },
    { temperature: 0.8, topP: 0.9, seed: 2, stream: 3 },
    { temperature: 1.3, topK: 40, minP: 0.01, seed: 3 },
    { temperature: 0.7, repetitionPenalty: 1.3, presencePenalty: 0.5, seed: 4 },
    { temperature: 0, seed: 5 },
    // Token-id options above the old 1-token check, and DRY, which needs the sequence in both.
    { dry: { multiplier: 2, sequenceBreakers: [100, 151643] }, logitBias: { 100: 2, 151000: -5 }, seed: 6 },
    { allowedTokens: [100, 200, 300, 151000], temperature: 1.5, seed: 7 },
    { mirostat: { version: 2, tau: 3, eta: 0.5 }, repetitionPenalty: 1.2, seed: 8 },
  ];

  it('generate() with the processor returns exactly the tokens of the manual loop', async () => {
    for (const options of SETTINGS) {
      expect(await processorTokens(options), JSON.stringify(options)).toEqual(await manualTokens(options));
    }
  });

  it('tokens that transformers\' own processors set to −∞ are never drawn', async () => {
    const processor = createLogitsProcessor(lab, { temperature: 2, seed: 3 });
    const allowed = new Set([7, 151_000, 99_999]);
    for (let step = 0; step < 50; step++) {
      const data = new Float32Array(151936).fill(-Infinity);
      for (const id of allowed) data[id] = -5 + id / 1e5;
      const logits = new Tensor('float32', data, [1, 151936]);
      processor([Array.from({ length: step + 1 }, () => 1n)], logits);
      const kept = [...data.keys()].filter((i) => data[i] !== -Infinity);
      expect(kept).toHaveLength(1);
      expect(allowed.has(kept[0])).toBe(true);
    }
    const encoded = fp32.tokenizer(PROMPT);
    const eos = 151645;
    const generated = await fp32.model.generate({
      ...encoded, max_new_tokens: 8, min_new_tokens: 8, suppress_tokens: [eos], do_sample: false,
      logits_processor: [createLogitsProcessor(lab, { temperature: 1.5, seed: 9 })],
    }) as Tensor;
    expect(Array.from(generated.data as BigInt64Array).slice(encoded.input_ids.dims[1]).map(Number)).not.toContain(eos);
  });

  it('the same seed gives the same tokens, another seed other tokens', async () => {
    const options = { temperature: 1, topP: 0.95, seed: 11 };
    const first = await manualTokens(options);
    expect(await manualTokens(options)).toEqual(first);
    expect(await manualTokens({ ...options, seed: 12 })).not.toEqual(first);
  });

  it('reports each step as drawn: probability, kept set, candidates and where each filter cut', async () => {
    const options = { temperature: 0.9, topK: 30, topP: 0.8, seed: 7 };
    for await (const step of generateTokens(fp32.model, fp32.tokenizer, PROMPT, { lab, ...options, maxNewTokens: 4, topCandidates: 8 })) {
      expect(step.prob).toBeGreaterThan(0);
      expect(step.kept).toBeGreaterThanOrEqual(1);
      expect(step.kept).toBeLessThanOrEqual(30);
      expect(step.cuts.map((c) => c.filter)).toEqual(['temperature', 'topK', 'topP']);
      expect(step.cuts[1].kept).toBe(30);
      expect(step.cuts[2].kept).toBe(step.kept);
      expect(step.top).toHaveLength(8);
      for (let i = 1; i < step.top.length; i++) expect(step.top[i].prob).toBeLessThanOrEqual(step.top[i - 1].prob);
      // The candidates are a prefix of the ranking: the kept ones come first.
      expect(step.top.filter((c) => c.kept)).toEqual(step.top.slice(0, Math.min(8, step.kept)));
      expect(step.text).toBe(fp32.tokenizer.decode([step.token]));
    }
  });

  it('stops when told: breaking out, an aborted signal, maxNewTokens', async () => {
    const controller = new AbortController();
    let steps = 0;
    for await (const _ of generateTokens(fp32.model, fp32.tokenizer, PROMPT, { lab, seed: 1, signal: controller.signal, stopAtEos: false })) {
      if (++steps === 3) controller.abort();
    }
    expect(steps).toBe(3);
    expect(await manualTokens({ seed: 1 }, 0)).toEqual([]);
  });

  it('bannedTokens, allowedTokens and logitBias hold ids of the whole vocabulary, and are obeyed', async () => {
    // A bias of 30 makes token 100 all but certain; banning it wins, as masks come after the bias.
    const favoured = { logitBias: { 100: 30 }, seed: 8 };
    const banned = { ...favoured, bannedTokens: [100] };
    expect(await processorTokens(favoured, 8)).toEqual(Array(8).fill(100));
    expect(await manualTokens(favoured, 8)).toEqual(Array(8).fill(100));
    for (const tokens of [await processorTokens(banned, 8), await manualTokens(banned, 8)]) {
      expect(tokens).toHaveLength(8);
      expect(tokens).not.toContain(100);
    }
    const allowed = [100, 200, 300, 151000];
    for (const tokens of [await processorTokens({ allowedTokens: allowed, seed: 2 }), await manualTokens({ allowedTokens: allowed, seed: 2 })]) {
      expect(tokens.every((t) => allowed.includes(t)), String(tokens)).toBe(true);
    }
  });

  it('generateTokens gives each step\'s logprobs as lab.sampleToken gives them on the same logits', async () => {
    const options = { temperature: 0.9, topP: 0.95, seed: 4 };
    const ids = Array.from(fp32.tokenizer(PROMPT).input_ids.data as BigInt64Array, Number);
    const steps = generateTokens(fp32.model, fp32.tokenizer, PROMPT, { lab, ...options, logprobs: 3, maxNewTokens: 6, stopAtEos: false });
    let count = 0;
    for await (const step of steps) {
      const expected = lab.sampleToken(await positionLogits(fp32.model, ids, ids.length - 1), { ...options, step: ids.length, logprobs: 3 });
      expect(step.token).toBe(expected.token);
      expect(step.logprobs!.rank).toBe(expected.rank);
      expect(step.logprobs!.logprob).toBeCloseTo(expected.logprob, 4);
      expect(step.logprobs!.top.map((t) => t.token)).toEqual(expected.top.map((t) => t.token));
      step.logprobs!.top.forEach((t, i) => {
        expect(t.logprob).toBeCloseTo(expected.top[i].logprob, 4);
        expect(t.text).toBe(fp32.tokenizer.decode([t.token]));
      });
      ids.push(step.token);
      count++;
    }
    expect(count).toBe(6);
    // 'processed': the log of the probability in the distribution the token was drawn from.
    const processed = generateTokens(fp32.model, fp32.tokenizer, PROMPT, { lab, ...options, logprobs: 2, logprobsMode: 'processed', maxNewTokens: 3 });
    for await (const step of processed) expect(Math.exp(step.logprobs!.logprob)).toBeCloseTo(step.prob, 5);
  });
});

it('mirostat\'s μ moves from step to step, as in a stateful sampler', async () => {
  const options = { mirostat: { version: 2 as const, tau: 2, eta: 0.8 }, temperature: 1.2, seed: 5 };
  const promptIds = Array.from(fp32.tokenizer(PROMPT).input_ids.data as BigInt64Array, Number);
  const sampler = lab.createSampler({ ...options, generatedIds: promptIds, step: promptIds.length });
  const [stateful, stateless] = [[...promptIds], [...promptIds]];
  for (let step = 0; step < 10; step++) {
    stateful.push(sampler.sample(await positionLogits(fp32.model, stateful, stateful.length - 1)));
    stateless.push(lab.sampleToken(await positionLogits(fp32.model, stateless, stateless.length - 1), { ...options, step: stateless.length }));
  }
  const expected = stateful.slice(promptIds.length);
  expect(stateless.slice(promptIds.length)).not.toEqual(expected);
  expect(await manualTokens(options, 10)).toEqual(expected);
  expect(await processorTokens(options, 10)).toEqual(expected);
});

describe('loadLocalModel', () => {
  const settings = () => ({ allowLocalModels: env.allowLocalModels, allowRemoteModels: env.allowRemoteModels, localModelPath: env.localModelPath });

  it('leaves transformers.js\'s env as it found it, after loads, concurrent loads and a failure', async () => {
    const before = settings();
    // The browser's defaults, and a path that holds no model: the load needs neither.
    const found = { allowLocalModels: false, allowRemoteModels: true, localModelPath: '/no-models-here/' };
    Object.assign(env, found);
    try {
      const [absolute, relativeToCwd] = await Promise.all([
        loadLocalModel(modelDir, { dtype: 'fp32' }), loadLocalModel(relative(process.cwd(), modelDir), { dtype: 'q4' }),
      ]);
      expect(absolute.model.config).toMatchObject({ vocab_size: 151936 });
      expect(relativeToCwd.model.config).toMatchObject({ vocab_size: 151936 });
      expect(settings()).toEqual(found);
      await expect(loadLocalModel(join(modelDir, '../no-such-model'))).rejects.toMatchObject({ argument: 'model' });
      expect(settings()).toEqual(found);
    } finally {
      Object.assign(env, before);
    }
  });
});

// A model whose every logit is −∞: no token can be drawn.
function allBanned(model: PreTrainedModel): PreTrainedModel {
  return new Proxy(model, {
    get: (target, name) => Reflect.get(target, name),
    apply: async (target, self, args) => {
      const output = await Reflect.apply(target, self, args);
      (output.logits.data as Float32Array).fill(-Infinity);
      return output;
    },
  });
}

// Runs a call to its end: an async iterator to its first step, a promise to its settling.
async function failure(call: () => unknown): Promise<unknown> {
  try {
    const result = call();
    if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
      for await (const _ of result as AsyncIterable<unknown>) break;
    } else {
      await result;
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('error paths', () => {
  it('every bad input is a SamplingLabError naming its argument, before any forward pass where it can be', async () => {
    const { model, tokenizer } = fp32;
    const generate = (options: object) => generateTokens(model, tokenizer, PROMPT, { lab, maxNewTokens: 2, ...options });
    const row = (fill: number, vocab = 151936) => new Tensor('float32', new Float32Array(vocab).fill(fill), [1, vocab]);
    const cases: [string, () => unknown, string][] = [
      // createLogitsProcessor: at creation, ids against the largest vocabulary; at the first step, against the row.
      ['processor without lab', () => createLogitsProcessor(undefined as never), 'lab'],
      ['processor options not an object', () => createLogitsProcessor(lab, 'topP' as never), 'options'],
      ['processor logprobs', () => createLogitsProcessor(lab, { logprobs: 5 } as never), 'logprobs'],
      ['processor logprobsMode', () => createLogitsProcessor(lab, { logprobsMode: 'raw' } as never), 'logprobsMode'],
      ['processor step', () => createLogitsProcessor(lab, { step: 3 } as never), 'step'],
      ['processor generatedIds', () => createLogitsProcessor(lab, { repetitionPenalty: 1.2, generatedIds: [1] } as never), 'generatedIds'],
      ['processor minP -1', () => createLogitsProcessor(lab, { minP: -1 }), 'minP'],
      ['processor bannedTokens past every vocabulary', () => createLogitsProcessor(lab, { bannedTokens: [2 ** 24] }), 'bannedTokens'],
      ['processor bannedTokens past the row', () => createLogitsProcessor(lab, { bannedTokens: [151936] })([[1n]], row(0)), 'bannedTokens'],
      ['processor allowedTokens past the row', () => createLogitsProcessor(lab, { allowedTokens: [200_000] })([[1n]], row(0)), 'allowedTokens'],
      ['processor logitBias past the row', () => createLogitsProcessor(lab, { logitBias: { 151936: 1 } })([[1n]], row(0)), 'logitBias.ids'],
      ['processor sequenceBreakers past the row', () => createLogitsProcessor(lab, { dry: { multiplier: 1, sequenceBreakers: [151936] } })([[1n]], row(0)), 'dry.sequenceBreakers'],
      ['processor bannedTokens past the model, in generate()', () => processorTokens({ bannedTokens: [151936] }), 'bannedTokens'],
      ['processor all −∞', () => createLogitsProcessor(lab, { seed: 1 })([[1n]], row(-Infinity)), 'logits'],
      ['generate() with every token suppressed', () => model.generate({
        ...tokenizer(PROMPT), max_new_tokens: 2, do_sample: false, suppress_tokens: Array.from({ length: 151936 }, (_, i) => i),
        logits_processor: [createLogitsProcessor(lab, { seed: 1 })],
      }), 'logits'],
      // generateTokens: ids against the model's vocab_size before the prefill.
      ['generateTokens without options', () => generateTokens(model, tokenizer, PROMPT, undefined as never), 'lab'],
      ['generateTokens without lab', () => generateTokens(model, tokenizer, PROMPT, { seed: 1 } as never), 'lab'],
      ['generateTokens with a lab that is not one', () => generate({ lab: {} }), 'lab'],
      ['generateTokens options not an object', () => generateTokens(model, tokenizer, PROMPT, 7 as never), 'options'],
      ['generateTokens model', () => generateTokens({} as never, tokenizer, PROMPT, { lab }), 'model'],
      ['generateTokens tokenizer', () => generateTokens(model, undefined as never, PROMPT, { lab }), 'tokenizer'],
      ['generateTokens prompt', () => generateTokens(model, tokenizer, 42 as never, { lab }), 'prompt'],
      ['generateTokens signal {}', () => generate({ signal: {} }), 'signal'],
      ['generateTokens stopAtEos \'no\'', () => generate({ stopAtEos: 'no' }), 'stopAtEos'],
      ['generateTokens maxNewTokens \'8\'', () => generate({ maxNewTokens: '8' }), 'maxNewTokens'],
      ['generateTokens topCandidates 51', () => generate({ topCandidates: 51 }), 'topCandidates'],
      ['generateTokens topP 2', () => generate({ topP: 2 }), 'topP'],
      ['generateTokens unknown option', () => generate({ topp: 0.9 }), 'topp'],
      ['generateTokens step', () => generate({ step: 1 }), 'step'],
      ['generateTokens generatedIds', () => generate({ generatedIds: [1] }), 'generatedIds'],
      ['generateTokens logprobs 21', () => generate({ logprobs: 21 }), 'logprobs'],
      ['generateTokens logprobs \'3\'', () => generate({ logprobs: '3' }), 'logprobs'],
      ['generateTokens logprobsMode \'all\'', () => generate({ logprobs: 2, logprobsMode: 'all' }), 'logprobsMode'],
      ['generateTokens logprobsMode without logprobs', () => generate({ logprobsMode: 'raw' }), 'logprobsMode'],
      ['generateTokens bannedTokens past the model', () => generate({ bannedTokens: [151936] }), 'bannedTokens'],
      ['generateTokens allowedTokens past the model', () => generate({ allowedTokens: [1, 151936] }), 'allowedTokens'],
      ['generateTokens logitBias past the model', () => generate({ logitBias: { 151936: -1 } }), 'logitBias.ids'],
      ['generateTokens sequenceBreakers past the model', () => generate({ dry: { multiplier: 1, sequenceBreakers: [151936] } }), 'dry.sequenceBreakers'],
      ['generateTokens all −∞', () => generateTokens(allBanned(model), tokenizer, PROMPT, { lab }), 'logits'],
      // positionLogits and logitsRows: ids in [0, vocab_size), and the index inside them.
      ['positionLogits id −1', () => positionLogits(model, [-1], 0), 'inputIds'],
      ['positionLogits id 2^40', () => positionLogits(model, [2 ** 40], 0), 'inputIds'],
      ['positionLogits id vocab_size', () => positionLogits(model, [1, 151936n], 0), 'inputIds'],
      ['positionLogits id 1.5', () => positionLogits(model, [1.5], 0), 'inputIds'],
      ['positionLogits ids not an array', () => positionLogits(model, 7 as never, 0), 'inputIds'],
      ['positionLogits index past the ids', () => positionLogits(model, [1, 2], 2), 'index'],
      ['positionLogits index 1.5', () => positionLogits(model, [1, 2], 1.5), 'index'],
      ['positionLogits model', () => positionLogits({} as never, [1], 0), 'model'],
      ['logitsRows id −1', () => logitsRows(model, [1, -1]), 'inputIds'],
      ['logitsRows chunk 0', () => logitsRows(model, [1], 0), 'chunk'],
      ['passageIds tokenizer', () => passageIds({} as never, 'text'), 'tokenizer'],
      // Loading: checked before any file is read.
      ['loadLocalModel dtype q9', () => loadLocalModel(modelDir, { dtype: 'q9' }), 'dtype'],
      ['loadLocalModel device tpu', () => loadLocalModel(modelDir, { device: 'tpu' }), 'device'],
      ['loadLocalModel progress', () => loadLocalModel(modelDir, { progress: 'log' as never }), 'progress'],
      ['loadLocalModel unknown option', () => loadLocalModel(modelDir, { dtypes: 'fp32' } as never), 'dtypes'],
      ['loadLocalModel options not an object', () => loadLocalModel(modelDir, 'fp32' as never), 'options'],
      ['loadLocalModel folder', () => loadLocalModel(42 as never), 'folder'],
      ['loadLocalModel missing folder', () => loadLocalModel(join(modelDir, '../no-such-model')), 'model'],
      ['loadHubModel dtype q9', () => loadHubModel('onnx-community/Qwen3-0.6B-ONNX', { dtype: 'q9' }), 'dtype'],
      ['loadHubModel repository', () => loadHubModel(''), 'repository'],
    ];
    for (const [name, call, argument] of cases) {
      const error = await failure(call);
      expect(error, name).toBeInstanceOf(SamplingLabError);
      expect((error as SamplingLabError).argument, `${name}: ${(error as Error).message}`).toBe(argument);
    }
  });

  it('logits wider or narrower than the declared vocabulary are refused', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'sampling-lab-model-')), 'tiny-qwen3');
    cpSync(modelDir, copy, { recursive: true, filter: (path) => !path.endsWith('model_q4.onnx') && !path.includes('reference') });
    const config = JSON.parse(readFileSync(join(copy, 'config.json'), 'utf8'));
    writeFileSync(join(copy, 'config.json'), JSON.stringify({ ...config, vocab_size: 151669 }));
    const wrong = await loadLocalModel(copy, { dtype: 'fp32' });
    await expect(positionLogits(wrong.model, [1, 2, 3], 2)).rejects.toMatchObject({ argument: 'logits', message: expect.stringMatching(/vocab_size 151669/) });
  });

  it('logits of another dtype are refused by the processor', () => {
    const processor = createLogitsProcessor(lab, { seed: 1 });
    const ints = new Tensor('int32', new Int32Array(8), [1, 8]);
    expect(() => processor([[1n]], ints)).toThrow(expect.objectContaining({ argument: 'logits' }));
    const halves = new Tensor('float16', new Uint16Array(8), [1, 8]);
    expect(() => processor([[1n]], halves)).toThrow(expect.objectContaining({ argument: 'logits' }));
  });
});

it('the CLI runs the chapter\'s temperature experiment on a local model', async () => {
  const run = promisify(execFile);
  const args = [CLI, 'temperature', '--json', '--model', modelDir, '--passage', PASSAGE, '--position', '50'];
  const { stdout } = await run(process.execPath, args);
  const ids = passageIds(fp32.tokenizer, readFileSync(PASSAGE, 'utf8'));
  const logits = await positionLogits(fp32.model, ids, 49);
  expect(JSON.parse(stdout)).toEqual((await loadExperimentLab()).runExperiment('temperature', { logits }));
  await expect(run(process.execPath, [CLI, 'temperature', '--model', modelDir, '--position', '50']))
    .rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/passage/) });
  await expect(run(process.execPath, [CLI, 'temperature', '--model', join(modelDir, 'nope'), '--passage', PASSAGE, '--position', '50']))
    .rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/model/) });
});
