// The real-model section's Worker: Sampling Lab's engine (sampling-lab/worker: transformers.js,
// onnxruntime and a Sampling Lab instance of its own, models loaded once and kept, jobs streamed
// and cancelled) with the page's lessons as jobs beside the engine's own, so that loading,
// prefilling and decoding never hold the page's main thread.
import { env } from '@huggingface/transformers';
import { loadSamplingLab, SamplingLabError, type ExperimentLab } from 'sampling-lab/experiments';
import { compileGrammar, type CompiledGrammar, type GrammarTokenizer } from 'sampling-lab/grammar';
import {
  beamSearch, generateTokens, logitsRows, passageIds, positionLogits, speculativeGenerate, type LoadedModel, type SpeculativeGeneration,
} from 'sampling-lab/transformers';
import { nextTask, serveEngine, type JobContext, type JobHandler } from 'sampling-lab/worker';
import type { Filters, JobKind, JobRequest, Jobs, SpeculativeStepView, SpeculativeTotals } from './model-protocol';
import { partialTokenText, passageUnits } from './passage-display';

// onnxruntime's WebAssembly comes from this site (the bundler emits it beside the Worker), not
// from the CDN transformers.js points it at.
(env.backends.onnx.wasm as { wasmPaths?: unknown }).wasmPaths = undefined;

// Each tokenizer's vocabulary by id, built the first time a token needs its byte-level piece.
const pieces = new WeakMap<LoadedModel, string[]>();

/** A token's text; a token that is part of a character (U+FFFD when decoded alone) as its bytes. */
function tokenText(loaded: LoadedModel, token: number): string {
  const text = loaded.tokenizer.decode([token]);
  if (!text.includes('\uFFFD')) return text;
  let vocabulary = pieces.get(loaded);
  if (!vocabulary) {
    vocabulary = [];
    const json = (loaded.tokenizer as unknown as { _tokenizerJSON?: { model?: { vocab?: Record<string, number> } } })._tokenizerJSON;
    for (const [piece, id] of Object.entries(json?.model?.vocab ?? {})) vocabulary[id] = piece;
    pieces.set(loaded, vocabulary);
  }
  const piece = vocabulary[token];
  return piece === undefined ? text.replaceAll('\uFFFD', '') : partialTokenText(piece);
}

/** A sequence's text with its characters whole and any stray byte shown as a byte. */
function wholeText(loaded: LoadedModel, ids: readonly number[]): string {
  return passageUnits((some) => loaded.tokenizer.decode(some), ids, (token) => tokenText(loaded, token)).map((unit) => unit.text).join('');
}

// Speculative decoding verifies the draft's token ids against the target's: one tokenizer for both.
// Each schema's grammar, compiled once per model (xgrammar loads with the first one).
const grammars = new WeakMap<LoadedModel, Map<string, Promise<CompiledGrammar>>>();
function schemaGrammar(loaded: LoadedModel, schemaText: string): Promise<CompiledGrammar> {
  const compiledFor = grammars.get(loaded) ?? new Map<string, Promise<CompiledGrammar>>();
  grammars.set(loaded, compiledFor);
  let compiled = compiledFor.get(schemaText);
  if (!compiled) {
    let schema: object;
    try {
      schema = JSON.parse(schemaText);
    } catch (error) {
      throw new SamplingLabError('jsonSchema', `the schema is not JSON: ${(error as Error).message}`);
    }
    const vocabSize = (loaded.model.config as { vocab_size?: number }).vocab_size;
    compiled = compileGrammar(loaded.tokenizer as unknown as GrammarTokenizer, { jsonSchema: schema }, { vocabSize });
    compiled.catch(() => compiledFor.delete(schemaText));
    compiledFor.set(schemaText, compiled);
  }
  return compiled;
}

function checkSameTokenizer(target: LoadedModel, draft: LoadedModel, prompt: string): void {
  const [ours, theirs] = [target.tokenizer.encode(prompt), draft.tokenizer.encode(prompt)];
  if (ours.length !== theirs.length || ours.some((id, i) => id !== theirs[i])) {
    throw new SamplingLabError('draft', 'the draft\'s tokenizer splits the prompt differently from the target\'s; the pair must share one tokenizer');
  }
}

