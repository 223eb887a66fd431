// Loading @mlc-ai/web-xgrammar and reading the reasons it gives, shared by the grammar entry and
// its Node worker (grammar-host.ts). The package is an optional peer, loaded on the first grammar.
import { SamplingLabError } from '../../lab/errors.js';

/** xgrammar's API as its bundle exports it (the parts used here). */
export interface XGrammar {
  TokenizerInfo: { createTokenizerInfo(vocab: string[], vocabType: string, prependSpace: boolean, vocabSize?: number, stopTokenIds?: number[]): Promise<XHandle> };
  GrammarCompiler: { createGrammarCompiler(info: XHandle, cacheEnabled?: boolean): Promise<XCompiler> };
  GrammarMatcher: { createGrammarMatcher(grammar: XHandle, stopTokens?: number[]): Promise<XMatcher> };
}
export interface XHandle { dispose(): void }
export interface XCompiler extends XHandle {
  compileJSONSchema(schema: string, anyWhitespace: boolean, indent: number, separators: [string, string], strictMode: boolean): Promise<XHandle>;
  compileGrammar(ebnf: string): Promise<XHandle>;
  compileStructuralTag(tag: object): Promise<XHandle>;
}
export interface XMatcher extends XHandle {
  acceptToken(token: number): boolean;
  /** The next mask; none once terminated (a Worker's matcher says so here). */
  getNextTokenBitmask(): Promise<Int32Array | undefined>;
  isTerminated(): boolean;
  findJumpForwardString(): string;
  /** The jump-forward string computed off the calling thread (a browser's matchers). */
  jumpForward?(): Promise<string>;
  rollBack(tokens: number): void;
  reset(): void;
}

/** What a grammar is compiled from: the tokenizer's vocabulary as xgrammar reads it (sent with a worker's first request only), and the spec. */
export interface CompileRequest {
  tokens?: string[];
  vocabType: string;
  vocabSize: number;
  stopTokenIds?: number[];
  spec: { jsonSchema?: string; anyWhitespace?: boolean; ebnf?: string; regex?: string; structuralTag?: object };
}

/** Where a compile is: loading xgrammar, reading the tokenizer's vocabulary (once per worker), compiling the spec. */
export type CompileStage = 'loading' | 'vocabulary' | 'compiling';

/** A request to a worker's matcher (grammar-host.ts): `seq` numbers the reply in shared memory. */
export interface HostRequest {
  seq: number;
  op: 'matcher' | 'accept' | 'mask' | 'terminated' | 'jumpForward' | 'rollBack' | 'reset' | 'dispose';
  args: number[];
}

/** Reply kinds in a worker's shared control word 1: a JSON value, a mask's words, or an error's message. */
export const enum ReplyKind { Json = 0, Mask = 1, Error = 2 }

export const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined'
  && typeof self === 'undefined';

let loaded: Promise<XGrammar> | undefined;

