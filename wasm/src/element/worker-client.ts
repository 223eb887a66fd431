// Sends experiment runs to the page's single Worker; one outstanding run per caller key, so a
// slider dragged quickly only waits for its latest setting.
import { SamplingLabError } from '../index.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  onProgress: (fraction: number) => void;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function sharedWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const message = event.data;
      const entry = pending.get(message.id);
      if (!entry) return;
      if ('progress' in message) {
        entry.onProgress(message.progress);
        return;
      }
      pending.delete(message.id);
      if ('result' in message) entry.resolve(message.result);
      else entry.reject(new SamplingLabError(message.error.argument, message.error.message));
    });
  }
  return worker;
}

export function runInWorker<T = Record<string, unknown>>(
  name: string, params: Record<string, unknown>, onProgress: (fraction: number) => void,
): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as Pending['resolve'], reject, onProgress });
    sharedWorker().postMessage({ id, name, params } satisfies WorkerRequest);
  });
}
