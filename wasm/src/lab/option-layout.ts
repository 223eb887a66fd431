// The option table's layout of sampling options: each row's options checked for their JavaScript
// types and list lengths, flattened to the table's names ("xtc.probability", "logitBias.ids",
// order as stage indices) and written into the core's option buffers (kept across calls of the
// same shape, so a generation loop crosses into WebAssembly only to sample). The core checks the values.
import { STAGE_TABLE, type StageName } from '../generated/tables.js';
import type { CoreEngine, CoreModule } from '../sampling-lab-core.js';
import { checkKeys, checkLength, describe, idList, isObject, view } from './checks.js';
import { SamplingLabError } from './errors.js';
import type { IntegerArray, NumericArray, OptionSpec } from './schema.js';
import type { BatchOptions, SampleTokenOptions } from './types.js';

export type Group = OptionSpec['group'];
// The distribution takes the random key too: XTC's draw comes from it, as in sampleToken.
export const TOKEN_GROUPS: readonly Group[] = ['filter', 'mask', 'history', 'randomKey'];

// An allow-list or mask that is given allows some token: empty, it would allow none (vLLM and
// transformers refuse an empty allow-list too); to allow every token, leave it out.
export function allowingSome<T extends ArrayLike<number>>(list: T, name: string): T {
  if (list.length === 0) throw new SamplingLabError(name, `${name} is empty, so it allows no token; leave it out to allow every token`);
  return list;
}

/** Options that cross among the lists: token ids, numbers, bitmasks. */
export const isList = (spec: OptionSpec): boolean => spec.kind === 'array' || spec.kind === 'bitmask';

/** A bitmask's words as the id lists carry them: a Uint32Array read as an Int32Array, with no copy. */
function maskWords(value: unknown, name: string, maxLength: number): Int32Array {
  if (!(value instanceof Uint32Array) && !(value instanceof Int32Array)) {
    throw new SamplingLabError(name, `${name} must be a Uint32Array or Int32Array of 32-bit words (bit i of word i / 32 = token i)`);
  }
  checkLength(value, name, maxLength);
  return value instanceof Int32Array ? value : new Int32Array(value.buffer, value.byteOffset, value.length);
}

/** A list of numbers as a Float32Array can carry it (no holes); ranges are the core's to check. */
function numberList(value: unknown, name: string, maxLength: number): NumericArray {
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array) && !Array.isArray(value)) {
    throw new SamplingLabError(name, `${name} must be a Float32Array, Float64Array or number[]`);
  }
  checkLength(value, name, maxLength);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] !== 'number') throw new SamplingLabError(name, `${name}[${i}] is ${describe(value, i)}, not a number`);
    }
  }
  return value;
}

export const NO_ITEMS: readonly number[] = Object.freeze([]);
/** logitBias as an object holds at most this many tokens; [ids, biases] holds a vocabulary. */
const OBJECT_BIAS_KEYS = 65536;

/** badWords `[[ids…], …]` as the table's two lists: the ids back to back and each sequence's length. */
function badWordsLists(value: unknown, maxLength: number): [IntegerArray, number[]] {
  if (!Array.isArray(value)) throw new SamplingLabError('badWords', 'badWords must be an array of token-id sequences');
  checkLength(value, 'badWords', maxLength);
  const ids: number[] = [];
  const lengths: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const sequence = value[i];
    if (!(i in value) || (!Array.isArray(sequence) && !(sequence instanceof Int32Array))) {
      throw new SamplingLabError('badWords', `badWords[${i}] must be an array of token ids`);
    }
    if (sequence.length === 0) throw new SamplingLabError('badWords', `badWords[${i}] is empty`);
    if (ids.length + sequence.length > maxLength) throw new SamplingLabError('badWords', `badWords holds more than ${maxLength} ids`);
    for (const id of idList(sequence, 'badWords', maxLength)) ids.push(id);
    lengths.push(sequence.length);
  }
  return [ids, lengths];
}

/** `{ [tokenId]: bias }` or `[ids, biases]` as the table's two lists; keys are canonical ids ('7', not '07' or '0x7'). */
function logitBiasLists(value: unknown, maxLength: number): [IntegerArray, NumericArray] {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'object') {
    const [ids, biases] = value as [ArrayLike<unknown> | null, ArrayLike<unknown> | null];
    if (ids?.length !== biases?.length) {
      throw new SamplingLabError('logitBias', `logitBias has ${ids?.length} ids and ${biases?.length} biases; they must be as many`);
    }
    return [idList(ids, 'logitBias', maxLength), numberList(biases, 'logitBias', maxLength)];
  }
  if (!isObject(value) || value instanceof Map) {
    throw new SamplingLabError('logitBias', 'logitBias must be { [tokenId]: bias } or [ids, biases]');
  }
  // Counting an object's keys reads them all: the object form is for few tokens.
  const keys = Object.keys(value);
  checkLength(keys, 'logitBias', OBJECT_BIAS_KEYS);
  for (const key of keys) {
    if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new SamplingLabError('logitBias', `logitBias key '${key}' is not a token id`);
  }
  return [keys.map(Number), numberList(Object.values(value), 'logitBias', maxLength)];
}

