#!/usr/bin/env node
// sampling-lab <experiment> [--json] [--name value ...] [--logits FILE.npy [--position N]]
//              [--model DIR --passage FILE --position N [--dtype fp32]]
// Flags are parsed by the kind the experiment's schema gives them.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadSamplingLab, SamplingLabError } from './node.js';
import { npyRow, parseNpy } from './npy.js';
import type { ExperimentInfo, ParamSpec, ValueSpec } from './schema.js';

const USAGE = `usage: sampling-lab <experiment> [--json] [--name value ...]
       sampling-lab list
Arrays are comma-separated (--temperatures 0.5,1,1.5); optional values take null. An array flag
also takes a .npy file (1-D or 2-D float32/float64); --position N picks row N of a 2-D one.
--model DIR --passage FILE --position N [--dtype fp32|fp16|q8|q4]: the logits come from a local
transformers.js model (e.g. a copy of onnx-community/Qwen3-0.6B-ONNX) at position N of the
passage, prepared as the chapter does (#*\`>|-[]()! stripped, first 400 tokens). Positions count
from 1, as the chapter does: position 50 is logits row 49.`;

// Flags that say where the logits come from, not parameters of the experiment.
const SOURCE_FLAGS = ['position', 'model', 'passage', 'dtype'] as const;
type Source = Partial<Record<(typeof SOURCE_FLAGS)[number], string>>;

function parsePosition(text: string): number {
  const position = parseNumber(text, 'position');
  if (!Number.isInteger(position) || position < 1) throw new SamplingLabError('position', `--position counts from 1, not '${text}'`);
  return position;
}

function parseNumber(text: string, name: string): number {
  const value = text.trim() === '' ? NaN : Number(text);
  if (Number.isNaN(value)) throw new SamplingLabError(name, `--${name} takes a number, not '${text}'`);
  return value;
}

function parseValue(text: string, spec: ValueSpec, name: string): unknown {
  switch (spec.kind) {
    case 'choice': return text;
    case 'optional': return text === 'null' ? null : parseValue(text, spec.of!, name);
    case 'array': return text.split(',').map((item) => parseNumber(item, name));
    default: return parseNumber(text, name);
  }
}

const isArray = (spec: ValueSpec): boolean => spec.kind === 'array' || (spec.kind === 'optional' && isArray(spec.of!));

async function readNpyRow(file: string, position: number | undefined, name: string): Promise<Float32Array | Float64Array> {
  try {
    const array = parseNpy(new Uint8Array(await readFile(file)));
    if (position !== undefined && array.shape.length === 2 && position > array.shape[0]) {
      throw new Error(`--position ${position} is beyond its ${array.shape[0]} rows (positions count from 1)`);
    }
    return npyRow(array, position === undefined ? undefined : position - 1);
  } catch (error) {
    throw new SamplingLabError(name, `${file}: ${(error as Error).message}`);
  }
}

async function parseArgs(argv: string[], info: ExperimentInfo) {
  const params: Record<string, unknown> = {};
  const files: [string, string][] = [];
  let json = false;
  const source: Source = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') { json = true; continue; }
    if (!arg.startsWith('--')) throw new SamplingLabError(arg, `unexpected argument '${arg}'\n${USAGE}`);
    // --top-p and --topP both name topP: kebab case as the widgets' attributes spell it.
    const name = arg.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const value = argv[++i];
    if (value === undefined) throw new SamplingLabError(name, `--${name} needs a value`);
    if ((SOURCE_FLAGS as readonly string[]).includes(name)) {
      source[name as keyof Source] = value;
      continue;
    }
    const spec = info.params.find((p) => p.name === name);
    if (!spec) {
      throw new SamplingLabError(name, `unknown flag --${name} for ${info.name}; it takes: ${info.params.map((p) => p.name).join(', ')}`);
    }
    if (isArray(spec) && value.endsWith('.npy')) files.push([name, value]);
    else params[name] = parseValue(value, spec, name);
  }
  const position = source.position === undefined ? undefined : parsePosition(source.position);
  for (const [name, file] of files) params[name] = await readNpyRow(file, position, name);
  if (source.model !== undefined) params.logits = await modelLogits(source, position, info);
  else if (source.passage !== undefined || source.dtype !== undefined) throw new SamplingLabError('model', '--passage and --dtype need --model DIR');
  return { params, json };
}

