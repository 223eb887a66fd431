// sampling-lab decode: a prompt decoded by a local transformers.js model, plainly, speculatively
// with a draft (--draft, --gamma) or with prompt lookup (--prompt-lookup), or by beam search
// (--beams), with its statistics.
import { SamplingLabError } from '../lab/errors.js';
import type { ExperimentLab } from '../lab/experiment-lab.js';
import type { SampleTokenOptions } from '../lab/lab.js';
import { MODEL_DTYPES } from '../adapters/transformers/model-dtypes.js';
import type { ExperimentInfo, ParamSpec } from '../lab/schema.js';
import { parseValue, readFlags, spellings } from './flags.js';
import { checkDtype, importAdapter, modelFolder } from './model.js';
import { describe, toJson } from './render.js';

const SOURCES = ['model', 'draft', 'prompt', 'dtype'] as const;

// The command's own parameters; the limits are the module's.
const decodeParams = (lab: ExperimentLab): ParamSpec[] => [
  { name: 'maxNewTokens', kind: 'integer', min: 0, max: 1_000_000, default: 64, doc: 'tokens generated at most' },
  { name: 'gamma', kind: 'integer', min: 1, max: lab.maxDraftTokens, default: 4, doc: 'with --draft or --prompt-lookup: tokens proposed per step' },
  {
    name: 'promptLookup', kind: 'integer', min: 1, max: lab.maxDraftTokens, default: null,
    doc: 'speculative decoding with no draft model: proposals copied from where the last N tokens (down to --ngram-min) occurred before',
  },
  { name: 'ngramMin', kind: 'integer', min: 1, max: lab.maxDraftTokens, default: 1, doc: 'with --prompt-lookup: the shortest n-gram matched' },
  {
    name: 'drafts', kind: 'integer', min: 1, max: lab.maxDrafts, default: 1,
    doc: 'with --draft or --prompt-lookup: drafts per step (draft streams, or distinct matches), verified together',
  },
  { name: 'beams', kind: 'integer', min: 1, max: lab.maxBeams, default: null, doc: 'beam search with this many beams; prints every beam\'s sequence' },
  { name: 'lengthPenalty', kind: 'number', default: 1, doc: 'with --beams: a finished sequence scores logProb / length^lengthPenalty' },
];

// The random key's step and the history come from the sequence being decoded.
const FROM_SEQUENCE = ['step', 'generatedIds'];

const USAGE = `usage: sampling-lab decode --model DIR --prompt TEXT [--draft DIR [--gamma N] | --prompt-lookup N [--ngram-min N] [--gamma N] | --beams N] [--drafts K] [--max-new-tokens N]
                           [--dtype ${MODEL_DTYPES.join('|')}] [sampling flags] [--json]`;

function decodeInfo(lab: ExperimentLab): ExperimentInfo {
  const sampling = lab.options.filter((spec) => !FROM_SEQUENCE.includes(spec.name)).map((spec): ParamSpec =>
    (spec.name === 'order' ? { ...spec, kind: 'choice', choices: ['handbook', 'llama.cpp'], doc: `${spec.doc}; or stage names, comma-separated` } : spec));
  return { name: 'decode', summary: 'decode a prompt with a local transformers.js model', params: [...decodeParams(lab), ...sampling] };
}

function help(info: ExperimentInfo): string {
  return [
    USAGE,
    '  Decodes the prompt with the model folder\'s weights (--dtype, default fp32): token by token, speculatively with --draft (a model',
    '  with the same tokenizer; prints acceptance, tokens per target pass and calls) or with --prompt-lookup (proposals copied from the',
    '  prompt and the output, no second model), or by beam search with --beams (prints each sequence with its logProb and score).',
    '  Needs the optional peer @huggingface/transformers.',
    '    --model DIR, --draft DIR: model folders (config.json, tokenizer.json, onnx/model*.onnx); --prompt TEXT: the text to continue',
    ...info.params.map(describe),
  ].join('\n');
}

