// sampling-lab/grammar: xgrammar's grammars (JSON schema, EBNF, regex, structural tags) as the
// core's allowedMask. @mlc-ai/web-xgrammar is an optional peer, loaded on the first grammar: its
// WebAssembly (728 KB, inlined) costs nothing to a page that never constrains a generation.
import { SamplingLabError } from './errors.js';

/** What to constrain the output to: exactly one of jsonSchema, ebnf, regex, structuralTag. */
export interface GrammarSpec {
  /** A JSON schema (object or its text). */
  jsonSchema?: object | string;
  /** An EBNF grammar in xgrammar's dialect; its start rule is `root`. */
  ebnf?: string;
  /** A regular expression the whole output matches. */
  regex?: string;
  /** An xgrammar structural tag ({ type: 'structural_tag', format }). */
  structuralTag?: object;
  /** JSON schema only: allow any whitespace between tokens (default false: compact JSON, `,` and `:` alone). */
  anyWhitespace?: boolean;
}

export interface CompileOptions {
  /** The model's vocab_size, the logits' length (default: the tokenizer's vocabulary). */
  vocabSize?: number;
  /** Ids that end the output once the grammar is complete (default: the tokenizer's eos_token_id; xgrammar's guess from the vocabulary when it has none). */
  stopTokenIds?: readonly number[];
}

/** A decoder as tokenizer.json writes it. */
interface DecoderJSON {
  type?: string;
  decoders?: DecoderJSON[];
}

/** The slice of a transformers.js tokenizer read here: its vocabulary and tokenizer.json's decoder. */
export interface GrammarTokenizer {
  get_vocab(): Map<string, number> | Record<string, number>;
  eos_token_id?: number | null;
  _tokenizerJSON?: { decoder?: DecoderJSON | null };
}

/** xgrammar's API as its bundle exports it (the parts used here). */
interface XGrammar {
  TokenizerInfo: { createTokenizerInfo(vocab: string[], vocabType: string, prependSpace: boolean, vocabSize?: number, stopTokenIds?: number[]): Promise<XHandle> };
  GrammarCompiler: { createGrammarCompiler(info: XHandle, cacheEnabled?: boolean): Promise<XCompiler> };
  GrammarMatcher: { createGrammarMatcher(grammar: XHandle, stopTokens?: number[]): Promise<XMatcher> };
}
interface XHandle { dispose(): void }
interface XCompiler extends XHandle {
  compileJSONSchema(schema: string, anyWhitespace: boolean, indent: number, separators: [string, string], strictMode: boolean): Promise<XHandle>;
  compileGrammar(ebnf: string): Promise<XHandle>;
  compileStructuralTag(tag: object): Promise<XHandle>;
}
interface XMatcher extends XHandle {
  acceptToken(token: number): boolean;
  getNextTokenBitmask(): Promise<Int32Array>;
  isTerminated(): boolean;
  findJumpForwardString(): string;
  rollBack(tokens: number): void;
  reset(): void;
}

let loaded: Promise<XGrammar> | undefined;

// The bundle is UMD: imported as an ES module it only sets globalThis.xgrammar (a bundler's
// CommonJS wrapper gives its exports instead); in Node its ES-module form asks for `require`, so
// it runs as CommonJS there.
function loadXGrammar(): Promise<XGrammar> {
  loaded ??= (async () => {
    const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined' && typeof self === 'undefined';
    try {
      if (isNode) {
        const [{ createRequire }, { readFile }] = await Promise.all([import('node:module'), import('node:fs/promises')]);
        const require = createRequire(import.meta.url);
        const path = require.resolve('@mlc-ai/web-xgrammar');
        const module = { exports: {} as XGrammar };
        // Its one dynamic import (of 'module') goes through ours: code made by new Function has
        // no import of its own under a test runner's module loader.
        const source = (await readFile(path, 'utf8')).replace("import('module')", "importModule('module')");
        new Function('exports', 'module', 'require', '__filename', '__dirname', 'importModule', source)(
          module.exports, module, require, path, path.slice(0, path.lastIndexOf('/')), (specifier: string) => import(specifier));
        return module.exports;
      }
      const imported = await import('@mlc-ai/web-xgrammar') as unknown as { default?: XGrammar } & Partial<XGrammar>;
      const api = imported.GrammarCompiler ? imported as XGrammar : imported.default?.GrammarCompiler ? imported.default : (globalThis as { xgrammar?: XGrammar }).xgrammar;
      if (!api) throw new Error('the bundle exported nothing');
      return api;
    } catch (error) {
      loaded = undefined;
      throw new SamplingLabError('grammar', `sampling-lab/grammar needs @mlc-ai/web-xgrammar (npm i @mlc-ai/web-xgrammar): ${(error as Error).message}`);
    }
  })();
  return loaded;
}

