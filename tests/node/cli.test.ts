// The CLI runs the same experiments, reads .npy logits and reports every user error in one line
// with exit code 2, naming the argument.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { npy } from '../support/npy';

const execFileAsync = promisify(execFile);
const WASM = join(__dirname, '../../wasm');
// The package's bin entry, run the way npm's shim runs it.
const CLI = join(WASM, 'dist/entries/cli.js');
const run = (args: string[], cli = CLI) => execFileAsync(process.execPath, [cli, ...args]);
const failure = (args: string[], cli = CLI) => run(args, cli).then(() => null, (error) => error as { code: number; stdout: string; stderr: string });
// Results as JSON has them: typed arrays become arrays.
const plain = (value: unknown) => JSON.parse(JSON.stringify(value, (_key, item) => (ArrayBuffer.isView(item) ? Array.from(item as Float64Array) : item)));

const dir = mkdtempSync(join(tmpdir(), 'sampling-lab-cli-'));
const rows = new Float64Array([3, 2.5, 2, 1, 0.5, 0, -1, -2, 0, 0, 0, 0, 0, 0, 0, 0]);
writeFileSync(join(dir, 'two.npy'), npy([2, 8], rows));
writeFileSync(join(dir, 'one.npy'), npy([8], new Float32Array(rows.subarray(0, 8))));
writeFileSync(join(dir, 'passage.txt'), 'A short passage.');
// Enough of a model folder to get past the CLI's own checks; nothing loads it.
const model = join(dir, 'model');
mkdirSync(model);
writeFileSync(join(model, 'config.json'), '{}');
const passage = ['--passage', join(dir, 'passage.txt'), '--position', '1'];

// The built package copied outside any node_modules: @huggingface/transformers cannot be found.
const bare = mkdtempSync(join(tmpdir(), 'sampling-lab-bare-'));
cpSync(join(WASM, 'dist'), join(bare, 'dist'), { recursive: true });
cpSync(join(WASM, 'package.json'), join(bare, 'package.json'));

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

it('prints JSON equal to runExperiment, with flags in camel or kebab case', async () => {
  const { stdout } = await run(['filters', '--json', '--topK', '3', '--temperature', '0.7', '--epsilon-cutoff', '0.1']);
  expect(JSON.parse(stdout)).toEqual(plain(lab.runExperiment('filters', { topK: 3, temperature: 0.7, epsilonCutoff: 0.1 })));
});

it('takes values that start with a minus, separated by a space or by =', async () => {
  const { stdout } = await run(['filters', '--json', '--presence-penalty', '-1.5', '--logits', '-1,2,3', '--generated-ids=0']);
  expect(JSON.parse(stdout)).toEqual(plain(lab.runExperiment('filters', { presencePenalty: -1.5, logits: [-1, 2, 3], generatedIds: [0] })));
});

it('prints a readable table by default and takes comma-separated arrays', async () => {
  const { stdout } = await run(['temperature', '--logits', '3,2.5,2,1,0.5,0,-1,-2', '--temperatures', '0.5,1']);
  expect(stdout).toMatch(/temperature\s+/);
  expect(stdout).toMatch(/vocabSize: 8/);
  expect(stdout.trim().split('\n').filter((l) => /^\s+(0\.5|1)\s/.test(l))).toHaveLength(2);
});

// cutBy held null for a kept token, and an array starting with null printed as a table of blank lines.
it('prints each array on one line, with no blank lines', async () => {
  const { stdout } = await run(['filters', '--top-p', '0.8']);
  expect(stdout).toMatch(/^cutBy: \[(\w+, ){7}\w+\]$/m);
  expect(stdout.split('\n').filter((line) => line.trim() === '')).toEqual(['']);  // the final newline only
});

it('names the stage that cut each token in text, and keeps the codes in JSON', async () => {
  const args = ['filters', '--logits', '3,2.5,2,1,0.5,0,-1,-2', '--top-k', '5', '--top-p', '0.8', '--banned-tokens', '1'];
  expect((await run(args)).stdout).toMatch(/^cutBy: \[kept, masks, kept, topP, topP, topP, topK, topK\]$/m);
  const json = JSON.parse((await run([...args, '--json'])).stdout);
  const lab = await loadSamplingLab();
  const [topK, topP] = [1 + lab.stageNames.indexOf('topK'), 1 + lab.stageNames.indexOf('topP')];
  expect(json.cutBy).toEqual([0, lab.masksCode, 0, topP, topP, topP, topK, topK]);
});

