// What an app ships: Vite production builds of an app that imports only `sampling-lab` and calls
// sampleToken (the sampler module and no trace of the experiments module), and of one that shows
// the widgets (one .wasm: the experiments module, which the widgets and their Worker share). Each
// prints its gzip total of JavaScript and WebAssembly, which README.md records, and is held to its
// budget: 120 KB for the first, 250 KB for the second (issue 29's, which leave room for embind).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, expect, it } from 'vitest';

const root = join(__dirname, '../..');
const dist = join(root, 'wasm/dist');
// Inside the checkout, so that `sampling-lab` resolves to this workspace's package.
mkdirSync(join(root, 'build'), { recursive: true });
const scratch = mkdtempSync(join(root, 'build/size-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const KB = 1024;
const gzipped = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;

interface Emitted { path: string; bytes: Buffer }

/** Builds an app of one module in production mode; every .js and .wasm file it emits. */
async function buildApp(name: string, main: string): Promise<Emitted[]> {
  const app = join(scratch, name);
  mkdirSync(app);
  writeFileSync(join(app, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  writeFileSync(join(app, 'main.js'), main);
  await build({ root: app, mode: 'production', configFile: false, logLevel: 'warn', build: { outDir: join(app, 'dist') } });
  const files: Emitted[] = [];
  const walk = (dir: string) => readdirSync(dir).forEach((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(js|wasm)$/.test(entry)) files.push({ path, bytes: readFileSync(path) });
  });
  walk(join(app, 'dist'));
  return files;
}

const total = (files: Emitted[]) => files.reduce((sum, f) => sum + gzipped(f.bytes), 0);
const wasmOf = (files: Emitted[]) => files.filter((f) => f.path.endsWith('.wasm'));
const js = (files: Emitted[]) => files.filter((f) => f.path.endsWith('.js')).map((f) => f.bytes.toString('utf8')).join('\n');
const samplerWasm = readFileSync(join(dist, 'sampling-lab-core.wasm'));
const experimentsWasm = readFileSync(join(dist, 'sampling-lab-experiments.wasm'));

it('an app that only samples tokens ships the sampler module, without the experiments module', async () => {
  const files = await buildApp('sampler', [
    "import { loadSamplingLab } from 'sampling-lab';",
    'const lab = await loadSamplingLab();',
    'document.body.textContent = String(lab.sampleToken([0, 9, 1], { temperature: 0 }));',
  ].join('\n'));
  const wasm = wasmOf(files);
  expect(wasm.map((f) => f.bytes.equals(samplerWasm))).toEqual([true]);
  const text = js(files);
  expect(text).toContain('sampleToken');
  for (const trace of ['sampling-lab-experiments', 'runExperiment', 'listExperiments']) {
    expect(text).not.toContain(trace);
  }
  const size = total(files);
  console.log(`sampler app: ${(size / KB).toFixed(1)} KB gzip (WebAssembly ${(total(wasm) / KB).toFixed(1)} KB)`);
  expect(size).toBeLessThanOrEqual(120 * KB);
  // The experiments are not linked in: their texts are in the other module only.
  expect(experimentsWasm.includes("unknown experiment '")).toBe(true);
  expect(samplerWasm.includes("unknown experiment '")).toBe(false);
}, 20_000);

it('an app with the widgets ships one .wasm, the experiments module', async () => {
  const files = await buildApp('widgets', [
    "import 'sampling-lab/define';",
    "document.body.innerHTML = '<sampling-lab experiment=\"filters\"></sampling-lab>';",
  ].join('\n'));
  // The widgets and their Worker load the same module: the page fetches it once.
  const wasm = wasmOf(files);
  expect(wasm.length).toBeGreaterThan(0);
  expect(wasm.every((f) => f.bytes.equals(experimentsWasm))).toBe(true);
  const unique = new Map(files.map((f) => [f.bytes.toString('base64'), f]));
  const size = total([...unique.values()]);
  console.log(`widgets app: ${(size / KB).toFixed(1)} KB gzip (WebAssembly ${(total(wasm.slice(0, 1)) / KB).toFixed(1)} KB)`);
  expect(size).toBeLessThanOrEqual(250 * KB);
  expect(js(files)).toContain('runExperiment');
}, 20_000);
