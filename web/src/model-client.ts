// The page's side of the model Worker: one Worker, started on first use, that serves Sampling
// Lab's engine (sampling-lab/worker) with the page's jobs beside it; each job's events and
// download progress reach its own listeners through the package's client.
import { connectEngineWorker, type EngineClient, type Loading } from 'sampling-lab/worker-client';
import type { JobKind, JobRequest, Jobs } from './model-protocol';

export interface JobListeners<K extends JobKind> {
  onEvent?: (event: Jobs[K]['event']) => void;
  onLoading?: (loading: Loading) => void;
  /** Aborting stops the job at its next step (a generation between tokens). */
  signal?: AbortSignal;
}

let client: EngineClient | undefined;

/** The engine Worker's client: the page's jobs, and the engine's own (chat, the decoders) on the same models. */
export function modelWorker(): EngineClient {
  client ??= connectEngineWorker(new Worker(new URL('./model-worker.ts', import.meta.url), { type: 'module' }));
  return client;
}

/** Runs a job in the model Worker; the promise settles with its result. */
export function runModelJob<K extends JobKind>(request: JobRequest<K>, listeners: JobListeners<K> = {}): Promise<Jobs[K]['result']> {
  return modelWorker().run(request.kind, request, listeners as JobListeners<JobKind> as never);
}
