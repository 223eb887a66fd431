// The messages between the page and its model Worker (model-worker.ts). Every model, tokenizer
// and forward pass lives in the Worker; the page names models by ModelRef. Logits rows cross as
// transferred Float32Arrays, everything else is small.
import type { AcceptanceResult, FilterStage, SampleTokenOptions } from 'sampling-lab';

/** A model file: a local folder ('/models/tiny-qwen3') or a hub repository, at a dtype. */
export interface ModelRef {
  source: string;
  dtype: string;
  device: 'webgpu' | 'wasm';
}

/** A local folder is a path; anything else names a hub repository. */
export const isLocalSource = (source: string): boolean => /^[./]/.test(source);

export type Filters = Omit<SampleTokenOptions, 'step' | 'generatedIds'>;

export interface StepCandidate {
  token: number;
  text: string;
  prob: number;
  kept: boolean;
}

/** A generated token with its step's description. */
export interface GeneratedStep {
  token: number;
  text: string;
  prob: number;
  entropyBits: number;
  kept: number;
  top: StepCandidate[];
  cuts: FilterStage[];
}

/** What each job asks, the events it streams and what it returns. */
export interface Jobs {
  load: { request: { model: ModelRef }; event: never; result: null };
  passage: { request: { model: ModelRef; text: string; maxTokens?: number }; event: never; result: { ids: Int32Array; texts: string[] } };
  position: { request: { model: ModelRef; ids: Int32Array; index: number }; event: never; result: Float32Array };
  temperature: {
    request: { model: ModelRef; ids: Int32Array; index: number; temperatures: number[] };
    event: never;
    result: { temperature: number; topProb: number; tokensForMass: number }[];
  };
  acceptance: { request: { target: ModelRef; draft: ModelRef; ids: Int32Array }; event: number; result: AcceptanceResult };
  generate: {
    request: { model: ModelRef; prompt: string; filters: Filters; maxNewTokens: number; topCandidates: number };
    event: GeneratedStep;
    result: null;
  };
}

export type JobKind = keyof Jobs;
export type JobRequest<K extends JobKind = JobKind> = { [P in K]: { kind: P } & Jobs[P]['request'] }[K];

/** Download progress of the files a job's models need, summed. */
export interface Loading {
  loaded: number;
  total: number;
}

export type ModelRequest = ({ id: number } & JobRequest) | { cancel: number };

export type ModelReply =
  | { id: number; loading: Loading }
  | { id: number; event: unknown }
  | { id: number; result: unknown }
  | { id: number; error: { argument: string; message: string } };
