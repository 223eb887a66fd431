// A browser Worker holding one tokenizer's compiler and one compiled grammar with its matchers
// (sampling-lab/grammar starts one per grammar, and keeps a disposed grammar's for the next): a long compile, a runaway jump-forward string (xgrammar's findJumpForwardString
// never returns on a grammar whose forced text never ends, growing its memory by hundreds of
// megabytes a second) or an abort stalls or breaks this Worker, which the caller ends after a
// deadline, never the caller's thread. Each request is answered by a message with its `seq`.
import { compileInto, loadXGrammar, type CompileRequest, type CompileStage, type HeldGrammar, type XMatcher } from './xgrammar.js';

export type WorkerRequest = { seq: number } & (
  | { op: 'compile'; request: CompileRequest }
  | { op: 'matcher' }
  | { op: 'accept'; id: number; token: number }
  | { op: 'mask' | 'reset' | 'jumpForward' | 'dispose'; id: number }
  | { op: 'rollBack'; id: number; tokens: number }
  // A matcher moved to `tokens` (rolled back to the prefix it shares with them, then advanced):
  // how a grammar compiled in the caller's thread mirrors its matchers here for jump-forward.
  | { op: 'sync'; id: number; tokens: number[] });
export interface WorkerReply {
  seq: number;
  /** A compile's stage, sent before its reply. */
  progress?: CompileStage;
  error?: string;
  argument?: string;
  value?: unknown;
  mask?: Int32Array;
  terminated?: boolean;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(reply: WorkerReply, transfer?: Transferable[]): void;
};
const held: HeldGrammar = {};
const matchers = new Map<number, { matcher: XMatcher; tokens: number[] }>();
let nextMatcher = 0;

// The grammar of `request`, after the previous one and its matchers are freed (a Worker kept for
// its tokenizer compiles the next grammar).
async function compile(seq: number, request: CompileRequest): Promise<void> {
  for (const { matcher } of matchers.values()) matcher.dispose();
  matchers.clear();
  await compileInto(held, request, (progress) => scope.postMessage({ seq, progress }));
}

async function run(request: WorkerRequest): Promise<Omit<WorkerReply, 'seq'>> {
  if (request.op === 'compile') {
    await compile(request.seq, request.request);
    return {};
  }
  if (request.op === 'matcher') {
    const api = await loadXGrammar();
    matchers.set(nextMatcher, { matcher: await api.GrammarMatcher.createGrammarMatcher(held.grammar!, held.stopTokenIds), tokens: [] });
    return { value: nextMatcher++ };
  }
  const entry = matchers.get(request.id)!;
  const { matcher, tokens } = entry;
  switch (request.op) {
    case 'accept': {
      const accepted = matcher.acceptToken(request.token);
      if (accepted) tokens.push(request.token);
      return { value: accepted };
    }
    case 'mask': {
      const terminated = matcher.isTerminated();
      // A terminated matcher has no next mask (xgrammar aborts when asked for one).
      return { terminated, ...(!terminated && { mask: await matcher.getNextTokenBitmask() }) };
    }
    case 'rollBack':
      matcher.rollBack(request.tokens);
      tokens.length -= request.tokens;
      return {};
    case 'reset':
      matcher.reset();
      tokens.length = 0;
      return {};
    case 'sync': {
      let shared = 0;
      while (shared < tokens.length && shared < request.tokens.length && tokens[shared] === request.tokens[shared]) shared++;
      if (shared < tokens.length) matcher.rollBack(tokens.length - shared);
      tokens.length = shared;
      for (const token of request.tokens.slice(shared)) {
        if (!matcher.acceptToken(token)) throw new Error(`the mirrored matcher refused token ${token}`);
        tokens.push(token);
      }
      return {};
    }
    case 'jumpForward':
      return { value: matcher.findJumpForwardString() };
    default:
      matcher.dispose();
      matchers.delete(request.id);
      return {};
  }
}

scope.onmessage = async ({ data }) => {
  try {
    const reply = { seq: data.seq, ...(await run(data)) };
    scope.postMessage(reply, reply.mask ? [reply.mask.buffer] : []);
  } catch (error) {
    // xgrammar's instance may be broken now: the caller ends this Worker.
    scope.postMessage({ seq: data.seq, error: (error as Error)?.message ?? String(error), argument: (error as { argument?: string })?.argument });
  }
};
