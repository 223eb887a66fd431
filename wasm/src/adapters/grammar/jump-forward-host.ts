// A browser Worker that answers a compiled grammar's jump-forward strings (sampling-lab/grammar
// starts one per grammar, on its first jumpForward). xgrammar's findJumpForwardString never returns
// on a grammar whose forced text never ends, growing its memory by hundreds of megabytes a second:
// here that stalls this Worker, which the caller ends after a deadline, never the caller's thread.
// Each matcher is mirrored from the tokens it accepted, sent with each request.
import { compiledOrExplained, loadXGrammar, startingXGrammar, type CompileRequest, type XHandle, type XMatcher } from './xgrammar.js';

export type JumpForwardRequest = { compile: CompileRequest } | { seq: number; matcher: number; tokens: number[] } | { dispose: number };
export type JumpForwardReply = { compiled: true } | { seq?: number; error: string; argument?: string } | { seq: number; text: string };

const scope = self as unknown as { onmessage: ((event: MessageEvent<JumpForwardRequest>) => void) | null; postMessage(reply: JumpForwardReply): void };
let grammar: Promise<{ handle: XHandle; stopTokenIds?: number[] }> | undefined;
// Each mirrored matcher with the tokens it has accepted.
const mirrors = new Map<number, { matcher: XMatcher; tokens: number[] }>();

async function compile(request: CompileRequest): Promise<{ handle: XHandle; stopTokenIds?: number[] }> {
  const api = await loadXGrammar();
  const info = await startingXGrammar(() =>
    api.TokenizerInfo.createTokenizerInfo(request.tokens!, request.vocabType, false, request.vocabSize, request.stopTokenIds));
  const compiler = await api.GrammarCompiler.createGrammarCompiler(info, false);
  return { handle: await compiledOrExplained(compiler, request.spec), stopTokenIds: request.stopTokenIds };
}

// The mirror of `key` moved to `tokens`: rolled back to the prefix they share, then advanced.
async function mirrored(key: number, tokens: number[]): Promise<XMatcher> {
  let mirror = mirrors.get(key);
  if (!mirror) {
    const { handle, stopTokenIds } = await grammar!;
    const api = await loadXGrammar();
    mirror = { matcher: await api.GrammarMatcher.createGrammarMatcher(handle, stopTokenIds), tokens: [] };
    mirrors.set(key, mirror);
  }
  let shared = 0;
  while (shared < mirror.tokens.length && shared < tokens.length && mirror.tokens[shared] === tokens[shared]) shared++;
  if (shared < mirror.tokens.length) mirror.matcher.rollBack(mirror.tokens.length - shared);
  mirror.tokens.length = shared;
  for (const token of tokens.slice(shared)) {
    if (!mirror.matcher.acceptToken(token)) throw new Error(`the mirrored matcher refused token ${token}`);
    mirror.tokens.push(token);
  }
  return mirror.matcher;
}

scope.onmessage = async ({ data }) => {
  if ('compile' in data) {
    grammar = compile(data.compile);
    try {
      await grammar;
      scope.postMessage({ compiled: true });
    } catch (error) {
      scope.postMessage({ error: (error as Error)?.message ?? String(error), argument: (error as { argument?: string })?.argument });
    }
  } else if ('dispose' in data) {
    mirrors.get(data.dispose)?.matcher.dispose();
    mirrors.delete(data.dispose);
  } else {
    try {
      scope.postMessage({ seq: data.seq, text: (await mirrored(data.matcher, data.tokens)).findJumpForwardString() });
    } catch (error) {
      scope.postMessage({ seq: data.seq, error: (error as Error)?.message ?? String(error) });
    }
  }
};
