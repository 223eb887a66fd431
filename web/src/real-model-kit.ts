// What the real-model section's parts share: the package's widget kit (its DOM helpers and
// labelled slider, re-exported), the section's own controls, the job runner
// that shows download progress, and the plan of which model files to use.
import type { OptionSpec } from 'sampling-lab';
import { element as node, fillTable, slider as kitSlider, strings } from 'sampling-lab/element';
import { runModelJob, type JobListeners } from './model-client';
import { isLocalSource, type Filters, type JobKind, type JobRequest, type Jobs, type Loading, type ModelRef } from './model-protocol';
import { realModelText, type DraftKind } from './text';

export { node };

export const HUB_REPOSITORY = 'onnx-community/Qwen3-0.6B-ONNX';

/** A part of the section: its element and how it rewrites its text in the page's language. */
export interface Section {
  root: HTMLElement;
  relabel(): void;
}

export function button(className: string): HTMLButtonElement {
  const created = node('button', className);
  created.type = 'button';
  return created;
}

/**
 * A run button and its stop button: a click runs `run` with a signal that the stop button
 * aborts, the run button disabled and the stop button enabled meanwhile.
 */
export function runAndStop(runClass: string, run: (signal: AbortSignal) => Promise<void>): { go: HTMLButtonElement; stop: HTMLButtonElement } {
  const go = button(runClass);
  const stop = button('rm-stop');
  stop.disabled = true;
  let controller: AbortController | undefined;
  go.addEventListener('click', async () => {
    controller = new AbortController();
    go.disabled = true;
    stop.disabled = false;
    try {
      await run(controller.signal);
    } finally {
      go.disabled = false;
      stop.disabled = true;
    }
  });
  stop.addEventListener('click', () => controller?.abort());
  return { go, stop };
}

export function table(caption: string, head: readonly string[], rows: (string | number)[][]): HTMLTableElement {
  return fillTable(node('table', 'rm-table'), { caption, head, rows });
}

// Which files to fetch: the 4-bit model for the reader's device, and for the acceptance and
// speculative experiments a higher-precision target beside a 4-bit draft, or the pair that
// ?model= and ?draft= name (local folders or hub repositories sharing a tokenizer).
export interface Plan {
  /** The ?model= folder, when it is one: nothing comes from the network. */
  local?: string;
  /** The hub repository, otherwise. */
  repository?: string;
  device: 'webgpu' | 'wasm';
  primary: ModelRef;
  target: ModelRef;
  draft: ModelRef;
  /** Sizes of the default repository's files by dtype. */
  sizes: Record<string, string>;
}

// `probeGpu`: ask for a WebGPU adapter. Chromium warns in the console when it finds none, so the
// page asks only once the reader presses the load button; until then it names the WebAssembly plan.
export async function choosePlan(probeGpu: boolean): Promise<Plan> {
  const query = new URLSearchParams(location.search);
  const [asked, draftAsked] = [query.get('model'), query.get('draft')];
  const at = (source: string, dtype: ModelRef['dtype'], device: Plan['device'] = 'wasm'): ModelRef => ({ source, dtype, device });
  // A draft from elsewhere runs at the precision its side would: fp32 from a folder, else 4-bit.
  const draftOr = (fallback: ModelRef): ModelRef => (draftAsked
    ? at(draftAsked, isLocalSource(draftAsked) ? 'fp32' : fallback.dtype, fallback.device)
    : fallback);
  if (asked && isLocalSource(asked)) {
    return { local: asked, device: 'wasm', primary: at(asked, 'fp32'), target: at(asked, 'fp32'), draft: draftOr(at(asked, 'q4')), sizes: {} };
  }
  const repository = asked ?? HUB_REPOSITORY;
  // Sizes of the hub's files for Qwen3-0.6B, rounded.
  const sizes = (known: Record<string, string>) => (repository === HUB_REPOSITORY ? known : {});
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<{ features: Set<string> } | null> } }).gpu;
  const adapter = probeGpu ? await gpu?.requestAdapter().catch(() => null) : null;
  if (adapter?.features.has('shader-f16')) {
    const on = (dtype: ModelRef['dtype']) => at(repository, dtype, 'webgpu');
    return { repository, device: 'webgpu', primary: on('q4f16'), target: on('fp16'), draft: draftOr(on('q4f16')), sizes: sizes({ q4f16: '0.57 GB', fp16: '1.2 GB' }) };
  }
  const on = (dtype: ModelRef['dtype']) => at(repository, dtype);
  return { repository, device: 'wasm', primary: on('q4'), target: on('q8'), draft: draftOr(on('q4')), sizes: sizes({ q4: '0.9 GB', q8: '0.75 GB' }) };
}