// The bundle is UMD: imported as an ES module it only sets globalThis.xgrammar (a bundler's
// CommonJS wrapper gives its exports instead); in Node its ES-module form asks for `require`, so
// it runs as CommonJS there.
export function loadXGrammar(): Promise<XGrammar> {
  loaded ??= (async () => {
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

/**
 * xgrammar reports a bad grammar by printing "[FATAL] file:line: why" and "Aborted()" through the
 * console.error it bound when its module started, then throwing "Aborted()". It binds these
 * functions instead (console.error and console.log are swapped only while it starts), which keep
 * the why for the error and print neither line. They also keep the one warning (printed through
 * console.log) that means a wrong mask: a negated class whose shorthand spans non-ASCII
 * characters (`[^\s\S]`, `[^\d\D]`) is clamped to ASCII, so `[^\s\S]`, which matches nothing,
 * would allow 18,670 of Qwen3's tokens.
 */
let lastFatal: string | undefined;
let lastClamp: string | undefined;
const originals = { error: console.error, log: console.log };
const bound = {
  error: (...args: unknown[]) => xgrammarPrinted('error', args),
  log: (...args: unknown[]) => xgrammarPrinted('log', args),
};
function xgrammarPrinted(stream: 'error' | 'log', args: unknown[]): void {
  const text = args.map(String).join(' ');
  const why = /^\[FATAL\] \S*:\d+: (.*)$/s.exec(text);
  if (why) lastFatal = why[1].trim();
  else if (/^\[WARNING\] .*clamping/s.test(text)) lastClamp = text.replace(/^\[WARNING\] \S*:\d+: /, '').trim();
  else if (text !== 'Aborted()') (console[stream] === bound[stream] ? originals[stream] : console[stream]).apply(console, args);
}

export async function startingXGrammar<T>(start: () => Promise<T>): Promise<T> {
  const { error, log } = console;
  console.error = bound.error;
  console.log = bound.log;
  try {
    return await start();
  } finally {
    console.error = error;
    console.log = log;
  }
}

/** The spec's argument: the key of its grammar. */
export function specArgument(spec: { jsonSchema?: unknown; ebnf?: unknown; regex?: unknown }): 'jsonSchema' | 'ebnf' | 'regex' | 'structuralTag' {
  return spec.jsonSchema !== undefined ? 'jsonSchema' : spec.ebnf !== undefined ? 'ebnf' : spec.regex !== undefined ? 'regex' : 'structuralTag';
}

/** Compiles `spec`, its failure a SamplingLabError naming its key with the reason xgrammar printed; a grammar xgrammar clamps is refused. */
export async function compiledOrExplained(compiler: XCompiler, spec: CompileRequest['spec']): Promise<XHandle> {
  const argument = specArgument(spec);
  lastFatal = undefined;
  lastClamp = undefined;
  let compiled: XHandle;
  try {
    compiled = await compileSpec(compiler, spec);
  } catch (error) {
    if (error instanceof SamplingLabError) throw error;
    throw new SamplingLabError(argument, `xgrammar could not compile the grammar: ${lastFatal ?? (error as Error)?.message ?? String(error)}`);
  }
  if (lastClamp !== undefined) {
    compiled.dispose();
    throw new SamplingLabError(argument, `xgrammar would compile this grammar to a wrong mask (${lastClamp}): a negated character class `
      + 'must not hold \\S, \\D or \\W (they span non-ASCII characters, which xgrammar clamps)');
  }
  return compiled;
}

/** Compiles a request with a compiler made for it (its tokenizer info and options). */
function compileSpec(compiler: XCompiler, spec: CompileRequest['spec']): Promise<XHandle> {
  return spec.jsonSchema !== undefined
    ? compiler.compileJSONSchema(spec.jsonSchema, spec.anyWhitespace ?? false, -1, [',', ':'], true)
    : spec.ebnf !== undefined ? compiler.compileGrammar(spec.ebnf)
      : compiler.compileStructuralTag(spec.regex !== undefined
        ? { type: 'structural_tag', format: { type: 'regex', pattern: spec.regex } } : spec.structuralTag!);
}

/** One tokenizer's compiler and the grammar compiled with it, as a worker holds them. */
export interface HeldGrammar {
  compiler?: XCompiler;
  grammar?: XHandle;
  stopTokenIds?: number[];
}

/**
 * Compiles `request` into `held`, freeing its previous grammar (the caller frees that grammar's
 * matchers first); the tokenizer's info and compiler come with the first request.
 */
export async function compileInto(held: HeldGrammar, request: CompileRequest, stage: (stage: CompileStage) => void): Promise<void> {
  held.grammar?.dispose();
  held.grammar = undefined;
  stage('loading');
  const api = await loadXGrammar();
  if (!held.compiler) {
    stage('vocabulary');
    const info = await startingXGrammar(() =>
      api.TokenizerInfo.createTokenizerInfo(request.tokens!, request.vocabType, false, request.vocabSize, request.stopTokenIds));
    held.compiler = await api.GrammarCompiler.createGrammarCompiler(info, false);
    held.stopTokenIds = request.stopTokenIds;
  }
  stage('compiling');
  held.grammar = await compiledOrExplained(held.compiler, request.spec);
}