const decoderTypes = (decoder: DecoderJSON | null | undefined): string[] =>
  decoder ? [decoder.type ?? '', ...(decoder.decoders ?? []).flatMap(decoderTypes)] : [];

/** The tokenizer's vocabulary by id (added tokens included) and how xgrammar reads its strings. */
function vocabularyOf(tokenizer: GrammarTokenizer): { tokens: string[]; vocabType: string } {
  if (typeof tokenizer?.get_vocab !== 'function') throw new SamplingLabError('tokenizer', 'tokenizer must be a transformers.js tokenizer (with get_vocab())');
  const vocab = tokenizer.get_vocab();
  const tokens: string[] = [];
  // Ids are checked before xgrammar sees them: a sparse id of 2^30 would size an array of 2^30.
  for (const [token, id] of vocab instanceof Map ? vocab : Object.entries(vocab)) {
    if (!Number.isInteger(id) || id < 0 || id >= MAX_VOCABULARY) {
      throw new SamplingLabError('tokenizer', `the tokenizer's vocabulary gives '${token}' the id ${String(id)}, outside [0, 2^24)`);
    }
    tokens[id] = token;
  }
  if (tokens.length === 0) throw new SamplingLabError('tokenizer', "the tokenizer's vocabulary is empty");
  for (let id = 0; id < tokens.length; id++) tokens[id] ??= '';
  const types = decoderTypes(tokenizer._tokenizerJSON?.decoder);
  const vocabType = types.includes('ByteLevel') ? 'byte_level' : types.includes('ByteFallback') ? 'byte_fallback' : 'raw';
  return { tokens, vocabType };
}

// The core's largest vocabulary.
const MAX_VOCABULARY = 2 ** 24;

function checkSpec(spec: GrammarSpec): void {
  if (typeof spec !== 'object' || spec === null) throw new SamplingLabError('grammar', 'the grammar must be { jsonSchema | ebnf | regex | structuralTag }');
  const given = (['jsonSchema', 'ebnf', 'regex', 'structuralTag'] as const).filter((key) => spec[key] !== undefined);
  if (given.length !== 1) throw new SamplingLabError('grammar', `give exactly one of jsonSchema, ebnf, regex, structuralTag (given: ${given.join(', ') || 'none'})`);
  for (const key of Object.keys(spec)) {
    if (!['jsonSchema', 'ebnf', 'regex', 'structuralTag', 'anyWhitespace'].includes(key)) throw new SamplingLabError(key, `unknown grammar option '${key}'`);
  }
  if (spec.anyWhitespace !== undefined && (typeof spec.anyWhitespace !== 'boolean' || spec.jsonSchema === undefined)) {
    throw new SamplingLabError('anyWhitespace', 'anyWhitespace is true or false, for a jsonSchema');
  }
  if ((spec.ebnf !== undefined && typeof spec.ebnf !== 'string') || (spec.regex !== undefined && typeof spec.regex !== 'string')) {
    throw new SamplingLabError(spec.ebnf !== undefined ? 'ebnf' : 'regex', 'ebnf and regex are strings');
  }
}

/**
 * What a grammar may ask of xgrammar. Past these its compiler runs for seconds to minutes or
 * aborts its WebAssembly instance (measured: JSON nesting 64 poisons it, maxLength 1e9 takes 8 s,
 * 10,000 required properties 6 s, (a{0,1000}){0,1000} 90 s, 20,000 rules 85 s), so a spec past
 * one is refused before xgrammar sees it.
 */