// Plain decoding of `tokens` tokens with one model: the whole run and each step after the first.
async function timedPlain(sampling: ExperimentLab, loaded: LoadedModel, prompt: string, filters: Filters, tokens: number,
                          signal: AbortSignal): Promise<{ totalMs: number; stepMs: number }> {
  const start = performance.now();
  let first = start;
  let count = 0;
  for await (const _ of generateTokens(loaded.model, loaded.tokenizer, prompt, { lab: sampling, ...filters, maxNewTokens: tokens, stopAtEos: false, signal })) {
    if (count++ === 0) first = performance.now();
    await nextTask();
  }
  const end = performance.now();
  return { totalMs: end - start, stepMs: count > 1 ? (end - first) / (count - 1) : NaN };
}

// A speculative run's steps as the page shows them, each proposal and token with its text; the totals at the end.
async function streamSteps(run: SpeculativeGeneration, target: LoadedModel, sampling: ExperimentLab, gamma: number,
                           emit: (event: { step: SpeculativeStepView }) => void): Promise<SpeculativeTotals> {
  const named = (token: number) => ({ token, text: tokenText(target, token) });
  let checked = 0;
  const totals = (): SpeculativeTotals => ({ ...run.stats, checked, expected: sampling.expectedTokens(checked > 0 ? run.stats.accepted / checked : 0, gamma) });
  for await (const step of run) {
    checked += step.accepted + (step.fromResidual ? 1 : 0);
    const emitted = step.tokens[step.accepted];
    emit({
      step: {
        proposed: step.proposed.map(named), accepted: step.accepted, fromResidual: step.fromResidual, textDelta: step.textDelta,
        ...(step.lookup && { ngram: step.lookup.ngram.map(named) }), ...(emitted !== undefined && { emitted: named(emitted) }),
        totals: totals(),
      },
    });
    await nextTask();
  }
  return totals();
}

// Jobs report progress at most this often.
const REPORT_EVERY_MS = 50;

// The engine's context with this job's events typed, and the lab that runs the experiments.
type Context<K extends JobKind> = Omit<JobContext, 'emit' | 'lab'> & { emit: (event: Jobs[K]['event']) => void; lab: ExperimentLab };
type Handler<K extends JobKind> = (request: JobRequest<K>, context: Context<K>) => Promise<Jobs[K]['result']>;

