// The package as a user gets it: packed, installed from the tarball into a fresh folder outside the
// checkout (so nothing resolves from the workspace), then used as the README says from Node, the
// CLI, TypeScript and Vite; publint and attw (esm-only) find nothing to report.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(__dirname, '../..');
const tool = (name: string) => join(root, 'node_modules/.bin', name);
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'sampling-lab-package-'));
const app = join(scratch, 'app');
let tarball = '';

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('packs the README, the LICENSE and only built files that have a source', async () => {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: join(root, 'wasm') });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(scratch, packed.filename);
  const unpacked = join(scratch, 'unpacked');
  mkdirSync(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
  expect(readFileSync(join(unpacked, 'package/README.md'), 'utf8')).toBe(readme);
  expect(readFileSync(join(unpacked, 'package/LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
  const built = packed.files.map((f) => f.path).filter((path) => path.startsWith('dist/') && /\.(js|d\.ts)$/.test(path));
  // tsc never deletes the output of a removed source.
  const stale = built.filter((path) => !['.ts', '.d.ts'].some((ext) => existsSync(join(root, 'wasm/src', path.slice(5).replace(/(\.d\.ts|\.js)$/, ext)))));
  expect(built.length).toBeGreaterThan(20);
  expect(stale).toEqual([]);
});

it('installs from the tarball into a fresh folder', async () => {
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app });
  const installed = JSON.parse(readFileSync(join(app, 'node_modules/sampling-lab/package.json'), 'utf8'));
  expect(installed).toMatchObject({ license: 'MIT', homepage: expect.any(String), repository: { url: expect.any(String) }, bugs: { url: expect.any(String) } });
});

it('runs the README\'s npm block', async () => {
  const usage = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((block) => block.includes("from 'sampling-lab'"))!;
  writeFileSync(join(app, 'usage.mjs'), usage);
  await run(process.execPath, ['usage.mjs'], { cwd: app });
});

it('runs the CLI through npx', async () => {
  const { stdout } = await run('npx', ['--no-install', 'sampling-lab', 'list'], { cwd: app });
  expect(stdout).toMatch(/^filters$/m);
  const filters = JSON.parse((await run('npx', ['--no-install', 'sampling-lab', 'filters', '--top-p', '0.8', '--json'], { cwd: app })).stdout);
  expect(filters.kept).toBeGreaterThan(0);
});

// docs/api.md's self-hosting line, code spans as written.
const selfHosting = readFileSync(join(root, 'docs/api.md'), 'utf8').split('\n').find((line) => line.includes('sampling-lab/sampling-lab-core.wasm?url'))!;
const span = (start: string) => selfHosting.match(/`([^`]+)`/g)!.map((s) => s.slice(1, -1)).find((s) => s.startsWith(start))!;

it('self-hosts the .wasm in Node through the package\'s export, as docs/api.md says', async () => {
  writeFileSync(join(app, 'self-hosted.mjs'), [
    "import { readFile } from 'node:fs/promises';",
    "import { loadSamplingLab } from 'sampling-lab';",
    `const lab = await ${span('loadSamplingLab({ wasmBinary')};`,
    'console.log(lab.sampleToken([0, 9, 1], { temperature: 0 }));',
  ].join('\n'));
  expect((await run(process.execPath, ['self-hosted.mjs'], { cwd: app })).stdout.trim()).toBe('1');
});

it('bundles with Vite, the .wasm imported through its export, as docs/api.md says', async () => {
  const site = join(app, 'vite-app');
  mkdirSync(site);
  writeFileSync(join(site, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  writeFileSync(join(site, 'main.js'), [
    "import { loadSamplingLab } from 'sampling-lab';",
    `${span('import wasmUrl')};`,
    `const lab = await ${span('loadSamplingLab({ wasmUrl')};`,
    'document.body.textContent = String(lab.sampleToken([0, 9, 1], { temperature: 0 }));',
  ].join('\n'));
  await run(tool('vite'), ['build', '--logLevel', 'warn'], { cwd: site });
  const assets = readdirSync(join(site, 'dist/assets'));
  const wasm = assets.find((name) => name.endsWith('.wasm'))!;
  expect(readFileSync(join(site, 'dist/assets', wasm))).toEqual(readFileSync(join(app, 'node_modules/sampling-lab/dist/sampling-lab-core.wasm')));
  const bundle = assets.filter((name) => name.endsWith('.js')).map((name) => readFileSync(join(site, 'dist/assets', name), 'utf8')).join('\n');
  expect(bundle).toContain(wasm);
});

/** What a command printed if it failed; '' if it succeeded. */
const failure = (command: Promise<unknown>) => command.then(() => '', (error: { stdout: string; stderr: string }) => error.stdout + error.stderr);

/** tsc --noEmit on fixtures in the fresh folder (one program), strict, the package's declarations checked too. */
function typeCheck(fixtures: string[]): Promise<string> {
  for (const fixture of fixtures) copyFileSync(join(__dirname, 'fixtures', fixture), join(app, fixture));
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, skipDefaultLibCheck: true, types: [] },
    files: fixtures,
  }));
  return failure(run(tool('tsc'), ['-p', 'tsconfig.json'], { cwd: app }));
}

// run-experiment-types.ts's @ts-expect-error lines fail the compile if what they mark compiles.
it('type-checks a TypeScript user of every entry, and rejects unknown experiment names and parameters at compile time', async () => {
  expect(await typeCheck(['consumer.ts', 'run-experiment-types.ts'])).toBe('');
});

it('takes only mirostat\'s versions and transformers.js\'s dtypes and devices at compile time', async () => {
  // In the checkout, where the optional peer @huggingface/transformers is installed.
  const folder = join(root, 'build/type-fixtures');
  mkdirSync(folder, { recursive: true });
  copyFileSync(join(__dirname, 'fixtures/option-types.ts'), join(folder, 'option-types.ts'));
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
    files: ['option-types.ts'],
  }));
  expect(await failure(run(tool('tsc'), ['-p', 'tsconfig.json'], { cwd: folder }))).toBe('');
});

it('publint and attw --profile esm-only report nothing', async () => {
  const publint = await run(tool('publint'), ['run', tarball, '--strict']);
  expect(publint.stdout).toContain('All good!');
  // A .wasm has no TypeScript types to resolve: attw checks every other entry.
  expect(await failure(run(tool('attw'), [tarball, '--profile', 'esm-only', '--exclude-entrypoints', './sampling-lab-core.wasm', './sampling-lab-experiments.wasm']))).toBe('');
});
