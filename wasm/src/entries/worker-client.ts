/**
 * `sampling-lab/worker-client`: the calling thread's side of an engine Worker (sampling-lab/worker):
 * OpenAI's chat completions and the decoders, their model loop off this thread. Loads no model
 * code of its own.
 * @module sampling-lab/worker-client
 */
export {
  connectEngineWorker, createWorkerEngine, type EngineClient, type JobListeners, type NodeWorker, type RemoteBeamSearch, type RemoteGeneration, type RemoteRun,
  type RemoteSpeculativeGeneration, type WorkerEngine,
} from '../adapters/transformers/worker-client.js';
export * from '../adapters/transformers/worker-protocol.js';