// The flat option names of the schema ("xtc.probability", "logitBias.ids") as sampling options.
function samplingOptions(values: Map<string, unknown>): SampleTokenOptions {
  const options: Record<string, unknown> = {};
  for (const [name, value] of values) {
    if (name === 'logitBias.ids' || name === 'logitBias.values' || name === 'badWords.ids' || name === 'badWords.lengths') continue;
    const [outer, inner] = name.split('.');
    if (inner === undefined) options[name] = value;
    else options[outer] = { ...(options[outer] as object | undefined), [inner]: value };
  }
  if (values.has('logitBias.ids') !== values.has('logitBias.values')) {
    throw new SamplingLabError('logitBias', '--logitBias.ids and --logitBias.values come together: the ids and the bias of each');
  }
  if (values.has('logitBias.ids')) options.logitBias = [values.get('logitBias.ids'), values.get('logitBias.values')];
  if (values.has('badWords.ids') !== values.has('badWords.lengths')) {
    throw new SamplingLabError('badWords', '--badWords.ids and --badWords.lengths come together: the sequences back to back and the length of each');
  }
  if (values.has('badWords.ids')) {
    const ids = values.get('badWords.ids') as number[];
    const lengths = values.get('badWords.lengths') as number[];
    if (lengths.reduce((sum, n) => sum + n, 0) !== ids.length) {
      throw new SamplingLabError('badWords', '--badWords.lengths must add up to the number of --badWords.ids');
    }
    let at = 0;
    options.badWords = lengths.map((n) => ids.slice(at, (at += n)));
  }
  if (typeof options.order === 'string' && !['handbook', 'llama.cpp'].includes(options.order)) options.order = options.order.split(',');
  return options as SampleTokenOptions;
}

const ms = (t: number): string => `${t.toFixed(0)} ms`;

// The command's own numbers, in their ranges (the sampling options are the lab's to check).
function checkOwn(lab: ExperimentLab, values: Map<string, unknown>, texts: Map<string, string>): void {
  for (const { name, kind, min, max } of decodeParams(lab)) {
    const value = values.get(name) as number | undefined;
    if (value === undefined || min === undefined || max === undefined) continue;
    if ((kind === 'integer' && !Number.isInteger(value)) || value < min || value > max) {
      throw new SamplingLabError(name, `--${spellings(name)[0]} takes an integer in [${min}, ${max}], not '${texts.get(name)}'`);
    }
  }
}

