// transformers.js 4.3.2's sampling step of `generate()`, on a row of logits instead of a model's
// output, for `npm run bench`. What generate() does per token (src/models/modeling_utils.js):
//   generation_config = this._prepare_generation_config(null, kwargs)   // once
//   processors = this._get_logits_processor(generation_config, input_len) // once
//   sampler = LogitsSampler.getSampler(generation_config)                 // once
//   logits = outputs.logits.slice(null, -1, null).to('float32')           // a copy, per token
//   scores = processors(all_input_ids, logits); [[token]] = await sampler(scores[0])
// _get_logits_processor is a method of PreTrainedModel that reads nothing of the model (no
// `this`), so it is called here as it is, on an empty model. _prepare_generation_config and the
// samplers (GreedySampler, MultinomialSampler; LogitsSampler is not exported) are replicated
// line for line with the package's exported GenerationConfig, topk, softmax and random.
//
// What 4.3.2 does with the options (verified in its source):
// - top_k defaults to 50 (GenerationConfig: `top_k = 50;`) and is applied only by
//   MultinomialSampler (`if (this.generation_config.top_k > 0) k = Math.min(top_k, k)`, then
//   `topk(logits, k)`, an ONNX Runtime TopK). A path without top-k passes top_k 0 (full vocabulary).
// - top_p is a GenerationConfig field that nothing reads: _get_logits_processor has the
//   TopPLogitsWarper commented out ("TODO: Add TopPLogitsWarper and TopKLogitsWarper"), and the
//   class has no _call.
// - min_p is not a GenerationConfig field, so `pick(kwargs, Object.getOwnPropertyNames(...))`
//   in _prepare_generation_config drops it.
// - temperature 0 turns do_sample off (greedy: argmax of the logits); otherwise
//   TemperatureLogitsWarper runs when temperature != 1.
// - repetition_penalty != 1 adds RepetitionPenaltyLogitsProcessor over the set of input ids.
import { GenerationConfig, PreTrainedModel, Tensor, random, softmax, topk } from '@huggingface/transformers';

// Sampling Lab's option name → generate()'s.
const KWARGS = { temperature: 'temperature', topK: 'top_k', topP: 'top_p', minP: 'min_p', repetitionPenalty: 'repetition_penalty' };

// _prepare_generation_config without a model config: defaults, then the kwargs it knows.
function prepareGenerationConfig(kwargs) {
  const config = new GenerationConfig({});
  const known = new Set(Object.getOwnPropertyNames(config));
  for (const [key, value] of Object.entries(kwargs)) if (known.has(key)) config[key] = value;
  return config;
}

// utils/random.js _weightedIndexWith(random.random, weights), as LogitsSampler.randomSelect.
function weightedIndex(weights) {
  let sum = 0;
  for (let i = 0; i < weights.length; ++i) sum += weights[i];
  let x = random.random() * sum;
  for (let i = 0; i < weights.length; ++i) {
    x -= weights[i];
    if (x < 0) return i;
  }
  return weights.length - 1;
}

// utils/maths.js max(arr)[1], as GreedySampler.
function argmax(values) {
  let best = values[0];
  let index = 0;
  for (let i = 1; i < values.length; ++i) {
    if (values[i] > best) {
      best = values[i];
      index = i;
    }
  }
  return index;
}

/**
 * @param {object} options Sampling Lab options of one path (temperature, topK, topP, minP,
 *   repetitionPenalty, generatedIds).
 * @returns {{ sample(logits: Float32Array): Promise<number>, ignored: string[], config: object }}
 */
export function createTransformersSampler(options, { seed = 1 } = {}) {
  const ignored = [];
  const kwargs = { do_sample: true, top_k: 0 };
  for (const [name, value] of Object.entries(options)) {
    if (name === 'generatedIds') continue;
    if (!(name in KWARGS)) ignored.push(name);
    else kwargs[KWARGS[name]] = value;
  }
  // generate() switches do_sample off for temperature 0 (with a warning); done here without it.
  if (kwargs.temperature === 0) kwargs.do_sample = false;
  const config = prepareGenerationConfig(kwargs);
  for (const [name, key] of Object.entries(KWARGS)) {
    if (name in options && !(key in config)) ignored.push(`${key} (not a GenerationConfig field)`);
  }
  const inputIds = [(options.generatedIds ?? []).map(BigInt)];
  const processors = PreTrainedModel.prototype._get_logits_processor.call(null, config, inputIds[0].length, null);
  // top_p is kept in the config but nothing uses it: no TopPLogitsWarper in the list, and the
  // samplers read only top_k.
  if (config.top_p < 1 && ![...processors].some((p) => p.constructor.name === 'TopPLogitsWarper')) {
    ignored.push('top_p (unused by generate())');
  }
  if (config.do_sample === false && 'top_k' in kwargs && options.topK > 0) ignored.push('top_k (greedy)');
  random.seed(seed);

  return {
    ignored,
    config: { do_sample: config.do_sample, temperature: config.temperature, top_k: config.top_k, top_p: config.top_p, repetition_penalty: config.repetition_penalty, processors: [...processors].map((p) => p.constructor.name) },
    async sample(logits) {
      const vocab = logits.length;
      const scores = processors(inputIds, new Tensor('float32', logits.slice(), [1, vocab]));
      const row = scores[0];
      if (!config.do_sample) return argmax(row.data); // GreedySampler
      // MultinomialSampler (num_beams 1)
      const k = config.top_k > 0 ? Math.min(config.top_k, vocab) : vocab;
      const [values, indices] = await topk(row, k);
      const probabilities = softmax(values.data);
      return Number(indices.data[weightedIndex(probabilities)]);
    },
  };
}
