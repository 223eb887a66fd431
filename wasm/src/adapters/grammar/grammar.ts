// sampling-lab/grammar: xgrammar's grammars (JSON schema, EBNF, regex, structural tags) as the
// core's allowedMask. @mlc-ai/web-xgrammar is an optional peer, loaded on the first grammar: its
// WebAssembly (728 KB, inlined) costs nothing to a page that never constrains a generation.
import { CORE_LIMITS } from '../../generated/tables.js';
import { SamplingLabError } from '../../lab/errors.js';
import {
  compiledOrExplained, isNode, specArgument, loadXGrammar, ReplyKind, startingXGrammar, type CompileRequest, type CompileStage, type HostRequest, type XCompiler,
  type XMatcher,
} from './xgrammar.js';
export type { CompileStage } from './xgrammar.js';
import { compileInBrowserWorker, type GrammarWorker, JumpForwardMirror, WorkerMatcher } from './browser-grammar.js';

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

/** Options of compileGrammar. */
export interface CompileOptions {
  /** The model's vocab_size, the logits' length (default: the tokenizer's vocabulary). */
  vocabSize?: number;
  /** Stops the compile (which runs in a worker thread in Node, a Worker in a browser); the promise then rejects with a SamplingLabError for `signal`. */
  signal?: AbortSignal;
  /**
   * Browsers: compile and match in the calling thread, so that matchers answer within the call, as
   * transformers.js's processors (createLogitsProcessor) need; the compile then blocks that thread.
   * By default a browser's grammar lives in a Worker (await matcher.settled() after each change).
   * In Node every grammar lives in a worker thread and answers within the call.
   */
  synchronous?: boolean;
  /** Ids that end the output once the grammar is complete (default: the tokenizer's eos_token_id; xgrammar's guess from the vocabulary when it has none). */
  stopTokenIds?: readonly number[];
  /** Called as the compile reaches each stage: 'loading' xgrammar, reading the tokenizer's 'vocabulary' (the first compile for a tokenizer), 'compiling' the spec. */
  onProgress?: (stage: CompileStage) => void;
}

/** A decoder as tokenizer.json writes it. */
export interface DecoderJSON {
  type?: string;
  decoders?: DecoderJSON[];
}

/** The slice of a transformers.js tokenizer read here: its vocabulary and tokenizer.json's decoder. */
export interface GrammarTokenizer {
  /** The vocabulary: each token's string and its id. */
  get_vocab(): Map<string, number> | Record<string, number>;
  eos_token_id?: number | null;
  _tokenizerJSON?: { decoder?: DecoderJSON | null };
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

// The core's largest vocabulary, as the module binds it.
const MAX_VOCABULARY = CORE_LIMITS.maxVocabulary;

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
  const argument = specArgument(spec);
  const text = argument === 'jsonSchema' && typeof spec.jsonSchema === 'string' ? spec.jsonSchema
    : argument === 'ebnf' ? spec.ebnf! : argument === 'regex' ? spec.regex! : JSON.stringify(spec[argument]);
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
  readonly #backend: GrammarBackend;
  readonly #forget: () => void;
  #disposed = false;

  /** @internal */
  constructor(backend: GrammarBackend, vocabSize: number, forget: () => void) {
    this.#backend = backend;
    this.vocabSize = vocabSize;
    this.#forget = forget;
  }

