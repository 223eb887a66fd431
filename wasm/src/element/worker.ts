// The page's one Web Worker: runs long experiments, long sample() calls and vocabulary rankings
// off the main thread with its own WebAssembly instance, reporting progress at most every 50 ms.
import { loadSamplingLab, SamplingLabError, type ExperimentName, type SampleOptions } from '../experiments-index.js';

export type WorkerJob =
  | { kind: 'experiment'; name: ExperimentName; params: Record<string, unknown> }
  | { kind: 'sample'; values: Float32Array | Float64Array | number[]; options: SampleOptions }
  | { kind: 'ranking'; values: Float32Array };

export type WorkerRequest = { id: number } & WorkerJob;

export type WorkerReply =
  | { id: number; progress: number }
  | { id: number; result: unknown }
  | { id: number; error: { argument: string; message: string } };

const lab = loadSamplingLab();
const reply = (message: WorkerReply) => postMessage(message);

addEventListener('message', async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  let lastReport = 0;
  const onProgress = (fraction: number) => {
    const now = performance.now();
    if (now - lastReport > 50) {
      lastReport = now;
      reply({ id: request.id, progress: fraction });
    }
  };
  try {
    const loaded = await lab;
    const result = request.kind === 'experiment' ? loaded.runExperiment(request.name, request.params as never, { onProgress })
      : request.kind === 'ranking' ? loaded.ranking(request.values)
        : loaded.sample(request.values, { ...request.options, onProgress });
    reply({ id: request.id, result });
  } catch (error) {
    const argument = error instanceof SamplingLabError ? error.argument : 'worker';
    reply({ id: request.id, error: { argument, message: (error as Error).message } });
  }
});