export interface LaidOut {
  rows: number;
  lists: IntegerArray[];
  numberLists: NumericArray[];
  rowScalars: [number, number, unknown][];
}

interface OptionBuffers {
  values: Float64Array;
  ids: Int32Array;
  offsets: Int32Array;
  numbers: Float32Array;
  numberOffsets: Int32Array;
}

interface AcceptedNames {
  /** Top-level keys a caller may give. */
  names: string[];
  /** Objects whose fields are dotted names: xtc, dry, mirostat. */
  nested: Map<string, string[]>;
}

/** The option table as a lab lays out its options, and the core's option buffers it writes. */
export class OptionLayout {
  /** The option table by name. */
  readonly byName: Map<string, OptionSpec>;
  /** The stages `order` arranges, by index. */
  readonly stageNames: readonly StageName[];
  readonly #options: readonly OptionSpec[];
  readonly #core: CoreModule;
  readonly #engine: CoreEngine;
  readonly #limits: { maxVocabulary: number; maxBatchRows: number };
  readonly #scalars: number;
  // Its scalars by slot, their defaults (NaN for an unset optional) and the list counts.
  readonly #table: { byName: Map<string, OptionSpec>; scalarBySlot: OptionSpec[]; defaults: Float64Array; idLists: number; numberLists: number };
  readonly #stageTable = STAGE_TABLE;
  #buffers?: OptionBuffers & { epoch: number };
  #epoch?: Uint32Array;

