// sampling-lab <experiment> [--json] [--flag value ...] | <experiment> --help | list | decode ... | --help | --version
// Every user error is one line on stderr and exit code 2.
import { readFileSync } from 'node:fs';
import { decode } from './decode.js';
import { didYouMean, experimentParams, readFlags, SOURCE_FLAGS } from './flags.js';
import { PEER_INSTALL } from './model.js';
import { describe, render, toJson } from './render.js';
import { MODEL_DTYPES } from '../adapters/transformers/model-dtypes.js';
import { SamplingLabError } from '../lab/errors.js';
import { ExperimentLab } from '../lab/experiment-lab.js';
import { experimentsWasmUrl, loadExperimentsModule } from '../runtime/experiments-module.js';
import { withWasmBinary } from '../runtime/node-wasm.js';
import type { ExperimentName, ExperimentParams } from '../lab/experiments.js';
import type { ExperimentInfo } from '../lab/schema.js';

const MODEL_USAGE = `--model DIR --passage FILE --position N [--dtype ${MODEL_DTYPES.join('|')}]: the logits come
from a local transformers.js model (e.g. a copy of onnx-community/Qwen3-0.6B-ONNX) at position N of
the passage, prepared as the chapter does (#*\`>|-[]()! stripped, first 400 tokens); position 50 is
logits row 49. It needs the optional peer @huggingface/transformers: ${PEER_INSTALL}`;

const SHORT_USAGE = 'usage: sampling-lab <experiment> [--json] [--flag value ...] | <experiment> --help | list | --help | --version';

const USAGE = `usage: sampling-lab <experiment> [--json] [--flag value ...]
       sampling-lab <experiment> --help    its flags
       sampling-lab list                   every experiment and its flags
       sampling-lab decode --model DIR --prompt TEXT [--draft DIR --gamma N | --beams N] ...
                                           decode with a local model (decode --help for its flags)
       sampling-lab --help | --version
Flags are the parameter names in kebab or camel case (--top-p, --topP). Arrays are comma-separated
(--temperatures 0.5,1,1.5); optional values take null. An array flag also takes a .npy file (1-D or
2-D float32/float64); --position N picks row N of a 2-D one (positions count from 1).
${MODEL_USAGE}
Errors are one line on stderr, with exit code 2.`;

function experimentHelp(info: ExperimentInfo): string {
  const lines = [`usage: sampling-lab ${info.name} [--json] [--flag value ...]`, `  ${info.summary}`, ...info.params.map(describe)];
  if (info.params.some((p) => p.name === 'logits')) lines.push(`Instead of --logits, ${MODEL_USAGE}`);
  return lines.join('\n');
}

// Read at run time, beside dist/ in the checkout and in the installed package alike.
const version = (): string => JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new SamplingLabError('experiment', `no experiment given; ${SHORT_USAGE}`);
  if (command === '--help' || command === '-h' || command === '--version') {
    if (rest.length > 0) throw new SamplingLabError('arguments', `${command} takes no arguments; for an experiment's flags run sampling-lab <experiment> --help`);
    console.log(command === '--version' ? version() : USAGE);
    return 0;
  }
  if (command.startsWith('-')) throw new SamplingLabError('experiment', `the experiment comes first, before '${command}'; ${SHORT_USAGE}`);
  const lab = new ExperimentLab(await loadExperimentsModule({}, await withWasmBinary({}, experimentsWasmUrl())));
  if (command === 'list') {
    if (rest.length > 0) throw new SamplingLabError('arguments', `list takes no arguments, not '${rest[0]}'`);
    for (const info of lab.experiments) console.log(`${info.name}\n  ${info.summary}\n${info.params.map(describe).join('\n')}`);
    return 0;
  }
  if (command === 'decode') {
    await decode(rest, lab);
    return 0;
  }
  const info = lab.experiments.find((e) => e.name === command);
  if (!info) {
    const known = [...lab.experiments.map((e) => e.name), 'list', 'decode'];
    throw new SamplingLabError('experiment', `unknown experiment '${command}'${didYouMean(command, known)}; known: ${known.join(', ')}`);
  }
  const flags = readFlags(rest, info, SOURCE_FLAGS);
  if (flags.help) {
    console.log(experimentHelp(info));
    return 0;
  }
  // The names and parameters come from the schema at run time; the core checks them.
  const params = (await experimentParams(flags, info)) as ExperimentParams[ExperimentName];
  const result = lab.runExperiment(info.name as ExperimentName, params);
  console.log(flags.json ? toJson(result) : render(readable(result, lab)));
  return 0;
}

// The text form names the stage that cut each token ('kept' for none) where JSON keeps the codes.
function readable(result: object, lab: ExperimentLab): object {
  if (!('cutBy' in result) || !ArrayBuffer.isView(result.cutBy)) return result;
  const names = (code: number) => (code === 0 ? 'kept' : code === lab.masksCode ? 'masks' : lab.stageNames[code - 1]);
  return { ...result, cutBy: Array.from(result.cutBy as Uint8Array, names) };
}

// One line per error, no stack trace (a message from transformers.js may span lines): 2 for the
// user's mistakes, 1 for the program's.
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ');
process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SamplingLabError) {
    console.error(`sampling-lab: ${error.argument}: ${oneLine(error.message)}`);
    return 2;
  }
  console.error(`sampling-lab: internal error: ${oneLine(String((error as Error)?.message ?? error))}`);
  return 1;
});
