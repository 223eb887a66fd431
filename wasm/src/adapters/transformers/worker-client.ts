// The client of an engine Worker (as web-llm's WebWorkerMLCEngine): the same engine and decoders
// as sampling-lab/transformers, their model loop in a Worker that serveEngine serves, so that
// loading, prefilling and decoding never hold the calling thread. Steps stream across; aborting a
// signal cancels the job at its next step. Imports nothing of transformers.js.
import { SamplingLabError } from '../../lab/errors.js';
import type { BeamSearchRun, BeamSequence, BeamStep } from './beam.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, Engine } from './engine.js';
import type { FinishReason, GeneratedToken, Usage } from './generate.js';
import type { Prompt } from './prompt.js';
import type { PromptLookupDraft, SpeculativeStats, SpeculativeStep } from './speculative.js';
import type {
  EnginePort, EngineReply, EngineRequest, Loading, ModelRef, RemoteBeamSearchOptions, RemoteGenerateOptions, RemoteSpeculativeOptions,
} from './worker-protocol.js';

/** What a job's caller hears, and how it stops it. */
export interface JobListeners {
  /** Hears each event the job sends before its result (a decoder's step, a chat chunk). */
  onEvent?: (event: unknown) => void;
  /** Download progress of the job's model files, summed. */
  onLoading?: (loading: Loading) => void;
  /** Aborting it cancels the job at its next step. */
  signal?: AbortSignal;
}

/** A connection to an engine Worker: its jobs, and engines over its models. */
export interface EngineClient {
  /** Runs a job (the engine's own or one the Worker added with serveEngine's `jobs`); settles with its result. */
  run<Result = unknown>(job: string, request: unknown, listeners?: JobListeners): Promise<Result>;
  /** An engine over `model` (and `draft`: requests then decode speculatively), loaded in the Worker on first use. */
  /** `draft` may be `{ promptLookup }`: proposals copied from the sequence, no second model. */
  engine(models: { model: ModelRef; draft?: ModelRef | PromptLookupDraft }): WorkerEngine;
}

/** A remote run's steps as they arrive; its totals once it ended. */
export interface RemoteRun<Step, Totals> extends AsyncIterable<Step> {
  /** Kept up to date with each step. */
  readonly usage: Readonly<Usage>;
  /** Resolves with the run's totals when it ends (rejects with its error). */
  readonly done: Promise<Totals>;
}

/** generateTokens run in the Worker: its tokens as they arrive; `done` gives the usage and each sequence's finish reason. */
export type RemoteGeneration = RemoteRun<GeneratedToken, { usage: Usage; finishReasons: (FinishReason | undefined)[] }>;
/** speculativeGenerate run in the Worker: its steps as they arrive; `done` gives the usage, the stats and each sequence's finish reason. */
export type RemoteSpeculativeGeneration = RemoteRun<SpeculativeStep, { usage: Usage; stats: SpeculativeStats; finishReasons: (FinishReason | undefined)[] }>;
/** beamSearch run in the Worker: iterate it for each step's beams, or `await` it for the best sequences, as a local beamSearch. */
export type RemoteBeamSearch = RemoteRun<BeamStep, { sequences: BeamSequence[]; usage: Usage; finishReason: BeamSearchRun['finishReason'] }>
  & PromiseLike<BeamSequence[]>;

/** The engine of sampling-lab/transformers (OpenAI's chat completions) and its decoders, run in a Worker. */
export interface WorkerEngine extends Engine {
  /** Loads the models now (else the first request does), hearing their download progress. */
  load(listeners?: Pick<JobListeners, 'onLoading' | 'signal'>): Promise<{ vocabSize: number | undefined }>;
  /** generateTokens on the engine's model, in the Worker. */
  generateTokens(prompt: Prompt, options?: RemoteGenerateOptions): RemoteGeneration;
  /** Needs the engine's `draft`. */
  speculativeGenerate(prompt: Prompt, options?: RemoteSpeculativeOptions): RemoteSpeculativeGeneration;
  /** beamSearch on the engine's model, in the Worker. */
  beamSearch(prompt: Prompt, options?: RemoteBeamSearchOptions): RemoteBeamSearch;
}

