// The page's real-model section: Qwen3-0.6B through transformers.js, opt-in. Every number comes
// from Sampling Lab's core (distribution, distance, the temperature and acceptance experiments);
// every model runs in the model Worker (model-worker.ts) and this file only shows what it sends.
// `?model=/models/tiny-qwen3` points it at a local model folder instead of the hub (fp32 target,
// q4 draft), for offline tests.
import type { AcceptanceResult, OptionSpec } from 'sampling-lab';
import type { SamplingLabElement } from 'sampling-lab/element';
import { formatFigure, REAL_MODEL_FIGURES } from 'sampling-lab/handbook';
import type { GeneratedStep } from './model-protocol';
import { beamSection, speculativeDecodingSection } from './real-model-decoding';
import {
  button, choosePlan, failureText, filterSliders, HUB_REPOSITORY, node, pairNames, progressShown, promptField, runAndStop, sameModel, seedField, table,
  type Plan, type Runner, type Section,
} from './real-model-kit';
import { realModelText } from './text';
import { shownTexts } from './passage-display';

const PASSAGE_URL = new URL('sample-passage.txt', document.baseURI).href;
const GENERATED_TOKENS = 48;
// A position's most likely tokens, named in the shape widget's chart and list.
const TOP_TOKENS = 10;
// The model the page's text names (web/src/languages/).
const DEFAULT_MODEL = 'Qwen3-0.6B';
// A generated token repeats the text when it ends a run of this many tokens that already occurred.
const REPEAT_RUN = 4;
// A JSON object runs to its closing brace: room for a small schema's output.
const JSON_TOKENS = 160;

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
  // Before any download: what the section computes, with the chapter's own figures as the
  // chapter's. Folded: it appears after the page has scrolled to an anchor below it, and open it
  // would push that anchor down.
  const preview = node('details', 'rm-preview');
  const previewTitle = node('summary');
  const previewText = node('p');
  const previewTable = node('div', 'rm-table-box');
  preview.append(previewTitle, previewText, previewTable);
  root.replaceChildren(source, memory, loadButton, bar, barLabel, error, status, preview, results);
  const run = progressShown(bar, barLabel);
  let failed: (() => string) | undefined;

  function label(): void {
    const t = realModelText();
    if (plan) {
      source.textContent = plan.local ? t.localSource(plan.local)
        : t.source(plan.sizes[plan.primary.dtype], `${plan.primary.dtype} (${plan.device === 'webgpu' ? 'WebGPU' : 'WebAssembly'})`, `huggingface.co/${plan.repository ?? HUB_REPOSITORY}`);
      loadButton.textContent = plan.local ? t.loadLocal : t.load;
    }
    error.textContent = failed?.() ?? '';
    previewTitle.textContent = t.previewTitle;
    previewText.textContent = t.previewText;
    previewTable.replaceChildren(table(t.previewTitle, t.previewColumns,
      t.previewRows(REAL_MODEL_FIGURES.temperature.rows, REAL_MODEL_FIGURES.acceptance)));
    const deviceMemory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
    memory.textContent = deviceMemory !== undefined && deviceMemory < 4 && !plan?.local ? t.lowMemory(deviceMemory) : '';
    // The section's heading and introduction name the model that ?model= chose, not the default.
    const chosen = plan?.local ?? (plan?.repository !== HUB_REPOSITORY ? plan?.repository : undefined);
    if (chosen) {
      for (const text of root.parentElement?.querySelectorAll<HTMLElement>(':scope > [data-i18n]') ?? []) {
        text.textContent = (text.textContent ?? '').replaceAll(DEFAULT_MODEL, chosen);
      }
    }
    rerender?.();
  }

  loadButton.addEventListener('click', async () => {
    loadButton.disabled = true;
    failed = undefined;
    error.textContent = '';
    status.textContent = realModelText().loading;
    // Indeterminate until the first file reports its size.
    bar.hidden = false;
    bar.removeAttribute('value');
    try {
      // Now the device is chosen: WebGPU where the browser has an adapter for it.
      if (!plan!.local) {
        plan = await choosePlan(true);
        label();
      }
      // The option table comes from the Worker's Sampling Lab: none is instantiated here for this section.
      const [options, passage] = await Promise.all([run({ kind: 'options' }), fetch(PASSAGE_URL).then((response) => response.text()),
        run({ kind: 'load', model: plan!.primary })]);
      status.textContent = realModelText().loaded(plan!.device === 'webgpu' ? 'WebGPU' : 'WebAssembly');
      loadButton.hidden = true;
      preview.hidden = true;
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
      failed = failureText(caught);
      error.textContent = failed();
      bar.hidden = true;
      loadButton.disabled = false;
    }
  });

  new MutationObserver(label).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  label();
  void choosePlan(false).then((chosen) => { plan = chosen; label(); });
}

