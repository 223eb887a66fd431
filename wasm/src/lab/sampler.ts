// The stateful sampler (lab.createSampler), llama.cpp's sampler with its history: the history
// lives in WebAssembly memory and grows a token at a time, so a token costs the same at any length.
import type { CoreHistory } from '../sampling-lab-core.js';
import { unwrap, view } from './checks.js';
import { SamplingLabError } from './errors.js';
import type { NumericArray } from './schema.js';
import type { Sampler, SamplerState, SampleTokenOptions } from './types.js';

/** A sampler's state as it starts: its history may be an Int32Array. */
export interface StartState extends Omit<SamplerState, 'history'> {
  history: Int32Array | readonly number[];
}

/** What a stateful sampler needs of its lab: a history in WebAssembly, and a draw with it. */
export interface SamplerPort {
  createHistory(): CoreHistory;
  draw(logits: NumericArray, options: SampleTokenOptions, history: CoreHistory):
    { token: number; mirostatMu?: number; adaptivePAverage?: number };
  maxVocabulary: number;
}

// Each sampler's history lives in WebAssembly memory until the sampler is garbage-collected.
const histories = new FinalizationRegistry<CoreHistory>((history) => history.delete());

export class StatefulSampler implements Sampler {
  readonly #port: SamplerPort;
  readonly #fixed: SampleTokenOptions;
  // The options whose state moves with each token: mirostat's μ and adaptive-p's average.
  readonly #moving: Pick<SampleTokenOptions, 'mirostat' | 'adaptiveP'>;
  readonly #start: StartState;
  readonly #history: CoreHistory;
  #step = 0;
  #mu: number | null = null;
  #average: number | null = null;

  // `state` is a state to restore, or a sampler whose history is copied inside WebAssembly.
  constructor(port: SamplerPort, fixed: SampleTokenOptions, moving: Pick<SampleTokenOptions, 'mirostat' | 'adaptiveP'>,
              start: StartState, state: StartState | StatefulSampler) {
    this.#port = port;
    this.#fixed = fixed;
    this.#moving = moving;
    this.#start = start;
    this.#history = port.createHistory();
    histories.register(this, this.#history);
    if (state instanceof StatefulSampler) {
      unwrap(this.#history.copyFrom(state.#history));
      this.#step = state.#step;
      this.#mu = state.#mu;
      this.#average = state.#average;
    } else {
      this.#restore(state);
    }
  }

  sample(logits: NumericArray): number {
    const options: SampleTokenOptions = { ...this.#fixed, step: this.#step };
    const { mirostat, adaptiveP } = this.#moving;
    if (mirostat) options.mirostat = { ...mirostat, mu: this.#mu };
    if (adaptiveP) options.adaptiveP = { ...adaptiveP, average: this.#average };
    const { token, mirostatMu, adaptivePAverage } = this.#port.draw(logits, options, this.#history);
    this.accept(token);
    if (mirostatMu !== undefined) this.#mu = mirostatMu;
    if (adaptivePAverage !== undefined) this.#average = adaptivePAverage;
    return token;
  }

  accept(token: number): void {
    const most = this.#port.maxVocabulary;
    if (!Number.isInteger(token) || token < 0 || token >= most) {
      throw new SamplingLabError('token', `token must be a token id in [0, ${most}), not ${String(token)}`);
    }
    unwrap(this.#history.accept(token));
    this.#step += 1;
  }

  reset(): void {
    this.#restore(this.#start);
  }

  clone(): Sampler {
    return new StatefulSampler(this.#port, this.#fixed, this.#moving, this.#start, this);
  }

  get state(): SamplerState {
    const tokens = this.#history.tokens();
    // A plain loop: Array.from on a typed array of millions is several times slower.
    const history = new Array<number>(tokens.length);
    for (let i = 0; i < tokens.length; i++) history[i] = tokens[i];
    return { history, step: this.#step, mirostatMu: this.#mu, adaptivePAverage: this.#average };
  }

  #restore(state: StartState): void {
    view(this.#history.startBuffer(state.history.length)).set(state.history);
    this.#history.start();
    this.#step = state.step;
    this.#mu = state.mirostatMu;
    this.#average = state.adaptivePAverage ?? null;
  }
}

