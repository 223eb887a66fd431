// Logits at one position of a passage, from a local transformers.js model. transformers.js is an
// optional peer, so it is loaded only here.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SamplingLabError } from '../lab/errors.js';
import { isModelDtype, MODEL_DTYPES, type ModelDtype } from '../adapters/transformers/model-dtypes.js';
import type { ExperimentInfo } from '../lab/schema.js';

const PEER = '@huggingface/transformers';
// onnxruntime-node's install script downloads GPU providers; the CPU binary it ships is enough.
export const PEER_INSTALL = `ONNXRUNTIME_NODE_INSTALL=skip npm i ${PEER}`;

export async function importAdapter() {
  try {
    return await import('../adapters/transformers/index.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1] ?? PEER;
    throw new SamplingLabError('model', `--model needs the optional peer ${PEER} (cannot find ${missing}); install it with: ${PEER_INSTALL}`);
  }
}

export function checkDtype(dtype: string): asserts dtype is ModelDtype {
  if (!isModelDtype(dtype)) throw new SamplingLabError('dtype', `--dtype takes one of ${MODEL_DTYPES.join(', ')}, not '${dtype}'`);
}

/** The model folder given as --`flag`, checked to look like one before the adapter loads it. */
export function modelFolder(path: string, flag: string): string {
  const folder = resolve(path);
  if (!existsSync(join(folder, 'config.json'))) {
    throw new SamplingLabError(flag, `${folder} holds no config.json: a model folder has config.json, tokenizer.json and onnx/model*.onnx`);
  }
  return folder;
}

/** The model flags as given (flags.ts's SOURCE_FLAGS). */
export type ModelFlags = Partial<Record<'model' | 'passage' | 'position' | 'dtype', string>>;

export async function modelLogits(source: ModelFlags, position: number | undefined, info: ExperimentInfo): Promise<Float32Array> {
  if (!info.params.some((p) => p.name === 'logits')) throw new SamplingLabError('model', `${info.name} takes no logits, so --model does not apply`);
  const dtype = source.dtype ?? 'fp32';
  checkDtype(dtype);
  if (source.passage === undefined) throw new SamplingLabError('passage', '--model needs --passage FILE, the text to read');
  if (position === undefined) throw new SamplingLabError('position', '--model needs --position N (counting from 1)');
  let text: string;
  try {
    text = await readFile(source.passage, 'utf8');
  } catch (error) {
    throw new SamplingLabError('passage', `cannot read ${source.passage}: ${(error as Error).message}`);
  }
  const folder = modelFolder(source.model!, 'model');
  const { loadLocalModel, passageIds, positionLogits } = await importAdapter();
  const { model, tokenizer } = await loadLocalModel(folder, { dtype });
  const ids = passageIds(tokenizer, text);
  if (position > ids.length) throw new SamplingLabError('position', `the passage has ${ids.length} positions, fewer than ${position}`);
  return positionLogits(model, ids, position - 1);
}
