// The modules' plain C ABI (wasm/binding_support.hpp) as the objects the labs call: each export
// returns how many numbers it put in its reply, or −1 with the error's argument and message
// there; views and texts are (address, length) pairs into the module's memory, so typed arrays
// cross as views, never element by element.
import { SamplingLabError } from './errors.js';
import type {
  AbiModule, CoreBeamSearch, CoreEngine, CoreEnum, CoreError, CoreHistory, CoreModule, FilterStage,
} from './sampling-lab-core.js';
import type { BulkType, CoreExperiments, ExperimentsCoreModule } from './sampling-lab-experiments.js';

type Reply = Float64Array;
type View = new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads a module's replies; `raw` is the Emscripten module. */
function replies(raw: AbiModule) {
  // The module runs one call at a time: a call made from a run's progress report would take
  // that run's buffers (and its callback) while it still uses them.
  const notReporting = () => {
    if (raw.onProgress) throw new SamplingLabError('onProgress', 'no call into the lab can be made inside onProgress: make it once the run returns');
  };
  const memory = () => raw.HEAPU8.buffer as ArrayBuffer;
  const text = (r: Reply, i: number) => decoder.decode(raw.HEAPU8.subarray(r[i], r[i] + r[i + 1]));
  return {
    /** The reply of a call that returned `count`, read by `read`, or its error. */
    answer<T>(count: number, read: (r: Reply) => T): CoreError | T {
      const r = new Float64Array(memory(), raw._sl_reply(), count < 0 ? 4 : count);
      return count < 0 ? { error: { argument: text(r, 0), message: text(r, 2) } } : read(r);
    },
    text,
    /** The view at reply entries i, i + 1 as a `type` array. */
    view: <T extends ArrayBufferView>(type: View, r: Reply, i: number) => new type(memory(), r[i], r[i + 1]) as T,
    /** Writes a text into slot `slot` for the next call. */
    put(slot: number, value: string): void {
      notReporting();
      const bytes = encoder.encode(value);
      const at = raw._sl_text(slot, bytes.length);
      if (!at) throw new SamplingLabError('text', `a text of ${bytes.length} bytes does not fit in WebAssembly memory`);
      raw.HEAPU8.set(bytes, at);
    },
    /** Runs `call` with the progress callback the core's sl_report_progress asks. */
    notReporting,
    reporting<T>(progress: ((fraction: number) => boolean) | undefined, call: (wanted: number) => T): T {
      notReporting();
      raw.onProgress = progress;
      try {
        return call(progress ? 1 : 0);
      } finally {
        raw.onProgress = undefined;
      }
    },
  };
}

const enumOf = <K extends string>(...names: K[]) =>
  Object.freeze(Object.fromEntries(names.map((name, value) => [name, Object.freeze({ value })]))) as Record<K, CoreEnum>;

