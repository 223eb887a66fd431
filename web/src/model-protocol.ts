// The page's jobs in its model Worker (model-worker.ts, which serves sampling-lab/worker's engine
// with them): what each asks, streams and returns. Every model, tokenizer and forward pass lives in
// the Worker; the page names models by ModelRef. Logits rows cross as transferred Float32Arrays,
// everything else is small.
import type { AcceptanceResult, FilterStage, OptionSpec, SampleTokenOptions } from 'sampling-lab';
import type { ModelDtype } from 'sampling-lab/transformers';
import type { PassageUnit } from './passage-display';

/** A model file: a local folder ('/models/tiny-qwen3') or a hub repository, at a dtype. */
export interface ModelRef {
  source: string;
  dtype: ModelDtype;
  device: 'webgpu' | 'wasm';
}

export { isLocalSource, type Loading } from 'sampling-lab/worker-client';

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
  /** The text the step adds, safe to join (generateTokens' textDelta). */
  textDelta: string;
  prob: number;
  entropyBits: number;
  kept: number;
  top: StepCandidate[];
  cuts: FilterStage[];
  /** In JSON mode: how many of the model's vocabSize tokens the schema's grammar allowed at this step (0 for a token it forced). */
  grammarAllowed?: number;
  vocabSize?: number;
}

/** One speculative step as the page shows it: each proposal with its text. */
export interface SpeculativeStepView {
  proposed: Token[];
  /** With prompt lookup: the n-gram matched (the sequence's last n tokens), none when nothing matched. */
  ngram?: Token[];
  /** Proposals the target accepted, from the first. */
  accepted: number;
  /** The target's own token, when the step emitted it: redrawn from the residual after a rejection, else the bonus. */
  emitted?: Token;
  fromResidual: boolean;
  /** The text the step adds, safe to join (speculativeGenerate's textDelta: a character split across steps waits whole). */
  textDelta: string;
  /** The run's totals after this step. */
  totals: SpeculativeTotals;
}

export interface Token {
  token: number;
  text: string;
}

export interface SpeculativeTotals {
  tokens: number;
  proposed: number;
  accepted: number;
  /** Proposals the target checked: the accepted ones and each rejected one. */
  checked: number;
  targetCalls: number;
  draftCalls: number;
  /** Time spent decoding, ms. */
  wallMs: number;
  /** The chapter's E[tokens per target pass] at α = accepted / checked and the run's γ (lab.expectedTokens). */
  expected: number;
}

/** Plain decoding of the same number of tokens, for the measured speed-up and cost ratio. */
export interface PlainTiming {
  /** The target alone, prefill included, ms. */
  targetMs: number;
  /** Per token after the first (a decode step with the KV cache), ms. */
  targetStepMs: number;
  draftStepMs: number;
}

export interface BeamRow {
  kind: 'greedy' | 'beam' | 'sampled';
  /** Beams kept (1 for greedy and sampling). */
  width: number;
  text: string;
  /** Σ log p(x_t | x_<t) under the model at T 1, nats. */
  logProb: number;
  tokens: number;
}

/** What each job asks, the events it streams and what it returns. */
export interface Jobs {
  /** The engine's own job: the model loaded and kept. */
  load: { request: { model: ModelRef }; event: never; result: { vocabSize: number | undefined } };
  /** The sampling options' table (ranges, defaults) of the Worker's Sampling Lab. */
  options: { request: object; event: never; result: readonly OptionSpec[] };
  /** The passage's ids, and its tokens grouped into whole characters for display. */
  passage: { request: { model: ModelRef; text: string; maxTokens?: number }; event: never; result: { ids: Int32Array; units: PassageUnit[] } };
  /** The logits after `ids[0..index]`, and the strings of the `top` most likely tokens. */
  position: { request: { model: ModelRef; ids: Int32Array; index: number; top: number }; event: never; result: { logits: Float32Array; top: Token[] } };
  temperature: {
    request: { model: ModelRef; ids: Int32Array; index: number; temperatures: number[] };
    event: never;
    result: { temperature: number; topProb: number; tokensForMass: number }[];
  };
  acceptance: { request: { target: ModelRef; draft: ModelRef; ids: Int32Array }; event: number; result: AcceptanceResult };
  generate: {
    /** `jsonSchema` (its text) turns on JSON mode: the output follows the schema (sampling-lab/grammar). */
    request: { model: ModelRef; prompt: string; filters: Filters; maxNewTokens: number; topCandidates: number; jsonSchema?: string };
    event: GeneratedStep;
    result: null;
  };
  /** Speculative decoding, then (unless stopped) plain decoding of as many tokens with each model alone. */
  speculative: {
    request: { target: ModelRef; draft: ModelRef; prompt: string; filters: Filters; gamma: number; maxNewTokens: number };
    /** Each step, then the number of tokens plain decoding is timed on. */
    event: { step: SpeculativeStepView } | { timing: number };
    result: { totals: SpeculativeTotals; plain?: PlainTiming };
  };
  /** Prompt lookup with the one model: proposals copied from the prompt and the output, then (unless stopped) plain decoding of as many tokens timed. */
  lookup: {
    request: { model: ModelRef; prompt: string; filters: Filters; gamma: number; ngramMax: number; maxNewTokens: number };
    event: { step: SpeculativeStepView } | { timing: number };
    result: { totals: SpeculativeTotals; plain?: PlainTiming };
  };
  /** The prompt continued by `maxNewTokens` tokens greedily, by beam search at each width, and sampled at T 1. */
  beam: {
    request: { model: ModelRef; prompt: string; widths: number[]; maxNewTokens: number; seed: number };
    event: BeamRow;
    result: null;
  };
}

export type JobKind = keyof Jobs;
export type JobRequest<K extends JobKind = JobKind> = { [P in K]: { kind: P } & Jobs[P]['request'] }[K];