export const GRAMMAR_LIMITS = Object.freeze({
  /** Characters of the spec's text (a JSON schema as JSON, an EBNF grammar, a regex). */
  textLength: 65536,
  /** Nesting of a JSON schema or structural tag (objects and arrays). */
  jsonDepth: 32,
  /** A JSON schema's minItems, maxItems, minLength, maxLength, minProperties, maxProperties. */
  sizeBound: 4096,
  /** Entries of one `properties`, `required`, `enum`, `anyOf`, `oneOf`, `allOf` or `prefixItems`. */
  listLength: 1024,
  /** EBNF rules. */
  rules: 1000,
  /** One repetition bound {m,n} of a regex or EBNF. */
  repetition: 256,
  /** The product of the repetition bounds through nested groups. */
  nestedRepetition: 4096,
});

const SIZE_KEYWORDS = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'minContains', 'maxContains'];
const LIST_KEYWORDS = ['required', 'enum', 'anyOf', 'oneOf', 'allOf', 'prefixItems'];

function tooBig(argument: string, what: string, limit: number): SamplingLabError {
  return new SamplingLabError(argument, `${what} is past sampling-lab/grammar's limit of ${limit} (GRAMMAR_LIMITS): xgrammar would take minutes or abort on it`);
}

// A JSON schema or structural tag: its depth, size keywords and lists.
function checkJsonSize(value: unknown, argument: string, depth = 0): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > GRAMMAR_LIMITS.jsonDepth) throw tooBig(argument, `its nesting (${depth} levels)`, GRAMMAR_LIMITS.jsonDepth);
  if (!Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const key of SIZE_KEYWORDS) {
      const bound = object[key];
      if (typeof bound === 'number' && bound > GRAMMAR_LIMITS.sizeBound) throw tooBig(argument, `${key}: ${bound}`, GRAMMAR_LIMITS.sizeBound);
    }
    for (const key of [...LIST_KEYWORDS, 'properties']) {
      const list = object[key];
      const length = Array.isArray(list) ? list.length : key === 'properties' && typeof list === 'object' && list !== null ? Object.keys(list).length : 0;
      if (length > GRAMMAR_LIMITS.listLength) throw tooBig(argument, `${key} with ${length} entries`, GRAMMAR_LIMITS.listLength);
    }
    if (typeof object.pattern === 'string') checkRepetitions(object.pattern, argument);
  }
  for (const item of Object.values(value)) checkJsonSize(item, argument, depth + 1);
}

const REPETITION = /^\{(\d+)(,(\d*))?\}/;

// Repetition bounds {m}, {m,} and {m,n} of a regex or EBNF text, alone and multiplied through the
// groups that hold them (EBNF's quoted literals and both's character classes skipped).
function checkRepetitions(text: string, argument: string): void {
  const groups: number[] = [1];  // the largest repetition product inside each open group
  const quotes = argument === 'ebnf' ? '"\'' : '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
    } else if (quotes.includes(c)) {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '[') {
      for (i++; i < text.length && text[i] !== ']'; i++) if (text[i] === '\\') i++;
    } else if (c === '(') {
      groups.push(1);
    } else if (c === ')' && groups.length > 1) {
      const inner = groups.pop()!;
      const bound = REPETITION.exec(text.slice(i + 1, i + 24));
      const times = bound ? Math.max(Number(bound[1]), Number(bound[3] || 0)) : 1;
      groups[groups.length - 1] = Math.max(groups[groups.length - 1], inner * times);
    } else if (c === '{') {
      const bound = REPETITION.exec(text.slice(i, i + 24));
      if (!bound) continue;
      const largest = Math.max(Number(bound[1]), Number(bound[3] || 0));
      if (largest > GRAMMAR_LIMITS.repetition) throw tooBig(argument, `the repetition ${bound[0]}`, GRAMMAR_LIMITS.repetition);
      groups[groups.length - 1] = Math.max(groups[groups.length - 1], largest);
    }
    const product = groups.reduce((a, b) => a * b, 1);
    if (product > GRAMMAR_LIMITS.nestedRepetition) throw tooBig(argument, `nested repetitions (${product} in all)`, GRAMMAR_LIMITS.nestedRepetition);
  }
}

