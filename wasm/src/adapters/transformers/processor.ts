// A logits processor that makes generate() return Sampling Lab's tokens.
import type { PreTrainedModel, Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { GrammarMatcher } from '../grammar/grammar.js';
import type { Lab, Sampler, SampleTokenOptions } from '../../lab/lab.js';
import { checkLab, checkModel, checkObject, checkSamplingOptions, needsHistory } from './checks.js';

/** transformers.js's logits processor shape: token ids so far per row, and the step's logits. */
export type LogitsProcessorFunction = (inputIds: bigint[][], logits: Tensor) => Tensor;

/** The sampling options of a processor: the sequence gives each row's step and generatedIds. */
export interface ProcessorOptions extends Omit<SampleTokenOptions, 'step' | 'generatedIds'> {
  /** A matcher per row (sampling-lab/grammar: `await grammar.matcher()`); row r follows grammar[r], a single one row 0. */
  grammar?: GrammarMatcher | readonly GrammarMatcher[];
  /** The model generate() runs: the processor then refuses, at its first step, a generation_config that would compound with it. */
  model?: PreTrainedModel;
}

/**
 * A logits processor for `model.generate({ logits_processor: [processor], do_sample: false })`:
 * each row's token is chosen by `lab.sampleToken` with `options` (step = the row's position, that
 * is the number of ids before the new token; stream = options.stream + row) and every other logit
 * becomes −∞, so greedy decoding returns exactly Sampling Lab's tokens. Penalties and DRY, when
 * set, see the whole sequence, prompt included, as transformers' own repetition penalty does.
 * transformers.js applies the generation config's repetition_penalty, and its temperature when
 * do_sample, before any logits processor: `createGenerateKwargs` turns them off for the call.
 * With `options.model`, the processor refuses at its first step a model whose generation_config
 * sets them (it sees the model's defaults, not generate()'s arguments). Options are checked now,
 * token ids against the largest vocabulary, and again against the row at each step.
 */
export function createLogitsProcessor(lab: Lab, options: ProcessorOptions = {}): LogitsProcessorFunction {
  checkLab(lab);
  checkObject(options, 'options');
  for (const name of ['logprobs', 'logprobsMode']) {
    if (name in options) {
      throw new SamplingLabError(name, `a logits processor cannot hand logprobs back through generate(): use generateTokens(model, tokenizer, prompt, { lab, ${name} })`);
    }
  }
  const { grammar, model, ...sampling } = options;
  if (model !== undefined) checkModel(model);
  const matchers = grammar === undefined ? [] : Array.isArray(grammar) ? grammar : [grammar];
  if (matchers.some((matcher) => typeof (matcher as Partial<GrammarMatcher>)?.accept !== 'function')) {
    throw new SamplingLabError('grammar', 'grammar must be a matcher of sampling-lab/grammar (await grammar.matcher()) or an array of them, one per row');
  }
  if (matchers.some((matcher) => !matcher.synchronous)) {
    throw new SamplingLabError('grammar', "transformers.js's processors run synchronously, and this matcher answers from a Worker: "
      + 'in a browser, compile the grammar with compileGrammar(tokenizer, spec, { synchronous: true })');
  }
  if (grammar !== undefined && ('allowedMask' in sampling || 'mirostat' in sampling)) {
    throw new SamplingLabError('grammar', 'a grammar gives allowedMask itself and cannot be combined with mirostat');
  }
  checkSamplingOptions(lab, sampling, ['grammar', 'model']);
  const stream = (options as ProcessorOptions).stream ?? 0;
  // One seed for the processor's whole run: fresh when none is given, each step its position.
  const seed = (options as ProcessorOptions).seed ?? lab.freshSeed();
  const history = needsHistory(lab, options);
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
    const key = { seed, stream: stream + row, step: ids.length };
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
    if (model) refuseCompounding(model);
    if (logits.type !== 'float32') {
      throw new SamplingLabError('logits', `logits must be float32 (generate() converts them), not ${logits.type}`);
    }
    const [rows, vocab] = logits.dims.length === 3 ? [logits.dims[0], logits.dims[2]] : logits.dims;
    if (!Array.isArray(inputIds) || inputIds.length !== rows) {
      throw new SamplingLabError('inputIds', `inputIds must hold one sequence per logits row (${rows}), not ${Array.isArray(inputIds) ? inputIds.length : typeof inputIds}`);
    }
    for (const [row, ids] of inputIds.entries()) {
      // The ids cross as int32: a larger one would wrap to another token.
      if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'bigint' || id < 0n || id >= BigInt(vocab))) {
        throw new SamplingLabError('inputIds', `inputIds[${row}] must be an array of bigint token ids in [0, ${vocab})`);
      }
    }
    const data = logits.data as Float32Array;
    for (let row = 0; row < rows; row++) {
      const view = data.subarray(row * vocab, (row + 1) * vocab);
      const token = draw(view, inputIds[row], row);
      const kept = view[token];
      view.fill(-Infinity);
      view[token] = kept;
    }
    return logits;
  };
}

/** generate() and pipeline() arguments that make a processor the only sampler of the call. */
export interface GenerateKwargs {
  logits_processor: LogitsProcessorFunction[];
  /** Greedy decoding picks the one token the processor leaves, and no temperature warper runs. */
  do_sample: false;
  temperature: 1;
  repetition_penalty: 1;
}

/**
 * A processor with the settings that keep transformers.js's own sampling out of the call, to
 * spread into it: `model.generate({ ...inputs, ...createGenerateKwargs(lab, options) })` or
 * `generator(text, { ...createGenerateKwargs(lab, options) })`. Whatever the model's
 * generation_config, the tokens are then `generateTokens`' with the same options.
 */
export function createGenerateKwargs(lab: Lab, options: Omit<ProcessorOptions, 'model'> = {}): GenerateKwargs {
  checkObject(options, 'options');
  if ('model' in options) {
    throw new SamplingLabError('model', 'createGenerateKwargs needs no model: the settings it returns override the model\'s generation_config');
  }
  return { logits_processor: [createLogitsProcessor(lab, options)], do_sample: false, temperature: 1, repetition_penalty: 1 };
}

// transformers.js's generate() applies these settings to the logits before any logits processor
// (_get_logits_processor), so the processor would sample from logits already warped.
function refuseCompounding(model: PreTrainedModel): void {
  const config = (model.generation_config ?? {}) as { do_sample?: unknown; temperature?: unknown; repetition_penalty?: unknown };
  const found: [string, unknown][] = [];
  if (config.repetition_penalty != null && config.repetition_penalty !== 1) found.push(['repetition_penalty', config.repetition_penalty]);
  // temperature 0 makes generate() switch do_sample off: no warper.
  if (config.do_sample && config.temperature != null && config.temperature !== 1 && config.temperature !== 0) {
    found.push(['temperature', config.temperature]);
  }
  if (found.length === 0) return;
  const settings = found.map(([name, value]) => `${name}: ${value}${name === 'temperature' ? ' with do_sample: true' : ''}`).join(' and ');
  throw new SamplingLabError(`generation_config.${found[0][0]}`,
    `the model's generation_config sets ${settings}, which transformers.js applies to the logits before any logits processor, `
    + 'compounding with this processor\'s sampling. Let the call override them: model.generate({ ...inputs, ...createGenerateKwargs(lab, options) }) '
    + 'in place of logits_processor: [processor] (in a pipeline, generator(text, { ...createGenerateKwargs(lab, options) }))');
}