// The chapter's first experiment: one position of the passage at three temperatures.
async function temperatureSection(run: Runner, plan: Plan, passage: string): Promise<Section> {
  const figures = REAL_MODEL_FIGURES.temperature;
  const root = node('section', 'rm-temperature');
  const title = node('h3');
  const text = node('p');
  const tableBox = node('div', 'rm-table-box');
  const passageNote = node('p', 'rm-note rm-passage-note');
  const tokens = node('div', 'rm-passage');
  const note = node('p', 'rm-note');
  note.setAttribute('aria-live', 'polite');
  root.append(title, text, tableBox, passageNote, tokens, note);
  const { ids, units } = await run({ kind: 'passage', model: plan.primary, text: passage });
  let rows: { temperature: number; topProb: number; tokensForMass: number }[] = [];
  let clicked: number | undefined;

  void run({ kind: 'temperature', model: plan.primary, ids, index: figures.position - 1, temperatures: figures.rows.map((r) => r.temperature) })
    .then((computed) => {
      rows = computed;
      relabel();
    });
  // Each shown piece of text is one option; its distribution is the one after its last token.
  const shown = shownTexts(units);
  const options = units.flatMap((unit, i) => {
    if (!shown[i]) return [];
    const option = node('span', 'rm-token', shown[i]);
    option.setAttribute('role', 'option');
    option.setAttribute('aria-selected', 'false');
    option.tabIndex = -1;
    option.dataset.index = String(unit.first + unit.count - 1);
    if (unit.first <= figures.position - 1 && figures.position - 1 < unit.first + unit.count) option.classList.add('rm-token-chapter');
    return [option];
  });
  tokens.append(...options);
  const passageList = optionList(tokens, options, async (option) => {
    const index = Number(option.dataset.index);
    const { logits, top } = await run({ kind: 'position', model: plan.primary, ids, index, top: TOP_TOKENS });
    const shape = document.querySelector<SamplingLabElement>('sampling-lab#shape');
    clicked = index + 1;
    await shape?.loadLogits(logits, realModelText().tokenTitle(index + 1, option.textContent ?? ''), top);
    note.textContent = realModelText().loadedInto(clicked);
    // In a task of its own: the scroll lays out the page the widget has just redrawn.
    requestAnimationFrame(() => shape?.scrollIntoView({ behavior: 'smooth', block: 'start' }));
  });
  passageList.focus(options.find((o) => o.classList.contains('rm-token-chapter')) ?? options[0], false);

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.temperatureTitle;
    text.textContent = t.temperatureText;
    passageNote.textContent = t.passageNote;
    tokens.setAttribute('aria-label', t.passageLabel);
    for (const o of options) o.title = t.tokenTitle(Number(o.dataset.index) + 1, o.textContent ?? '');
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
      output.textContent = failureText(caught)();
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
      [names.median, s.median.toFixed(2), t.notInChapter],
      [names.min, s.min.toFixed(2), figures.min.toFixed(2)],
      [names.meanOneMinusTV, s.meanOneMinusTV.toFixed(2), t.sameAsMean],
      [names.maxDifference, formatFigure(s.maxDifference, 4), '< 0.001'],
    ]);
    output.replaceChildren(readouts, histogram(s.histogram, t.histogramCaption, t.histogramColumns));
  }
  return { root, relabel };
}

/**
 * A listbox of inline options, one tab stop: arrow keys move within it (up and down by line),
 * Home and End to the ends, Enter, Space or a click choose.
 */
