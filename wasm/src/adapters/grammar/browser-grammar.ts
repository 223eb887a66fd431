// Grammars in a browser: each compiled in a Worker of its own (grammar-worker.ts), its matchers
// answering there, so a long compile or a runaway jump-forward string never holds the page's
// thread; or, when asked to be synchronous (transformers.js's processors are), compiled and
// matched in the calling thread with only jump-forward strings answered by a Worker mirror.
import { SamplingLabError } from '../../lab/errors.js';
import type { CompileRequest, CompileStage, XMatcher } from './xgrammar.js';
import type { WorkerReply, WorkerRequest } from './grammar-worker.js';

type Request = WorkerRequest extends infer R ? R extends unknown ? Omit<R, 'seq'> : never : never;

// A matcher's call answers within milliseconds and a jump-forward string within a second; past
// these the Worker is ended (a compile has its own signal: it may take minutes by design).
const CALL_MS = 10_000;
export const JUMP_FORWARD_MS = 1_000;

/** One grammar's Worker: requests answered in order, each by a reply with its seq. */
export class GrammarWorker {
  readonly #worker = new Worker(new URL('./grammar-worker.js', import.meta.url), { type: 'module' });
  readonly #waiting = new Map<number, { resolve(reply: WorkerReply): void; reject(error: SamplingLabError): void; progress?(stage: CompileStage): void }>();
  #seq = 0;
  #ended?: string;
  /** Counts the grammars it held: a matcher of an earlier one is refused. */
  generation = 0;

