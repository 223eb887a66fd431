// sampling-lab decode: the text and statistics of plain, speculative and beam-search decoding on
// the tiny models, equal to the adapter's; every user error one line with exit code 2.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { beamSearch, generateTokens, loadLocalModel, speculativeGenerate, type LoadedModel } from 'sampling-lab/transformers';
import { ensureSpeculativePair, ensureTinyModel } from '../support/tiny-model.js';

const WASM = join(__dirname, '../../wasm');
const CLI = join(WASM, 'dist/entries/cli.js');
const PROMPT = 'The CLI decodes';
const run = (args: string[], cli = CLI) => promisify(execFile)(process.execPath, [cli, 'decode', ...args]);
const failure = (args: string[], cli = CLI) => run(args, cli).then(() => null, (error) => error as { code: number; stdout: string; stderr: string });
let lab: Lab;
let tinyDir: string;
let pair: { target: string; draft: string };
let tiny: LoadedModel;

beforeAll(async () => {
  tinyDir = ensureTinyModel();
  pair = ensureSpeculativePair();
  lab = await loadSamplingLab();
  tiny = await loadLocalModel(tinyDir, { dtype: 'fp32' });
});

it('decodes token by token: the text generateTokens streams (special tokens left out), and the time', async () => {
  const args = ['--model', tinyDir, '--prompt', PROMPT, '--max-new-tokens', '8', '--temperature', '0.8', '--top-p', '0.9', '--seed', '3'];
  const ids: number[] = [];
  for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, temperature: 0.8, topP: 0.9, seed: 3, maxNewTokens: 8 })) ids.push(step.token);
  const json = JSON.parse((await run([...args, '--json'])).stdout);
  const text = tiny.tokenizer.decode(ids, { skip_special_tokens: true });
  expect(json).toMatchObject({ prompt: PROMPT, text, stats: { tokens: ids.length } });
  const { stdout } = await run(args);
  expect(stdout.startsWith(`${PROMPT}${text}\n`)).toBe(true);
  expect(stdout).toMatch(new RegExp(`\\ntokens ${ids.length} · \\d+ ms · [\\d.]+ tokens/s\\n$`));
});

// Two small models with one tokenizer, quick to load: the pair's draft as the target, tiny-qwen3 drafting.
const speculativeArgs = () => ['--model', pair.draft, '--draft', tinyDir, '--gamma', '3', '--seed', '5', '--prompt', PROMPT, '--max-new-tokens', '12'];

it('decodes speculatively with --draft and --gamma: the text and totals speculativeGenerate gives', async () => {
  const target = await loadLocalModel(pair.draft, { dtype: 'fp32' });
  const expected = speculativeGenerate(target.model, tiny.model, target.tokenizer, PROMPT, { lab, gamma: 3, seed: 5, maxNewTokens: 12 });
  let text = '';
  for await (const step of expected) text += step.textDelta;
  const { wallMs: _, ...totals } = expected.stats;
  expect(JSON.parse((await run([...speculativeArgs(), '--json'])).stdout)).toMatchObject({ prompt: PROMPT, text, stats: totals });
});

it('prints the speculative text, then tokens, time, acceptance, tokens per target pass and calls', async () => {
  const lines = (await run(speculativeArgs())).stdout.trimEnd().split('\n');
  expect(lines[0].startsWith(PROMPT)).toBe(true);
  expect(lines.at(-2)).toMatch(/^tokens 12 · \d+ ms · [\d.]+ tokens\/s$/);
  expect(lines.at(-1)).toMatch(/^acceptance \d\.\d{3} \(\d+ of \d+\) · tokens per target pass \d+\.\d\d · target calls \d+ · draft calls \d+$/);
});

it('decodes with --prompt-lookup, --ngram-min and --drafts (no draft model): the text and totals speculativeGenerate gives with promptLookup', async () => {
  const args = ['--model', tinyDir, '--prompt-lookup', '2', '--ngram-min', '1', '--gamma', '3', '--drafts', '2', '--seed', '5', '--prompt', 'a b a b a b a b', '--max-new-tokens', '12'];
  const expected = speculativeGenerate(tiny.model, { promptLookup: { ngramMax: 2, ngramMin: 1 } }, tiny.tokenizer, 'a b a b a b a b', { lab, gamma: 3, drafts: 2, seed: 5, maxNewTokens: 12 });
  let text = '';
  for await (const step of expected) text += step.textDelta;
  const { wallMs: _, ...totals } = expected.stats;
  expect(totals.draftCalls).toBe(0);
  expect(JSON.parse((await run([...args, '--json'])).stdout)).toMatchObject({ prompt: 'a b a b a b a b', text, stats: totals });
});

