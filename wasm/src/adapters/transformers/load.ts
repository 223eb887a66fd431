// Loading a causal LM and its tokenizer, from a local folder or the Hugging Face hub.
import { AutoConfig, AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import { MODEL_DTYPES, type ModelDtype } from './model-dtypes.js';
import { checkObject, shown } from './checks.js';

/** What loadHubModel and loadLocalModel give: the causal LM and its tokenizer. */
export interface LoadedModel {
  model: PreTrainedModel;
  tokenizer: PreTrainedTokenizer;
}

/** Options of loadHubModel and loadLocalModel, passed on to transformers.js. */
export interface LoadModelOptions {
  /** transformers.js dtype, the file onnx/model<suffix>.onnx: one of MODEL_DTYPES ('fp32', 'q4', …) or 'auto'. */
  dtype?: ModelDtype | 'auto';
  /** transformers.js device: 'cpu', 'wasm', 'webgpu', … or 'auto'. */
  device?: Device;
  /** Hears transformers.js's download and load progress (its progress_callback). */
  progress?: (info: { status: string; file?: string; loaded?: number; total?: number; progress?: number }) => void;
  /** onnxruntime's session options, e.g. { intraOpNumThreads: 1 }: passed to transformers.js as session_options. */
  sessionOptions?: Record<string, unknown>;
}

// transformers.js would load its default file for any other dtype, and 'auto' picks that default.
const DTYPES: readonly string[] = ['auto', ...MODEL_DTYPES];
// transformers.js 4.3's DEVICE_TYPES.
const DEVICES = ['auto', 'gpu', 'cpu', 'wasm', 'webgpu', 'cuda', 'dml', 'coreml', 'webnn', 'webnn-npu', 'webnn-gpu', 'webnn-cpu'] as const;
type Device = (typeof DEVICES)[number];
const OPTIONS = ['dtype', 'device', 'progress', 'sessionOptions'];

function checkLoadOptions(options: unknown): asserts options is LoadModelOptions {
  checkObject(options, 'options');
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw new SamplingLabError(key, `unknown option '${key}'; accepted: ${OPTIONS.join(', ')}`);
  }
  for (const [name, value, accepted] of [['dtype', options.dtype, DTYPES], ['device', options.device, DEVICES]] as const) {
    if (value !== undefined && !(accepted as readonly string[]).includes(value as string)) {
      throw new SamplingLabError(name, `${name} must be one of ${accepted.join(', ')}, not ${shown(value)}`);
    }
  }
  if (options.progress !== undefined && typeof options.progress !== 'function') {
    throw new SamplingLabError('progress', 'progress must be a function');
  }
  if (options.sessionOptions !== undefined) checkObject(options.sessionOptions, 'sessionOptions');
}

function checkName(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') throw new SamplingLabError(name, `${name} must be a non-empty string`);
}

/** A model and its tokenizer from the Hugging Face hub, e.g. 'onnx-community/Qwen3-0.6B-ONNX'. */
export function loadHubModel(repository: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  checkName(repository, 'repository');
  checkLoadOptions(options);
  return load(repository, options, false, `cannot load ${repository}`);
}

/**
 * A model and its tokenizer from a local folder (config.json, tokenizer files, onnx/): a file
 * path in Node, a URL path such as '/models/tiny-qwen3' in the browser. Nothing is fetched from
 * the Hugging Face hub, and transformers.js's `env` is left as it was.
 */
export async function loadLocalModel(folder: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  checkName(folder, 'folder');
  checkLoadOptions(options);
  // transformers.js reads an id that is no hub id (a hub id never starts with '.' or '/', nor a
  // drive letter) as a path of its own, not under env.localModelPath; local_files_only keeps the
  // hub out. Only env.allowLocalModels (off in browsers) must be on, and only while loading.
  const path = /^([./]|[A-Za-z]:)/.test(folder) ? folder : `./${folder}`;
  if (localLoads++ === 0) allowLocalModelsBefore = env.allowLocalModels;
  env.allowLocalModels = true;
  try {
    return await load(path, options, true, `cannot load a model from ${folder}`);
  } finally {
    if (--localLoads === 0) env.allowLocalModels = allowLocalModelsBefore;
  }
}

// Local loads under way, and env.allowLocalModels as the first of them found it.
let localLoads = 0;
let allowLocalModelsBefore = false;

async function load(id: string, options: LoadModelOptions, localFilesOnly: boolean, failure: string): Promise<LoadedModel> {
  const common = { progress_callback: options.progress as never, local_files_only: localFilesOnly };
  try {
    // config.json first: a folder without one fails with its name rather than inside the tokenizer.
    const config = await AutoConfig.from_pretrained(id, common);
    const tokenizer = await AutoTokenizer.from_pretrained(id, common);
    const model = await AutoModelForCausalLM.from_pretrained(id, {
      ...common, config, dtype: options.dtype as never, device: options.device as never, session_options: options.sessionOptions as never,
    });
    return { model, tokenizer };
  } catch (error) {
    throw new SamplingLabError('model', `${failure}: ${(error as Error).message}`);
  }
}
