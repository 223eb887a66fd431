// The real-model section's Worker: transformers.js, onnxruntime and a Sampling Lab instance of
// its own, so that loading, prefilling and decoding never hold the page's main thread. Models
// load on first use and stay loaded; jobs run as they arrive and stream their events.
import { env } from '@huggingface/transformers';
import { loadSamplingLab, SamplingLabError } from 'sampling-lab/experiments';
import { compileGrammar, type CompiledGrammar, type GrammarTokenizer } from 'sampling-lab/grammar';
import {
  beamSearch, generateTokens, loadHubModel, loadLocalModel, logitsRows, passageIds, positionLogits, speculativeGenerate,
  type LoadedModel, type LoadModelOptions,
} from 'sampling-lab/transformers';
import {
  isLocalSource, type Filters, type JobKind, type JobRequest, type Jobs, type Loading, type ModelRef, type ModelReply, type ModelRequest,
} from './model-protocol';
import { partialTokenText, passageUnits } from './passage-display';

// onnxruntime's WebAssembly comes from this site (the bundler emits it beside the Worker), not
// from the CDN transformers.js points it at.
(env.backends.onnx.wasm as { wasmPaths?: unknown }).wasmPaths = undefined;

const lab = loadSamplingLab();
const models = new Map<string, Promise<LoadedModel>>();
const running = new Map<number, AbortController>();
const REPORT_EVERY_MS = 50;

// A turn of the event loop. onnxruntime's passes can resolve without one, so a loop of awaits
// would never let a cancel message in; each step of a job yields here.
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

function post(reply: ModelReply, transfer: Transferable[] = []): void {
  postMessage(reply, { transfer });
}

// Download progress of one job's files, summed, at most every 50 ms.
function progressOf(id: number): NonNullable<LoadModelOptions['progress']> {
  const files = new Map<string, Loading>();
  let lastReport = 0;
  return (info) => {
    if (info.status !== 'progress' || !info.file || !info.total) return;
    files.set(info.file, { loaded: info.loaded ?? 0, total: info.total });
    const now = performance.now();
    if (now - lastReport < REPORT_EVERY_MS && info.loaded !== info.total) return;
    lastReport = now;
    const sum = { loaded: 0, total: 0 };
    for (const file of files.values()) {
      sum.loaded += file.loaded;
      sum.total += file.total;
    }
    post({ id, loading: sum });
  };
}

function model(ref: ModelRef, id: number): Promise<LoadedModel> {
  const key = `${ref.source}|${ref.dtype}|${ref.device}`;
  let loaded = models.get(key);
  if (!loaded) {
    const options = { dtype: ref.dtype, device: ref.device, progress: progressOf(id) };
    loaded = isLocalSource(ref.source) ? loadLocalModel(ref.source, options) : loadHubModel(ref.source, options);
    // A failed load is tried again next time.
    loaded.catch(() => models.delete(key));
    models.set(key, loaded);
  }
  return loaded;
}

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
async function timedPlain(loaded: LoadedModel, prompt: string, filters: Filters, tokens: number, signal: AbortSignal): Promise<{ totalMs: number; stepMs: number }> {
  const sampling = await lab;
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

type Emit<K extends JobKind> = (event: Jobs[K]['event']) => void;
type Handler<K extends JobKind> = (request: JobRequest<K>, id: number, emit: Emit<K>, signal: AbortSignal) => Promise<Jobs[K]['result']>;

const handlers: { [K in JobKind]: Handler<K> } = {
  async load(request, id) {
    await model(request.model, id);
    return null;
  },

  async options() {
    return (await lab).options;
  },

  async passage(request, id) {
    const loaded = await model(request.model, id);
    const { tokenizer } = loaded;
    const ids = passageIds(tokenizer, request.text, request.maxTokens);
    return { ids: Int32Array.from(ids), units: passageUnits((some) => tokenizer.decode(some), ids, (token) => tokenText(loaded, token)) };
  },

  async position(request, id) {
    const [sampling, loaded] = await Promise.all([lab, model(request.model, id)]);
    const logits = await positionLogits(loaded.model, request.ids, request.index);
    const top = Array.from(sampling.ranking(logits).subarray(0, request.top), (token) => ({ token, text: tokenText(loaded, token) }));
    return { logits, top };
  },

  async temperature(request, id) {
    const logits = await positionLogits((await model(request.model, id)).model, request.ids, request.index);
    return (await lab).runExperiment('temperature', { logits, temperatures: request.temperatures }).rows;
  },

  // Σ min(p, q) and TV at every position of the passage, target against draft.
  async acceptance(request, id, emit, signal) {
    const [sampling, target, draft] = await Promise.all([lab, model(request.target, id), model(request.draft, id)]);
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

  async generate(request, id, emit, signal) {
    const [sampling, loaded] = await Promise.all([lab, model(request.model, id)]);
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

  async speculative(request, id, emit, signal) {
    const [sampling, target, draft] = await Promise.all([lab, model(request.target, id), model(request.draft, id)]);
    checkSameTokenizer(target, draft, request.prompt);
    const { tokenizer } = target;
    const run = speculativeGenerate(target.model, draft.model, tokenizer, request.prompt, {
      lab: sampling, ...request.filters, gamma: request.gamma, maxNewTokens: request.maxNewTokens, signal,
    });
    const named = (token: number) => ({ token, text: tokenText(target, token) });
    let checked = 0;
    const totals = () => ({ ...run.stats, checked });
    for await (const step of run) {
      checked += step.accepted + (step.fromResidual ? 1 : 0);
      const emitted = step.tokens[step.accepted];
      emit({
        step: {
          proposed: step.proposed.map(named), accepted: step.accepted, fromResidual: step.fromResidual, textDelta: step.textDelta,
          ...(emitted !== undefined && { emitted: named(emitted) }), totals: totals(),
        },
      });
      await nextTask();
    }
    if (signal.aborted || run.stats.tokens === 0) return { totals: totals() };
    emit({ timing: run.stats.tokens });
    const plainTarget = await timedPlain(target, request.prompt, request.filters, run.stats.tokens, signal);
    const plainDraft = await timedPlain(draft, request.prompt, request.filters, run.stats.tokens, signal);
    if (signal.aborted) return { totals: totals() };
    return { totals: totals(), plain: { targetMs: plainTarget.totalMs, targetStepMs: plainTarget.stepMs, draftStepMs: plainDraft.stepMs } };
  },

  // Sequences of exactly maxNewTokens tokens (no end-of-sequence stop), so their log-probabilities compare.
  async beam(request, id, emit, signal) {
    const [sampling, whole] = await Promise.all([lab, model(request.model, id)]);
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

// Results that are typed arrays cross by transfer.
function transferOf(result: unknown): Transferable[] {
  if (ArrayBuffer.isView(result)) return [result.buffer];
  if (result && typeof result === 'object') {
    return Object.values(result).flatMap((value) => (ArrayBuffer.isView(value) ? [value.buffer] : []));
  }
  return [];
}

addEventListener('message', async (message: MessageEvent<ModelRequest>) => {
  const request = message.data;
  if ('cancel' in request) {
    running.get(request.cancel)?.abort();
    return;
  }
  const { id } = request;
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const handler = handlers[request.kind] as Handler<JobKind>;
    const result = await handler(request, id, (event) => post({ id, event }), controller.signal);
    post({ id, result }, transferOf(result));
  } catch (error) {
    const argument = error instanceof SamplingLabError ? error.argument : 'model';
    post({ id, error: { argument, message: (error as Error).message } });
  } finally {
    running.delete(id);
  }
});