  /** A matcher at the start of the output, its first mask computed. */
  async matcher(): Promise<GrammarMatcher> {
    if (this.#disposed) throw new SamplingLabError('grammar', 'the grammar was disposed: compile it again');
    const created = new GrammarMatcher(await this.#backend.matcher(), this.vocabSize, this.#backend.synchronous);
    await created.settled();
    return created;
  }

  /** Frees the compiled grammar; in Node its matchers end with it (they live in its worker). */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#forget();
    this.#backend.dispose();
  }
}

/** Where a compiled grammar lives: this thread's xgrammar, a Node worker's, or a browser Worker's. */
interface GrammarBackend {
  matcher(): Promise<XMatcher>;
  /** Whether its matchers answer within the call (a browser Worker's answer later). */
  synchronous: boolean;
  dispose(): void;
}

/**
 * One sequence's place in the grammar. `allowedMask` is the current step's mask (the core's
 * allowedMask: bit i = token i allowed); it is recomputed after every accept and rollBack, ready
 * once `settled()` resolves (within the same turn of the event loop).
 */
export class GrammarMatcher {
  readonly vocabSize: number;
  /**
   * Whether accept, isTerminated and allowedMask answer within the call, as transformers.js's
   * processors need (in Node always; in a browser when compiled with `synchronous: true`). Else
   * the matcher lives in a Worker: await settled() after each accept, rollBack or reset.
   */
  readonly synchronous: boolean;
  readonly #matcher: XMatcher;
  #disposed = false;
  #mask: Int32Array | undefined;
  #pending: Promise<void> = Promise.resolve();
  #accepted = 0;

