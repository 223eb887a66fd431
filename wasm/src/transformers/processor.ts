// A logits processor that makes generate() return Sampling Lab's tokens.
import type { Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../errors.js';
import type { Lab, Sampler, SampleTokenOptions } from '../lab.js';
import { checkLab, checkObject, checkSamplingOptions, maskInfinities, needsHistory } from './checks.js';

/** transformers.js's logits processor shape: token ids so far per row, and the step's logits. */
export type LogitsProcessorFunction = (inputIds: bigint[][], logits: Tensor) => Tensor;

/** The sampling options of a processor: the sequence gives each row's step and generatedIds. */
export type ProcessorOptions = Omit<SampleTokenOptions, 'step' | 'generatedIds'>;

/**
 * A logits processor for `model.generate({ logits_processor: [processor], do_sample: false })`:
 * each row's token is chosen by `lab.sampleToken` with `options` (step = the row's position, that
 * is the number of ids before the new token; stream = options.stream + row) and every other logit
 * becomes −∞, so greedy decoding returns exactly Sampling Lab's tokens. Penalties and DRY, when
 * set, see the whole sequence, prompt included, as transformers' own repetition penalty does;
 * leave transformers' `repetition_penalty` unset so that nothing is penalised twice. Options are
 * checked now, token ids against the largest vocabulary, and again against the row at each step.
 */
export function createLogitsProcessor(lab: Lab, options: ProcessorOptions = {}): LogitsProcessorFunction {
  checkLab(lab);
  checkObject(options, 'options');
  for (const name of ['logprobs', 'logprobsMode']) {
    if (name in options) {
      throw new SamplingLabError(name, `a logits processor cannot hand logprobs back through generate(): use generateTokens(model, tokenizer, prompt, { lab, ${name} })`);
    }
  }
  checkSamplingOptions(lab, options, []);
  const stream = options.stream ?? 0;
  const history = needsHistory(options);
  // Mirostat's μ moves after every draw: each row's stateful sampler carries it while the row
  // continues the sequence it drew for (one more id, the last one its token); else a new one.
  const rowSamplers: { sampler: Sampler; length: number; token: bigint }[] = [];
  const draw = (view: Float32Array, ids: bigint[], row: number): number => {
    const key = { stream: stream + row, step: ids.length };
    if (!options.mirostat) return lab.sampleToken(view, { ...options, ...key, ...(history && { generatedIds: Int32Array.from(ids, Number) }) });
    const previous = rowSamplers[row];
    const sampler = previous?.length === ids.length && ids[ids.length - 1] === previous.token
      ? previous.sampler
      : lab.createSampler({ ...options, ...key, generatedIds: Int32Array.from(ids, Number) });
    const token = sampler.sample(view);
    rowSamplers[row] = { sampler, length: ids.length + 1, token: BigInt(token) };
    return token;
  };
  return (inputIds, logits) => {
    if (logits.type !== 'float32') {
      throw new SamplingLabError('logits', `logits must be float32 (generate() converts them), not ${logits.type}`);
    }
    const [rows, vocab] = logits.dims.length === 3 ? [logits.dims[0], logits.dims[2]] : logits.dims;
    const data = logits.data as Float32Array;
    for (let row = 0; row < rows; row++) {
      const view = data.subarray(row * vocab, (row + 1) * vocab);
      maskInfinities(view, `logits row ${row}`);
      const token = draw(view, inputIds[row], row);
      const kept = view[token];
      view.fill(-Infinity);
      view[token] = kept;
    }
    return logits;
  };
}
