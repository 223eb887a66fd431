// llama.cpp's sampler chain (bench/peers/llama/) for `npm run bench`: its source is extracted
// from the npm package node-llama-cpp (fetch-source.sh), built natively (-march=native, as the
// repository's native build; Google Benchmark) and with Emscripten (loaded into this process).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const here = new URL('./llama/', import.meta.url).pathname;

// Sampling Lab options the chain of peer.cpp has a sampler for; any other one a path sets is ignored.
const SUPPORTED = ['temperature', 'topK', 'topP', 'minP', 'repetitionPenalty', 'generatedIds'];

// A path's options over Sampling Lab's defaults, in the order llama_peer_configure and
// bench_native.cpp take them.
function resolve(lab, options) {
  const all = { ...Object.fromEntries(lab.options.map((o) => [o.name, o.default])), ...options };
  return {
    args: [all.temperature, all.topK, all.topP, all.minP, all.repetitionPenalty],
    ids: all.generatedIds ?? [],
    ignored: Object.keys(options).filter((name) => !SUPPORTED.includes(name)),
  };
}

// Configures (through `launcher`, e.g. emcmake) and builds bench/peers/llama into build/peers/llama/DIR.
function build(root, dir, launcher, env = process.env) {
  const out = join(root, 'build/peers/llama', dir);
  const configure = ['cmake', '-S', here, '-B', out, '-DCMAKE_BUILD_TYPE=Release'];
  const [command, ...args] = launcher ? [launcher, ...configure] : configure;
  execFileSync(command, args, { stdio: 'ignore', env });
  execFileSync('cmake', ['--build', out, '-j2'], { stdio: 'ignore', env });
  return out;
}

export function buildLlamaPeer(root) {
  execFileSync('bash', [join(here, 'fetch-source.sh')], { stdio: 'inherit' });
  const native = build(root, 'native');
  // em++ -O2+ runs Emscripten's JS optimiser, which needs Debian's acorn (toolchain notes).
  const wasm = build(root, 'wasm', 'emcmake', { ...process.env, NODE_PATH: '/usr/share/nodejs' });
  return { native, wasm };
}

// Median µs per token of each path natively, by key.
export function runLlamaNative(root, dirs, lab, logits, paths) {
  const work = join(root, 'build/peers/llama');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'logits.f32'), Buffer.from(logits.buffer, logits.byteOffset, logits.byteLength));
  writeFileSync(join(work, 'paths.txt'), paths.map(({ key, options }) => {
    const { args, ids } = resolve(lab, options);
    return [key, ...args, ids.length, ...ids].join(' ');
  }).join('\n') + '\n');
  const out = execFileSync(join(dirs.native, 'llama_peer_bench'), [
    join(work, 'logits.f32'), join(work, 'paths.txt'),
    '--benchmark_format=json', '--benchmark_repetitions=9', '--benchmark_report_aggregates_only=true', '--benchmark_min_time=0.1',
  ]).toString();
  const rows = JSON.parse(out).benchmarks.filter((b) => b.aggregate_name === 'median');
  return Object.fromEntries(paths.map(({ key }) => [key, rows.find((b) => b.run_name === `sample/${key}`).real_time]));
}

// The WebAssembly build in this process, the logits written once into its heap.
export async function loadLlamaWasm(dirs, lab, logits) {
  const { default: createLlamaPeer } = await import(join(dirs.wasm, 'llama_peer_wasm.mjs'));
  const module = await createLlamaPeer({ wasmBinary: readFileSync(join(dirs.wasm, 'llama_peer_wasm.wasm')) });
  const at = module._llama_peer_logits(logits.length);
  module.HEAPF32.set(logits, at / 4);
  return {
    // One chain at a time: configuring a path replaces the previous one.
    sampler(options, seed = 1) {
      const { args, ids, ignored } = resolve(lab, options);
      const idsAt = module._malloc(4 * Math.max(1, ids.length));
      module.HEAP32.set(ids, idsAt / 4);
      module._llama_peer_configure(...args, idsAt, ids.length, seed);
      module._free(idsAt);
      return { sample: () => module._llama_peer_sample(), ignored };
    },
  };
}