function checkSize(spec: GrammarSpec): void {
  const [argument, text] = spec.jsonSchema !== undefined
    ? ['jsonSchema', typeof spec.jsonSchema === 'string' ? spec.jsonSchema : JSON.stringify(spec.jsonSchema)]
    : spec.ebnf !== undefined ? ['ebnf', spec.ebnf]
      : spec.regex !== undefined ? ['regex', spec.regex] : ['structuralTag', JSON.stringify(spec.structuralTag)];
  if (text.length > GRAMMAR_LIMITS.textLength) throw tooBig(argument, `its text (${text.length} characters)`, GRAMMAR_LIMITS.textLength);
  if (argument === 'jsonSchema' || argument === 'structuralTag') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SamplingLabError(argument, `${argument} is not valid JSON`);
    }
    return checkJsonSize(parsed, argument);
  }
  if (argument === 'ebnf') {
    const rules = text.split('::=').length - 1;
    if (rules > GRAMMAR_LIMITS.rules) throw tooBig(argument, `${rules} rules`, GRAMMAR_LIMITS.rules);
  }
  checkRepetitions(text, argument);
}

/**
 * A grammar compiled for one tokenizer: makes a matcher per sequence. compileGrammar returns the
 * same object for the same tokenizer, spec and options until it is disposed.
 */
export class CompiledGrammar {
  /** The mask's vocabulary (the logits' length): masks have ceil(vocabSize / 32) words. */
  readonly vocabSize: number;
  readonly #api: XGrammar;
  readonly #grammar: XHandle;
  readonly #stopTokenIds?: number[];
  readonly #forget: () => void;
  #disposed = false;

  /** @internal */
  constructor(api: XGrammar, grammar: XHandle, vocabSize: number, stopTokenIds: number[] | undefined, forget: () => void) {
    this.#api = api;
    this.#grammar = grammar;
    this.vocabSize = vocabSize;
    this.#stopTokenIds = stopTokenIds;
    this.#forget = forget;
  }

