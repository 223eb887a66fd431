// The messages between an engine Worker (serveEngine) and its client (connectEngineWorker): jobs
// by id, each streaming events and download progress and ending with a result or an error; a
// cancel aborts a job at its next step. Everything that crosses is structured-cloneable.
import type { GrammarSpec } from '../grammar/grammar.js';
import type { BeamSearchOptions } from './beam.js';
import type { GenerateOptions } from './generate.js';
import type { ModelDtype } from './model-dtypes.js';
import type { SpeculativeOptions } from './speculative.js';

/** A model the Worker loads (once, then kept): a local folder ('/models/tiny', './x') or a hub repository. */
export interface ModelRef {
  source: string;
  dtype?: ModelDtype | 'auto';
  /** transformers.js's device ('wasm', 'webgpu', 'cpu', …). */
  device?: string;
  /** onnxruntime's session options, e.g. { intraOpNumThreads: 1 }. */
  sessionOptions?: Record<string, unknown>;
}

/** A local folder is a path; anything else names a hub repository. */
export const isLocalSource = (source: string): boolean => /^[./]/.test(source);

/** What crosses in place of a function, a signal or a compiled grammar: the grammar's spec, compiled (once) in the Worker. */
export type Remote<Options> = Omit<Options, 'lab' | 'signal' | 'grammar' | 'onForward'> & {
  grammar?: GrammarSpec;
  /** Aborting it ends the run as a local abort does (finishReason 'abort'). */
  signal?: AbortSignal;
};

/** generateTokens' options as they cross to the Worker. */
export type RemoteGenerateOptions = Remote<GenerateOptions> & {
  /** Each step's description (prob, entropyBits, kept, top, cuts), as a local step computes it when read (default true). */
  describe?: boolean;
};
/** speculativeGenerate's options as they cross to the Worker. */
export type RemoteSpeculativeOptions = Remote<SpeculativeOptions>;
/** beamSearch's options as they cross to the Worker. */
export type RemoteBeamSearchOptions = Remote<BeamSearchOptions>;

/** Download progress of a job's model files, summed. */
export interface Loading {
  loaded: number;
  total: number;
}

/** `aborted`: the caller's signal had aborted already (a cancel message could arrive after the job's first step). */
export type EngineRequest = { id: number; job: string; request: unknown; aborted?: boolean } | { cancel: number };

/** A message from the Worker about job `id`: download progress, an event (a step or a chunk), its result, or its error. */
export type EngineReply =
  | { id: number; loading: Loading }
  | { id: number; event: unknown }
  | { id: number; result: unknown }
  | { id: number; error: { name: string; argument?: string; message: string } };

/**
 * Either end of the channel: a Worker, a Worker's global scope, or a MessagePort (Node's
 * worker_threads ports and MessageChannel too).
 */
export interface EnginePort {
  /** Sends a message to the other end, transferring `transfer`. */
  postMessage(message: unknown, transfer?: Transferable[]): void;
  /** Hears the other end's messages. */
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}
