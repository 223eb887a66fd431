// The page's one Web Worker: runs long experiments and vocabulary rankings off the main thread
// with its own WebAssembly instance, reporting progress at most every 50 ms. It calls the
// module's bound objects alone: the sampler's Lab, which the page already has, would be bundled twice.
import { SamplingLabError } from '../lab/errors.js';
import type { ExperimentName } from '../lab/experiments.js';
import { runExperimentOn } from '../lab/experiment-lab.js';
import { unwrap } from '../lab/lab.js';
import { loadExperimentsModule } from '../runtime/experiments-module.js';

export type WorkerJob =
  | { kind: 'experiment'; name: ExperimentName; params: Record<string, unknown> }
  | { kind: 'ranking'; values: Float32Array };

export type WorkerRequest = { id: number } & WorkerJob;

export type WorkerReply =
  | { id: number; progress: number }
  | { id: number; result: unknown }
  | { id: number; error: { argument: string; message: string } };

const loaded = loadExperimentsModule().then((core) => ({ core, engine: new core.Engine(), experiments: new core.Experiments() }));
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
    const { core, engine, experiments } = await loaded;
    if (request.kind === 'experiment') {
      reply({ id: request.id, result: runExperimentOn(experiments, request.name, request.params, { onProgress }) });
    } else {
      unwrap(engine.floats(core.InputSlot.primary, request.values.length, 'values')).set(request.values);
      reply({ id: request.id, result: unwrap(engine.ranking()).order.slice() });
    }
  } catch (error) {
    const argument = error instanceof SamplingLabError ? error.argument : 'worker';
    reply({ id: request.id, error: { argument, message: (error as Error).message } });
  }
});
