// The sampler with the chapter's experiments, built from wasm/bindings.cpp and
// wasm/experiment_bindings.cpp: the objects core-abi.ts makes of its C ABI.
import type { CoreError, CoreModule } from './sampling-lab-core.js';

/** The core's BulkType: 1 = float32, 2 = float64, 3 = uint8. */
export type BulkType = 1 | 2 | 3;

/** One experiment at a time, prepared, run and released. */
export interface CoreExperiments {
  /**
   * Checks an experiment's JSON parameters (no arrays) and its arrays' lengths (JSON
   * { name: length }), then sizes the arrays' buffers: their views, in the order of `lengthsJson`.
   */
  prepare(name: string, paramsJson: string, lengthsJson: string): CoreError | { arrays: Float64Array[] };
  /** Runs the prepared experiment: its JSON with {"$bulk": i} for each bulk array, and their bytes. */
  run(onProgress?: (fraction: number) => boolean): CoreError | { text: string; bulk: { type: BulkType; bytes: Uint8Array }[] };
  /** Hands back the last experiment's memory (its bulk views become invalid). */
  release(): void;
}

export interface ExperimentsCoreModule extends CoreModule {
  Experiments: new () => CoreExperiments;
  /** JSON: [{ name, summary, params: ParamSpec[] }]. */
  listExperiments(): string;
  /** JSON: OptionSpec[] (a ParamSpec with group and slot). */
  optionTable(): string;
  /** JSON: { stages: StageName[], presets: { handbook, 'llama.cpp' }, abbreviations, masksCode }. */
  stageTable(): string;
}