// The logits at one position of a passage, from a local model; transformers.js is loaded only here.
async function modelLogits(source: Source, position: number | undefined, info: ExperimentInfo): Promise<Float32Array> {
  if (!info.params.some((p) => p.name === 'logits')) throw new SamplingLabError('model', `${info.name} takes no logits, so --model does not apply`);
  if (source.passage === undefined) throw new SamplingLabError('passage', '--model needs --passage FILE, the text to read');
  if (position === undefined) throw new SamplingLabError('position', '--model needs --position N (counting from 1)');
  let text: string;
  try {
    text = await readFile(source.passage, 'utf8');
  } catch (error) {
    throw new SamplingLabError('passage', `cannot read ${source.passage}: ${(error as Error).message}`);
  }
  const folder = resolve(source.model!);
  if (!existsSync(join(folder, 'config.json'))) {
    throw new SamplingLabError('model', `${folder} holds no config.json: a model folder has config.json, tokenizer.json and onnx/model*.onnx`);
  }
  const { loadLocalModel, passageIds, positionLogits } = await import('./transformers.js');
  const { model, tokenizer } = await loadLocalModel(folder, { dtype: source.dtype ?? 'fp32' });
  const ids = passageIds(tokenizer, text);
  if (position > ids.length) throw new SamplingLabError('position', `the passage has ${ids.length} positions, fewer than ${position}`);
  return positionLogits(model, ids, position - 1);
}

function formatNumber(x: unknown): string {
  if (typeof x !== 'number') return String(x);
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? x.toFixed(4).replace(/\.?0+$/, '') : x.toExponential(3);
}

function formatArray(values: unknown[]): string {
  const shown = values.slice(0, 12).map(formatNumber).join(', ');
  return values.length > 12 ? `[${shown}, … ${values.length} in all]` : `[${shown}]`;
}

function table(rows: Record<string, unknown>[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => columns.map((c) => formatNumber(row[c])));
  const widths = columns.map((c, j) => Math.max(c.length, ...cells.map((r) => r[j].length)));
  const line = (r: string[]) => r.map((s, j) => s.padStart(widths[j])).join('  ');
  return [line(columns), ...cells.map(line)].join('\n');
}

function render(result: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (Array.isArray(value) && value.length && typeof value[0] === 'object') {
      out.push(`${key}:`, table(value as Record<string, unknown>[]));
    } else if (Array.isArray(value)) {
      out.push(`${key}: ${formatArray(value)}`);
    } else if (typeof value === 'object' && value !== null) {
      out.push(`${key}: ${JSON.stringify(value)}`);
    } else {
      out.push(`${key}: ${formatNumber(value)}`);
    }
  }
  return out.join('\n');
}

function describe(param: ParamSpec): string {
  const shown = Array.isArray(param.default) && param.default.length > 8 ? `[${param.default.length} values]` : JSON.stringify(param.default);
  return `    --${param.name} (${param.kind}, default ${shown}): ${param.doc}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const lab = await loadSamplingLab();
  if (name === 'list') {
    for (const info of lab.experiments) console.log(`${info.name}\n  ${info.summary}\n${info.params.map(describe).join('\n')}`);
    return 0;
  }
  const info = lab.experiments.find((e) => e.name === name);
  if (!info) throw new SamplingLabError('experiment', `unknown experiment '${name}'; known: ${lab.experiments.map((e) => e.name).join(', ')}`);
  const { params, json } = await parseArgs(rest, info);
  const result = lab.runExperiment(name, params);
  console.log(json ? JSON.stringify(result) : render(result));
  return 0;
}

// One line per error, no stack trace: 2 for the user's mistakes, 1 for the program's.
process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SamplingLabError) {
    console.error(`sampling-lab: ${error.argument}: ${error.message}`);
    return 2;
  }
  console.error(`sampling-lab: internal error: ${(error as Error)?.message ?? error}`);
  return 1;
});

