#!/usr/bin/env node
// sampling-lab <experiment> [--json] [--name value ...] [--logits FILE.npy [--position i]]
// Flags are parsed by the kind the experiment's schema gives them.
import { readFile } from 'node:fs/promises';
import { loadSamplingLab, SamplingLabError } from './node.js';
import { npyRow, parseNpy } from './npy.js';
import type { ExperimentInfo, ParamSpec, ValueSpec } from './schema.js';

const USAGE = `usage: sampling-lab <experiment> [--json] [--name value ...]
       sampling-lab list
Arrays are comma-separated (--temperatures 0.5,1,1.5); optional values take null. An array flag
also takes a .npy file (1-D or 2-D float32/float64); --position i picks the row of a 2-D one.`;

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
    return npyRow(parseNpy(new Uint8Array(await readFile(file))), position);
  } catch (error) {
    throw new SamplingLabError(name, `${file}: ${(error as Error).message}`);
  }
}

async function parseArgs(argv: string[], info: ExperimentInfo) {
  const params: Record<string, unknown> = {};
  const files: [string, string][] = [];
  let json = false;
  let position: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') { json = true; continue; }
    if (!arg.startsWith('--')) throw new SamplingLabError(arg, `unexpected argument '${arg}'\n${USAGE}`);
    // --top-p and --topP both name topP: kebab case as the widgets' attributes spell it.
    const name = arg.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const value = argv[++i];
    if (value === undefined) throw new SamplingLabError(name, `--${name} needs a value`);
    if (name === 'position') {
      position = parseNumber(value, name);
      continue;
    }
    const spec = info.params.find((p) => p.name === name);
    if (!spec) {
      throw new SamplingLabError(name, `unknown flag --${name} for ${info.name}; it takes: ${info.params.map((p) => p.name).join(', ')}`);
    }
    if (isArray(spec) && value.endsWith('.npy')) files.push([name, value]);
    else params[name] = parseValue(value, spec, name);
  }
  for (const [name, file] of files) params[name] = await readNpyRow(file, position, name);
  return { params, json };
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

