// One experiment's command line, read by node:util parseArgs with options built from the
// experiment's schema (each parameter in kebab and camel case) and the flags that say where the
// logits come from; each value is then parsed by the kind its schema gives it.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SamplingLabError } from '../lab/errors.js';
import { npyRow, parseNpy } from '../lab/npy.js';
import type { ExperimentInfo, ValueSpec } from '../lab/schema.js';
import { modelLogits } from './model.js';

/** Flags that say where the logits come from, not parameters of the experiment. */
export const SOURCE_FLAGS = ['model', 'passage', 'position', 'dtype'] as const;
export type Source<Name extends string = (typeof SOURCE_FLAGS)[number]> = Partial<Record<Name, string>>;

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** A parameter's flags: kebab case, as the widgets' attributes spell it, and camel case. */
export const spellings = (name: string): string[] => [...new Set([kebab(name), name])];

export interface Flags<Name extends string = (typeof SOURCE_FLAGS)[number]> {
  /** Each given parameter's text, by its schema name. */
  texts: Map<string, string>;
  /** The texts of the flags that are not parameters (`sources`). */
  source: Source<Name>;
  json: boolean;
  help: boolean;
}

/** The command line of `info`'s parameters and of the flags `sources`, each taking a text. */
export function readFlags<Name extends string>(argv: string[], info: ExperimentInfo, sources: readonly Name[]): Flags<Name> {
  const names = new Map<string, string>();  // flag → the parameter or source it sets
  for (const param of info.params) for (const spelling of spellings(param.name)) names.set(spelling, param.name);
  for (const flag of sources) names.set(flag, flag);
  const options = Object.fromEntries([...names.keys()].map((flag) => [flag, { type: 'string' as const }]));
  // Not strict: strict mode refuses a value that starts with '-' (--presence-penalty -1), so the
  // tokens are checked here, each failure one line.
  const { tokens } = parseArgs({
    args: argv, strict: false, allowPositionals: true, tokens: true,
    options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const flags: Flags<Name> = { texts: new Map(), source: {}, json: false, help: false };
  const hint = `run sampling-lab ${info.name} --help for its flags`;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') throw new SamplingLabError('arguments', `unexpected argument '${token.value}'; ${hint}`);
    const flag = token.rawName;
    if (token.name === 'json' || token.name === 'help') {
      if (token.value !== undefined) throw new SamplingLabError(token.name, `${flag} takes no value`);
      flags[token.name] = true;
      continue;
    }
    const name = flag === `--${token.name}` ? names.get(token.name) : undefined;  // no short forms
    if (name === undefined) {
      const near = didYouMean(flag.replace(/^-+/, ''), [...names.keys()]);
      throw new SamplingLabError(token.name, `unknown flag ${flag} for ${info.name}${near.replace(/'(.*)'/, "'--$1'")}; ${hint}`);
    }
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
      throw new SamplingLabError(name, `${flag} needs a value`);
    }
    const isSource = (sources as readonly string[]).includes(name);
    if (flags.texts.has(name) || (isSource && flags.source[name as Name] !== undefined)) {
      throw new SamplingLabError(name, `--${name} is given twice`);
    }
    if (isSource) flags.source[name as Name] = token.value;
    else flags.texts.set(name, token.value);
  }
  return flags;
}

// Decimal numbers only: Number() would also take '0x1f', '' and 'Infinity'.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function parseNumber(text: string, name: string): number {
  const value = DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value)) throw new SamplingLabError(name, `--${name} takes a finite decimal number, not '${text}'`);
  return value;
}

export function parseValue(text: string, spec: ValueSpec, name: string): unknown {
  switch (spec.kind) {
    case 'choice': return text;
    case 'optional': return text === 'null' ? null : parseValue(text, spec.of!, name);
    case 'array':
    case 'bitmask': return text.split(',').map((item) => parseNumber(item.trim(), name));
    default: return parseNumber(text, name);
  }
}

const isArray = (spec: ValueSpec): boolean => spec.kind === 'array' || spec.kind === 'bitmask' || (spec.kind === 'optional' && isArray(spec.of!));

export function parsePosition(text: string): number {
  const position = parseNumber(text, 'position');
  if (!Number.isInteger(position) || position < 1) throw new SamplingLabError('position', `--position counts from 1, not '${text}'`);
  return position;
}

async function readNpyRow(file: string, position: number | undefined, name: string): Promise<Float32Array | Float64Array> {
  try {
    const array = parseNpy(new Uint8Array(await readFile(file)));
    if (position !== undefined && array.shape.length === 1) throw new Error(`--position picks a row of a 2-D array, and this one is 1-D`);
    if (position !== undefined && position > array.shape[0]) {
      throw new Error(`--position ${position} is beyond its ${array.shape[0]} rows (positions count from 1)`);
    }
    return npyRow(array, position === undefined ? undefined : position - 1);
  } catch (error) {
    throw new SamplingLabError(name, `${file}: ${(error as Error).message}`);
  }
}

/** The experiment's parameters: every text parsed, .npy files read, logits from the model. */
export async function experimentParams(flags: Flags, info: ExperimentInfo): Promise<Record<string, unknown>> {
  const { texts, source } = flags;
  const params: Record<string, unknown> = {};
  const files: [string, string][] = [];
  for (const [name, text] of texts) {
    const spec = info.params.find((p) => p.name === name)!;
    if (isArray(spec) && text.endsWith('.npy')) files.push([name, text]);
    else params[name] = parseValue(text, spec, name);
  }
  if (source.model === undefined) {
    if (source.passage !== undefined || source.dtype !== undefined) throw new SamplingLabError('model', '--passage and --dtype need --model DIR');
    if (source.position !== undefined && files.length === 0) {
      throw new SamplingLabError('position', '--position picks a row of a 2-D .npy file or a position in --model\'s passage, and neither is given');
    }
  } else if (texts.has('logits')) {
    throw new SamplingLabError('logits', '--model and --logits both give the logits; give one of them');
  } else if (files.length > 0) {
    const [name, file] = files[0];
    throw new SamplingLabError(name, `--model and --${name} ${file} would both read --position; run them separately`);
  }
  const position = source.position === undefined ? undefined : parsePosition(source.position);
  for (const [name, file] of files) params[name] = await readNpyRow(file, position, name);
  if (source.model !== undefined) params.logits = await modelLogits(source, position, info);
  return params;
}

// Edits between two names (insertions, deletions, substitutions and swaps of two neighbours): the
// optimal string alignment distance (Damerau 1964).
function edits(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** " (did you mean 'x'?)" for the known name nearest to `given` (a third of its letters off at most), else ''. */
export function didYouMean(given: string, known: readonly string[]): string {
  const lower = given.toLowerCase();
  let best: string | undefined;
  let fewest = Math.max(1, Math.floor(given.length / 3));
  for (const name of known) {
    const distance = edits(lower, name.toLowerCase());
    if (distance <= fewest && (best === undefined || distance < fewest)) [best, fewest] = [name, distance];
  }
  return best === undefined ? '' : ` (did you mean '${best}'?)`;
}