it('prints typed arrays as arrays and null cells as null, in tables and in JSON', async () => {
  const { render, toJson } = await import('../../wasm/dist/cli/render.js');
  const result = {
    probs: new Float32Array(20).fill(0.5), cutBy: Uint8Array.of(0, 3), names: [null, 'topP'], rows: [{ n: 1, ratio: null }, { n: 2, ratio: 0.5 }],
  };
  expect(render(result).split('\n')).toEqual([
    'probs: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, … 20 in all]',
    'cutBy: [0, 3]',
    'names: [null, topP]',
    'rows:',
    'n  ratio',
    '1   null',
    '2    0.5',
  ]);
  expect(JSON.parse(toJson(result))).toEqual({ probs: Array(20).fill(0.5), cutBy: [0, 3], names: result.names, rows: result.rows });
});

it('loads 1-D and 2-D .npy logits, with --position for a row', async () => {
  const first = JSON.parse((await run(['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '1'])).stdout);
  const second = JSON.parse((await run(['filters', '--json', '--logits', join(dir, 'two.npy'), '--position', '2'])).stdout);
  const flat = JSON.parse((await run(['filters', '--json', '--logits', join(dir, 'one.npy')])).stdout);
  expect(first.probs[0]).toBeCloseTo(0.4412, 4);
  expect(second.probs).toEqual(Array(8).fill(0.125));
  expect(flat.kept).toBe(8);
});

it('parses each flag by the kind its schema gives it', async () => {
  const random = JSON.parse((await run(['sequence', '--json', '--mode', 'random', '--vocab', '3', '--depth', '3', '--models', '20'])).stdout);
  expect(random).toMatchObject({ mode: 'random', vocab: 3, depth: 3, models: 20 });
  const nullable = JSON.parse((await run(['sequence', '--json', '--vocab', 'null'])).stdout);
  expect(nullable.vocab).toBe(2);
});

// [what, arguments, the argument named, the message, the CLI run]
const userErrors: [string, string[], string, RegExp, string?][] = [
  ['no arguments', [], 'experiment', /no experiment given; usage: sampling-lab <experiment>/],
  ['a flag before the experiment', ['--json', 'filters'], 'experiment', /the experiment comes first/],
  ['an unknown experiment', ['nope'], 'experiment', /unknown experiment 'nope'; known: filters, /],
  ['a misspelt experiment', ['tempreature'], 'experiment', /unknown experiment 'tempreature' \(did you mean 'temperature'\?\); known: /],
  ['a misspelt command', ['lst'], 'experiment', /unknown experiment 'lst' \(did you mean 'list'\?\)/],
  ['--version with more', ['--version', 'filters'], 'arguments', /--version takes no arguments/],
  ['list with more', ['list', 'filters'], 'arguments', /list takes no arguments/],
  ['a stray word', ['filters', 'junk'], 'arguments', /unexpected argument 'junk'; run sampling-lab filters --help/],
  ['an unknown flag', ['filters', '--frobnicate', '1'], 'frobnicate', /unknown flag --frobnicate for filters; run sampling-lab filters --help/],
  ['a misspelt flag', ['filters', '--temprature', '1'], 'temprature', /unknown flag --temprature for filters \(did you mean '--temperature'\?\); run /],
  ['a misspelt decode flag', ['decode', '--modle', 'x'], 'modle', /unknown flag --modle for decode \(did you mean '--model'\?\)/],
  ['a short flag', ['filters', '-n', '3'], 'n', /unknown flag -n for filters/],
  ['a flag without its value', ['filters', '--top-p'], 'topP', /--top-p needs a value/],
  ['a flag followed by a flag', ['filters', '--top-p', '--json'], 'topP', /--top-p needs a value/],
  ['a value for --json', ['filters', '--json=yes'], 'json', /--json takes no value/],
  ['a flag given twice', ['filters', '--top-p', '0.5', '--topP', '0.6'], 'topP', /--topP is given twice/],
  ['not a number', ['filters', '--topK', 'many'], 'topK', /--topK takes a finite decimal number, not 'many'/],
  ['a hexadecimal number', ['filters', '--top-p', '0x1'], 'topP', /not '0x1'/],
  ['an infinite number', ['filters', '--temperature', 'Infinity'], 'temperature', /not 'Infinity'/],
  ['an empty array item', ['filters', '--logits', '1,,2'], 'logits', /not ''/],
  ['a value out of range', ['filters', '--topP', '7'], 'topP', /topP/],
  ['a 2-D .npy without --position', ['filters', '--logits', join(dir, 'two.npy')], 'logits', /choose a row with a position/],
  ['--position beyond the rows', ['filters', '--logits', join(dir, 'two.npy'), '--position', '5'], 'logits', /--position 5 is beyond its 2 rows/],
  ['--position with a 1-D .npy', ['filters', '--logits', join(dir, 'one.npy'), '--position', '1'], 'logits', /this one is 1-D/],
  ['--position with listed logits', ['filters', '--logits', '1,2,3', '--position', '2'], 'position', /neither is given/],
  ['--position alone', ['filters', '--position', '2'], 'position', /neither is given/],
  ['--position 0', ['filters', '--logits', join(dir, 'two.npy'), '--position', '0'], 'position', /counts from 1/],
  ['--passage without --model', ['filters', '--passage', join(dir, 'passage.txt')], 'model', /--passage and --dtype need --model/],
  ['--dtype without --model', ['filters', '--dtype', 'fp16'], 'model', /--passage and --dtype need --model/],
  ['--model and --logits', ['temperature', '--model', model, '--logits', '1,2,3', ...passage], 'logits', /--model and --logits both give the logits/],
  ['--model and another .npy', ['temperature', '--model', model, '--temperatures', join(dir, 'one.npy'), ...passage], 'temperatures', /--model and --temperatures .*one\.npy/],
  ['--model for an experiment without logits', ['samplers', '--model', model, ...passage], 'model', /samplers takes no logits/],
  ['an unknown --dtype', ['temperature', '--model', model, '--dtype', 'q9', ...passage], 'dtype', /--dtype takes one of fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4, not 'q9'/],
  ['--model without --passage', ['temperature', '--model', model, '--position', '1'], 'passage', /--model needs --passage/],
  ['--model without a model folder', ['temperature', '--model', dir, ...passage], 'model', /holds no config\.json/],
  ['--model without @huggingface/transformers', ['temperature', '--model', model, ...passage], 'model',
    /needs the optional peer @huggingface\/transformers \(cannot find @huggingface\/transformers\); install it with: ONNXRUNTIME_NODE_INSTALL=skip npm i @huggingface\/transformers$/, join(bare, 'dist/entries/cli.js')],
];

it.each(userErrors)('%s: one line naming the argument, exit code 2', async (_what, args, argument, message, cli = CLI) => {
  const result = await failure(args, cli);
  expect(result, 'the CLI accepted it').not.toBeNull();
  expect(result!.code).toBe(2);
  expect(result!.stdout).toBe('');
  const lines = result!.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0].startsWith(`sampling-lab: ${argument}: `), lines[0]).toBe(true);
  expect(lines[0]).toMatch(message);
});

it('--help and -h print the usage, --version the package version, both with exit code 0', async () => {
  for (const flag of ['--help', '-h']) {
    const { stdout, stderr } = await run([flag]);
    expect(stdout).toMatch(/^usage: sampling-lab <experiment>/);
    expect(stdout).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm i @huggingface/transformers');
    expect(stderr).toBe('');
  }
  const { version } = JSON.parse(readFileSync(join(WASM, 'package.json'), 'utf8'));
  expect((await run(['--version'])).stdout).toBe(`${version}\n`);
});

it('<experiment> --help prints each of its flags in both spellings', async () => {
  const { stdout } = await run(['filters', '--help']);
  expect(stdout).toMatch(/^usage: sampling-lab filters/);
  for (const param of lab.experiments.find((e) => e.name === 'filters')!.params) expect(stdout).toContain(`--${param.name} (${param.kind}`);
  expect(stdout).toContain('--top-p, --topP (probability, default 1; a probability in (0, 1])');
  expect(stdout).toContain('--model DIR --passage FILE --position N');
});

it('lists every experiment with its parameters', async () => {
  const { stdout } = await run(['list']);
  for (const info of lab.experiments) {
    expect(stdout).toContain(info.name);
    for (const param of info.params) expect(stdout).toContain(`--${param.name} (${param.kind}`);
  }
});