// The page's lessons; loading a model is the engine's own 'load' job.
const handlers: { [K in Exclude<JobKind, 'load'>]: Handler<K> } = {
  async options(_, { lab }) {
    return lab.options;
  },

  async passage(request, { model }) {
    const loaded = await model(request.model);
    const { tokenizer } = loaded;
    const ids = passageIds(tokenizer, request.text, request.maxTokens);
    return { ids: Int32Array.from(ids), units: passageUnits((some) => tokenizer.decode(some), ids, (token) => tokenText(loaded, token)) };
  },

  async position(request, { lab: sampling, model }) {
    const loaded = await model(request.model);
    const logits = await positionLogits(loaded.model, request.ids, request.index);
    const top = Array.from(sampling.ranking(logits).subarray(0, request.top), (token) => ({ token, text: tokenText(loaded, token) }));
    return { logits, top };
  },

  async temperature(request, { lab, model }) {
    const logits = await positionLogits((await model(request.model)).model, request.ids, request.index);
    return lab.runExperiment('temperature', { logits, temperatures: request.temperatures }).rows;
  },

  // Σ min(p, q) and TV at every position of the passage, target against draft.
  async acceptance(request, { lab: sampling, model, emit, signal }) {
    const [target, draft] = await Promise.all([model(request.target), model(request.draft)]);
    const accept: number[] = [];
    const tv: number[] = [];
    const [targetRows, draftRows] = [logitsRows(target.model, request.ids), logitsRows(draft.model, request.ids)];
    let lastReport = 0;
    while (!signal.aborted) {
      const [p, q] = [await targetRows.next(), await draftRows.next()];
      if (p.done || q.done) break;
      const distance = sampling.distance(sampling.distribution(p.value.logits).probs, sampling.distribution(q.value.logits).probs);
      accept.push(distance.overlap);
      tv.push(distance.tv);
      if (performance.now() - lastReport > REPORT_EVERY_MS) {
        lastReport = performance.now();
        emit(accept.length);
        await nextTask();
      }
    }
    return sampling.runExperiment('acceptance', { accept, tv });
  },

  async generate(request, { lab: sampling, model, emit, signal }) {
    const loaded = await model(request.model);
    const grammar = request.jsonSchema === undefined ? undefined : await schemaGrammar(loaded, request.jsonSchema);
    for await (const step of generateTokens(loaded.model, loaded.tokenizer, request.prompt, {
      lab: sampling, ...request.filters, maxNewTokens: request.maxNewTokens, topCandidates: request.topCandidates, signal, grammar,
    })) {
      const { token, textDelta, prob, entropyBits, kept, cuts, grammarAllowed } = step;
      const top = step.top.map((candidate) => ({ ...candidate, text: tokenText(loaded, candidate.token) }));
      emit({ token, text: tokenText(loaded, token), textDelta, prob, entropyBits, kept, top, cuts, ...(grammar && { grammarAllowed, vocabSize: grammar.vocabSize }) });
      await nextTask();
    }
    return null;
  },

  async speculative(request, { lab: sampling, model, emit, signal }) {
    const [target, draft] = await Promise.all([model(request.target), model(request.draft)]);
    checkSameTokenizer(target, draft, request.prompt);
    const run = speculativeGenerate(target.model, draft.model, target.tokenizer, request.prompt, {
      lab: sampling, ...request.filters, gamma: request.gamma, maxNewTokens: request.maxNewTokens, signal,
    });
    const totals = await streamSteps(run, target, sampling, request.gamma, emit);
    if (signal.aborted || run.stats.tokens === 0) return { totals };
    emit({ timing: run.stats.tokens });
    const plainTarget = await timedPlain(sampling, target, request.prompt, request.filters, run.stats.tokens, signal);
    const plainDraft = await timedPlain(sampling, draft, request.prompt, request.filters, run.stats.tokens, signal);
    if (signal.aborted) return { totals };
    return { totals, plain: { targetMs: plainTarget.totalMs, targetStepMs: plainTarget.stepMs, draftStepMs: plainDraft.stepMs } };
  },

  // The one model loaded, its proposals copied from the sequence: no draft's passes to time.
  async lookup(request, { lab: sampling, model, emit, signal }) {
    const target = await model(request.model);
    const run = speculativeGenerate(target.model, { promptLookup: { ngramMax: request.ngramMax } }, target.tokenizer, request.prompt, {
      lab: sampling, ...request.filters, gamma: request.gamma, maxNewTokens: request.maxNewTokens, signal,
    });
    const totals = await streamSteps(run, target, sampling, request.gamma, emit);
    if (signal.aborted || run.stats.tokens === 0) return { totals };
    emit({ timing: run.stats.tokens });
    const plainTarget = await timedPlain(sampling, target, request.prompt, request.filters, run.stats.tokens, signal);
    if (signal.aborted) return { totals };
    return { totals, plain: { targetMs: plainTarget.totalMs, targetStepMs: plainTarget.stepMs, draftStepMs: 0 } };
  },

  // Sequences of exactly maxNewTokens tokens (no end-of-sequence stop), so their log-probabilities compare.
  async beam(request, { lab: sampling, model, emit, signal }) {
    const whole = await model(request.model);
    const { model: loaded, tokenizer } = whole;
    const { prompt, maxNewTokens } = request;
    for (const width of [1, ...request.widths]) {
      if (signal.aborted) break;
      const [best] = await beamSearch(loaded, tokenizer, prompt, { lab: sampling, numBeams: width, maxNewTokens, eosTokenIds: [], signal });
      emit({ kind: width === 1 ? 'greedy' : 'beam', width, text: wholeText(whole, best.ids), logProb: best.logProb, tokens: best.ids.length });
      await nextTask();
    }
    const sampled: number[] = [];
    let logProb = 0;
    for await (const step of generateTokens(loaded, tokenizer, prompt, {
      lab: sampling, temperature: 1, seed: request.seed, maxNewTokens, stopAtEos: false, logprobs: 1, logprobsMode: 'raw', signal,
    })) {
      sampled.push(step.token);
      logProb += step.logprobs!.logprob;
      await nextTask();
    }
    if (!signal.aborted) emit({ kind: 'sampled', width: 1, text: wholeText(whole, sampled), logProb, tokens: sampled.length });
    return null;
  },
};

serveEngine({ lab: loadSamplingLab(), jobs: handlers as unknown as Record<string, JobHandler> });
