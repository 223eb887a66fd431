// The page's side of the model Worker: one Worker, started on first use, running any number of
// jobs at once; each job's events and download progress reach its own listeners.
import { SamplingLabError } from 'sampling-lab/experiments';
import type { JobKind, JobRequest, Jobs, Loading, ModelReply, ModelRequest } from './model-protocol';

export interface JobListeners<K extends JobKind> {
  onEvent?: (event: Jobs[K]['event']) => void;
  onLoading?: (loading: Loading) => void;
  /** Aborting stops the job at its next step (a generation between tokens). */
  signal?: AbortSignal;
}

interface Pending {
  listeners: JobListeners<JobKind>;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function modelWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./model-worker.ts', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (message: MessageEvent<ModelReply>) => {
      const reply = message.data;
      const job = pending.get(reply.id);
      if (!job) return;
      if ('loading' in reply) job.listeners.onLoading?.(reply.loading);
      else if ('event' in reply) job.listeners.onEvent?.(reply.event as never);
      else {
        pending.delete(reply.id);
        if ('result' in reply) job.resolve(reply.result);
        else job.reject(new SamplingLabError(reply.error.argument, reply.error.message));
      }
    });
  }
  return worker;
}

/** Runs a job in the model Worker; the promise settles with its result. */
export function runModelJob<K extends JobKind>(request: JobRequest<K>, listeners: JobListeners<K> = {}): Promise<Jobs[K]['result']> {
  const id = nextId++;
  const target = modelWorker();
  return new Promise((resolve, reject) => {
    pending.set(id, { listeners: listeners as JobListeners<JobKind>, resolve: resolve as Pending['resolve'], reject });
    const post = (message: ModelRequest) => target.postMessage(message);
    listeners.signal?.addEventListener('abort', () => post({ cancel: id }), { once: true });
    post({ id, ...request } as ModelRequest);
  });
}
