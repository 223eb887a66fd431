// The page's real-model section: Qwen3-0.6B through transformers.js, opt-in. Every number comes
// from Sampling Lab's core (distribution, distance, the temperature and acceptance experiments);
// this file only loads models, moves logits and draws. `?model=/models/tiny-qwen3` points it at a
// local model folder instead of the hub (fp32 target, q4 draft), for offline tests.
import type { AcceptanceResult, Lab } from 'sampling-lab';
import { sharedLab, strings, type SamplingLabElement } from 'sampling-lab/element';
import { REAL_MODEL_FIGURES } from 'sampling-lab/handbook';
import type { GeneratedToken, LoadedModel, LoadModelOptions } from 'sampling-lab/transformers';
import { realModelText } from './real-model-text';

type Adapter = typeof import('sampling-lab/transformers');

const HUB_REPOSITORY = 'onnx-community/Qwen3-0.6B-ONNX';
const PASSAGE_URL = new URL('sample-passage.txt', document.baseURI).href;
const GENERATED_TOKENS = 48;

// Which files to fetch: the 4-bit model for the reader's device, and for the acceptance
// experiment a higher-precision target beside the 4-bit draft.
interface Plan {
  local?: string;
  device: 'webgpu' | 'wasm';
  primary: string;
  target: string;
  draft: string;
  sizes: Record<string, string>;
}

async function choosePlan(): Promise<Plan> {
  const local = new URLSearchParams(location.search).get('model');
  if (local) return { local, device: 'wasm', primary: 'fp32', target: 'fp32', draft: 'q4', sizes: {} };
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<{ features: Set<string> } | null> } }).gpu;
  const adapter = await gpu?.requestAdapter().catch(() => null);
  // Sizes of the hub's files for Qwen3-0.6B, rounded.
  if (adapter?.features.has('shader-f16')) {
    return { device: 'webgpu', primary: 'q4f16', target: 'fp16', draft: 'q4f16', sizes: { q4f16: '0.57 GB', fp16: '1.2 GB' } };
  }
  return { device: 'wasm', primary: 'q4', target: 'q8', draft: 'q4', sizes: { q4: '0.9 GB', q8: '0.75 GB' } };
}

function node<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (className) created.className = className;
  if (text) created.textContent = text;
  return created;
}

function table(caption: string, head: readonly string[], rows: (string | number)[][]): HTMLTableElement {
  const t = node('table', 'rm-table');
  t.append(node('caption', '', caption));
  const headRow = t.createTHead().insertRow();
  for (const h of head) headRow.append(node('th', '', h));
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const cell of row) tr.insertCell().textContent = String(cell);
  }
  return t;
}

// Download progress summed over the files transformers.js reports.
function progressReporter(bar: HTMLProgressElement, label: HTMLElement): NonNullable<LoadModelOptions['progress']> {
  const files = new Map<string, { loaded: number; total: number }>();
  return (info) => {
    if (info.status !== 'progress' || !info.file || !info.total) return;
    files.set(info.file, { loaded: info.loaded ?? 0, total: info.total });
    let loaded = 0;
    let total = 0;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += f.total;
    }
    bar.max = total;
    bar.value = loaded;
    label.textContent = realModelText().megabytes(loaded / 1e6, total / 1e6);
  };
}