  /** @internal */
  constructor(matcher: XMatcher, vocabSize: number, synchronous: boolean) {
    this.#matcher = matcher;
    this.vocabSize = vocabSize;
    this.synchronous = synchronous;
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
    // A Worker's matcher answers later: the current mask says now whether the token is allowed.
    if (!this.synchronous && (this.isTerminated() || !((this.allowedMask[token >>> 5] >>> (token & 31)) & 1))) return false;
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

  /**
   * The longest text every continuation starts with (xgrammar's findJumpForwardString), computed
   * off the caller's thread; one that never ends is a SamplingLabError for `grammar` within a second.
   */
  async jumpForward(): Promise<string> {
    this.#alive();
    return this.#matcher.jumpForward ? this.#matcher.jumpForward() : this.#matcher.findJumpForwardString();
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
    // A terminated matcher has no next mask (xgrammar aborts when asked for one); a Worker's
    // matcher may learn it from its reply.
    if (this.synchronous && this.#matcher.isTerminated()) {
      this.#pending = Promise.resolve();
      return;
    }
    const computing = this.#matcher.getNextTokenBitmask().then((mask) => {
      if (this.#pending === computing) this.#mask = mask;
    }, (error: unknown) => {
      // Never an unhandled rejection: settled() and allowedMask report it.
      if (error instanceof SamplingLabError) throw error;
      throw new SamplingLabError('grammar', `xgrammar could not compute the mask: ${(error as Error)?.message ?? String(error)}`);
    });
    computing.catch(() => {});
    this.#pending = computing;
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
    if (!['vocabSize', 'stopTokenIds', 'signal', 'synchronous', 'onProgress'].includes(key)) {
      throw new SamplingLabError(key, `unknown compile option '${key}'; accepted: vocabSize, stopTokenIds, signal, synchronous, onProgress`);
    }
  }
  const { onProgress } = options;
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new SamplingLabError('onProgress', 'onProgress must be a function');
  if (options.synchronous !== undefined && typeof options.synchronous !== 'boolean') throw new SamplingLabError('synchronous', 'synchronous is true or false');
  const { signal } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new SamplingLabError('signal', 'signal must be an AbortSignal');
  const target = targetFor(tokenizer, options);
  const key = JSON.stringify([spec, !isNode && options.synchronous === true]);
  const cached = target.grammars.get(key);
  if (cached) return cached;
  const { jsonSchema, ...rest } = spec;
  const request: CompileRequest['spec'] = {
    ...rest, ...(jsonSchema !== undefined && { jsonSchema: typeof jsonSchema === 'string' ? jsonSchema : JSON.stringify(jsonSchema) }),
  };
  const forget = () => target.grammars.delete(key);
  const compiling = isNode ? compileInWorker(target, request, forget, signal, onProgress)
    : options.synchronous ? compileHere(target, request, forget, onProgress) : compileInBrowser(target, request, forget, signal, onProgress);
  target.grammars.set(key, compiling);
  // A failed compile is not kept.
  compiling.catch(forget);
  return compiling;
}

/**
 * One tokenizer with its compile options: its vocabulary as xgrammar reads it, the grammars
 * compiled for it, and what compiles them: this thread's compiler (its tokenizer info built once:
 * a pass over the vocabulary and megabytes of xgrammar's memory), or in Node the worker threads
 * whose grammars were disposed, their tokenizer info ready for the next grammar.
 */
interface Target {
  tokens: string[];
  vocabType: string;
  vocabSize: number;
  stopTokenIds?: number[];
  grammars: Map<string, Promise<CompiledGrammar>>;
  compiler?: Promise<{ api: Awaited<ReturnType<typeof loadXGrammar>>; compiler: XCompiler }>;
  idle: GrammarHost[];
  idleBrowser: GrammarWorker[];
}
const targets = new WeakMap<object, Map<string, Target>>();

function targetFor(tokenizer: GrammarTokenizer, options: CompileOptions): Target {
  const { vocabSize: given, stopTokenIds: stops } = options;
  // xgrammar would guess the stop tokens from their text, and a vocabulary may hold "</s>" as a plain token.
  const stopTokenIds = stops ?? (typeof tokenizer?.eos_token_id === 'number' ? [tokenizer.eos_token_id] : undefined);
  // transformers.js tokenizers are callable objects.
  const keyable = (typeof tokenizer === 'object' || typeof tokenizer === 'function') && tokenizer !== null;
  let byOptions = keyable ? targets.get(tokenizer) : undefined;
  const key = JSON.stringify([given ?? null, stopTokenIds ?? null]);
  const known = byOptions?.get(key);
  if (known) return known;
  const { tokens, vocabType } = vocabularyOf(tokenizer);
  const vocabSize = given ?? tokens.length;
  if (!Number.isInteger(vocabSize) || vocabSize < tokens.length || vocabSize > MAX_VOCABULARY) {
    throw new SamplingLabError('vocabSize', `vocabSize must be an integer in [${tokens.length}, 2^24] (the tokenizer has ${tokens.length} tokens), not ${String(vocabSize)}`);
  }
  // None would leave the matcher no way to end, which xgrammar aborts on.
  if (stopTokenIds !== undefined && (!Array.isArray(stopTokenIds) || stopTokenIds.length === 0
      || stopTokenIds.some((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize))) {
    throw new SamplingLabError('stopTokenIds', `stopTokenIds must be one or more token ids in [0, ${vocabSize})`);
  }
  const target: Target = { tokens, vocabType, vocabSize, stopTokenIds: stopTokenIds && [...stopTokenIds], grammars: new Map(), idle: [], idleBrowser: [] };
  if (!byOptions) targets.set(tokenizer, byOptions = new Map());
  byOptions.set(key, target);
  return target;
}

async function compileHere(target: Target, spec: CompileRequest['spec'], forget: () => void, onProgress?: (stage: CompileStage) => void): Promise<CompiledGrammar> {
  onProgress?.('loading');
  target.compiler ??= (async () => {
    const api = await loadXGrammar();
    onProgress?.('vocabulary');
    const info = await startingXGrammar(() =>
      api.TokenizerInfo.createTokenizerInfo(target.tokens, target.vocabType, false, target.vocabSize, target.stopTokenIds));
    // xgrammar's own cache would keep every grammar compiled; ours keeps them until dispose().
    return { api, compiler: await api.GrammarCompiler.createGrammarCompiler(info, false) };
  })();
  target.compiler.catch(() => { target.compiler = undefined; });
  const { api, compiler } = await target.compiler;
  onProgress?.('compiling');
  const grammar = await compiledOrExplained(compiler, spec);
  const mirror = new JumpForwardMirror(requestFor(target, spec));
  return new CompiledGrammar({
    matcher: async () => mirror.mirrored(await api.GrammarMatcher.createGrammarMatcher(grammar, target.stopTokenIds)),
    synchronous: true,
    dispose: () => {
      mirror.end();
      grammar.dispose();
    },
  }, target.vocabSize, forget);
}

function requestFor(target: Target, spec: CompileRequest['spec']): CompileRequest {
  return { tokens: target.tokens, vocabType: target.vocabType, vocabSize: target.vocabSize, stopTokenIds: target.stopTokenIds, spec };
}

async function compileInBrowser(target: Target, spec: CompileRequest['spec'], forget: () => void, signal?: AbortSignal,
  onProgress?: (stage: CompileStage) => void): Promise<CompiledGrammar> {
  const idle = target.idleBrowser.pop();
  const request = requestFor(target, spec);
  const worker = await compileInBrowserWorker(idle ? { ...request, tokens: undefined } : request, signal, onProgress, idle);
  const generation = ++worker.generation;
  return new CompiledGrammar({
    matcher: async () => new WorkerMatcher(worker, (await worker.call({ op: 'matcher' })).value as number, target.stopTokenIds, generation),
    synchronous: false,
    dispose: () => retire(worker, target.idleBrowser),
  }, target.vocabSize, forget);
}

// Idle workers kept per tokenizer and options, for the next compile.
const MAX_IDLE_WORKERS = 2;

/**
 * A disposed grammar's worker (a Node worker thread or a browser Worker): kept for the next
 * compile of its tokenizer, its grammar's matchers made stale (it frees them at that compile), or
 * ended when enough are kept.
 */
function retire<W extends { readonly alive: boolean; generation: number; end(reason: string): void }>(worker: W, idle: W[]): void {
  if (worker.alive && idle.length < MAX_IDLE_WORKERS) {
    worker.generation++;
    idle.push(worker);
  } else {
    worker.end('its grammar was disposed');
  }
}

async function compileInWorker(target: Target, spec: CompileRequest['spec'], forget: () => void, signal?: AbortSignal,
  onProgress?: (stage: CompileStage) => void): Promise<CompiledGrammar> {
  const host = target.idle.pop() ?? await GrammarHost.start();
  const { vocabType, vocabSize, stopTokenIds } = target;
  try {
    await host.compile({ tokens: host.fresh ? target.tokens : undefined, vocabType, vocabSize, stopTokenIds, spec }, signal, onProgress);
  } catch (error) {
    host.end('its compile failed');
    throw error;
  }
  const generation = host.generation;
  return new CompiledGrammar({
    matcher: async () => hostMatcher(host, host.call('matcher', []) as number, generation),
    synchronous: true,
    dispose: () => retire(host, target.idle),
  }, vocabSize, forget);
}

// Replies a worker can take: a mask of 2^24 tokens is 2 MiB; jump-forward strings are short.
const SHARED_BYTES = 4 << 20;
// A worker's matcher answers within milliseconds; past these it is ended (a jump-forward string
// that never ends grows xgrammar's memory by hundreds of megabytes a second).
const CALL_MS = 10_000;
const JUMP_FORWARD_MS = 1_000;
// Not a literal in `new URL(…)`, which bundlers would take for an asset of the page.
const HOST_FILE = './grammar-host.js';

/** A Node worker thread holding one tokenizer's xgrammar compiler and one grammar (grammar-host.ts). */
class GrammarHost {
  /** No grammar compiled yet: the first compile request carries the vocabulary. */
  fresh = true;
  /** Counts the grammars it held: a matcher of an earlier one is refused. */
  generation = 0;
  readonly #worker: import('node:worker_threads').Worker;
  readonly #state: Int32Array;
  readonly #bytes: Uint8Array;
  #seq = 0;
  #ended?: string;

  private constructor(worker: import('node:worker_threads').Worker, control: SharedArrayBuffer, data: SharedArrayBuffer) {
    this.#worker = worker;
    this.#state = new Int32Array(control);
    this.#bytes = new Uint8Array(data);
    // A grammar alive does not keep the process alive.
    worker.unref();
    worker.on('error', (error) => this.end(`its worker failed: ${error.message}`));
    worker.on('exit', () => this.end('its worker ended'));
  }

  static async start(): Promise<GrammarHost> {
    const { Worker } = await import('node:worker_threads');
    const control = new SharedArrayBuffer(16);
    const data = new SharedArrayBuffer(SHARED_BYTES);
    return new GrammarHost(new Worker(new URL(HOST_FILE, import.meta.url), { workerData: { control, data } }), control, data);
  }

  get alive(): boolean {
    return this.#ended === undefined;
  }

  compile(request: CompileRequest, signal?: AbortSignal, onProgress?: (stage: CompileStage) => void): Promise<void> {
    this.generation++;
    const worker = this.#worker;
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: SamplingLabError) => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        worker.unref();
        if (error) reject(error);
        else resolve();
      };
      const onMessage = (message: { compiled: boolean; message?: string; argument?: string; progress?: CompileStage }) => {
        if (message.progress) return onProgress?.(message.progress);
        if (message.compiled) this.fresh = false;
        finish(message.compiled ? undefined : new SamplingLabError(message.argument ?? 'grammar', message.message ?? 'xgrammar could not compile the grammar'));
      };
      const onExit = () => finish(new SamplingLabError('grammar', `xgrammar's worker ended while compiling: ${this.#ended ?? 'it exited'}`));
      const onAbort = () => {
        this.end('its compile was aborted');
        finish(new SamplingLabError('signal', 'the compile was stopped by its signal'));
      };
      if (!this.alive) return finish(new SamplingLabError('grammar', `xgrammar's worker has ended: ${this.#ended}`));
      if (signal?.aborted) return onAbort();
      // The compile keeps the process alive until it answers.
      worker.ref();
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ compile: request });
    });
  }

  /** Runs a matcher request and waits for its reply in shared memory. */
  call(op: HostRequest['op'], args: number[], timeout = CALL_MS): unknown {
    if (this.#ended) throw new SamplingLabError('grammar', `xgrammar's worker has ended (${this.#ended}): compile the grammar again`);
    const seq = ++this.#seq;
    this.#worker.postMessage({ seq, op, args } satisfies HostRequest);
    const deadline = performance.now() + timeout;
    while (Atomics.load(this.#state, 0) !== seq) {
      const left = deadline - performance.now();
      if (left <= 0 || (Atomics.wait(this.#state, 0, seq - 1, left) === 'timed-out' && Atomics.load(this.#state, 0) !== seq)) {
        const reason = `xgrammar's ${op} took more than ${timeout} ms (a jump-forward string that never ends, or a runaway grammar), so its worker was ended`;
        this.end(reason);
        throw new SamplingLabError('grammar', reason);
      }
    }
    const payload = this.#bytes.slice(0, this.#state[2]);
    if (this.#state[1] === ReplyKind.Mask) return new Int32Array(payload.buffer);
    const text = new TextDecoder().decode(payload);
    if (this.#state[1] === ReplyKind.Error) {
      const reason = `xgrammar failed in ${op} (${text}), so its worker was ended`;
      this.end(reason);
      throw new SamplingLabError('grammar', reason);
    }
    return JSON.parse(text);
  }

  end(reason: string): void {
    if (this.#ended) return;
    this.#ended = reason;
    this.generation++;
    void this.#worker.terminate();
  }
}

// A matcher of a worker's grammar: each call a request answered in shared memory.
function hostMatcher(host: GrammarHost, id: number, generation: number): XMatcher {
  const call = (op: HostRequest['op'], args: number[] = [], timeout?: number) => {
    if (host.generation !== generation) throw new SamplingLabError('grammar', 'the grammar was disposed: its matchers ended with it');
    return host.call(op, [id, ...args], timeout);
  };
  return {
    acceptToken: (token) => call('accept', [token]) as boolean,
    getNextTokenBitmask: async () => call('mask') as Int32Array,
    isTerminated: () => call('terminated') as boolean,
    findJumpForwardString: () => call('jumpForward', [], JUMP_FORWARD_MS) as string,
    rollBack: (tokens) => { call('rollBack', [tokens]); },
    reset: () => { call('reset'); },
    dispose: () => {
      if (host.alive && host.generation === generation) call('dispose');
    },
  };
}
