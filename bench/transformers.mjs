// `npm run bench` (last part): Sampling Lab inside transformers.js's generate() on the tiny
// Qwen3-signature model (tests/support/tiny_qwen3.py): time of a decode step against the time
// the logits processor spends choosing the token, and how often generate() with top_p 0.01 on
// its own equals greedy decoding (it should always). Writes the lines into README.md between
// the transformers-bench markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSamplingLab } from 'sampling-lab';
import { createLogitsProcessor, loadLocalModel } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../tests/support/tiny-model.js';

const root = new URL('..', import.meta.url).pathname;
const STEPS = 64;
const RUNS = 20;
const lab = await loadSamplingLab();
const { model, tokenizer } = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
const inputs = tokenizer('语言模型在每个位置给出一个概率分布，');
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Timestamps around the processor: between two calls lies one decode step of generate().
const decode = [];
const sampling = [];
const processor = createLogitsProcessor(lab, { temperature: 0.8, topP: 0.9, minP: 0.02, seed: 1 });
let last;
const timed = (ids, logits) => {
  const start = performance.now();
  if (last !== undefined) decode.push(start - last);
  processor(ids, logits);
  last = performance.now();
  sampling.push(last - start);
  return logits;
};
for (let run = 0; run < 3; run++) {
  last = undefined;
  await model.generate({ ...inputs, max_new_tokens: STEPS, min_new_tokens: STEPS, do_sample: false, logits_processor: [timed] });
}

const tokensOf = (output) => Array.from(output.data.slice(inputs.input_ids.dims[1]), Number).join(',');
const greedy = tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: false }));
let alone = 0;
let withLab = 0;
for (let run = 0; run < RUNS; run++) {
  alone += tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: true, top_p: 0.01 })) === greedy;
  const chosen = createLogitsProcessor(lab, { topP: 0.01, seed: run });
  withLab += tokensOf(await model.generate({ ...inputs, max_new_tokens: 16, do_sample: false, logits_processor: [chosen] })) === greedy;
}

const lines = [
  `On the tiny model (151,936-token vocabulary, ${process.version}, Node's onnxruntime): a decode step of \`generate()\` (forward pass with the KV cache and transformers.js's own bookkeeping) takes ${median(decode).toFixed(2)} ms, median of ${decode.length}; choosing its token with Sampling Lab's processor (top-p 0.9, min-p 0.02, T 0.8) adds ${median(sampling).toFixed(2)} ms.`,
  `\`generate({ do_sample: true, top_p: 0.01 })\` alone matched greedy decoding in ${alone} of ${RUNS} runs (it keeps transformers.js's top_k 50 and ignores top_p); with Sampling Lab's processor and \`topP: 0.01\`, ${withLab} of ${RUNS}.`,
];
console.log(lines.join('\n'));
const readme = join(root, 'README.md');
const text = readFileSync(readme, 'utf8');
const start = '<!-- transformers-bench:start -->';
const end = '<!-- transformers-bench:end -->';
writeFileSync(readme, text.slice(0, text.indexOf(start) + start.length) + '\n' + lines.join('\n') + '\n' + text.slice(text.indexOf(end)));
