// The Worker side of the engine (as web-llm's WebWorkerMLCEngineHandler): models, tokenizers,
// grammars and every forward pass live here, and the decoders stream their steps to the client
// (connectEngineWorker). Models load on first use and stay loaded; jobs run as they arrive, each
// yielding a turn of the event loop per step so that a cancel reaches it.
import { SamplingLabError } from '../../lab/errors.js';
import type { Lab } from '../../lab/lab.js';
import { compileGrammar, type CompiledGrammar, type GrammarSpec, type GrammarTokenizer } from '../grammar/grammar.js';
import { beamSearch } from './beam.js';
import { checkObject, isObject } from './checks.js';
import { createEngine, type ChatCompletionRequest } from './engine.js';
import { vocabularyOf } from './forward.js';
import { generateTokens, type GeneratedToken } from './generate.js';
import { loadHubModel, loadLocalModel, type LoadedModel, type LoadModelOptions } from './load.js';
import type { Prompt } from './prompt.js';
import { speculativeGenerate, type PromptLookupDraft } from './speculative.js';
import {
  isLocalSource, type EnginePort, type EngineReply, type EngineRequest, type Loading, type ModelRef, type RemoteBeamSearchOptions,
  type RemoteGenerateOptions, type RemoteSpeculativeOptions,
} from './worker-protocol.js';

/** What a job handler gets besides its request. */
export interface JobContext {
  lab: Lab;
  /** The model `ref` names, loaded once (this job hears its download progress). */
  model(ref: ModelRef): Promise<LoadedModel>;
  /** Sends the client one event of this job (typed arrays in `transfer` move instead of copying). */
  emit(event: unknown, transfer?: Transferable[]): void;
  /** Aborted when the client cancels the job. */
  signal: AbortSignal;
  /** A turn of the event loop: await it between steps so that a cancel can arrive. */
  nextTask(): Promise<void>;
}

/** A job of the Worker's own: its result (typed arrays in it are transferred) ends the job. */
export type JobHandler = (request: never, context: JobContext) => Promise<unknown>;

/** Options of serveEngine. */
export interface ServeEngineOptions {
  /** The Sampling Lab instance (or its promise) every decoder uses. */
  lab: Lab | Promise<Lab>;
  /** Where the client's messages arrive (default: this Worker's global scope). */
  port?: EnginePort;
  /** Jobs beside the engine's own (load, chat, generateTokens, speculativeGenerate, beamSearch), by name. */
  jobs?: Record<string, JobHandler>;
}

// Progress reports at most this often per job.
const REPORT_EVERY_MS = 50;

/** A turn of the event loop: onnxruntime's passes can resolve without one, so a loop of awaits would never let a message in. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

// A step as plain data: a generateTokens step's description is read (computed) unless `describe` is false.
function plainStep(step: GeneratedToken, describe: boolean): object {
  if (describe) return { ...step };
  const { prob: _p, entropyBits: _e, kept: _k, top: _t, cuts: _c, ...rest } = Object.getOwnPropertyDescriptors(step);
  return Object.fromEntries(Object.entries(rest).map(([key, descriptor]) => [key, descriptor.value]));
}

/**
 * Serves the engine in this Worker (or on `port`): the client's `createWorkerEngine` and
 * `connectEngineWorker` send it jobs.
 */