  constructor() {
    this.#worker.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      const waiting = this.#waiting.get(data.seq);
      if (data.progress) return waiting?.progress?.(data.progress);
      this.#waiting.delete(data.seq);
      if (data.error === undefined) return waiting?.resolve(data);
      const reason = `xgrammar failed (${data.error}), so its Worker was ended`;
      this.end(reason);
      waiting?.reject(new SamplingLabError(data.argument ?? 'grammar', data.argument ? data.error : reason));
    };
    this.#worker.onerror = (event) => this.end(`its Worker failed: ${event.message}`);
  }

  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Sends `request`; its reply, or a SamplingLabError for `grammar` past `ms` (the Worker then ended). */
  call(request: Request, ms: number | undefined = CALL_MS, signal?: AbortSignal, progress?: (stage: CompileStage) => void): Promise<WorkerReply> {
    if (this.#ended) return Promise.reject(new SamplingLabError('grammar', `the grammar's Worker has ended (${this.#ended}): compile the grammar again`));
    const seq = ++this.#seq;
    const reply = new Promise<WorkerReply>((resolve, reject) => {
      const timer = ms === undefined ? undefined : setTimeout(() => {
        this.end(`xgrammar's ${request.op} took more than ${ms} ms${request.op === 'jumpForward' ? ' (a jump-forward string that never ends)' : ''}, so its Worker was ended`);
      }, ms);
      const onAbort = () => this.end('the compile was stopped by its signal', 'signal');
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#waiting.set(seq, {
        resolve: (value) => { settle(); resolve(value); },
        reject: (error) => { settle(); reject(error); },
        progress,
      });
    });
    if (signal?.aborted) this.end('the compile was stopped by its signal', 'signal');
    else this.#worker.postMessage({ seq, ...request } as WorkerRequest);
    return reply;
  }

  /** Ends the Worker: every request waiting rejects with `reason` for `argument`, and later ones at once. */
  end(reason: string, argument = 'grammar'): void {
    if (this.#ended) return;
    this.#ended = reason;
    this.#worker.terminate();
    for (const waiting of this.#waiting.values()) waiting.reject(new SamplingLabError(argument, reason));
    this.#waiting.clear();
  }
}

/**
 * A matcher living in a grammar's Worker. Its calls post requests; acceptToken answers true (the
 * caller has checked the token against the current mask), and whether a token ended the output
 * is known from the stop tokens, or else from the next mask's reply.
 */
export class WorkerMatcher implements XMatcher {
  readonly #worker: GrammarWorker;
  readonly #id: number;
  readonly #stopTokenIds?: readonly number[];
  readonly #generation: number;
  #terminated = false;
  #unsure = false;

  constructor(worker: GrammarWorker, id: number, stopTokenIds: readonly number[] | undefined, generation: number) {
    this.#worker = worker;
    this.#id = id;
    this.#stopTokenIds = stopTokenIds;
    this.#generation = generation;
  }

  // The Worker's request, refused once its grammar was disposed (the Worker may hold another now).
  #call(request: Parameters<GrammarWorker['call']>[0], ms?: number): Promise<WorkerReply> {
    if (this.#worker.generation !== this.#generation) {
      return Promise.reject(new SamplingLabError('grammar', 'the grammar was disposed: its matchers ended with it'));
    }
    return this.#worker.call(request, ms);
  }

  acceptToken(token: number): boolean {
    void this.#call({ op: 'accept', id: this.#id, token }).catch(() => {});
    if (this.#stopTokenIds) this.#terminated = this.#stopTokenIds.includes(token);
    else this.#unsure = true;
    return true;
  }

  async getNextTokenBitmask(): Promise<Int32Array | undefined> {
    const reply = await this.#call({ op: 'mask', id: this.#id });
    this.#terminated = reply.terminated!;
    this.#unsure = false;
    return reply.mask;
  }

  isTerminated(): boolean {
    if (this.#unsure) throw new SamplingLabError('grammar', 'whether the grammar ended is being computed: await matcher.settled() first');
    return this.#terminated;
  }

  findJumpForwardString(): string {
    throw new SamplingLabError('grammar', 'the jump-forward string of a Worker grammar is asynchronous: await matcher.jumpForward()');
  }

  async jumpForward(): Promise<string> {
    return (await this.#call({ op: 'jumpForward', id: this.#id }, JUMP_FORWARD_MS)).value as string;
  }

  rollBack(tokens: number): void {
    void this.#call({ op: 'rollBack', id: this.#id, tokens }).catch(() => {});
    this.#terminated = false;
    this.#unsure = false;
  }

  reset(): void {
    void this.#call({ op: 'reset', id: this.#id }).catch(() => {});
    this.#terminated = false;
    this.#unsure = false;
  }

  dispose(): void {
    if (this.#worker.alive) void this.#call({ op: 'dispose', id: this.#id }).catch(() => {});
  }
}

/**
 * Compiles `request` in `worker` (one that compiled for the same tokenizer before, which then needs
 * no vocabulary) or a new one; the Worker is ended if the compile fails or `signal` stops it.
 */
export async function compileInBrowserWorker(request: CompileRequest, signal?: AbortSignal, progress?: (stage: CompileStage) => void,
  worker = new GrammarWorker()): Promise<GrammarWorker> {
  try {
    await worker.call({ op: 'compile', request }, undefined, signal, progress);
  } catch (error) {
    worker.end('its compile failed');
    throw error;
  }
  return worker;
}

/**
 * A grammar compiled in the calling thread mirrored in a Worker, started on the first jump-forward:
 * each request moves the mirror's matcher to the caller's tokens and asks for the string there.
 */
export class JumpForwardMirror {
  readonly #request: CompileRequest;
  #worker?: Promise<GrammarWorker>;

  constructor(request: CompileRequest) {
    this.#request = request;
  }

  /** `matcher` (of the calling thread) with its jump-forward string answered by the mirror. */
  mirrored(matcher: XMatcher): XMatcher {
    const tokens: number[] = [];
    let id: Promise<number> | undefined;
    const mirror = () => (this.#worker ??= compileInBrowserWorker(this.#request));
    return {
      acceptToken: (token) => {
        const accepted = matcher.acceptToken(token);
        if (accepted) tokens.push(token);
        return accepted;
      },
      getNextTokenBitmask: () => matcher.getNextTokenBitmask(),
      isTerminated: () => matcher.isTerminated(),
      findJumpForwardString: () => matcher.findJumpForwardString(),
      jumpForward: async () => {
        const worker = await mirror();
        id ??= worker.call({ op: 'matcher' }).then((reply) => reply.value as number);
        const key = await id;
        await worker.call({ op: 'sync', id: key, tokens: [...tokens] });
        return (await worker.call({ op: 'jumpForward', id: key }, JUMP_FORWARD_MS)).value as string;
      },
      rollBack: (count) => {
        matcher.rollBack(count);
        tokens.length -= count;
      },
      reset: () => {
        matcher.reset();
        tokens.length = 0;
      },
      dispose: () => {
        matcher.dispose();
        if (id) {
          void Promise.all([this.#worker!, id]).then(([worker, key]) => {
            if (worker.alive) void worker.call({ op: 'dispose', id: key }).catch(() => {});
          }, () => {});
        }
      },
    };
  }

  end(): void {
    void this.#worker?.then((worker) => worker.end('its grammar was disposed'), () => {});
  }
}