export function mountRealModel(root: HTMLElement): void {
  let plan: Plan | undefined;
  let adapter: Adapter | undefined;
  let lab: Lab | undefined;
  let primary: LoadedModel | undefined;
  let rerender: (() => void) | undefined;

  const source = node('p', 'rm-source');
  const memory = node('p', 'rm-note');
  const loadButton = node('button', 'rm-load');
  loadButton.type = 'button';
  const bar = node('progress', 'rm-progress');
  bar.hidden = true;
  const barLabel = node('span', 'rm-progress-label');
  const error = node('p', 'rm-error');
  error.setAttribute('role', 'alert');
  const status = node('p', 'rm-status');
  status.setAttribute('aria-live', 'polite');
  const results = node('div', 'rm-results');
  root.replaceChildren(source, memory, loadButton, bar, barLabel, error, status, results);

  function label(): void {
    const t = realModelText();
    if (plan) {
      source.textContent = plan.local ? t.localSource(plan.local) : t.source(plan.sizes[plan.primary], `${plan.primary} (${plan.device === 'webgpu' ? 'WebGPU' : 'WebAssembly'})`, `huggingface.co/${HUB_REPOSITORY}`);
      loadButton.textContent = plan.local ? t.loadLocal : t.load;
    }
    const deviceMemory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
    memory.textContent = deviceMemory !== undefined && deviceMemory < 4 && !plan?.local ? t.lowMemory(deviceMemory) : '';
    rerender?.();
  }

  async function load(variant: string): Promise<LoadedModel> {
    adapter ??= await import('sampling-lab/transformers');
    const { env } = await import('@huggingface/transformers');
    // onnxruntime's WebAssembly comes from this site (the bundler emits it beside the script), not
    // from the CDN transformers.js points it at.
    (env.backends.onnx.wasm as { wasmPaths?: unknown }).wasmPaths = undefined;
    bar.hidden = false;
    bar.removeAttribute('value');
    const options = { dtype: variant, device: plan!.device, progress: progressReporter(bar, barLabel) };
    try {
      return plan!.local
        ? await adapter.loadLocalModel(plan!.local, options)
        : await adapter.loadHubModel(HUB_REPOSITORY, options);
    } finally {
      bar.hidden = true;
      barLabel.textContent = '';
    }
  }

  loadButton.addEventListener('click', async () => {
    loadButton.disabled = true;
    error.textContent = '';
    status.textContent = realModelText().loading;
    try {
      lab = await sharedLab();
      primary = await load(plan!.primary);
      status.textContent = realModelText().loaded(plan!.device === 'webgpu' ? 'WebGPU' : 'WebAssembly');
      loadButton.hidden = true;
      const passage = await (await fetch(PASSAGE_URL)).text();
      const sections = [
        temperatureSection(lab, adapter!, primary, passage),
        speculativeSection(lab, adapter!, plan!, primary, passage, load),
        generationSection(lab, adapter!, primary),
      ];
      results.replaceChildren(...sections.map((s) => s.root));
      rerender = () => { for (const s of sections) s.relabel(); };
      rerender();
      results.dispatchEvent(new CustomEvent('real-model-ready', { bubbles: true }));
    } catch (caught) {
      status.textContent = '';
      error.textContent = realModelText().cannotRun + (caught as Error).message;
      loadButton.disabled = false;
    }
  });

  new MutationObserver(label).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  label();
  void choosePlan().then((chosen) => { plan = chosen; label(); });
}

interface Section {
  root: HTMLElement;
  relabel(): void;
}

// The chapter's first experiment: one position of the passage at three temperatures.
function temperatureSection(lab: Lab, adapter: Adapter, loaded: LoadedModel, passage: string): Section {
  const figures = REAL_MODEL_FIGURES.temperature;
  const root = node('section', 'rm-temperature');
  const title = node('h3');
  const text = node('p');
  const tableBox = node('div', 'rm-table-box');
  const tokens = node('p', 'rm-passage');
  const note = node('p', 'rm-note');
  note.setAttribute('aria-live', 'polite');
  root.append(title, text, tableBox, tokens, note);
  const ids = adapter.passageIds(loaded.tokenizer, passage);
  let rows: { temperature: number; topProb: number; tokensForMass: number }[] = [];
  let clicked: number | undefined;

  void adapter.positionLogits(loaded.model, ids, figures.position - 1).then((logits) => {
    rows = lab.runExperiment('temperature', { logits, temperatures: figures.rows.map((r) => r.temperature) }).rows;
    relabel();
  });
  const buttons = ids.map((id, index) => {
    const b = node('button', 'rm-token', loaded.tokenizer.decode([id]));
    b.type = 'button';
    b.dataset.index = String(index);
    b.addEventListener('click', async () => {
      const logits = await adapter.positionLogits(loaded.model, ids, index);
      const shape = document.querySelector<SamplingLabElement>('sampling-lab#shape');
      clicked = index + 1;
      await shape?.loadLogits(logits, realModelText().tokenTitle(index + 1, b.textContent ?? ''));
      relabel();
      shape?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    });
    return b;
  });
  buttons[figures.position - 1]?.classList.add('rm-token-chapter');
  tokens.append(...buttons);

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.temperatureTitle;
    text.textContent = t.temperatureText;
    for (const b of buttons) b.title = t.tokenTitle(Number(b.dataset.index) + 1, b.textContent ?? '');
    note.textContent = clicked ? t.loadedInto(clicked) : '';
    tableBox.replaceChildren(table(t.temperatureTitle, t.columns, rows.map((r, i) => [
      r.temperature, r.topProb.toFixed(3), r.tokensForMass.toLocaleString('en'),
      `${figures.rows[i].topProb.toFixed(3)} / ${figures.rows[i].tokensFor90.toLocaleString('en')}`,
    ])));
  }
  return { root, relabel };
}