export function serveEngine(options: ServeEngineOptions): void {
  checkObject(options, 'options');
  const port = options.port ?? (globalThis as unknown as EnginePort);
  if (typeof port?.postMessage !== 'function' || typeof port.addEventListener !== 'function') {
    throw new SamplingLabError('port', 'port must be a Worker scope or a MessagePort (postMessage and addEventListener)');
  }
  const lab = Promise.resolve(options.lab);
  const models = new Map<string, Promise<LoadedModel>>();
  const grammars = new WeakMap<LoadedModel, Map<string, Promise<CompiledGrammar>>>();
  const running = new Map<number, AbortController>();
  const post = (reply: EngineReply, transfer: Transferable[] = []) => port.postMessage(reply, transfer);

  // Download progress of one job's files, summed.
  const progressOf = (id: number): NonNullable<LoadModelOptions['progress']> => {
    const files = new Map<string, Loading>();
    let lastReport = 0;
    return (info) => {
      if (info.status !== 'progress' || !info.file || !info.total) return;
      files.set(info.file, { loaded: info.loaded ?? 0, total: info.total });
      const now = performance.now();
      if (now - lastReport < REPORT_EVERY_MS && info.loaded !== info.total) return;
      lastReport = now;
      const sum = { loaded: 0, total: 0 };
      for (const file of files.values()) {
        sum.loaded += file.loaded;
        sum.total += file.total;
      }
      post({ id, loading: sum });
    };
  };

  const model = (ref: ModelRef, id: number): Promise<LoadedModel> => {
    if (!isObject(ref) || typeof ref.source !== 'string') throw new SamplingLabError('model', 'a model is { source, dtype?, device?, sessionOptions? }');
    const key = JSON.stringify([ref.source, ref.dtype, ref.device, ref.sessionOptions]);
    let loaded = models.get(key);
    if (!loaded) {
      const { source, ...rest } = ref;
      const loadOptions = { ...rest, progress: progressOf(id) } as LoadModelOptions;
      loaded = isLocalSource(source) ? loadLocalModel(source, loadOptions) : loadHubModel(source, loadOptions);
      // A failed load is tried again next time.
      loaded.catch(() => models.delete(key));
      models.set(key, loaded);
    }
    return loaded;
  };

  // Each spec's grammar, compiled once per model.
  const grammarOf = (loaded: LoadedModel, spec: GrammarSpec | undefined): Promise<CompiledGrammar> | undefined => {
    if (spec === undefined) return undefined;
    if (!isObject(spec)) throw new SamplingLabError('grammar', 'across a Worker, grammar is its spec: { jsonSchema } | { ebnf } | { regex } | { structuralTag }');
    const compiled = grammars.get(loaded) ?? new Map<string, Promise<CompiledGrammar>>();
    grammars.set(loaded, compiled);
    const key = JSON.stringify(spec);
    let grammar = compiled.get(key);
    if (!grammar) {
      grammar = compileGrammar(loaded.tokenizer as unknown as GrammarTokenizer, spec, { vocabSize: vocabularyOf(loaded.model) });
      grammar.catch(() => compiled.delete(key));
      compiled.set(key, grammar);
    }
    return grammar;
  };

  // A draft model, loaded as the model is, or prompt lookup's options as they came.
  const draftOf = async (draft: ModelRef | PromptLookupDraft, context: JobContext) =>
    ('promptLookup' in draft ? draft : (await context.model(draft)).model);
  const jobs: Record<string, (request: never, context: JobContext, id: number) => Promise<unknown>> = {
    async load(request: { model: ModelRef }, { model: load }) {
      const { model: loaded } = await load(request.model);
      return { vocabSize: vocabularyOf(loaded) };
    },

    // OpenAI's chat completion: a stream's chunks as events, or the completion as the result.
    async chat(request: { model: ModelRef; draft?: ModelRef | PromptLookupDraft; body: ChatCompletionRequest }, context) {
      const [loaded, draft] = await Promise.all([context.model(request.model), request.draft && draftOf(request.draft, context)]);
      const engine = createEngine({ lab: context.lab, model: loaded.model, tokenizer: loaded.tokenizer, ...(draft && { draft }) });
      const reply = await engine.chat.completions.create(request.body, { signal: context.signal });
      if (!(Symbol.asyncIterator in reply)) return reply;
      for await (const chunk of reply) {
        context.emit(chunk);
        await context.nextTask();
      }
      return null;
    },

    async generateTokens(request: { model: ModelRef; prompt: Prompt; options: RemoteGenerateOptions }, context) {
      const loaded = await context.model(request.model);
      const { grammar, describe = true, ...options } = request.options ?? {};
      const run = generateTokens(loaded.model, loaded.tokenizer, request.prompt, {
        ...options, lab: context.lab, signal: context.signal, grammar: await grammarOf(loaded, grammar),
      } as never);
      for await (const step of run) {
        context.emit({ step: plainStep(step, describe), usage: run.usage });
        await context.nextTask();
      }
      return { usage: run.usage, finishReasons: run.finishReasons };
    },

    async speculativeGenerate(request: { model: ModelRef; draft: ModelRef | PromptLookupDraft; prompt: Prompt; options: RemoteSpeculativeOptions }, context) {
      const [target, draft] = await Promise.all([context.model(request.model), draftOf(request.draft, context)]);
      const { grammar, ...options } = request.options ?? {};
      const run = speculativeGenerate(target.model, draft, target.tokenizer, request.prompt, {
        ...options, lab: context.lab, signal: context.signal, grammar: await grammarOf(target, grammar),
      } as never);
      for await (const step of run) {
        context.emit({ step, usage: run.usage, stats: run.stats });
        await context.nextTask();
      }
      return { usage: run.usage, stats: run.stats, finishReasons: run.finishReasons };
    },

    async beamSearch(request: { model: ModelRef; prompt: Prompt; options: RemoteBeamSearchOptions }, context) {
      const loaded = await context.model(request.model);
      const { grammar, ...options } = request.options ?? {};
      const run = beamSearch(loaded.model, loaded.tokenizer, request.prompt, {
        ...options, lab: context.lab, signal: context.signal, grammar: await grammarOf(loaded, grammar),
      } as never);
      for await (const step of run) {
        context.emit({ step, usage: run.usage });
        await context.nextTask();
      }
      return { sequences: await run, usage: run.usage, finishReason: run.finishReason };
    },
  };
  for (const [name, handler] of Object.entries(options.jobs ?? {})) {
    if (name in jobs) throw new SamplingLabError('jobs', `'${name}' is one of the engine's own jobs`);
    if (typeof handler !== 'function') throw new SamplingLabError('jobs', `jobs.${name} must be a function`);
    jobs[name] = handler;
  }

  port.addEventListener('message', async (message: MessageEvent<EngineRequest>) => {
    const request = message.data;
    if (!isObject(request)) return;
    if ('cancel' in request) {
      running.get(request.cancel)?.abort();
      return;
    }
    const { id, job } = request;
    const controller = new AbortController();
    if (request.aborted) controller.abort();
    running.set(id, controller);
    try {
      const handler = jobs[job];
      if (!handler || !Object.hasOwn(jobs, job)) throw new SamplingLabError('job', `unknown job '${job}'; served: ${Object.keys(jobs).join(', ')}`);
      const context: JobContext = {
        lab: await lab, model: (ref) => model(ref, id), emit: (event, transfer) => post({ id, event }, transfer), signal: controller.signal, nextTask,
      };
      const result = await handler(request.request as never, context, id);
      post({ id, result }, transferOf(result));
    } catch (error) {
      const { name = 'Error', message = String(error) } = error as Error;
      post({ id, error: { name, message, ...(error instanceof SamplingLabError && { argument: error.argument }) } });
    } finally {
      running.delete(id);
    }
  });
  (port as { start?: () => void }).start?.();
}

// Typed arrays in a result (or one level inside it) move instead of copying.
function transferOf(result: unknown): Transferable[] {
  if (ArrayBuffer.isView(result)) return [result.buffer as ArrayBuffer];
  if (isObject(result)) return Object.values(result).flatMap((value) => (ArrayBuffer.isView(value) ? [value.buffer as ArrayBuffer] : []));
  return [];
}