  constructor(options: readonly OptionSpec[], core: CoreModule, engine: CoreEngine, limits: { maxVocabulary: number; maxBatchRows: number }) {
    this.#options = options;
    this.#core = core;
    this.#engine = engine;
    this.#limits = limits;
    this.#scalars = options.filter((o) => !isList(o)).length;
    const scalarBySlot: OptionSpec[] = [];
    const defaults = new Float64Array(this.#scalars);
    for (const spec of options) {
      if (isList(spec)) continue;
      scalarBySlot[spec.slot] = spec;
      defaults[spec.slot] = spec.kind === 'optional' ? NaN : (spec.default as number);
    }
    this.byName = new Map(options.map((spec) => [spec.name, spec]));
    this.#table = {
      byName: this.byName,
      scalarBySlot,
      defaults,
      idLists: options.filter((o) => isList(o) && o.items?.kind !== 'number').length,
      numberLists: options.filter((o) => o.kind === 'array' && o.items?.kind === 'number').length,
    };
    const { idLists, numberLists } = this.#table;
    if (core.scalarOptions !== this.#scalars || core.listOptions !== idLists || core.numberListOptions !== numberLists) {
      throw new Error('the WebAssembly module and generated/tables.ts describe different option tables: rebuild both');
    }
    this.stageNames = Object.freeze(this.#stageTable.stages);
  }

  rowsOf(options: BatchOptions, logitsRows?: number): readonly SampleTokenOptions[] {
    let rows = logitsRows ?? 1;
    if (Array.isArray(options)) {
      if (options.length === 0) throw new SamplingLabError('options', 'options must describe at least one row');
      checkLength(options, 'options', this.#limits.maxBatchRows);
      for (let r = 0; r < options.length; r++) {
        if (!(r in options)) throw new SamplingLabError('options', `options[${r}] is a hole`);
      }
      return options;
    }
    checkKeys(options, this.accepted(TOKEN_GROUPS).names);
    const entries = Object.entries(options as Record<string, unknown>);
    const isColumn = entries.map(([name, value]) => this.#isColumn(name, value));
    const columns = entries.filter((_, e) => isColumn[e]) as [string, ArrayLike<unknown>][];
    if (columns.length > 0) {
      const [first, { length }] = columns[0];
      checkLength(columns[0][1], first, this.#limits.maxBatchRows);
      if (length === 0) throw new SamplingLabError(first, `${first} must describe at least one row`);
      for (const [name, column] of columns) {
        if (column.length !== length) {
          throw new SamplingLabError(name, `${name} has ${column.length} entries for ${length} rows (${first} has ${length})`);
        }
        for (let r = 0; r < length; r++) if (!(r in column)) throw new SamplingLabError(name, `${name}[${r}] is a hole`);
      }
      if (logitsRows !== undefined && length !== logitsRows) {
        throw new SamplingLabError(first, `${first} has ${length} entries for ${logitsRows} rows of logits`);
      }
      rows = length;
    }
    return Array.from({ length: rows }, (_, r) => {
      const row: Record<string, unknown> = {};
      entries.forEach(([name, value], e) => { row[name] = isColumn[e] ? (value as ArrayLike<unknown>)[r] : value; });
      return row;
    });
  }

  // A per-row value: an array of numbers for a scalar option, an array of lists for a list.
  #isColumn(name: string, value: unknown): boolean {
    const spec = this.#table.byName.get(name);
    if (spec === undefined) return false;  // nested options (xtc, dry, …) are shared by every row
    if (!isList(spec)) return typeof value === 'object' && value !== null && 'length' in value;
    return Array.isArray(value) && value.length > 0 && typeof value[0] === 'object';
  }

  // The table's flat names ("xtc.probability", "logitBias.ids", order as stage indices) of one
  // row's options, after checking its keys.
  #flatten(options: object, accepted: AcceptedNames): Record<string, unknown> {
    checkKeys(options, accepted.names);
    // Most calls give only flat options: they cross as given.
    if (!Object.keys(options).some((key) => key === 'logitBias' || key === 'badWords' || key === 'order' || accepted.nested.has(key))) return options;
    const flat: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      if (key === 'logitBias') {
        [flat['logitBias.ids'], flat['logitBias.values']] = logitBiasLists(value, this.#table.byName.get('logitBias.ids')!.maxLength!);
      } else if (key === 'badWords') {
        // badWords' ids in all at most: the core's kMaxBadWordIds, the largest a sequence may be.
        [flat['badWords.ids'], flat['badWords.lengths']] = badWordsLists(value, this.#table.byName.get('badWords.lengths')!.items!.max!);
      } else if (key === 'order') {
        flat.order = this.#stageIndices(value);
      } else if (accepted.nested.has(key)) {
        checkKeys(value, accepted.nested.get(key)!, key);
        for (const [field, inner] of Object.entries(value)) flat[`${key}.${field}`] = inner;
      } else {
        flat[key] = value;
      }
    }
    return flat;
  }

  #stageIndices(order: unknown): number[] {
    if (order === 'handbook') return [];
    const names = order === 'llama.cpp' ? this.#stageTable.presets['llama.cpp'] : order;
    if (!Array.isArray(names)) {
      throw new SamplingLabError('order', "order must be 'handbook', 'llama.cpp' or an array of stage names");
    }
    // An empty list would read as the default: the stages to run must be named.
    if (names.length === 0) throw new SamplingLabError('order', "order must name the stages to run, or be 'handbook' or 'llama.cpp'");
    checkLength(names, 'order', this.stageNames.length);
    return Array.from(names, (name, i) => {
      const index = this.stageNames.indexOf(name);
      if (index < 0) {
        throw new SamplingLabError('order', `order[${i}] is ${i in names ? `'${String(name)}'` : 'a hole'}, not a stage; stages: ${this.stageNames.join(', ')}`);
      }
      return index;
    });
  }

  // The options of each row as the core's option table lays them out, with every JavaScript
  // type and every list's length checked (the lists' total too) before anything is copied; the
  // core checks the values.
  layOut(rows: readonly object[]): LaidOut {
    const accepted = this.accepted(TOKEN_GROUPS);
    const { byName, idLists, numberLists: numberListCount } = this.#table;
    const lists: IntegerArray[] = [];
    const numberLists: NumericArray[] = [];
    const rowScalars: [number, number, unknown][] = [];  // (row, spec slot, value) of the given scalars
    // Every list of every row crosses in one buffer of bounded size.
    const most = this.#limits.maxVocabulary * idLists;
    let ids = 0;
    let numbers = 0;
    rows.forEach((options, r) => {
      const rowLists: IntegerArray[] = new Array(idLists).fill(NO_ITEMS);
      const rowNumbers: NumericArray[] = new Array(numberListCount).fill(NO_ITEMS);
      // Only the given options are visited: the rest keep the defaults.
      for (const [name, value] of Object.entries(this.#flatten(options, accepted))) {
        const spec = byName.get(name)!;
        if (value === undefined) continue;
        if (spec.kind === 'bitmask') {
          ids += (rowLists[spec.slot] = allowingSome(maskWords(value, spec.name, spec.maxLength!), spec.name)).length;
        } else if (spec.kind !== 'array') {
          rowScalars.push([r, spec.slot, value]);
        } else if (spec.items?.kind === 'number') {
          numbers += (rowNumbers[spec.slot] = numberList(value, spec.name, spec.maxLength!)).length;
        } else {
          const list = idList(value, spec.name, spec.maxLength!);
          ids += (rowLists[spec.slot] = name === 'allowedTokens' ? allowingSome(list, name) : list).length;
        }
      }
      if (ids > most || numbers > most) {
        throw new SamplingLabError('options', `the options' lists hold more than ${most} entries in all (by row ${r})`);
      }
      lists.push(...rowLists);
      numberLists.push(...rowNumbers);
    });
    return { rows: rows.length, lists, numberLists, rowScalars };
  }

  // Writes laid-out options into the core's buffers.
  write({ rows, lists, numberLists, rowScalars }: LaidOut): void {
    const scalars = this.#scalars;
    const { defaults } = this.#table;
    const offsets = [0];
    for (const list of lists) offsets.push(offsets[offsets.length - 1] + list.length);
    const numberOffsets = [0];
    for (const list of numberLists) numberOffsets.push(numberOffsets[numberOffsets.length - 1] + list.length);
    const buffers = this.#optionBuffers(rows, offsets[offsets.length - 1], offsets.length,
      numberOffsets[numberOffsets.length - 1], numberOffsets.length);
    const values = buffers.values;
    for (let r = 0; r < rows; r++) values.set(defaults, r * scalars);
    for (const [r, slot, value] of rowScalars) {
      const spec = this.#table.scalarBySlot[slot];
      if (spec.kind === 'optional') {
        // NaN is how an unset value crosses, so a NaN given here is refused rather than unset.
        if (value !== null && (typeof value !== 'number' || Number.isNaN(value))) {
          throw new SamplingLabError(spec.name, `${spec.name} must be a number or null`);
        }
        values[r * scalars + slot] = value ?? NaN;
      } else {
        if (typeof value !== 'number') throw new SamplingLabError(spec.name, `${spec.name} must be a number`);
        values[r * scalars + slot] = value;
      }
    }
    buffers.offsets.set(offsets);
    buffers.numberOffsets.set(numberOffsets);
    let at = 0;
    for (const list of lists) {
      buffers.ids.set(list, at);
      at += list.length;
    }
    at = 0;
    for (const list of numberLists) {
      buffers.numbers.set(list, at);
      at += list.length;
    }
  }

  #acceptedByGroups = new Map<readonly Group[], AcceptedNames>();

  // The public names of the options of these groups: flat ones, and the objects (xtc, dry, …)
  // whose fields are the table's dotted names.
  accepted(groups: readonly Group[]): AcceptedNames {
    let accepted = this.#acceptedByGroups.get(groups);
    if (!accepted) {
      const flat = this.#options.filter((o) => groups.includes(o.group)).map((o) => o.name);
      const nested = new Map<string, string[]>();
      for (const name of flat) {
        const [outer, field] = name.split('.');
        if (field !== undefined && outer !== 'logitBias' && outer !== 'badWords') nested.set(outer, [...(nested.get(outer) ?? []), field]);
      }
      const names = [...new Set(flat.map((name) => name.split('.')[0]))];
      accepted = { names, nested };
      this.#acceptedByGroups.set(groups, accepted);
    }
    return accepted;
  }

  // The kept views of the option buffers while valid: the core owns the buffers, so they are valid
  // while its epoch is the one they were taken at (it changes when the core hands buffers back)
  // and memory has not grown (a detached view, the epoch's included, reads as empty).
  current() {
    const cached = this.#buffers;
    return cached && this.#epoch?.[0] === cached.epoch ? cached : undefined;
  }

  // Views of the option buffers, kept across calls of the same shape: a generation loop then
  // crosses into WebAssembly only to sample. Memory growth detaches them (byteLength 0).
  #optionBuffers(rows: number, ids: number, offsets: number, numbers: number, numberOffsets: number) {
    const fits = (b: OptionBuffers) => b.values.length === rows * this.#scalars && b.ids.length === ids &&
      b.offsets.length === offsets && b.numbers.length === numbers && b.numberOffsets.length === numberOffsets;
    const cached = this.current();
    if (cached && fits(cached)) return cached;
    // Sizing resizes the core's buffers: until it has succeeded, no view is valid.
    this.#buffers = undefined;
    const { IdSlot } = this.#core;
    // Sizing a later buffer may grow memory and detach the earlier views; the second round
    // allocates nothing.
    for (;;) {
      const buffers = {
        values: view(this.#engine.optionValues(rows)),
        ids: view(this.#engine.ints(IdSlot.ids, ids, 'options')),
        offsets: view(this.#engine.ints(IdSlot.offsets, offsets, 'options')),
        numbers: view(this.#engine.numberLists(numbers)),
        numberOffsets: view(this.#engine.ints(IdSlot.numberOffsets, numberOffsets, 'options')),
      };
      const epoch = this.#engine.epoch();
      if (fits(buffers)) {
        this.#epoch = epoch;
        this.#buffers = { ...buffers, epoch: epoch[0] };
        return this.#buffers;
      }
    }
  }
}
