// Peers of Sampling Lab in `npm run bench`: transformers.js's generate() sampling step and
// llama.cpp's sampler chain (native and WebAssembly), on the same logits and paths, µs per token.
import { buildLlamaPeer, loadLlamaWasm, runLlamaNative } from './llama.mjs';
import { createTransformersSampler } from './transformers-sampler.mjs';

// As run.mjs's measure, for an async call: median and interquartile spread, µs per call.
async function measureAsync(run, calls, rounds) {
  for (let i = 0; i < calls; i++) await run(i);
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await run(i);
    perCall.push(Number(process.hrtime.bigint() - start) / 1e3 / calls);
  }
  perCall.sort((a, b) => a - b);
  const at = (q) => perCall[Math.min(perCall.length - 1, Math.floor(q * perCall.length))];
  return { median: at(0.5), spread: at(0.75) - at(0.25) };
}

/** Every peer on every path, by key: { transformers, transformersIgnored, llamaWasm, llamaNative, llamaIgnored }. */
export async function measurePeers({ root, lab, logits, paths, measure }) {
  const dirs = buildLlamaPeer(root);
  const llamaNative = runLlamaNative(root, dirs, lab, logits, paths);
  const llama = await loadLlamaWasm(dirs, lab, logits);
  const results = {};
  for (const { key, options } of paths) {
    const chain = llama.sampler(options);
    const transformers = createTransformersSampler(options);
    results[key] = {
      llamaWasm: measure(() => chain.sample(), 100, 9),
      llamaNative: llamaNative[key],
      llamaIgnored: chain.ignored,
      transformers: await measureAsync(() => transformers.sample(logits), 10, 15),
      transformersIgnored: transformers.ignored,
    };
  }
  return results;
}

/** The peer table and its notes, against Sampling Lab's rows of run.mjs ({ key, label, wasm, native }). */
export function peerLines(rows, peers, f) {
  const ignored = (list) => (list.length ? list.join(', ') : '—');
  const ratio = (x, y) => (x / y).toFixed(2);
  return [
    'Peers on the same logits and paths, µs per sampled token, median (interquartile spread); ratios are the peer\'s time over Sampling Lab\'s WASM time (last column: over its native time).',
    '',
    '| path | Sampling Lab WASM | transformers.js 4.3.2 | options transformers.js ignores | llama.cpp WASM | llama.cpp native | transformers.js / WASM | llama.cpp WASM / WASM | llama.cpp native / WASM | llama.cpp native / Sampling Lab native |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const p = peers[r.key];
      const llamaNote = p.llamaIgnored.length ? ` (ignores ${ignored(p.llamaIgnored)})` : '';
      return `| (${r.key}) ${r.label} | ${f(r.wasm.median)} | ${f(p.transformers.median)} (±${f(p.transformers.spread)}) | ${ignored(p.transformersIgnored)} | ${f(p.llamaWasm.median)} (±${f(p.llamaWasm.spread)})${llamaNote} | ${f(p.llamaNative)} | ${ratio(p.transformers.median, r.wasm.median)} | ${ratio(p.llamaWasm.median, r.wasm.median)} | ${ratio(p.llamaNative, r.wasm.median)} | ${ratio(p.llamaNative, r.native)} |`;
    }),
    '',
    'transformers.js: the sampling step of `generate()` on a copy of the logits in a `Tensor` (as generate() slices each step\'s logits): the `LogitsProcessorList` of its own `_get_logits_processor` (repetition penalty, temperature), then its greedy sampler (argmax) or multinomial sampler (ONNX Runtime TopK of `top_k` tokens, softmax, one linear draw). `top_k` defaults to 50 there, so paths without top-k pass `top_k: 0` (whole vocabulary); `top_p` is never applied (the TopPLogitsWarper is commented out in `_get_logits_processor`) and `min_p` is not a `GenerationConfig` field.',
    'llama.cpp: `llama_sampler_sample` on a `llama_sampler_chain` (src/llama-sampler.cpp of the llama.cpp that node-llama-cpp 3.21.1 bundles), which per token copies the logits into a `llama_token_data_array`, applies the chain and accepts the token; chain in llama.cpp\'s default order penalties → top-k → top-p → min-p → temperature (`temp_ext`) → `dist`, `greedy` for T 0, so in (e) top-p and min-p act before the temperature; repetition penalty over the last 64 accepted tokens. Native g++ -O3 -march=native, WASM em++ 3.1.6 -O3 -msimd128.',
  ];
}
