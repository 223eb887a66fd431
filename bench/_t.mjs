import { env, AutoModelForCausalLM, AutoTokenizer, Tensor } from '@huggingface/transformers';
import { readFileSync } from 'node:fs';
env.allowRemoteModels = false;
env.localModelPath = new URL('../build/models/', import.meta.url).pathname;
const t0 = performance.now();
const tokenizer = await AutoTokenizer.from_pretrained('tiny-qwen3');
const model = await AutoModelForCausalLM.from_pretrained('tiny-qwen3', { dtype: 'fp32' });
console.log('load ms', performance.now() - t0, model.constructor.name);
console.log(tokenizer('Hello world').input_ids.tolist());
const ids = JSON.parse(readFileSync('build/models/tiny-qwen3/reference/ids.json'));
const input_ids = new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
const attention_mask = new Tensor('int64', BigInt64Array.from(ids.map(() => 1n)), [1, ids.length]);
const out = await model({ input_ids, attention_mask, num_logits_to_keep: new Tensor('int64', [1n], []) });
console.log(out.logits.dims, Object.keys(out));
// reference
const buf = readFileSync('build/models/tiny-qwen3/reference/fp32-logits.npy');
const headerLen = buf.readUInt16LE(8); const data = new Float32Array(buf.buffer.slice(buf.byteOffset + 10 + headerLen, buf.byteOffset + buf.length));
const V = 151936; const last = data.subarray((ids.length - 1) * V, ids.length * V);
let maxd = 0; for (let i = 0; i < V; i++) maxd = Math.max(maxd, Math.abs(last[i] - out.logits.data[i]));
console.log('max diff', maxd);
// entropy
const l = out.logits.data; let m = -Infinity; for (const x of l) m = Math.max(m, x); let s = 0; for (const x of l) s += Math.exp(x - m); let H = 0; for (const x of l) { const p = Math.exp(x - m) / s; if (p > 0) H -= p * Math.log2(p); } console.log('entropy bits', H);
const gen = await model.generate({ input_ids, attention_mask, max_new_tokens: 5, do_sample: false });
console.log(gen.tolist());