function optionList(box: HTMLElement, options: HTMLElement[], choose: (option: HTMLElement) => Promise<void>): { focus(option: HTMLElement | undefined, move: boolean): void } {
  box.setAttribute('role', 'listbox');
  let current: HTMLElement | undefined;
  const focus = (option: HTMLElement | undefined, move = true) => {
    if (!option) return;
    if (current) current.tabIndex = -1;
    current = option;
    option.tabIndex = 0;
    if (move) option.focus();
  };
  // The option on the next (or previous) line nearest in x, as a caret would go.
  const lineAway = (from: HTMLElement, direction: 1 | -1): HTMLElement | undefined => {
    const here = from.getBoundingClientRect();
    const x = here.left + here.width / 2;
    let best: HTMLElement | undefined;
    let bestLine = Infinity;
    let bestGap = Infinity;
    for (let i = options.indexOf(from) + direction; i >= 0 && i < options.length; i += direction) {
      const rect = options[i].getBoundingClientRect();
      const line = direction > 0 ? rect.top - here.bottom : here.top - rect.bottom;
      if (line < -here.height / 2) continue;  // still on this line
      if (line > bestLine + 1) break;  // past the nearest line
      bestLine = Math.min(bestLine, line);
      const gap = Math.abs(rect.left + rect.width / 2 - x);
      if (gap < bestGap) [best, bestGap] = [options[i], gap];
    }
    return best;
  };
  box.addEventListener('keydown', (event) => {
    if (!current) return;
    const at = options.indexOf(current);
    const next: Record<string, HTMLElement | undefined> = {
      ArrowRight: options[at + 1], ArrowLeft: options[at - 1], ArrowDown: lineAway(current, 1), ArrowUp: lineAway(current, -1),
      Home: options[0], End: options[options.length - 1],
    };
    if (event.key in next) {
      event.preventDefault();
      focus(next[event.key]);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      void select(current);
    }
  });
  const select = async (option: HTMLElement) => {
    for (const o of options) o.setAttribute('aria-selected', String(o === option));
    await choose(option);
  };
  box.addEventListener('click', (event) => {
    const option = (event.target as HTMLElement).closest<HTMLElement>('[role="option"]');
    if (!option) return;
    focus(option);
    void select(option);
  });
  return { focus };
}

/** Whether the last REPEAT_RUN tokens of `ids` occurred together before. */
function repeatsEarlierRun(ids: readonly number[]): boolean {
  const n = ids.length;
  if (n < REPEAT_RUN + 1) return false;
  for (let start = 0; start + REPEAT_RUN < n; start++) {
    let same = true;
    for (let k = 0; k < REPEAT_RUN && same; k++) same = ids[start + k] === ids[n - REPEAT_RUN + k];
    if (same) return true;
  }
  return false;
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
  const json = jsonModeFields();
  const { go, stop } = runAndStop('rm-go', generate);
  // T → 0 is greedy decoding: the same text every time, and it tends to loop.
  const greedy = button('rm-greedy');
  greedy.addEventListener('click', () => {
    const temperature = filters.boxes[0].querySelector('input')!;
    temperature.value = '0';
    temperature.dispatchEvent(new Event('input'));
    go.click();
  });
  const output = node('p', 'rm-output');
  const repeats = node('p', 'rm-note rm-repeats');
  repeats.setAttribute('aria-live', 'polite');
  const parsed = node('div', 'rm-parsed');
  const step = node('div', 'rm-step');
  step.setAttribute('aria-live', 'polite');
  root.append(title, text, prompt.label, prompt.input, controls, json.box, go, stop, greedy, output, repeats, parsed, step);
  const steps: GeneratedStep[] = [];
  let shown: number | undefined;
  let repeated = 0;

  async function generate(signal: AbortSignal): Promise<void> {
    output.replaceChildren(node('span', 'rm-prompt-echo', prompt.input.value));
    parsed.replaceChildren();
    steps.length = 0;
    shown = undefined;
    repeated = 0;
    repeats.textContent = '';
    step.replaceChildren();
    const jsonSchema = json.toggle.checked ? json.schema.value : undefined;
    try {
      await run({
        kind: 'generate', model: plan.primary, prompt: prompt.input.value, filters: { ...filters.values(), seed: Number(seed.input.value) },
        maxNewTokens: jsonSchema === undefined ? GENERATED_TOKENS : JSON_TOKENS, topCandidates: 8, ...(jsonSchema !== undefined && { jsonSchema }),
      }, {
        signal,
        onEvent: (generated) => {
          const index = steps.push(generated) - 1;
          const span = node('span', 'rm-generated', generated.text);
          span.tabIndex = 0;
          span.dataset.index = String(index);
          span.dataset.token = String(generated.token);
          span.style.setProperty('--p', String(generated.prob));
          if (repeatsEarlierRun(steps.map((s) => s.token))) {
            span.classList.add('rm-repeat');
            repeated++;
          }
          for (const event of ['mouseenter', 'focus', 'click']) span.addEventListener(event, () => show(index));
          output.append(span);
          showRepeats();
        },
      });
      if (jsonSchema !== undefined && !signal.aborted) showParsed();
    } catch (caught) {
      step.textContent = failureText(caught)();
    }
  }

  // The JSON output as the browser's JSON.parse reads it, laid out.
  function showParsed(): void {
    const t = realModelText();
    const generated = steps.map((s) => s.textDelta).join('');
    try {
      parsed.replaceChildren(node('p', 'rm-parsed-title', t.parsedCaption), node('pre', 'rm-parsed-json', JSON.stringify(JSON.parse(generated), null, 2)));
    } catch (error) {
      parsed.replaceChildren(node('p', 'rm-parsed-title', t.notParsed((error as Error).message)));
    }
  }

  function show(index: number): void {
    shown = index;
    const t = realModelText();
    const s = steps[index];
    const heading = node('p', 'rm-step-title', `«${s.text}» ${t.stepTitle(s.prob.toFixed(3), s.entropyBits.toFixed(2), s.kept.toLocaleString('en'))}`);
    const cuts = node('p', 'rm-cuts', s.cuts.map((c) => t.cut(FILTER_NAMES[c.filter] ?? c.filter, c.kept)).join(' · '));
    const grammar = s.grammarAllowed === undefined ? [] : [node('p', 'rm-grammar-allowed', s.grammarAllowed === 0
      ? t.grammarForced : t.grammarAllowed(s.grammarAllowed.toLocaleString('en'), s.vocabSize!.toLocaleString('en')))];
    step.replaceChildren(heading, ...grammar, cuts, table(t.candidatesCaption, t.candidateColumns,
      s.top.map((c) => [JSON.stringify(c.text), c.prob.toFixed(4), c.kept ? t.yes : t.no])));
  }

  function showRepeats(): void {
    repeats.textContent = steps.length ? realModelText().repeats(repeated, steps.length, REPEAT_RUN) : '';
  }

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.generateTitle;
    text.textContent = t.generateText;
    greedy.textContent = t.greedyRun;
    showRepeats();
    prompt.relabel(t.defaultPrompt);
    seed.relabel();
    filters.relabel();
    go.textContent = t.generate;
    stop.textContent = t.stop;
    json.relabel();
    if (shown !== undefined) show(shown);
  }
  return { root, relabel };
}

