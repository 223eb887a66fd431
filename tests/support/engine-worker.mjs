// A worker_threads Worker that serves the engine (worker-engine.test.ts).
import { parentPort } from 'node:worker_threads';
import { loadSamplingLab } from 'sampling-lab';
import { serveEngine } from 'sampling-lab/worker';

serveEngine({ lab: loadSamplingLab(), port: parentPort });
