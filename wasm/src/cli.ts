#!/usr/bin/env node
// sampling-lab <experiment> [--json] [--name value ...] [--logits FILE.npy [--position i]]
import { readFile } from 'node:fs/promises';
import { loadSamplingLab, SamplingLabError } from './node.js';
import { npyRow, parseNpy } from './npy.js';
import type { ExperimentInfo } from './experiments.js';

const USAGE = `usage: sampling-lab <experiment> [--json] [--name value ...]
       sampling-lab list
Arrays are comma-separated (--temperatures 0.5,1,1.5). --logits FILE.npy loads a 1-D or 2-D
float32/float64 NumPy array; --position i picks the row of a 2-D one.`;

function parseValue(text: string, defaultValue: unknown): unknown {
  const asNumber = (s: string) => (s.trim() === '' ? NaN : Number(s));
  if (Array.isArray(defaultValue) || defaultValue === null || text.includes(',')) {
    return text.split(',').map(asNumber);
  }
  return typeof defaultValue === 'number' ? asNumber(text) : text;
}

async function parseArgs(argv: string[], info: ExperimentInfo) {
  const params: Record<string, unknown> = {};
  let json = false;
  let logitsFile: string | undefined;
  let position: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') { json = true; continue; }
    if (!arg.startsWith('--')) throw new SamplingLabError(arg, `unexpected argument '${arg}'\n${USAGE}`);
    const name = arg.slice(2);
    const value = argv[++i];
    if (value === undefined) throw new SamplingLabError(name, `--${name} needs a value`);
    if (name === 'logits' && value.endsWith('.npy')) logitsFile = value;
    else if (name === 'position') position = Number(value);
    else params[name] = parseValue(value, info.defaults[name]);
  }
  if (logitsFile) {
    const array = parseNpy(new Uint8Array(await readFile(logitsFile)));
    try {
      params.logits = npyRow(array, position);
    } catch (error) {
      throw new SamplingLabError('position', (error as Error).message);
    }
  }
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
    } else {
      out.push(`${key}: ${formatNumber(value)}`);
    }
  }
  return out.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const lab = await loadSamplingLab();
  if (name === 'list') {
    for (const info of lab.experiments) {
      console.log(`${info.name}\n  ${info.summary}\n  defaults: ${JSON.stringify(info.defaults)}`);
    }
    return 0;
  }
  const info = lab.experiments.find((e) => e.name === name) ?? { name, summary: '', defaults: {} };
  try {
    const { params, json } = await parseArgs(rest, info);
    const result = lab.runExperiment(name, params);
    console.log(json ? JSON.stringify(result) : render(result));
    return 0;
  } catch (error) {
    if (!(error instanceof SamplingLabError)) throw error;
    console.error(`sampling-lab: ${error.argument}: ${error.message}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
