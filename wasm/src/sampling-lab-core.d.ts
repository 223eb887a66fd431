// The Emscripten module built from wasm/bindings.cpp.
export interface CoreOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}

export interface CoreError {
  error: { argument: string; message: string };
}

export interface CoreEngine {
  floats(slot: number, length: number): Float32Array;
  ints(slot: number, length: number): Int32Array;
  use(slot: number): void;
  reserve(vocabulary: number): void;
  logSumExp(temperature: number): CoreError | { value: number };
  doubles(length: number): Float64Array;
  distribution(
    temperature: number, topK: number, topP: number, minP: number,
    repetitionPenalty: number, presencePenalty: number, frequencyPenalty: number,
  ): CoreError | { probs: Float32Array; kept: number; keptMass: number; entropyBits: number; topProb: number };
  sampleToken(
    temperature: number, topK: number, topP: number, minP: number,
    repetitionPenalty: number, presencePenalty: number, frequencyPenalty: number,
    seed: number, stream: number, step: number,
  ): CoreError | { token: number };
  sampleBatch(rows: number): CoreError | { tokens: Int32Array };
  sample(method: string, n: number, seed: number, stream: number, temperature: number, isProbs: boolean):
    CoreError | { draws: Int32Array };
  randomWords(seed: number, stream: number, n: number): CoreError | { words: Uint32Array };
  coverCount(mass: number, temperature: number, isProbs: boolean): CoreError | { count: number };
  distance(): CoreError | { tv: number; kl: number; overlap: number };
  ranking(): CoreError | { order: Uint32Array };
  syntheticLogits(vocabSize: number, seed: number): CoreError | { logits: Float32Array };
}

export interface CoreModule {
  Engine: new () => CoreEngine;
  runExperiment(name: string, paramsJson: string, onProgress?: (fraction: number) => void): string;
  listExperiments(): string;
  maxVocabulary: number;
  rowFields: number;
}

declare const createSamplingLabCore: (options?: CoreOptions) => Promise<CoreModule>;
export default createSamplingLabCore;
