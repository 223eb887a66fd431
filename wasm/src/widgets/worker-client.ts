// Sends jobs to the page's single Worker, one at a time: a queued job that is cancelled never
// runs, and a running one that is cancelled after a moment ends with the Worker (a new one
// starts for the next job), since a busy Worker cannot hear a message.
import { SamplingLabError } from '../lab/errors.js';
import type { WorkerJob, WorkerReply } from './worker.js';

interface Job {
  id: number;
  job: WorkerJob;
  onProgress: (fraction: number) => void;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  started?: number;
}

// A running job younger than this is left to finish (its result is dropped): restarting the
// Worker and its WebAssembly costs about as much.
const TERMINATE_AFTER_MS = 250;

let worker: Worker | undefined;
let active: Job | undefined;
const queue: Job[] = [];
let nextId = 0;

function cancelled(): SamplingLabError {
  return new SamplingLabError('onProgress', 'the run was cancelled');
}

function sharedWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const message = event.data;
      if (!active || message.id !== active.id) return;
      if ('progress' in message) {
        active.onProgress(message.progress);
        return;
      }
      const done = active;
      active = undefined;
      if ('result' in message) done.resolve(message.result);
      else done.reject(new SamplingLabError(message.error.argument, message.error.message));
      pump();
    });
  }
  return worker;
}

function pump(): void {
  if (active || queue.length === 0) return;
  active = queue.shift()!;
  active.started = performance.now();
  sharedWorker().postMessage({ id: active.id, ...active.job });
}

function cancel(entry: Job): void {
  const queued = queue.indexOf(entry);
  if (queued >= 0) {
    queue.splice(queued, 1);
    entry.reject(cancelled());
    return;
  }
  if (active !== entry) return;
  entry.reject(cancelled());
  if (performance.now() - entry.started! < TERMINATE_AFTER_MS) {
    // Let it finish; its reply no longer matches anyone waiting.
    entry.resolve = () => {};
    entry.reject = () => {};
    entry.onProgress = () => {};
    return;
  }
  worker?.terminate();
  worker = undefined;
  active = undefined;
  pump();
}

/** Runs `job` in the Worker; aborting `signal` cancels it (the promise rejects for "onProgress"). */
export function runInWorker<T = unknown>(job: WorkerJob, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const entry: Job = { id: nextId++, job, onProgress, resolve: resolve as Job['resolve'], reject };
    if (signal?.aborted) {
      reject(cancelled());
      return;
    }
    signal?.addEventListener('abort', () => cancel(entry), { once: true });
    queue.push(entry);
    pump();
  });
}
