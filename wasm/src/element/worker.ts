// The page's one Web Worker: runs long experiments off the main thread with its own
// WebAssembly instance, reporting progress at most every 50 ms.
import { loadSamplingLab, SamplingLabError } from '../index.js';

export interface WorkerRequest {
  id: number;
  name: string;
  params: Record<string, unknown>;
}

export type WorkerReply =
  | { id: number; progress: number }
  | { id: number; result: Record<string, unknown> }
  | { id: number; error: { argument: string; message: string } };

const lab = loadSamplingLab();
const reply = (message: WorkerReply) => postMessage(message);

addEventListener('message', async (event: MessageEvent<WorkerRequest>) => {
  const { id, name, params } = event.data;
  let lastReport = 0;
  try {
    const result = (await lab).runExperiment(name, params, {
      onProgress: (fraction) => {
        const now = performance.now();
        if (now - lastReport > 50) {
          lastReport = now;
          reply({ id, progress: fraction });
        }
      },
    });
    reply({ id, result });
  } catch (error) {
    const argument = error instanceof SamplingLabError ? error.argument : 'experiment';
    reply({ id, error: { argument, message: (error as Error).message } });
  }
});