/** The sampler's module as the Lab calls it. */
export function coreModule(raw: AbiModule): CoreModule {
  const { answer, text, view, put, reporting, notReporting } = replies(raw);
  const none = (count: number) => answer(count, () => ({}));
  const i32 = (r: Reply, i = 0) => view<Int32Array>(Int32Array, r, i);
  const f32 = (r: Reply, i = 0) => view<Float32Array>(Float32Array, r, i);
  const optional = (r: Reply, i: number, name: string) => (Number.isNaN(r[i]) ? {} : { [name]: r[i] });
  // token, mirostatMu, adaptivePAverage (NaN when unset).
  const token = (r: Reply) => ({ token: r[0], ...optional(r, 1, 'mirostatMu'), ...optional(r, 2, 'adaptivePAverage') });
  const at = (handle: CoreHistory | CoreBeamSearch) => (handle as unknown as { at: number }).at;

  class History implements CoreHistory {
    readonly at: number;
    constructor(penaltyLastN: number, noRepeatNgramSize: number) {
      this.at = raw._sl_history_new(penaltyLastN, noRepeatNgramSize);
    }
    startBuffer(length: number) { return answer(raw._sl_history_start_buffer(this.at, length), i32); }
    start() { raw._sl_history_start(this.at); }
    accept(token: number) { return none(raw._sl_history_accept(this.at, token)); }
    copyFrom(other: CoreHistory) { return none(raw._sl_history_copy_from(this.at, at(other))); }
    tokens() { return answer(raw._sl_history_tokens(this.at), i32) as Int32Array; }
    delete() { raw._sl_history_delete(this.at); }
  }

  class BeamSearch implements CoreBeamSearch {
    readonly at = raw._sl_beam_new();
    finish() {
      return answer(raw._sl_beam_finish(this.at), (r) => ({
        hypotheses: Array.from({ length: r.length / 4 }, (_, h) => ({ tokens: i32(r, 4 * h), logProb: r[4 * h + 2], score: r[4 * h + 3] })),
      }));
    }
    delete() { raw._sl_beam_delete(this.at); }
  }

  class Engine implements CoreEngine {
    readonly at = raw._sl_engine_new();
    floats(slot: CoreEnum, length: number, name: string) {
      put(0, name);
      return answer(raw._sl_floats(this.at, slot.value, length), f32);
    }
    ints(slot: CoreEnum, length: number, name: string) {
      put(0, name);
      return answer(raw._sl_ints(this.at, slot.value, length), i32);
    }
    optionValues(rows: number) { return answer(raw._sl_option_values(this.at, rows), (r) => view<Float64Array>(Float64Array, r, 0)); }
    numberLists(length: number) { return answer(raw._sl_number_lists(this.at, length), f32); }
    resident(vocabulary: number) { return answer(raw._sl_resident(this.at, vocabulary), f32); }
    use(slot: CoreEnum) { raw._sl_use(this.at, slot.value); }
    logSumExp(temperature: number) { return answer(raw._sl_log_sum_exp(this.at, temperature), (r) => ({ value: r[0] })); }
    checkOptions(vocabulary: number) { return none(raw._sl_check_options(this.at, vocabulary)); }
    distribution() {
      return answer(raw._sl_distribution(this.at), (r) => ({ probs: f32(r), kept: r[2], keptMass: r[3], entropyBits: r[4], topProb: r[5] }));
    }
    sampleToken() { return answer(raw._sl_sample_token(this.at), token); }
    sampleTokenNumber() { return raw._sl_sample_token_number(this.at); }
    sampleTokenAtStep(step: number) { return raw._sl_sample_token_at_step(this.at, step); }
    lastError() { return answer(raw._sl_last_error(this.at), () => ({})) as CoreError; }
    sampleWithHistory(history: CoreHistory) { return answer(raw._sl_sample_with_history(this.at, at(history)), token); }
    epoch() { return answer(raw._sl_epoch(this.at), (r) => view<Uint32Array>(Uint32Array, r, 0)) as Uint32Array; }
    sampleTokenLogprobs(count: number, processed: boolean) {
      return answer(raw._sl_sample_token_logprobs(this.at, count, processed ? 1 : 0), (r) => ({
        token: r[0], logprob: r[1], rank: r[2], ...optional(r, 3, 'mirostatMu'), ...optional(r, 4, 'adaptivePAverage'),
        top: Array.from({ length: (r.length - 5) / 2 }, (_, i) => ({ token: r[5 + 2 * i], logprob: r[6 + 2 * i] })),
      }));
    }
    sampleBatch(rows: number) { return answer(raw._sl_sample_batch(this.at, rows), (r) => ({ tokens: i32(r) })); }
    checkDraws(method: string, n: number, vocabulary: number) {
      put(0, method);
      return none(raw._sl_check_draws(this.at, n, vocabulary));
    }
    sample(method: string, n: number, isProbs: boolean, onProgress?: (fraction: number) => boolean) {
      put(0, method);
      return reporting(onProgress, (wanted) =>
        answer(raw._sl_sample(this.at, n, isProbs ? 1 : 0, wanted), (r) => ({ draws: i32(r) })));
    }
    randomWords(seed: number, stream: number, n: number) {
      return answer(raw._sl_random_words(this.at, seed, stream, n), (r) => ({ words: view<Uint32Array>(Uint32Array, r, 0) }));
    }
    coverCount(mass: number, temperature: number, isProbs: boolean) {
      return answer(raw._sl_cover_count(this.at, mass, temperature, isProbs ? 1 : 0), (r) => ({ count: r[0] }));
    }
    distance() { return answer(raw._sl_distance(this.at), (r) => ({ tv: r[0], kl: r[1], overlap: r[2] })); }
    range() { return answer(raw._sl_range(this.at), (r) => ({ min: r[0], max: r[1] })); }
    stages() {
      return answer(raw._sl_stages(this.at), (r) => ({
        cutBy: view<Uint8Array>(Uint8Array, r, 0),
        stages: Array.from({ length: (r.length - 2) / 3 }, (_, s): FilterStage => ({
          filter: text(r, 2 + 3 * s) as FilterStage['filter'], kept: r[4 + 3 * s],
        })),
      }));
    }
    ranking() { return answer(raw._sl_ranking(this.at), (r) => ({ order: view<Uint32Array>(Uint32Array, r, 0) })); }
    syntheticLogits(vocabSize: number, seed: number) {
      return answer(raw._sl_synthetic_logits(this.at, vocabSize, seed), (r) => ({ logits: f32(r) }));
    }
    speculativeVerify(draftStream: number) {
      return answer(raw._sl_speculative_verify(this.at, draftStream), (r) => ({
        tokens: i32(r), acceptance: view<Float64Array>(Float64Array, r, 2), accepted: r[4], token: r[5], fromResidual: r[6] !== 0,
      }));
    }
    startBeamSearch(search: CoreBeamSearch, numBeams: number, lengthPenalty: number, numReturnSequences: number,
                    earlyStopping: boolean, stochastic: boolean, seed: number, stream: number, maxNewTokens: number) {
      return none(raw._sl_start_beam_search(this.at, at(search), numBeams, lengthPenalty, numReturnSequences,
        earlyStopping ? 1 : 0, stochastic ? 1 : 0, seed, stream, maxNewTokens));
    }
    beamStep(search: CoreBeamSearch) {
      return answer(raw._sl_beam_step(this.at, at(search)), (r) => ({ beamIndices: i32(r), tokens: i32(r, 2), done: r[4] !== 0 }));
    }
  }

  const [maxVocabulary, maxBatchRows, maxHistory, maxDraftTokens, maxBeams, maxEosTokens, maxNewTokens, qwen3Vocabulary,
    scalarOptions, listOptions, numberListOptions] = answer(raw._sl_constants(), (r) => Array.from(r)) as number[];
  return {
    Engine, History, BeamSearch,
    InputSlot: enumOf('primary', 'secondary', 'resident'),
    IdSlot: enumOf('ids', 'offsets', 'numberOffsets', 'tokens'),
    draftStream: (stream) => answer(raw._sl_draft_stream(stream), (r) => ({ value: r[0] })),
    memoryStats: () => answer(raw._sl_memory_stats(), (r) => ({ heapInUse: r[0], memoryBytes: r[1] })) as
      { heapInUse: number; memoryBytes: number },
    checkIdle: notReporting,
    maxVocabulary, maxBatchRows, maxHistory, maxDraftTokens, maxBeams, maxEosTokens, maxNewTokens, qwen3Vocabulary,
    scalarOptions, listOptions, numberListOptions,
  };
}

