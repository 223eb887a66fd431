// The README's and docs' commands work as written: the npm usage blocks run as modules, and every
// `npx sampling-lab …` line runs in this checkout (with a logits.npy beside it).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { codeBlocks, DOCUMENTS, documentText } from '../support/docs';
import { npy } from '../support/npy';
import { ensureTinyModel } from '../support/tiny-model.js';

const run = promisify(execFile);
const root = join(__dirname, '../..');
const readme = DOCUMENTS.map(documentText).join('\n');
// Inside the checkout, so that npx finds the package's bin as a reader's shell would.
const workspace = join(root, 'build/readme');

const blocks = (language: string) => codeBlocks(language);

// docs/worker.md's Worker block runs in Chromium (tests/browser/docs-browser.test.ts).
it('the npm usage blocks run (the README\'s quick start and docs/api.md\'s)', async () => {
  const usages = blocks('js').filter((block) => block.includes("from 'sampling-lab'") && !/from 'sampling-lab\/(transformers|worker)'/.test(block));
  expect(usages.length).toBeGreaterThanOrEqual(2);
  mkdirSync(workspace, { recursive: true });
  for (const [i, usage] of usages.entries()) {
    writeFileSync(join(workspace, `usage-${i}.mjs`), usage);
    await run(process.execPath, [join(workspace, `usage-${i}.mjs`)], { cwd: workspace });
  }
});

it('docs/api.md\'s block without an import runs after its first block, whose lab and logits it uses', async () => {
  const [first, ...rest] = codeBlocks('js', 'api.md');
  const fragments = rest.filter((block) => !block.includes('import '));
  expect(fragments).toHaveLength(1);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'api-fragment.mjs'), `${first}\n${fragments[0]}`);
  await run(process.execPath, [join(workspace, 'api-fragment.mjs')], { cwd: workspace });
});

it('the experiments usage block runs', async () => {
  const usage = blocks('js').find((block) => block.includes("from 'sampling-lab/experiments'"))!;
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'experiments.mjs'), usage);
  await run(process.execPath, [join(workspace, 'experiments.mjs')], { cwd: workspace });
});

it("the stages comment gives the counts lab.stages returns on the README's logits", async () => {
  const { loadSamplingLab } = await import('sampling-lab');
  const lab = await loadSamplingLab();
  const [, options, comment] = /lab\.stages\(logits, (\{[^}]*\})\);\n\/\/ → \{ stages: (\[.*?\]),/.exec(readme)!;
  const expected = [...comment.matchAll(/filter: '(\w+)', kept: (\d+)/g)].map(([, filter, kept]) => ({ filter, kept: Number(kept) }));
  const { stages } = lab.stages(lab.syntheticLogits(), new Function(`return ${options}`)());
  expect(stages).toEqual(expected);
});

it('the CLI table has a row for every experiment', async () => {
  const { loadSamplingLab } = await import('sampling-lab/experiments');
  const lab = await loadSamplingLab();
  const rows = [...readme.matchAll(/^\| `([a-z-]+)` \| /gm)].map(([, name]) => name);
  for (const { name } of lab.experiments) expect(rows, name).toContain(name);
});

const cliLines = blocks('sh').flatMap((block) => block.split('\n')).map((line) => line.replace(/\s+#.*$/, '').trim())
  .filter((line) => line.startsWith('npx sampling-lab'));

it('shows CLI lines', () => expect(cliLines.length).toBeGreaterThanOrEqual(4));

for (const line of cliLines) {
  it(`runs: ${line}`, async () => {
    mkdirSync(workspace, { recursive: true });
    // A 2-D logits file of 64 positions, as the README's --logits line reads.
    const rows = new Float32Array(64 * 1000).map((_, i) => Math.sin(i) * 4);
    writeFileSync(join(workspace, 'logits.npy'), npy([64, 1000], rows));
    // The --model lines read downloaded model folders and a passage: the tiny model, which has the
    // same files, graph and tokenizer, stands in for each download.
    for (const name of ['Qwen3-0.6B-ONNX', 'Qwen3-1.7B-ONNX']) {
      if (!existsSync(join(workspace, name))) symlinkSync(ensureTinyModel(), join(workspace, name));
    }
    copyFileSync(join(root, 'web/public/sample-passage.txt'), join(workspace, 'passage.txt'));
    const { stdout } = await run('sh', ['-c', line], { cwd: workspace });
    expect(stdout.length).toBeGreaterThan(0);
  });
}
