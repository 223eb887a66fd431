// The shape of the core's parameter schema (core/experiments/include/sampling_lab/schema.hpp), as
// lab.experiments and lab.options publish it. The facts themselves live in the core.

/** Numbers as the lab takes them (logits, probabilities): a Float32Array, a Float64Array or a plain number[]. */
export type NumericArray = Float32Array | Float64Array | readonly number[];
/** Token ids and other integers as the lab takes them: an Int32Array or a plain array of integers. */
export type IntegerArray = Int32Array | readonly number[];
/** A packed token bitmask: bit i of word i / 32 = token i (xgrammar's layout). */
export type MaskArray = Uint32Array | Int32Array;

/** The kinds of value a parameter or option can be, which decide how it is checked. */
export type ParamKind = 'number' | 'integer' | 'seed' | 'probability' | 'choice' | 'array' | 'optional' | 'bitmask';

/** One value's schema: its kind, default and range (ends exclusive when flagged), and for arrays their items and lengths. */
export interface ValueSpec {
  kind: ParamKind;
  default?: unknown;
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
  /** choice */
  choices?: string[];
  /** array, bitmask: each element */
  items?: ValueSpec;
  minLength?: number;
  maxLength?: number;
  /** optional: the value when given (null means the documented built-in) */
  of?: ValueSpec;
}

/** An experiment parameter's schema: a named, documented value. */
export interface ParamSpec extends ValueSpec {
  name: string;
  doc: string;
  /** Where a widget's slider for it goes. */
  slider?: { min: number; max: number; step: number };
}

/** A sampling option's schema: a named value, its group and its slot in the core's option layout. */
export interface OptionSpec extends ValueSpec {
  name: string;
  group: 'filter' | 'mask' | 'history' | 'randomKey';
  /** Index among the scalar options, or among the id lists (kind 'array'). */
  slot: number;
  /** What it does: in the experiments lab's options (and the option types' comments), not the sampler's. */
  doc?: string;
  /** Where a widget's slider for it goes: in the experiments lab's options. */
  slider?: ParamSpec['slider'];
}

/** An option as `sampling-lab/experiments` publishes it, with its documentation. */
export interface DocumentedOptionSpec extends OptionSpec {
  doc: string;
}

/** An experiment as `lab.experiments` lists it: its name, one-line summary and parameter schema. */
export interface ExperimentInfo {
  name: string;
  summary: string;
  params: ParamSpec[];
}

/** Every parameter's default, by name. */
export function defaultsOf(params: readonly ParamSpec[]): Record<string, unknown> {
  return Object.fromEntries(params.map((p) => [p.name, p.default]));
}
