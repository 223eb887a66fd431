// A logits processor that makes generate() return Sampling Lab's tokens.
import type { Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../errors.js';
import type { GrammarMatcher } from '../grammar.js';
import type { Lab, Sampler, SampleTokenOptions } from '../lab.js';
import { checkLab, checkObject, checkSamplingOptions, maskInfinities, needsHistory } from './checks.js';

/** transformers.js's logits processor shape: token ids so far per row, and the step's logits. */
export type LogitsProcessorFunction = (inputIds: bigint[][], logits: Tensor) => Tensor;

/** The sampling options of a processor: the sequence gives each row's step and generatedIds. */
export interface ProcessorOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds'> {
  /** A matcher per row (sampling-lab/grammar: `await grammar.matcher()`); row r follows grammar[r], a single one row 0. */
  grammar?: GrammarMatcher | readonly GrammarMatcher[];
}

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
  const { grammar, ...sampling } = options;
  const matchers = grammar === undefined ? [] : Array.isArray(grammar) ? grammar : [grammar];
  if (matchers.some((matcher) => typeof (matcher as Partial<GrammarMatcher>)?.accept !== 'function')) {
    throw new SamplingLabError('grammar', 'grammar must be a matcher of sampling-lab/grammar (await grammar.matcher()) or an array of them, one per row');
  }
  if (grammar !== undefined && ('allowedMask' in sampling || 'mirostat' in sampling)) {
    throw new SamplingLabError('grammar', 'a grammar gives allowedMask itself and cannot be combined with mirostat');
  }
  checkSamplingOptions(lab, sampling, ['grammar']);
  const stream = (options as ProcessorOptions).stream ?? 0;
  const history = needsHistory(options);
  // Where each row's matcher started: its accepted tokens follow that many ids.
  const starts: number[] = [];
  const grammarMask = (row: number, ids: bigint[]): Int32Array | undefined => {
    const matcher = matchers[row];
    if (!matcher) {
      if (matchers.length > 0) throw new SamplingLabError('grammar', `row ${row} has no matcher: give one per row`);
      return undefined;
    }
    starts[row] ??= ids.length - matcher.length;
    if (starts[row] + matcher.length !== ids.length) {
      throw new SamplingLabError('grammar', `row ${row}'s matcher has accepted ${matcher.length} tokens, but the row generated ${ids.length - starts[row]}`);
    }
    return matcher.allowedMask;
  };
  // Mirostat's μ moves after every draw: each row's stateful sampler carries it while the row
  // continues the sequence it drew for (one more id, the last one its token); else a new one.
  const rowSamplers: { sampler: Sampler; length: number; token: bigint }[] = [];
  const draw = (view: Float32Array, ids: bigint[], row: number): number => {
    const key = { stream: stream + row, step: ids.length };
    const matcher = matchers[row];
    // A row whose grammar has ended repeats its stop token while the batch finishes.
    if (matcher?.isTerminated()) return Number(ids[ids.length - 1]);
    const allowedMask = grammarMask(row, ids);
    if (!options.mirostat) {
      const token = lab.sampleToken(view, { ...sampling, ...key, ...(history && { generatedIds: Int32Array.from(ids, Number) }), ...(allowedMask && { allowedMask }) });
      if (matcher && !matcher.accept(token)) throw new SamplingLabError('grammar', `the grammar refused token ${token}, which its mask allowed`);
      return token;
    }
    const previous = rowSamplers[row];
    const sampler = previous?.length === ids.length && ids[ids.length - 1] === previous.token
      ? previous.sampler
      : lab.createSampler({ ...sampling, ...key, generatedIds: Int32Array.from(ids, Number) });
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