export async function decode(argv: string[], lab: ExperimentLab): Promise<void> {
  const info = decodeInfo(lab);
  const flags = readFlags(argv, info, SOURCES);
  if (flags.help) {
    console.log(help(info));
    return;
  }
  const { model: modelPath, draft: draftPath, prompt, dtype = 'fp32' } = flags.source;
  if (modelPath === undefined) throw new SamplingLabError('model', '--model DIR is needed: the model folder to decode with');
  if (prompt === undefined) throw new SamplingLabError('prompt', '--prompt TEXT is needed: the text to continue');
  checkDtype(dtype);
  const values = new Map([...flags.texts].map(([name, text]) => [name, parseValue(text, info.params.find((p) => p.name === name)!, name)]));
  checkOwn(lab, values, flags.texts);
  const own = (name: string) => values.get(name) as number | undefined;
  const [maxNewTokens = 64, gamma, beams, lengthPenalty, promptLookup, ngramMin, drafts] =
    ['maxNewTokens', 'gamma', 'beams', 'lengthPenalty', 'promptLookup', 'ngramMin', 'drafts'].map(own);
  for (const name of decodeParams(lab).map((p) => p.name)) values.delete(name);
  if (gamma !== undefined && draftPath === undefined && promptLookup === undefined) {
    throw new SamplingLabError('gamma', '--gamma needs --draft DIR (the model that proposes) or --prompt-lookup N');
  }
  if (ngramMin !== undefined && promptLookup === undefined) throw new SamplingLabError('ngramMin', '--ngram-min needs --prompt-lookup N');
  if (drafts !== undefined && draftPath === undefined && promptLookup === undefined) {
    throw new SamplingLabError('drafts', '--drafts needs --draft DIR or --prompt-lookup N');
  }
  if (lengthPenalty !== undefined && beams === undefined) throw new SamplingLabError('lengthPenalty', '--length-penalty needs --beams N');
  const ways = [beams !== undefined && '--beams', draftPath !== undefined && '--draft', promptLookup !== undefined && '--prompt-lookup'].filter(Boolean);
  if (ways.length > 1) throw new SamplingLabError(beams !== undefined ? 'beams' : 'promptLookup', `${ways.join(' and ')} are ways to decode; give one of them`);
  const sampling = samplingOptions(values);
  if (beams !== undefined) {
    const unused = [...values.keys()].find((name) => name !== 'seed' && name !== 'stream');
    if (unused !== undefined) {
      throw new SamplingLabError(unused.split('.')[0], `beam search ranks by the model's log-probabilities: --${spellings(unused)[0]} does not apply to --beams`);
    }
  }
  lab.checkOptions(sampling);
  const folder = modelFolder(modelPath, 'model');
  const draftFolder = draftPath === undefined ? undefined : modelFolder(draftPath, 'draft');
  const adapter = await importAdapter();
  const { model, tokenizer } = await adapter.loadLocalModel(folder, { dtype });
  const started = performance.now();
  if (beams !== undefined) {
    const sequences = await adapter.beamSearch(model, tokenizer, prompt, {
      lab, ...sampling, numBeams: beams, numReturnSequences: beams, maxNewTokens, ...(lengthPenalty !== undefined && { lengthPenalty }),
    });
    const elapsed = performance.now() - started;
    if (flags.json) console.log(toJson({ prompt, sequences, timeMs: elapsed }));
    else {
      sequences.forEach((s, i) => console.log(`#${i + 1}  logProb ${s.logProb.toFixed(4)}  score ${s.score.toFixed(4)}\n${prompt + s.text}`));
      console.log(`beams ${beams} · ${ms(elapsed)}`);
    }
    return;
  }
  if (draftFolder !== undefined || promptLookup !== undefined) {
    const draft = draftFolder !== undefined ? (await adapter.loadLocalModel(draftFolder, { dtype })).model
      : { promptLookup: { ngramMax: promptLookup, ...(ngramMin !== undefined && { ngramMin }) } };
    const run = adapter.speculativeGenerate(model, draft, tokenizer, prompt, {
      lab, ...sampling, maxNewTokens, ...(gamma !== undefined && { gamma }), ...(drafts !== undefined && { drafts }),
    });
    const { text } = await streamed(run, prompt, flags.json);
    const { stats } = run;
    if (flags.json) console.log(toJson({ prompt, text, stats }));
    else {
      console.log(`tokens ${stats.tokens} · ${ms(stats.wallMs)} · ${(stats.tokens / (stats.wallMs / 1000)).toFixed(1)} tokens/s`);
      console.log(`acceptance ${stats.acceptance.toFixed(3)} (${stats.accepted} of ${stats.proposed}) · tokens per target pass ${stats.tokensPerTargetPass.toFixed(2)} · target calls ${stats.targetCalls} · draft calls ${stats.draftCalls}`);
    }
    return;
  }
  const run = adapter.generateTokens(model, tokenizer, prompt, { lab, ...sampling, maxNewTokens, topCandidates: 0 });
  const { text, steps: tokens } = await streamed(run, prompt, flags.json);
  const elapsed = performance.now() - started;
  if (flags.json) console.log(toJson({ prompt, text, stats: { tokens, wallMs: elapsed } }));
  else console.log(`tokens ${tokens} · ${ms(elapsed)} · ${(tokens / (elapsed / 1000)).toFixed(1)} tokens/s`);
}

// The steps' text, printed after the prompt as it arrives (unless in JSON), and their count.
async function streamed(run: AsyncIterable<{ textDelta: string }>, prompt: string, json: boolean): Promise<{ text: string; steps: number }> {
  let text = '';
  let steps = 0;
  if (!json) process.stdout.write(prompt);
  for await (const { textDelta } of run) {
    text += textDelta;
    steps++;
    if (!json) process.stdout.write(textDelta);
  }
  if (!json) process.stdout.write('\n');
  return { text, steps };
}