/** The experiments' module as the ExperimentLab calls it. */
export function experimentsModule(raw: AbiModule): ExperimentsCoreModule {
  const { answer, text, view, put, reporting } = replies(raw);
  const json = (count: number) => answer(count, (r) => text(r, 0)) as string;

  class Experiments implements CoreExperiments {
    readonly at = raw._sl_experiments_new();
    prepare(name: string, paramsJson: string, lengthsJson: string) {
      [name, paramsJson, lengthsJson].forEach((value, slot) => put(slot, value));
      return answer(raw._sl_experiments_prepare(this.at), (r) => ({
        arrays: Array.from({ length: r.length / 2 }, (_, a) => view<Float64Array>(Float64Array, r, 2 * a)),
      }));
    }
    run(onProgress?: (fraction: number) => boolean) {
      return reporting(onProgress, (wanted) => answer(raw._sl_experiments_run(this.at, wanted), (r) => ({
        text: text(r, 0),
        bulk: Array.from({ length: (r.length - 2) / 3 }, (_, b) => ({
          type: r[2 + 3 * b] as BulkType, bytes: view<Uint8Array>(Uint8Array, r, 3 + 3 * b),
        })),
      })));
    }
    release() { raw._sl_experiments_release(this.at); }
  }

  return {
    ...coreModule(raw),
    Experiments,
    listExperiments: () => json(raw._sl_list_experiments()),
    optionTable: () => json(raw._sl_option_table()),
    stageTable: () => json(raw._sl_stage_table()),
  };
}
