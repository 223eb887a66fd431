// How a caller says where a module comes from, and how that reaches Emscripten's glue: the
// caller's bytes, or where to fetch the .wasm from (by default the glue's own
// `new URL(…, import.meta.url)`, beside it).
import { SamplingLabError } from '../lab/errors.js';
import type { ModuleOptions } from '../sampling-lab-core.js';

/** Where `loadSamplingLab` takes the entry's WebAssembly module from: the caller's bytes, a URL, or by default beside the module. */
export interface LoadOptions {
  /** Where to fetch the entry's .wasm from (default: beside this module). */
  wasmUrl?: string | URL;
  /** The module's bytes, when the caller already has them (no fetch at all). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

export function moduleOptions(options: LoadOptions): ModuleOptions {
  if (options.wasmBinary) return { wasmBinary: options.wasmBinary };
  if (options.wasmUrl === undefined) return {};
  const url = String(options.wasmUrl);
  return { locateFile: () => url };
}

/**
 * A module through its glue, from `resolved` (the caller's options, or the Node entries' bytes of
 * the default file). A module the caller chose that does not load (another module's .wasm, another
 * build's, not WebAssembly) is a SamplingLabError for their wasmBinary or wasmUrl.
 */
export async function loadModule<T>(create: (options: ModuleOptions) => Promise<T>, file: string, given: LoadOptions,
                                    resolved: LoadOptions = given): Promise<T> {
  try {
    return await create(moduleOptions(resolved));
  } catch (cause) {
    const argument = given.wasmBinary ? 'wasmBinary' : given.wasmUrl !== undefined ? 'wasmUrl' : undefined;
    if (argument === undefined) throw cause;
    // Emscripten's abort wraps the engine's message: "Aborted(…). Build with -s ASSERTIONS=1 …".
    const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/^Aborted\((.*)\)\. Build with .*$/s, '$1');
    // The other module goes unnamed: an app that only samples never mentions the experiments one.
    throw new SamplingLabError(argument, `${argument} does not load as this build's ${file} (${reason}): each entry loads ` +
      'its own module (sampling-lab and sampling-lab/experiments have one each), from the build its JavaScript came with');
  }
}
