// sampling-lab/transformers on a tiny model with Qwen3's graph signature and vocabulary, built
// offline from the numpy weights its reference forward pass uses; nothing reaches the hub.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Tensor } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, parseNpy, type Lab } from 'sampling-lab';
import {
  createLogitsProcessor, generateTokens, loadLocalModel, logitsRows, passageIds, positionLogits, type LoadedModel,
} from 'sampling-lab/transformers';
import { ensureTinyModel, referenceIds } from '../support/tiny-model.js';

const PASSAGE = join(__dirname, '../../web/public/sample-passage.txt');
const CLI = join(__dirname, '../../wasm/dist/cli.js');
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
  ];

  it('generate() with the processor returns exactly the tokens of the manual loop', async () => {
    const encoded = fp32.tokenizer(PROMPT);
    const promptLength = encoded.input_ids.dims[1];
    for (const options of SETTINGS) {
      const generated = await fp32.model.generate({
        ...encoded, max_new_tokens: 12, do_sample: false, logits_processor: [createLogitsProcessor(lab, options)],
      }) as Tensor;
      const fromGenerate = Array.from((generated.data as BigInt64Array).subarray(promptLength), Number);
      expect(fromGenerate, JSON.stringify(options)).toEqual(await manualTokens(options));
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
    await expect(manualTokens({ seed: 1, topP: 2 })).rejects.toMatchObject({ argument: 'topP' });
    expect(() => createLogitsProcessor(lab, { minP: -1 })).toThrow(expect.objectContaining({ argument: 'minP' }));
  });
});

describe('error paths', () => {
  it('a missing model folder is a typed error naming the model', async () => {
    await expect(loadLocalModel(join(modelDir, '../no-such-model'))).rejects.toMatchObject({ argument: 'model' });
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
  expect(JSON.parse(stdout)).toEqual(lab.runExperiment('temperature', { logits }));
  await expect(run(process.execPath, [CLI, 'temperature', '--model', modelDir, '--position', '50']))
    .rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/passage/) });
  await expect(run(process.execPath, [CLI, 'temperature', '--model', join(modelDir, 'nope'), '--passage', PASSAGE, '--position', '50']))
    .rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/model/) });
});
