// Compiled grammars and their matchers in a Node worker thread (sampling-lab/grammar starts it): a
// long compile runs off the caller's thread, and an abort, a runaway jump-forward string or its
// memory growth ends this worker, never the caller's process. The worker holds one tokenizer's
// info and compiler and one grammar at a time; a disposed grammar's worker compiles the next one.
// A compile is a message answered by a message; a matcher's reply goes through shared memory,
// where the caller waits for it (Atomics.wait), so that GrammarMatcher's methods stay synchronous.
import { parentPort, workerData } from 'node:worker_threads';
import type { SamplingLabError } from '../../lab/errors.js';
import { compileInto, loadXGrammar, ReplyKind, type CompileRequest, type HeldGrammar, type HostRequest, type XMatcher } from './xgrammar.js';

const { control, data } = workerData as { control: SharedArrayBuffer; data: SharedArrayBuffer };
const state = new Int32Array(control);
const bytes = new Uint8Array(data);
const port = parentPort!;
const encoder = new TextEncoder();

function reply(seq: number, kind: ReplyKind, payload: Uint8Array): void {
  if (payload.length > bytes.length) {
    payload = encoder.encode(`a reply of ${payload.length} bytes does not fit the ${bytes.length} shared with the caller`);
    kind = ReplyKind.Error;
  }
  bytes.set(payload);
  state[1] = kind;
  state[2] = payload.length;
  Atomics.store(state, 0, seq);
  Atomics.notify(state, 0);
}

const held: HeldGrammar = {};
const matchers = new Map<number, XMatcher>();
let nextMatcher = 0;

// The grammar of `request`, after the previous one and its matchers are freed.
async function compile(request: CompileRequest): Promise<void> {
  for (const matcher of matchers.values()) matcher.dispose();
  matchers.clear();
  await compileInto(held, request, (progress) => port.postMessage({ progress }));
}

async function run({ op, args }: HostRequest): Promise<unknown> {
  if (op === 'matcher') {
    const api = await loadXGrammar();
    matchers.set(nextMatcher, await api.GrammarMatcher.createGrammarMatcher(held.grammar!, held.stopTokenIds));
    return nextMatcher++;
  }
  const matcher = matchers.get(args[0])!;
  switch (op) {
    case 'accept': return matcher.acceptToken(args[1]);
    case 'mask': return matcher.getNextTokenBitmask();
    case 'terminated': return matcher.isTerminated();
    case 'jumpForward': return matcher.findJumpForwardString();
    case 'rollBack': return matcher.rollBack(args[1]) ?? null;
    case 'reset': return matcher.reset() ?? null;
    default:
      matcher.dispose();
      matchers.delete(args[0]);
      return null;
  }
}

port.on('message', async (message: HostRequest | { compile: CompileRequest }) => {
  if ('compile' in message) {
    try {
      await compile(message.compile);
      port.postMessage({ compiled: true });
    } catch (error) {
      port.postMessage({ compiled: false, message: (error as Error)?.message ?? String(error), argument: (error as SamplingLabError)?.argument });
    }
    return;
  }
  try {
    const value = await run(message);
    if (value instanceof Int32Array) reply(message.seq, ReplyKind.Mask, new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    else reply(message.seq, ReplyKind.Json, encoder.encode(JSON.stringify(value)));
  } catch (error) {
    // xgrammar's instance may be broken now: the caller ends this worker.
    reply(message.seq, ReplyKind.Error, encoder.encode((error as Error)?.message ?? String(error)));
  }
});