/** How the section names the target and the draft, and where the draft comes from. */
export function pairNames(plan: Plan): { target: string; draft: string; kind: DraftKind } {
  const other = plan.draft.source !== plan.target.source;
  const name = (ref: ModelRef) => (other ? `${ref.source} ${ref.dtype}` : ref.dtype);
  return { target: name(plan.target), draft: name(plan.draft), kind: other ? 'other' : plan.local ? 'local' : 'hub' };
}

export const sameModel = (a: ModelRef, b: ModelRef): boolean => a.source === b.source && a.dtype === b.dtype && a.device === b.device;

/** Runs a model job; download progress shows in the loader's bar meanwhile (and reaches the job's own onLoading). */
export type Runner = <K extends JobKind>(request: JobRequest<K>, listeners?: JobListeners<K>) => Promise<Jobs[K]['result']>;

export function progressShown(bar: HTMLProgressElement, label: HTMLElement): Runner {
  let loading = 0;
  const show = (progress: Loading) => {
    bar.hidden = false;
    bar.max = progress.total;
    bar.value = progress.loaded;
    label.textContent = realModelText().megabytes(progress.loaded / 1e6, progress.total / 1e6);
  };
  return async (request, listeners = {}) => {
    loading++;
    try {
      return await runModelJob(request, {
        ...listeners,
        onLoading: (progress) => {
          show(progress);
          listeners.onLoading?.(progress);
        },
      });
    } finally {
      if (--loading === 0) {
        bar.hidden = true;
        label.textContent = '';
      }
    }
  };
}

/** A labelled prompt box whose default text follows the page's language until the reader edits it. */
export function promptField(id: string): { label: HTMLLabelElement; input: HTMLTextAreaElement; relabel(defaultText: string): void } {
  const label = node('label', 'rm-prompt-label');
  const input = node('textarea', 'rm-prompt');
  input.rows = 2;
  input.id = id;
  label.htmlFor = id;
  return {
    label,
    input,
    relabel(defaultText) {
      label.textContent = realModelText().prompt;
      if (!input.value || input.dataset.default === input.value) input.value = input.dataset.default = defaultText;
    },
  };
}

export interface Slider {
  box: HTMLElement;
  input: HTMLInputElement;
  setLabel(text: string): void;
}

/** The widget kit's labelled slider (its value as aria-valuetext too), with the id the page addresses. */
export function slider(id: string, range: { min: number; max: number; step: number; value: number }): Slider {
  const made = kitSlider({ name: id, id, ...range, format: String, onInput: () => {} });
  made.root.classList.add('rm-slider');
  return { box: made.root, input: made.input, setLabel: made.setLabel };
}

/** A labelled number box for a seed. */
export function seedField(id: string): { box: HTMLElement; input: HTMLInputElement; relabel(): void } {
  const label = node('label', 'rm-seed-label');
  const input = node('input', 'rm-seed');
  Object.assign(input, { type: 'number', id, min: '0', step: '1', value: '1' });
  label.htmlFor = id;
  const box = node('div', 'rm-slider');
  box.append(label, input);
  return { box, input, relabel: () => { label.textContent = realModelText().seed; } };
}

const FILTERS = ['temperature', 'topK', 'topP', 'minP'] as const;

/** Sliders for the temperature and the filters, ranges and defaults from the option table. */
export function filterSliders(options: readonly OptionSpec[], idPrefix: string): { boxes: HTMLElement[]; values(): Filters; relabel(): void } {
  const sliders = FILTERS.map((name) => {
    const spec = options.find((o) => o.name === name)!;
    return { name, ...slider(`${idPrefix}${name}`, { ...spec.slider!, value: name === 'topP' ? 0.9 : Number(spec.default) }) };
  });
  return {
    boxes: sliders.map((s) => s.box),
    values: () => Object.fromEntries(sliders.map((s) => [s.name, Number(s.input.value)])),
    relabel() {
      const widgetText = strings();
      for (const s of sliders) s.setLabel(widgetText[s.name]);
    },
  };
}

/**
 * What went wrong, in the reader's language at each call: a download that failed (offline, a
 * refused request, a missing file) is the network's doing, not the device's.
 */
export function failureText(caught: unknown): () => string {
  const message = caught instanceof Error ? caught.message : String(caught);
  const network = /failed to fetch|networkerror|network error|load failed|could not locate|unable to (get|fetch|load)|\b(40[0-9]|50[0-9])\b|http/i;
  if (!navigator.onLine) return () => realModelText().offline;
  if (network.test(message)) return () => realModelText().downloadFailed(message);
  return () => realModelText().cannotRun + message;
}

