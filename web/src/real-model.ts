// The page's real-model section: Qwen3-0.6B through transformers.js, opt-in. Every number comes
// from Sampling Lab's core (distribution, distance, the temperature and acceptance experiments);
// every model runs in the model Worker (model-worker.ts) and this file only shows what it sends.
// `?model=/models/tiny-qwen3` points it at a local model folder instead of the hub (fp32 target,
// q4 draft), for offline tests.
import type { AcceptanceResult, OptionSpec } from 'sampling-lab';
import type { SamplingLabElement } from 'sampling-lab/element';
import { REAL_MODEL_FIGURES } from 'sampling-lab/handbook';
import type { GeneratedStep } from './model-protocol';
import { beamSection, speculativeDecodingSection } from './real-model-decoding';
import {
  button, choosePlan, filterSliders, HUB_REPOSITORY, node, pairNames, progressShown, promptField, runAndStop, sameModel, seedField, table,
  type Plan, type Runner, type Section,
} from './real-model-kit';
import { realModelText } from './real-model-text';

const PASSAGE_URL = new URL('sample-passage.txt', document.baseURI).href;
const GENERATED_TOKENS = 48;

export function mountRealModel(root: HTMLElement): void {
  let plan: Plan | undefined;
  let rerender: (() => void) | undefined;

  const source = node('p', 'rm-source');
  const memory = node('p', 'rm-note');
  const loadButton = button('rm-load');
  const bar = node('progress', 'rm-progress');
  bar.hidden = true;
  const barLabel = node('span', 'rm-progress-label');
  const error = node('p', 'rm-error');
  error.setAttribute('role', 'alert');
  const status = node('p', 'rm-status');
  status.setAttribute('aria-live', 'polite');
  const results = node('div', 'rm-results');
  root.replaceChildren(source, memory, loadButton, bar, barLabel, error, status, results);
  const run = progressShown(bar, barLabel);

  function label(): void {
    const t = realModelText();
    if (plan) {
      source.textContent = plan.local ? t.localSource(plan.local)
        : t.source(plan.sizes[plan.primary.dtype], `${plan.primary.dtype} (${plan.device === 'webgpu' ? 'WebGPU' : 'WebAssembly'})`, `huggingface.co/${plan.repository ?? HUB_REPOSITORY}`);
      loadButton.textContent = plan.local ? t.loadLocal : t.load;
    }
    const deviceMemory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
    memory.textContent = deviceMemory !== undefined && deviceMemory < 4 && !plan?.local ? t.lowMemory(deviceMemory) : '';
    rerender?.();
  }

  loadButton.addEventListener('click', async () => {
    loadButton.disabled = true;
    error.textContent = '';
    status.textContent = realModelText().loading;
    // Indeterminate until the first file reports its size.
    bar.hidden = false;
    bar.removeAttribute('value');
    try {
      // The option table comes from the Worker's Sampling Lab: none is instantiated here for this section.
      const [options, passage] = await Promise.all([run({ kind: 'options' }), fetch(PASSAGE_URL).then((response) => response.text()),
        run({ kind: 'load', model: plan!.primary })]);
      status.textContent = realModelText().loaded(plan!.device === 'webgpu' ? 'WebGPU' : 'WebAssembly');
      loadButton.hidden = true;
      const sections = [
        await temperatureSection(run, plan!, passage),
        speculativeSection(run, plan!, passage),
        speculativeDecodingSection(options, run, plan!),
        generationSection(options, run, plan!),
        beamSection(run, plan!),
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

// The chapter's first experiment: one position of the passage at three temperatures.
async function temperatureSection(run: Runner, plan: Plan, passage: string): Promise<Section> {
  const figures = REAL_MODEL_FIGURES.temperature;
  const root = node('section', 'rm-temperature');
  const title = node('h3');
  const text = node('p');
  const tableBox = node('div', 'rm-table-box');
  const tokens = node('p', 'rm-passage');
  const note = node('p', 'rm-note');
  note.setAttribute('aria-live', 'polite');
  root.append(title, text, tableBox, tokens, note);
  const { ids, texts } = await run({ kind: 'passage', model: plan.primary, text: passage });
  let rows: { temperature: number; topProb: number; tokensForMass: number }[] = [];
  let clicked: number | undefined;

  void run({ kind: 'temperature', model: plan.primary, ids, index: figures.position - 1, temperatures: figures.rows.map((r) => r.temperature) })
    .then((computed) => {
      rows = computed;
      relabel();
    });
  const buttons = texts.map((tokenText, index) => {
    const b = button('rm-token');
    b.textContent = tokenText;
    b.dataset.index = String(index);
    b.addEventListener('click', async () => {
      const logits = await run({ kind: 'position', model: plan.primary, ids, index });
      const shape = document.querySelector<SamplingLabElement>('sampling-lab#shape');
      clicked = index + 1;
      await shape?.loadLogits(logits, realModelText().tokenTitle(index + 1, tokenText));
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
function speculativeSection(run: Runner, plan: Plan, passage: string): Section {
  const figures = REAL_MODEL_FIGURES.acceptance;
  const root = node('section', 'rm-speculative');
  const title = node('h3');
  const text = node('p');
  const start = button('rm-run');
  const progress = node('progress', 'rm-progress');
  progress.hidden = true;
  const output = node('div', 'rm-acceptance');
  output.setAttribute('aria-live', 'polite');
  root.append(title, text, start, progress, output);
  let summary: AcceptanceResult | undefined;
  let done = 0;

  start.addEventListener('click', async () => {
    start.disabled = true;
    try {
      const { ids } = await run({ kind: 'passage', model: plan.target, text: passage, maxTokens: figures.positions });
      progress.hidden = false;
      progress.max = ids.length;
      summary = await run({ kind: 'acceptance', target: plan.target, draft: plan.draft, ids }, {
        onEvent: (positions) => {
          progress.value = done = positions;
          relabel();
        },
      });
      start.hidden = true;
    } catch (caught) {
      output.textContent = realModelText().cannotRun + (caught as Error).message;
      start.disabled = false;
    } finally {
      progress.hidden = true;
      relabel();
    }
  });

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.speculativeTitle;
    const pair = pairNames(plan);
    text.textContent = t.speculativeText(pair.target, pair.draft, pair.kind);
    start.textContent = plan.local ? t.runSpeculativeLocal : t.runSpeculative(plan.sizes[sameModel(plan.target, plan.primary) ? plan.draft.dtype : plan.target.dtype]);
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

// The filters as the widgets name them.
const FILTER_NAMES: Record<string, string> = { topK: 'top-k', topP: 'top-p', minP: 'min-p', epsilonCutoff: 'ε' };

// A prompt, the filter sliders and a seed; each generated token shows its step on hover or tap.
function generationSection(options: readonly OptionSpec[], run: Runner, plan: Plan): Section {
  const root = node('section', 'rm-generate');
  const title = node('h3');
  const text = node('p');
  const prompt = promptField('rm-prompt');
  const filters = filterSliders(options, 'rm-');
  const seed = seedField('rm-seed');
  const controls = node('div', 'rm-controls');
  controls.append(...filters.boxes, seed.box);
  const { go, stop } = runAndStop('rm-go', generate);
  const output = node('p', 'rm-output');
  const step = node('div', 'rm-step');
  step.setAttribute('aria-live', 'polite');
  root.append(title, text, prompt.label, prompt.input, controls, go, stop, output, step);
  const steps: GeneratedStep[] = [];
  let shown: number | undefined;

  async function generate(signal: AbortSignal): Promise<void> {
    output.replaceChildren(node('span', 'rm-prompt-echo', prompt.input.value));
    steps.length = 0;
    shown = undefined;
    step.replaceChildren();
    try {
      await run({
        kind: 'generate', model: plan.primary, prompt: prompt.input.value, filters: { ...filters.values(), seed: Number(seed.input.value) },
        maxNewTokens: GENERATED_TOKENS, topCandidates: 8,
      }, {
        signal,
        onEvent: (generated) => {
          const index = steps.push(generated) - 1;
          const span = node('span', 'rm-generated', generated.text);
          span.tabIndex = 0;
          span.dataset.index = String(index);
          span.style.setProperty('--p', String(generated.prob));
          for (const event of ['mouseenter', 'focus', 'click']) span.addEventListener(event, () => show(index));
          output.append(span);
        },
      });
    } catch (caught) {
      step.textContent = realModelText().cannotRun + (caught as Error).message;
    }
  }

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
    prompt.relabel(t.defaultPrompt);
    seed.relabel();
    filters.relabel();
    go.textContent = t.generate;
    stop.textContent = t.stop;
    if (shown !== undefined) show(shown);
  }
  return { root, relabel };
}