// Acceptance = Σ min(p, q) = 1 − TV between the target and its 4-bit draft, per position.
function speculativeSection(lab: Lab, adapter: Adapter, plan: Plan, target: LoadedModel, passage: string,
                            load: (variant: string) => Promise<LoadedModel>): Section {
  const figures = REAL_MODEL_FIGURES.acceptance;
  const root = node('section', 'rm-speculative');
  const title = node('h3');
  const text = node('p');
  const run = node('button', 'rm-run');
  run.type = 'button';
  const progress = node('progress', 'rm-progress');
  progress.hidden = true;
  const output = node('div', 'rm-acceptance');
  output.setAttribute('aria-live', 'polite');
  root.append(title, text, run, progress, output);
  let summary: AcceptanceResult | undefined;
  let done = 0;

  run.addEventListener('click', async () => {
    run.disabled = true;
    try {
      // The primary model is the target when it is the higher-precision variant already.
      const targetModel = plan.target === plan.primary ? target : await load(plan.target);
      const draft = plan.draft === plan.primary ? target : await load(plan.draft);
      const ids = adapter.passageIds(target.tokenizer, passage, figures.positions);
      const accept: number[] = [];
      const tv: number[] = [];
      const targetRows = adapter.logitsRows(targetModel.model, ids);
      const draftRows = adapter.logitsRows(draft.model, ids);
      progress.hidden = false;
      progress.max = ids.length;
      for (;;) {
        const [p, q] = [await targetRows.next(), await draftRows.next()];
        if (p.done || q.done) break;
        const distance = lab.distance(lab.distribution(p.value.logits).probs, lab.distribution(q.value.logits).probs);
        accept.push(distance.overlap);
        tv.push(distance.tv);
        progress.value = done = accept.length;
        if (done % 25 === 0) relabel();
      }
      summary = lab.runExperiment('acceptance', { accept, tv });
      run.hidden = true;
    } catch (caught) {
      output.textContent = realModelText().cannotRun + (caught as Error).message;
      run.disabled = false;
    } finally {
      progress.hidden = true;
      relabel();
    }
  });

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.speculativeTitle;
    text.textContent = t.speculativeText(plan.target, plan.draft, Boolean(plan.local));
    run.textContent = plan.local ? t.runSpeculativeLocal : t.runSpeculative(plan.sizes[plan.target === plan.primary ? plan.draft : plan.target] ?? '');
    if (!summary) {
      output.textContent = done ? t.measuring(done, figures.positions) : '';
      return;
    }
    const s = summary;
    const names = t.acceptanceNames;
    const readouts = table(t.speculativeTitle, t.acceptanceRows, [
      [names.mean, s.mean.toFixed(2), figures.mean.toFixed(2)],
      [names.median, s.median.toFixed(2), figures.median.toFixed(2)],
      [names.min, s.min.toFixed(2), figures.min.toFixed(2)],
      [names.meanOneMinusTV, s.meanOneMinusTV.toFixed(2), figures.meanOneMinusTV.toFixed(2)],
      [names.maxDifference, s.maxDifference.toExponential(1), '< 1e-3'],
    ]);
    output.replaceChildren(readouts, histogram(s.histogram, t.histogramCaption, t.histogramColumns));
  }
  return { root, relabel };
}

// Bars of the acceptance histogram, with the same numbers in a table for screen readers.
function histogram(h: { edges: number[]; counts: number[] }, caption: string, columns: readonly string[]): HTMLElement {
  const box = node('figure', 'rm-histogram');
  const bars = node('div', 'rm-bars');
  bars.setAttribute('aria-hidden', 'true');
  const most = Math.max(1, ...h.counts);
  h.counts.forEach((count) => {
    const bar = node('span', 'rm-bar');
    bar.style.height = `${(100 * count) / most}%`;
    bars.append(bar);
  });
  const axis = node('div', 'rm-axis');
  axis.setAttribute('aria-hidden', 'true');
  axis.append(node('span', '', '0'), node('span', '', '0.5'), node('span', '', '1'));
  const data = table(caption, columns, h.counts.map((c, i) => [`${h.edges[i].toFixed(2)}–${h.edges[i + 1].toFixed(2)}`, c]));
  data.className = 'rm-visually-hidden';
  box.append(node('figcaption', '', caption), bars, axis, data);
  return box;
}

const SLIDERS = ['temperature', 'topK', 'topP', 'minP'] as const;
type SliderName = (typeof SLIDERS)[number];
// The filters as the widgets name them.
const FILTER_NAMES: Record<string, string> = { topK: 'top-k', topP: 'top-p', minP: 'min-p', epsilonCutoff: 'ε' };

