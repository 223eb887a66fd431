// The processor as the only sampler whatever the model's generation_config: transformers.js applies
// repetition_penalty, and temperature when do_sample, before any logits processor. On copies of the
// tiny model with Qwen3's sampling settings plus repetition_penalty and with none, generate() and
// pipeline() with createGenerateKwargs give generateTokens' tokens, and a processor given the model
// refuses the settings at its first step.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline, Tensor, type TextGenerationPipeline } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import {
  createGenerateKwargs, createLogitsProcessor, generateTokens, loadLocalModel, type LoadedModel, type ProcessorOptions,
} from 'sampling-lab/transformers';
import { codeBlocks } from '../support/docs';
import { ensureTinyModel } from '../support/tiny-model.js';

const PROMPT = '语言模型在每个位置给出一个分布';
const MAX_NEW_TOKENS = 16;
// Qwen3's generation_config.json, with a repetition penalty as many chat models ship.
const SAMPLING = { do_sample: true, temperature: 0.6, top_k: 20, top_p: 0.95, repetition_penalty: 1.1 };
// The call, and the lab's own penalty where the model's is turned off.
const SETTINGS: Omit<ProcessorOptions, 'model'>[] = [
  { temperature: 0.7, seed: 3 },
  { temperature: 1.1, topP: 0.9, repetitionPenalty: 1.3, seed: 4 },
];

interface Fixture {
  folder: string;
  loaded: LoadedModel;
  generator: TextGenerationPipeline;
}

let lab: Lab;
let qwen3: Fixture;
let fixtures: Record<'sampling' | 'none', Fixture>;

// The tiny model (fp32) with `generation` as its generation_config.json, eos and bos kept.
function copyWith(generation: object): string {
  const source = ensureTinyModel();
  const copy = join(mkdtempSync(join(tmpdir(), 'sampling-lab-generation-config-')), 'tiny-qwen3');
  cpSync(source, copy, { recursive: true, filter: (path) => !path.endsWith('model_q4.onnx') && !path.includes('reference') });
  const { bos_token_id, eos_token_id } = JSON.parse(readFileSync(join(source, 'generation_config.json'), 'utf8'));
  writeFileSync(join(copy, 'generation_config.json'), JSON.stringify({ bos_token_id, eos_token_id, ...generation }));
  return copy;
}

async function fixture(folder: string): Promise<Fixture> {
  const loaded = await loadLocalModel(folder, { dtype: 'fp32' });
  const generator = await pipeline('text-generation', folder, { dtype: 'fp32', local_files_only: true }) as TextGenerationPipeline;
  return { folder, loaded, generator };
}

beforeAll(async () => {
  lab = await loadSamplingLab();
  qwen3 = await fixture(ensureTinyModel());
  fixtures = { sampling: await fixture(copyWith(SAMPLING)), none: await fixture(copyWith({})) };
});

async function labTokens({ loaded }: Fixture, options: object): Promise<number[]> {
  const tokens: number[] = [];
  for await (const step of generateTokens(loaded.model, loaded.tokenizer, PROMPT, { lab, maxNewTokens: MAX_NEW_TOKENS, ...options })) {
    tokens.push(step.token);
  }
  return tokens;
}

// What generate() put out, prompt and new tokens, as its streamer saw them.
function recorder() {
  const seen = { prompt: [] as number[], tokens: [] as number[] };
  const streamer = {
    put: (ids: bigint[][]) => {
      if (seen.prompt.length === 0) seen.prompt = ids[0].map(Number);
      else seen.tokens.push(Number(ids[0][0]));
    },
    end: () => {},
  };
  return { seen, streamer };
}

async function generateIds({ loaded }: Fixture, kwargs: object): Promise<number[]> {
  const encoded = loaded.tokenizer(PROMPT);
  const generated = await loaded.model.generate({ ...encoded, max_new_tokens: MAX_NEW_TOKENS, ...kwargs }) as Tensor;
  return Array.from((generated.data as BigInt64Array).subarray(encoded.input_ids.dims[1]), Number);
}

async function pipelineIds({ loaded, generator }: Fixture, kwargs: object): Promise<number[]> {
  const { seen, streamer } = recorder();
  await generator(PROMPT, { max_new_tokens: MAX_NEW_TOKENS, ...kwargs, streamer } as never);
  // The pipeline tokenised the prompt as generateTokens does.
  expect(seen.prompt).toEqual(Array.from(loaded.tokenizer(PROMPT).input_ids.data as BigInt64Array, Number));
  return seen.tokens;
}

describe.each([
  ['Qwen3\'s sampling settings and repetition_penalty 1.1', 'sampling'],
  ['no sampling settings', 'none'],
] as const)('a model whose generation_config has %s', (_, name) => {
  it('generate() with createGenerateKwargs gives exactly generateTokens\' tokens', async () => {
    for (const options of SETTINGS) {
      const expected = await labTokens(fixtures[name], options);
      expect(expected).toHaveLength(MAX_NEW_TOKENS);
      expect(await generateIds(fixtures[name], createGenerateKwargs(lab, options)), JSON.stringify(options)).toEqual(expected);
    }
  });

  it('pipeline() with createGenerateKwargs gives exactly generateTokens\' tokens', async () => {
    for (const options of SETTINGS) {
      const kwargs = createGenerateKwargs(lab, options);
      expect(await pipelineIds(fixtures[name], kwargs), JSON.stringify(options)).toEqual(await labTokens(fixtures[name], options));
    }
  });
});

