// Instantiates either module without Emscripten's generic glue: a module imports five functions
// (abort, the clock, large copies, heap growth and progress reports) and exports its C ABI.
import type { LoadOptions } from './common.js';
import type { AbiModule } from './sampling-lab-core.js';

// As the link options set them: -sMAXIMUM_MEMORY, and Emscripten's growth policy.
const MAX_MEMORY = 2 ** 31;
const PAGE = 65536;
const MAX_OVERGROWTH = 96 * 1024 * 1024;

async function instantiated(options: LoadOptions, defaultUrl: URL, imports: WebAssembly.Imports): Promise<WebAssembly.Instance> {
  if (options.wasmBinary) return (await WebAssembly.instantiate(options.wasmBinary as BufferSource, imports)).instance;
  const url = String(options.wasmUrl ?? defaultUrl);
  const fetched = async () => {
    const response = await fetch(url, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(`failed to load wasm binary file at '${url}' (HTTP ${response.status})`);
    return response;
  };
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return (await WebAssembly.instantiateStreaming(fetched(), imports)).instance;
    } catch (error) {
      // A server that sends the .wasm with another MIME type: compile it from its bytes instead.
      if (!(error instanceof TypeError)) throw error;
    }
  }
  return (await WebAssembly.instantiate(await (await fetched()).arrayBuffer(), imports)).instance;
}

export async function instantiate(options: LoadOptions, defaultUrl: URL): Promise<AbiModule> {
  let memory: WebAssembly.Memory | undefined;
  let heap = new Uint8Array(0);
  // Memory growth replaces the buffer: a view is made anew when it has.
  const bytes = () => (heap.buffer === memory!.buffer ? heap : (heap = new Uint8Array(memory!.buffer)));
  const module = {
    get HEAPU8() { return bytes(); },
    onProgress: undefined,
  } as AbiModule;
  const env = {
    abort: () => {
      throw new WebAssembly.RuntimeError('Aborted()');
    },
    // The timespec of musl's clock_gettime: 32-bit seconds, then nanoseconds.
    clock_gettime: (clock: number, at: number) => {
      if (clock !== 0 && clock !== 1 && clock !== 4) return -1;
      const now = clock === 0 ? Date.now() : performance.now();
      const words = new Int32Array(memory!.buffer, at, 2);
      words[0] = (now / 1e3) | 0;
      words[1] = ((now % 1e3) * 1e6) | 0;
      return 0;
    },
    emscripten_memcpy_big: (to: number, from: number, length: number) => {
      bytes().copyWithin(to, from, from + length);
    },
    // Grows by 20 % or what was asked (at most 96 MB more than asked), halving the overgrowth
    // when that fails; 0 (and a null from malloc) when nothing fits.
    emscripten_resize_heap: (requested: number) => {
      requested >>>= 0;
      const size = memory!.buffer.byteLength;
      if (requested > MAX_MEMORY) return 0;
      for (let cutDown = 1; cutDown <= 4; cutDown *= 2) {
        const wanted = Math.min(size * (1 + 0.2 / cutDown), requested + MAX_OVERGROWTH);
        const next = Math.min(MAX_MEMORY, Math.ceil(Math.max(requested, wanted) / PAGE) * PAGE);
        try {
          memory!.grow((next - size + PAGE - 1) >>> 16);
          return 1;
        } catch {
          // try a smaller step
        }
      }
      return 0;
    },
    sl_report_progress: (fraction: number) => module.onProgress!(fraction),
  };
  const instance = await instantiated(options, defaultUrl, { env });
  const exports = instance.exports as Record<string, unknown>;
  memory = exports.memory as WebAssembly.Memory;
  (exports.__wasm_call_ctors as () => void)();
  for (const [name, value] of Object.entries(exports)) {
    if (name.startsWith('sl_')) (module as unknown as Record<string, unknown>)[`_${name}`] = value;
  }
  return module;
}