  /** A matcher at the start of the output, its first mask computed. */
  async matcher(): Promise<GrammarMatcher> {
    if (this.#disposed) throw new SamplingLabError('grammar', 'the grammar was disposed: compile it again');
    const matcher = await this.#api.GrammarMatcher.createGrammarMatcher(this.#grammar, this.#stopTokenIds);
    const created = new GrammarMatcher(matcher, this.vocabSize);
    await created.settled();
    return created;
  }

  /** Frees xgrammar's compiled grammar (matchers made from it keep working until disposed). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#forget();
    this.#grammar.dispose();
  }
}

/**
 * One sequence's place in the grammar. `allowedMask` is the current step's mask (the core's
 * allowedMask: bit i = token i allowed); it is recomputed after every accept and rollBack, ready
 * once `settled()` resolves (within the same turn of the event loop).
 */
export class GrammarMatcher {
  readonly vocabSize: number;
  readonly #matcher: XMatcher;
  #disposed = false;
  #mask: Int32Array | undefined;
  #pending: Promise<void> = Promise.resolve();
  #accepted = 0;

  /** @internal */
  constructor(matcher: XMatcher, vocabSize: number) {
    this.#matcher = matcher;
    this.vocabSize = vocabSize;
    this.#refresh();
  }

  /** Resolves when allowedMask holds the current step's mask. */
  settled(): Promise<void> {
    return this.#pending;
  }

  /** The current step's mask (ceil(vocabSize / 32) words). */
  get allowedMask(): Int32Array {
    if (!this.#mask) {
      this.#alive();
      throw new SamplingLabError('grammar', this.isTerminated() ? 'the grammar has terminated: no token follows'
        : 'the grammar mask is being computed: await matcher.settled() first');
    }
    return this.#mask;
  }

  /** How many tokens the current mask allows. */
  get allowedCount(): number {
    const mask = this.allowedMask;
    let count = 0;
    for (let w = 0; w < mask.length; w++) {
      let word = mask[w] >>> 0;
      if (w === mask.length - 1 && this.vocabSize % 32 !== 0) word &= (2 ** (this.vocabSize % 32) - 1) >>> 0;
      while (word !== 0) {
        word &= word - 1;
        count++;
      }
    }
    return count;
  }

  /** Tokens accepted and not rolled back. */
  get length(): number {
    return this.#accepted;
  }

  /** Advances by one token; false (and no change) when the grammar does not allow it. */
  accept(token: number): boolean {
    this.#alive();
    if (!Number.isInteger(token) || token < 0 || token >= this.vocabSize) {
      throw new SamplingLabError('token', `token must be an id in [0, ${this.vocabSize}), not ${String(token)}`);
    }
    if (!this.#matcher.acceptToken(token)) return false;
    this.#accepted++;
    this.#refresh();
    return true;
  }

  /** Undoes the last `tokens` accepts. */
  rollBack(tokens: number): void {
    this.#alive();
    if (!Number.isInteger(tokens) || tokens < 0 || tokens > this.#accepted) {
      throw new SamplingLabError('tokens', `rollBack takes 0 … ${this.#accepted} tokens, not ${String(tokens)}`);
    }
    if (tokens === 0) return;
    this.#matcher.rollBack(tokens);
    this.#accepted -= tokens;
    this.#refresh();
  }

  /** Whether the grammar has accepted its stop token: the output is complete. */
  isTerminated(): boolean {
    this.#alive();
    return this.#matcher.isTerminated();
  }

  /** The longest text every continuation starts with (xgrammar's findJumpForwardString). */
  jumpForward(): string {
    this.#alive();
    return this.#matcher.findJumpForwardString();
  }

  /** Back to the start. */
  reset(): void {
    this.#alive();
    this.#matcher.reset();
    this.#accepted = 0;
    this.#refresh();
  }

  /** Frees xgrammar's matcher; using it afterwards is a SamplingLabError. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#mask = undefined;
    // A mask still being computed reads the matcher: it is freed once that is done.
    void this.#pending.finally(() => this.#matcher.dispose());
  }

  #alive(): void {
    if (this.#disposed) throw new SamplingLabError('grammar', 'the matcher was disposed');
  }

  #refresh(): void {
    this.#mask = undefined;
    // A terminated matcher has no next mask (xgrammar aborts when asked for one).
    if (this.#matcher.isTerminated()) {
      this.#pending = Promise.resolve();
      return;
    }
    const computing = this.#matcher.getNextTokenBitmask().then((mask) => {
      if (this.#pending === computing) this.#mask = mask;
    }, (error: unknown) => {
      // Never an unhandled rejection: settled() and allowedMask report it.
      throw new SamplingLabError('grammar', `xgrammar could not compute the mask: ${(error as Error)?.message ?? String(error)}`);
    });
    computing.catch(() => {});
    this.#pending = computing;
  }
}

/**
 * xgrammar reports a bad grammar by printing "[FATAL] file:line: why" and "Aborted()" through the
 * console.error it bound when its module started, then throwing "Aborted()". It binds this
 * function instead (console.error is swapped only while it starts), which keeps the why for the
 * error and prints neither line.
 */
let lastFatal: string | undefined;
const originalError = console.error;
function xgrammarError(...args: unknown[]): void {
  const text = args.map(String).join(' ');
  const why = /^\[FATAL\] \S*:\d+: (.*)$/s.exec(text);
  if (why) lastFatal = why[1].trim();
  else if (text !== 'Aborted()') (console.error === xgrammarError ? originalError : console.error).apply(console, args);
}

async function startingXGrammar<T>(start: () => Promise<T>): Promise<T> {
  const error = console.error;
  console.error = xgrammarError;
  try {
    return await start();
  } finally {
    console.error = error;
  }
}

/**
 * Compiles a grammar for a transformers.js tokenizer (byte-level BPE such as Qwen3's included):
 * JSON schemas as compact JSON unless `anyWhitespace`, EBNF, a regex, or a structural tag.
 */
export async function compileGrammar(tokenizer: GrammarTokenizer, spec: GrammarSpec, options: CompileOptions = {}): Promise<CompiledGrammar> {
  checkSpec(spec);
  checkSize(spec);
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new SamplingLabError('options', 'options must be an object');
  for (const key of Object.keys(options)) {
    if (key !== 'vocabSize' && key !== 'stopTokenIds') throw new SamplingLabError(key, `unknown compile option '${key}'; accepted: vocabSize, stopTokenIds`);
  }
  const compiler = await compilerFor(tokenizer, options);
  const key = JSON.stringify(spec);
  const cached = compiler.grammars.get(key);
  if (cached) return cached;
  const compiling = compileWith(compiler, spec, () => compiler.grammars.delete(key));
  compiler.grammars.set(key, compiling);
  // A failed compile is not kept.
  compiling.catch(() => compiler.grammars.delete(key));
  return compiling;
}

/**
 * xgrammar's tokenizer info and compiler for one tokenizer and its options, built once (each
 * costs a pass over the vocabulary and megabytes of xgrammar's memory), with the grammars
 * compiled by it.
 */
interface Compiler {
  api: XGrammar;
  compiler: XCompiler;
  vocabSize: number;
  stopTokenIds?: number[];
  grammars: Map<string, Promise<CompiledGrammar>>;
}
const compilers = new WeakMap<object, Map<string, Promise<Compiler>>>();

function compilerFor(tokenizer: GrammarTokenizer, options: CompileOptions): Promise<Compiler> {
  const { tokens, vocabType } = vocabularyOf(tokenizer);
  const { vocabSize = tokens.length } = options;
  // xgrammar would guess the stop tokens from their text, and a vocabulary may hold "</s>" as a plain token.
  const stopTokenIds = options.stopTokenIds ?? (typeof tokenizer.eos_token_id === 'number' ? [tokenizer.eos_token_id] : undefined);
  if (!Number.isInteger(vocabSize) || vocabSize < tokens.length || vocabSize > MAX_VOCABULARY) {
    throw new SamplingLabError('vocabSize', `vocabSize must be an integer in [${tokens.length}, 2^24] (the tokenizer has ${tokens.length} tokens), not ${String(vocabSize)}`);
  }
  // None would leave the matcher no way to end, which xgrammar aborts on.
  if (stopTokenIds !== undefined && (!Array.isArray(stopTokenIds) || stopTokenIds.length === 0
      || stopTokenIds.some((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize))) {
    throw new SamplingLabError('stopTokenIds', `stopTokenIds must be one or more token ids in [0, ${vocabSize})`);
  }
  let byOptions = compilers.get(tokenizer);
  if (!byOptions) compilers.set(tokenizer, byOptions = new Map());
  const key = JSON.stringify([vocabSize, stopTokenIds ?? null]);
  let compiler = byOptions.get(key);
  if (!compiler) {
    compiler = (async () => {
      const api = await loadXGrammar();
      const stops = stopTokenIds ? [...stopTokenIds] : undefined;
      const info = await startingXGrammar(() => api.TokenizerInfo.createTokenizerInfo(tokens, vocabType, false, vocabSize, stops));
      // xgrammar's own cache would keep every grammar compiled; ours keeps them until dispose().
      return { api, compiler: await api.GrammarCompiler.createGrammarCompiler(info, false), vocabSize, stopTokenIds: stops, grammars: new Map() };
    })();
    byOptions.set(key, compiler);
    compiler.catch(() => byOptions!.delete(key));
  }
  return compiler;
}

async function compileWith({ api, compiler, vocabSize, stopTokenIds }: Compiler, spec: GrammarSpec, forget: () => void): Promise<CompiledGrammar> {
  lastFatal = undefined;
  try {
    const grammar = spec.jsonSchema !== undefined
      ? await compiler.compileJSONSchema(typeof spec.jsonSchema === 'string' ? spec.jsonSchema : JSON.stringify(spec.jsonSchema),
        spec.anyWhitespace ?? false, -1, [',', ':'], true)
      : spec.ebnf !== undefined ? await compiler.compileGrammar(spec.ebnf)
        : await compiler.compileStructuralTag(spec.regex !== undefined
          ? { type: 'structural_tag', format: { type: 'regex', pattern: spec.regex } } : spec.structuralTag!);
    return new CompiledGrammar(api, grammar, vocabSize, stopTokenIds, forget);
  } catch (error) {
    if (error instanceof SamplingLabError) throw error;
    const why = lastFatal ?? (error as Error)?.message ?? String(error);
    throw new SamplingLabError('grammar', `xgrammar could not compile the grammar: ${why}`);
  }
}