// A run's steps, buffered until the consumer asks; leaving the loop early cancels the run.
class Steps<Step> {
  readonly #queue: Step[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #error: unknown;

  push(step: Step): void {
    this.#queue.push(step);
    this.#wake?.();
  }

  end(error?: unknown): void {
    this.#ended = true;
    this.#error = error;
    this.#wake?.();
  }

  // `signal`: once it aborts, the steps still in flight are dropped, as a local run yields none after an abort.
  async *iterate(cancel: () => void, signal?: AbortSignal): AsyncGenerator<Step, void> {
    try {
      for (;;) {
        if (signal?.aborted) return;
        if (this.#queue.length > 0) {
          yield this.#queue.shift()!;
        } else if (this.#ended) {
          if (this.#error !== undefined) throw this.#error;
          return;
        } else {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          this.#wake = undefined;
        }
      }
    } finally {
      if (!this.#ended) cancel();
    }
  }
}

// A grammar crosses as its spec; a compiled one (or any function) cannot be cloned.
function checkCloneable(options: Record<string, unknown>): void {
  const grammar = options.grammar as { matcher?: unknown } | undefined;
  if (grammar !== undefined && typeof grammar?.matcher === 'function') {
    throw new SamplingLabError('grammar', 'across a Worker, grammar is its spec ({ jsonSchema } | { ebnf } | { regex } | { structuralTag }): the Worker compiles it');
  }
  for (const [key, value] of Object.entries(options)) {
    if (typeof value === 'function') throw new SamplingLabError(key, `${key} is a function, which cannot cross to a Worker`);
  }
}

/** Node's worker_threads Worker: an EventEmitter whose 'message' listeners get the data itself. */
export interface NodeWorker {
  /** Sends a message to the worker thread. */
  postMessage(message: unknown): void;
  /** Hears the worker thread's messages. */
  on(type: 'message', listener: (data: unknown) => void): void;
}

/** Connects to a Worker (a browser's, or Node's worker_threads) or a MessagePort that runs serveEngine. */
export function connectEngineWorker(worker: EnginePort | NodeWorker): EngineClient {
  const connected: EnginePort | undefined = typeof (worker as EnginePort)?.addEventListener === 'function' ? worker as EnginePort
    : typeof (worker as NodeWorker)?.on === 'function' ? {
      postMessage: (message) => worker.postMessage(message),
      addEventListener: (_, listener) => (worker as NodeWorker).on('message', (data) => listener({ data } as MessageEvent)),
    } : undefined;
  if (connected === undefined || typeof connected.postMessage !== 'function') {
    throw new SamplingLabError('worker', 'worker must be a Worker or a MessagePort that runs serveEngine');
  }
  const port = connected;
  const pending = new Map<number, { listeners: JobListeners; resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  port.addEventListener('message', (message: MessageEvent<EngineReply>) => {
    const reply = message.data;
    const job = pending.get(reply?.id);
    if (!job) return;
    if ('loading' in reply) job.listeners.onLoading?.(reply.loading);
    else if ('event' in reply) job.listeners.onEvent?.(reply.event);
    else {
      pending.delete(reply.id);
      if ('result' in reply) job.resolve(reply.result);
      else job.reject(reply.error.argument === undefined ? Object.assign(new Error(reply.error.message), { name: reply.error.name })
        : new SamplingLabError(reply.error.argument, reply.error.message));
    }
  });
  (port as { start?: () => void }).start?.();

  function run<Result>(job: string, request: unknown, listeners: JobListeners = {}): Promise<Result> {
    const id = nextId++;
    return new Promise<Result>((resolve, reject) => {
      const post = (message: EngineRequest) => port.postMessage(message);
      const { signal } = listeners;
      try {
        post({ id, job, request, ...(signal?.aborted && { aborted: true }) });
      } catch (error) {
        reject(new SamplingLabError('options', `the request cannot cross to the Worker: ${(error as Error).message}`));
        return;
      }
      pending.set(id, { listeners, resolve: resolve as (result: unknown) => void, reject });
      signal?.addEventListener('abort', () => post({ cancel: id }), { once: true });
    });
  }

  // A decoder's job as a RemoteRun: each event { step, usage } is a step.
  function remote<Step, Totals>(job: string, request: Record<string, unknown>, options: Record<string, unknown> = {}): RemoteRun<Step, Totals> {
    const { signal, ...rest } = options as { signal?: AbortSignal };
    checkCloneable(rest);
    const steps = new Steps<Step>();
    const usage: Usage = { promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, prefillMs: 0, decodeMs: 0, tokensPerSecond: 0 };
    const cancelling = new AbortController();
    signal?.addEventListener('abort', () => cancelling.abort(), { once: true });
    if (signal?.aborted) cancelling.abort();
    const done = run<Totals & { usage: Usage }>(job, { ...request, options: rest }, {
      signal: cancelling.signal,
      onEvent: (event) => {
        const { step, usage: now } = event as { step: Step; usage: Usage };
        Object.assign(usage, now);
        steps.push(step);
      },
    }).then((totals) => {
      Object.assign(usage, totals.usage);
      steps.end();
      return totals;
    }, (error: unknown) => {
      steps.end(error);
      throw error;
    });
    // Read through the steps, the error comes from the iterator; unread, from `done`.
    done.catch(() => {});
    return { usage, done, [Symbol.asyncIterator]: () => steps.iterate(() => cancelling.abort(), cancelling.signal) };
  }

  function engine({ model, draft }: { model: ModelRef; draft?: ModelRef | PromptLookupDraft }): WorkerEngine {
    const create = async (body: ChatCompletionRequest, request: { signal?: AbortSignal } = {}) => {
      const chunks = new Steps<ChatCompletionChunk>();
      let first: (() => void) | undefined;
      const started = new Promise<void>((resolve) => (first = resolve));
      const result = run<ChatCompletion | null>('chat', { model, draft, body }, {
        signal: request.signal,
        onEvent: (chunk) => {
          first?.();
          chunks.push(chunk as ChatCompletionChunk);
        },
      });
      result.then(() => chunks.end(), (error: unknown) => chunks.end(error));
      // As the local engine's: a bad body rejects here; a stream resolves once it has started.
      const completion = await Promise.race([result, started.then(() => null)]);
      if (body?.stream !== true) return (completion ?? await result) as ChatCompletion;
      return { [Symbol.asyncIterator]: () => chunks.iterate(() => {}, request.signal) };
    };
    return {
      chat: { completions: { create: create as Engine['chat']['completions']['create'] } },
      load: async ({ onLoading, signal } = {}) => {
        const models = [model, ...(draft && !('promptLookup' in draft) ? [draft] : [])];
        const [loaded] = await Promise.all(models.map((ref) => run<{ vocabSize: number | undefined }>('load', { model: ref }, { onLoading, signal })));
        return loaded;
      },
      generateTokens: (prompt, options) => remote('generateTokens', { model, prompt }, options),
      speculativeGenerate: (prompt, options) => {
        if (!draft) throw new SamplingLabError('draft', 'speculativeGenerate needs an engine with a draft model');
        return remote('speculativeGenerate', { model, draft, prompt }, options);
      },
      beamSearch: (prompt, options) => {
        const search = remote<BeamStep, { sequences: BeamSequence[]; usage: Usage; finishReason: BeamSearchRun['finishReason'] }>('beamSearch', { model, prompt }, options);
        return Object.assign(search, {
          then: <A = BeamSequence[], B = never>(fulfilled?: ((value: BeamSequence[]) => A | PromiseLike<A>) | null, rejected?: ((reason: unknown) => B | PromiseLike<B>) | null) =>
            search.done.then((totals) => totals.sequences).then(fulfilled, rejected),
        });
      },
    };
  }

  return { run, engine };
}

/** An engine whose model loop runs in `worker` (which runs serveEngine), as web-llm's CreateWebWorkerMLCEngine. */
export function createWorkerEngine(worker: EnginePort | NodeWorker, models: { model: ModelRef; draft?: ModelRef | PromptLookupDraft }): WorkerEngine {
  return connectEngineWorker(worker).engine(models);
}