// A small schema to start from: a compact object, a bounded integer, an enum and a short array.
const DEFAULT_SCHEMA = JSON.stringify({
  type: 'object',
  properties: {
    // Patterned strings: xgrammar's plain JSON strings admit raw tabs, which JSON.parse refuses.
    city: { type: 'string', pattern: '^[A-Za-z ]{1,24}$' },
    population: { type: 'integer', minimum: 0 },
    climate: { enum: ['cold', 'mild', 'hot'] },
    districts: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z ]{1,16}$' }, maxItems: 3 },
  },
  required: ['city', 'population', 'climate', 'districts'],
  additionalProperties: false,
}, null, 2);

// The JSON-mode switch and its editable schema (shown while the switch is on).
function jsonModeFields(): { box: HTMLElement; toggle: HTMLInputElement; schema: HTMLTextAreaElement; relabel(): void } {
  const box = node('div', 'rm-json');
  const switchLabel = node('label', 'rm-json-mode');
  const toggle = node('input');
  Object.assign(toggle, { type: 'checkbox', id: 'rm-json-toggle' });
  const switchText = node('span');
  switchLabel.append(toggle, switchText);
  const schemaLabel = node('label', 'rm-schema-label');
  const schema = node('textarea', 'rm-schema');
  Object.assign(schema, { id: 'rm-schema', rows: 8, spellcheck: false, value: DEFAULT_SCHEMA });
  schemaLabel.htmlFor = schema.id;
  const schemaBox = node('div', 'rm-schema-box');
  schemaBox.append(schemaLabel, schema);
  schemaBox.hidden = true;
  toggle.addEventListener('change', () => { schemaBox.hidden = !toggle.checked; });
  box.append(switchLabel, schemaBox);
  return {
    box, toggle, schema,
    relabel() {
      const t = realModelText();
      switchText.textContent = t.jsonMode;
      schemaLabel.textContent = t.schemaLabel;
    },
  };
}