it('decodes by beam search with --beams: every beam with its logProb and score, as beamSearch gives them', async () => {
  const expected = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 3, numReturnSequences: 3, maxNewTokens: 5, lengthPenalty: 0.5 });
  const args = ['--model', tinyDir, '--beams', '3', '--prompt', PROMPT, '--max-new-tokens', '5', '--length-penalty', '0.5'];
  expect(JSON.parse((await run([...args, '--json'])).stdout).sequences).toEqual(expected);
  const lines = (await run(args)).stdout.trimEnd().split('\n');
  expected.forEach((sequence, i) => {
    expect(lines[2 * i]).toBe(`#${i + 1}  logProb ${sequence.logProb.toFixed(4)}  score ${sequence.score.toFixed(4)}`);
    expect(lines[2 * i + 1]).toBe(PROMPT + sequence.text);
  });
  expect(lines.at(-1)).toMatch(/^beams 3 · \d+ ms$/);
});

it('decode --help prints the usage and every flag', async () => {
  const { stdout } = await run(['--help']);
  expect(stdout).toMatch(/^usage: sampling-lab decode --model DIR --prompt TEXT/);
  for (const flag of ['--gamma', '--prompt-lookup', '--ngram-min', '--drafts', '--beams', '--max-new-tokens', '--length-penalty', '--top-p, --topP', '--xtc.probability', '--seed']) expect(stdout).toContain(flag);
  expect((await promisify(execFile)(process.execPath, [CLI, '--help'])).stdout).toContain('sampling-lab decode');
});

// The built package copied outside any node_modules: @huggingface/transformers cannot be found.
const bare = mkdtempSync(join(tmpdir(), 'sampling-lab-bare-'));
cpSync(join(WASM, 'dist'), join(bare, 'dist'), { recursive: true });
cpSync(join(WASM, 'package.json'), join(bare, 'package.json'));

it('every user error is one line naming the argument, with exit code 2', async () => {
  const model = ['--model', tinyDir];
  const prompt = ['--prompt', PROMPT];
  const cases: [string[], string, RegExp, string?][] = [
    [prompt, 'model', /--model DIR is needed/],
    [model, 'prompt', /--prompt TEXT is needed/],
    [[...model, ...prompt, '--gamma', '3'], 'gamma', /--gamma needs --draft/],
    [[...model, ...prompt, '--ngram-min', '2'], 'ngramMin', /--ngram-min needs --prompt-lookup/],
    [[...model, ...prompt, '--drafts', '2'], 'drafts', /--drafts needs --draft DIR or --prompt-lookup N/],
    [[...model, ...prompt, '--draft', tinyDir, '--prompt-lookup', '2'], 'promptLookup', /--draft and --prompt-lookup are ways to decode; give one of them/],
    [[...model, ...prompt, '--prompt-lookup', '2', '--ngram-min', '3'], 'ngramMax', /ngramMax must be an integer in \[3, 64\]/],
    [[...model, ...prompt, '--draft', tinyDir, '--beams', '2'], 'beams', /give one of them/],
    [[...model, ...prompt, '--beams', '2', '--top-p', '0.9'], 'topP', /does not apply to --beams/],
    [[...model, ...prompt, '--length-penalty', '2'], 'lengthPenalty', /needs --beams/],
    [[...model, ...prompt, '--beams', '0'], 'beams', /--beams takes an integer in \[1, 64\], not '0'/],
    [[...model, ...prompt, '--draft', tinyDir, '--gamma', '1.5'], 'gamma', /--gamma takes an integer in \[1, 64\], not .1\.5./],
    [[...model, ...prompt, '--max-new-tokens', 'ten'], 'maxNewTokens', /not 'ten'/],
    [[...model, ...prompt, '--top-p', '2'], 'topP', /topP/],
    [[...model, ...prompt, '--logitBias.ids', '5'], 'logitBias', /come together/],
    [[...model, ...prompt, '--dtype', 'q9'], 'dtype', /--dtype takes one of/],
    [[...model, ...prompt, '--topq', '1'], 'topq', /unknown flag --topq for decode/],
    [[...model, ...prompt, 'extra'], 'arguments', /unexpected argument 'extra'/],
    [['--model', tmpdir(), ...prompt], 'model', /holds no config\.json/],
    [[...model, '--draft', tmpdir(), ...prompt], 'draft', /holds no config\.json/],
    [[...model, ...prompt], 'model', /needs the optional peer @huggingface\/transformers/, join(bare, 'dist/entries/cli.js')],
  ];
  for (const [args, argument, message, cli] of cases) {
    const result = await failure(args, cli);
    expect(result, `accepted: ${args.join(' ')}`).not.toBeNull();
    expect(result!.code, args.join(' ')).toBe(2);
    const lines = result!.stderr.trimEnd().split('\n');
    expect(lines, args.join(' ')).toHaveLength(1);
    expect(lines[0].startsWith(`sampling-lab: ${argument}: `), lines[0]).toBe(true);
    expect(lines[0]).toMatch(message);
  }
});
