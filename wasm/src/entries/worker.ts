/**
 * `sampling-lab/worker`: the Worker side of the engine. In a Worker module,
 * `serveEngine({ lab: loadSamplingLab() })` serves `createWorkerEngine` (sampling-lab/worker-client).
 * @module sampling-lab/worker
 */
export { nextTask, serveEngine, type JobContext, type JobHandler, type ServeEngineOptions } from '../adapters/transformers/worker-engine.js';
export * from '../adapters/transformers/worker-protocol.js';