// A prompt, the filter sliders and a seed; each generated token shows its step on hover or tap.
function generationSection(lab: Lab, adapter: Adapter, loaded: LoadedModel): Section {
  const root = node('section', 'rm-generate');
  const title = node('h3');
  const text = node('p');
  const promptLabel = node('label', 'rm-prompt-label');
  const prompt = node('textarea', 'rm-prompt');
  prompt.rows = 2;
  prompt.id = 'rm-prompt';
  promptLabel.htmlFor = prompt.id;
  const controls = node('div', 'rm-controls');
  // The sliders' ranges and defaults come from the option table.
  const sliders = SLIDERS.map((name) => {
    const spec = lab.options.find((o) => o.name === name)!;
    const box = node('div', 'rm-slider');
    const input = node('input');
    Object.assign(input, { type: 'range', id: `rm-${name}`, min: String(spec.slider!.min), max: String(spec.slider!.max), step: String(spec.slider!.step) });
    input.value = String(name === 'topP' ? 0.9 : spec.default);
    const labelNode = node('label');
    labelNode.htmlFor = input.id;
    const value = node('output', '', input.value);
    input.addEventListener('input', () => { value.textContent = input.value; });
    box.append(labelNode, input, value);
    return { name: name as SliderName, input, box, labelNode };
  });
  const seedLabel = node('label', 'rm-seed-label');
  const seed = node('input', 'rm-seed');
  Object.assign(seed, { type: 'number', id: 'rm-seed', min: '0', step: '1', value: '1' });
  seedLabel.htmlFor = seed.id;
  const seedBox = node('div', 'rm-slider');
  seedBox.append(seedLabel, seed);
  controls.append(...sliders.map((s) => s.box), seedBox);
  const go = node('button', 'rm-go');
  go.type = 'button';
  const stop = node('button', 'rm-stop');
  stop.type = 'button';
  stop.disabled = true;
  const output = node('p', 'rm-output');
  const step = node('div', 'rm-step');
  step.setAttribute('aria-live', 'polite');
  root.append(title, text, promptLabel, prompt, controls, go, stop, output, step);
  const steps: GeneratedToken[] = [];
  let shown: number | undefined;
  let controller: AbortController | undefined;

  go.addEventListener('click', async () => {
    controller = new AbortController();
    go.disabled = true;
    stop.disabled = false;
    output.replaceChildren(node('span', 'rm-prompt-echo', prompt.value));
    steps.length = 0;
    shown = undefined;
    step.replaceChildren();
    const options = Object.fromEntries(sliders.map((s) => [s.name, Number(s.input.value)]));
    try {
      for await (const generated of adapter.generateTokens(loaded.model, loaded.tokenizer, prompt.value, {
        lab, ...options, seed: Number(seed.value), maxNewTokens: GENERATED_TOKENS, topCandidates: 8, signal: controller.signal,
      })) {
        const index = steps.push(generated) - 1;
        const span = node('span', 'rm-generated', generated.text);
        span.tabIndex = 0;
        span.dataset.index = String(index);
        span.style.setProperty('--p', String(generated.prob));
        for (const event of ['mouseenter', 'focus', 'click']) span.addEventListener(event, () => show(index));
        output.append(span);
      }
    } catch (caught) {
      step.textContent = realModelText().cannotRun + (caught as Error).message;
    } finally {
      go.disabled = false;
      stop.disabled = true;
    }
  });
  stop.addEventListener('click', () => controller?.abort());

  function show(index: number): void {
    shown = index;
    const t = realModelText();
    const s = steps[index];
    const heading = node('p', 'rm-step-title', `«${s.text}» ${t.stepTitle(s.prob.toFixed(3), s.entropyBits.toFixed(2), s.kept.toLocaleString('en'))}`);
    const cuts = node('p', 'rm-cuts', s.cuts.map((c) => t.cut(FILTER_NAMES[c.filter] ?? c.filter, c.kept)).join(' · '));
    step.replaceChildren(heading, cuts, table(t.candidatesCaption, t.candidateColumns,
      s.top.map((c) => [JSON.stringify(c.text), c.prob.toFixed(4), c.kept ? t.yes : t.no])));
  }

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.generateTitle;
    text.textContent = t.generateText;
    promptLabel.textContent = t.prompt;
    if (!prompt.value || prompt.dataset.default === prompt.value) prompt.value = prompt.dataset.default = t.defaultPrompt;
    seedLabel.textContent = t.seed;
    const widgetText = strings();
    for (const s of sliders) s.labelNode.textContent = widgetText[s.name];
    go.textContent = t.generate;
    stop.textContent = t.stop;
    if (shown !== undefined) show(shown);
  }
  return { root, relabel };
}