describe('a processor given the model', () => {
  it('refuses Qwen3\'s settings and repetition_penalty at its first step, in generate() and pipeline(), naming the setting and the fix', async () => {
    const { loaded, generator } = fixtures.sampling;
    for (const run of [
      (streamer: object) => generateIds(fixtures.sampling, { logits_processor: [createLogitsProcessor(lab, { ...SETTINGS[0], model: loaded.model })], streamer }),
      (streamer: object) => generator(PROMPT, { logits_processor: [createLogitsProcessor(lab, { ...SETTINGS[0], model: generator.model })], streamer } as never),
    ]) {
      const { seen, streamer } = recorder();
      const error = await run(streamer).then(() => undefined, (thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(SamplingLabError);
      expect(error).toMatchObject({
        argument: 'generation_config.repetition_penalty',
        message: expect.stringMatching(/repetition_penalty: 1\.1 and temperature: 0\.6 with do_sample: true.*\.\.\.createGenerateKwargs\(lab, options\)/),
      });
      expect(seen.prompt.length).toBeGreaterThan(0);
      expect(seen.tokens).toEqual([]);
    }
  });

  it('refuses Qwen3\'s own generation_config by its temperature', async () => {
    const processor = createLogitsProcessor(lab, { ...SETTINGS[0], model: qwen3.loaded.model });
    await expect(generateIds(qwen3, { logits_processor: [processor] })).rejects.toMatchObject({
      argument: 'generation_config.temperature', message: expect.stringMatching(/temperature: 0\.6 with do_sample: true/),
    });
  });

  it('accepts a generation_config without sampling settings, and gives generateTokens\' tokens with no other argument', async () => {
    const { loaded, generator } = fixtures.none;
    for (const options of SETTINGS) {
      const expected = await labTokens(fixtures.none, options);
      expect(await generateIds(fixtures.none, { logits_processor: [createLogitsProcessor(lab, { ...options, model: loaded.model })] })).toEqual(expected);
      expect(await pipelineIds(fixtures.none, { logits_processor: [createLogitsProcessor(lab, { ...options, model: generator.model })] })).toEqual(expected);
    }
  });

  it('reads the settings as generate() does: temperature counts only with do_sample, and not at 0', () => {
    const cases: [object | null, string | undefined][] = [
      [{ do_sample: true, temperature: 0.6 }, 'generation_config.temperature'],
      [{ do_sample: false, temperature: 0.6 }, undefined],
      [{ do_sample: true, temperature: 0 }, undefined],
      [{ do_sample: true, temperature: 1, top_k: 20, top_p: 0.95 }, undefined],
      [{ repetition_penalty: 1.1 }, 'generation_config.repetition_penalty'],
      [{ repetition_penalty: 1 }, undefined],
      [null, undefined],
    ];
    for (const [generation, argument] of cases) {
      const model = Object.assign(() => {}, { config: {}, generation_config: generation });
      const processor = createLogitsProcessor(lab, { seed: 1, model: model as never });
      const step = () => processor([[1n]], new Tensor('float32', Float32Array.from({ length: 8 }, (_, i) => i), [1, 8]));
      if (argument) expect(step, JSON.stringify(generation)).toThrow(expect.objectContaining({ argument }));
      else expect(step, JSON.stringify(generation)).not.toThrow();
    }
  });
});

describe('without the fix', () => {
  it('a processor alone compounds with the model\'s settings: other tokens than generateTokens\'', async () => {
    for (const options of SETTINGS) {
      const alone = await generateIds(fixtures.sampling, { logits_processor: [createLogitsProcessor(lab, options)] });
      expect(alone, JSON.stringify(options)).not.toEqual(await labTokens(fixtures.sampling, options));
    }
  });

  it('on Qwen3\'s generation_config, temperature 0.7 gives the tokens of temperature 0.42 (the issue)', async () => {
    const alone = await generateIds(qwen3, { logits_processor: [createLogitsProcessor(lab, { temperature: 0.7, seed: 3 })] });
    expect(alone).not.toEqual(await labTokens(qwen3, { temperature: 0.7, seed: 3 }));
    expect(alone).toEqual(await labTokens(qwen3, { temperature: 0.42, seed: 3 }));
  });
});

it('createGenerateKwargs: the settings it overrides, and a model is refused', () => {
  const kwargs = createGenerateKwargs(lab, { seed: 1 });
  expect(kwargs).toMatchObject({ do_sample: false, temperature: 1, repetition_penalty: 1 });
  expect(kwargs.logits_processor).toHaveLength(1);
  expect(() => createGenerateKwargs(lab, { seed: 1, model: qwen3.loaded.model } as never)).toThrow(expect.objectContaining({ argument: 'model' }));
  expect(() => createLogitsProcessor(lab, { model: {} as never })).toThrow(expect.objectContaining({ argument: 'model' }));
});

it('docs/transformers-processor.md\'s block runs as written, the fixture standing in for its model, tokenizer and pipeline', async () => {
  const [block] = codeBlocks('js', 'transformers-processor.md');
  const { loaded, generator } = fixtures.none;
  // The block's import is this file's; the rest runs with the names it expects in scope.
  const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<{ ids: Tensor; out: { generated_text: string } }>;
  const run = new AsyncFunction('createGenerateKwargs', 'lab', 'model', 'tokenizer', 'generator', 'prompt', `${block.replace(/^import .*\n/m, '')}\nreturn { ids, out };`);
  const { ids, out } = await run(createGenerateKwargs, lab, loaded.model, loaded.tokenizer, generator, PROMPT);
  expect(ids.dims[1]).toBe(loaded.tokenizer(PROMPT).input_ids.dims[1] + 64);
  expect(out.generated_text.startsWith(PROMPT)).toBe(true);
});
