// How results print: a readable text form, or JSON. Vocabulary-sized arrays may arrive as typed
// arrays, which both forms print as arrays.
import type { ParamSpec, ValueSpec } from '../lab/schema.js';
import { spellings } from './flags.js';

const SHOWN = 12;

type List = ArrayLike<unknown>;
const isList = (value: unknown): value is List => Array.isArray(value) || ArrayBuffer.isView(value);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !isList(value);

function formatNumber(x: number): string {
  if (Number.isSafeInteger(x)) return String(x);
  return Math.abs(x) >= 1e-3 && Math.abs(x) < 1e6 ? x.toFixed(4).replace(/\.?0+$/, '') : x.toExponential(3);
}

function formatList(list: List): string {
  const shown = Array.from({ length: Math.min(list.length, SHOWN) }, (_, i) => formatValue(list[i])).join(', ');
  return list.length > SHOWN ? `[${shown}, … ${list.length} in all]` : `[${shown}]`;
}

/** One value on one line: numbers rounded, long arrays cut, objects as {key: value}; null as null. */
function formatValue(value: unknown): string {
  if (typeof value === 'number') return formatNumber(value);
  if (isList(value)) return formatList(value);
  if (isRecord(value)) return `{${Object.entries(value).map(([key, item]) => `${key}: ${formatValue(item)}`).join(', ')}}`;
  return String(value);
}

// Columns are every key any row has, in order of appearance; a row without one leaves it blank.
function table(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((c) => (c in row ? formatValue(row[c]) : '')));
  const widths = columns.map((c, j) => Math.max(c.length, ...cells.map((r) => r[j].length)));
  const line = (r: string[]) => r.map((s, j) => s.padStart(widths[j])).join('  ');
  return [line(columns), ...cells.map(line)].join('\n');
}

/** A result as text: an array of objects as a table, anything else as `key: value`. */
export function render(result: object): string {
  return Object.entries(result).map(([key, value]) =>
    (Array.isArray(value) && value.length > 0 && value.every(isRecord) ? `${key}:\n${table(value)}` : `${key}: ${formatValue(value)}`),
  ).join('\n');
}

export const toJson = (result: unknown): string =>
  JSON.stringify(result, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Float64Array) : value));

const KIND_WORDS: Record<string, string> = { number: 'a number', integer: 'an integer', seed: 'an integer seed', probability: 'a probability' };

/** What a flag takes, from its schema: "a probability in (0, 1]", "one of handbook, random", … */
function accepts(spec: ValueSpec): string {
  const { min, max } = spec;
  switch (spec.kind) {
    case 'choice': return `one of ${spec.choices!.join(', ')}`;
    case 'optional': return `null (the built-in) or ${accepts(spec.of!)}`;
    case 'array': return `comma-separated or a .npy file, ${spec.minLength ?? 0} to ${spec.maxLength} items, each ${accepts(spec.items!)}`;
    case 'bitmask': return `comma-separated or a .npy file of ceil(V / 32) 32-bit words (bit i of word i / 32 = token i)`;
    default: {
      const what = KIND_WORDS[spec.kind];
      if (min !== undefined && max !== undefined) {
        return `${what} in ${spec.minExclusive ? '(' : '['}${formatNumber(min)}, ${formatNumber(max)}${spec.maxExclusive ? ')' : ']'}`;
      }
      if (min !== undefined) return `${what} ${spec.minExclusive ? '>' : '≥'} ${formatNumber(min)}`;
      if (max !== undefined) return `${what} ${spec.maxExclusive ? '<' : '≤'} ${formatNumber(max)}`;
      return what;
    }
  }
}

/** One parameter as `sampling-lab list` and `<experiment> --help` print it. */
export function describe(param: ParamSpec): string {
  const shown = isList(param.default) && param.default.length > 8 ? `[${param.default.length} values]` : formatValue(param.default);
  const flags = spellings(param.name).map((s) => `--${s}`).join(', ');
  return `    ${flags} (${param.kind}, default ${shown}; ${accepts(param)}): ${param.doc}`;
}
