// The widget kit: one experiment's widget is its controls and its render; the kit owns the
// rest — the skeleton, runs on the main thread or in the page's Worker (only the latest reports),
// coalescing of slider drags, progress, localised errors, change events, relabelling and
// teardown.
import type { ExperimentLab as Lab } from '../lab/experiment-lab.js';
import { SamplingLabError } from '../lab/errors.js';
import type { ExperimentName } from '../lab/experiments.js';
import type { ParamSpec } from '../lab/schema.js';
import { button, readouts, segmented, toggle, type Readouts, type Segmented, type Slider, type Toggle } from './controls.js';
import { element } from './dom.js';
import { localiseError, strings, type Strings } from './i18n.js';
import type { ModelToken, Widget, WidgetContext } from './experiments/types.js';
import { handbookPanel } from './handbook-panel.js';
import { runInWorker } from './worker-client.js';

type Params = Record<string, unknown>;
type Label = (s: Strings) => string;

/** A chart the kit owns: rebuilt after a change of language or colour scheme, destroyed with the widget. */
export interface Chart {
  reset(): void;
  destroy(): void;
}

export interface SliderOptions {
  label: Label;
  /** The schema parameter it sets, when the control's own name differs. */
  param?: string;
  format?: (value: number) => string;
  /** Overrides of the schema's slider (or the whole slider, for a control that is not a parameter). */
  min?: number;
  max?: number;
  step?: number;
  value?: number;
  /** Slider position for an attribute's value, where the two differ (e.g. log scales). */
  fromAttribute?: (value: number) => number;
  /** Called on input instead of scheduling a run. */
  onInput?: () => void;
}

export interface ChoiceOptions<T extends string> {
  labels: (s: Strings) => Record<T, string>;
  groupLabel: Label;
  initial?: T;
  /** Called on a choice, before the run it schedules. */
  onSelect?: (value: T) => void;
}

export interface Kit {
  lab: Lab;
  /** The widget's parts, in page order: toolbar, controls, status (progress and errors), body. */
  root: HTMLElement;
  toolbar: HTMLElement;
  controls: HTMLElement;
  body: HTMLElement;
  /** The schema of one of the experiment's parameters. */
  param(name: string): ParamSpec;
  /** Asks for a run with the current controls: one per frame on the main thread, debounced for the Worker. */
  update(): void;
  /** A slider for parameter `name`, its range, step and default from the schema unless overridden. */
  slider(name: string, options: SliderOptions): Slider;
  /** Mutually exclusive buttons: the choices of parameter `name`, or the keys of `labels`. */
  choice<T extends string>(name: string, options: ChoiceOptions<T>): Segmented<T>;
  toggle(name: string, label: Label): Toggle;
  button(className: string, label: Label, onClick: () => void): HTMLButtonElement;
  readouts(names: readonly string[]): Readouts;
  /** Registers a chart: reset on relabel, destroyed with the widget. */
  chart<C extends Chart>(chart: C): C;
  /** Text that follows the language. */
  label(node: { textContent: string | null }, label: Label): void;
  /** The handbook's figures under the widget, if it has any: hidden while they would give a guess away. */
  handbook?: HTMLElement;
  /** Anything else that follows the language, called with the strings at each relabel. */
  onRelabel(callback: (s: Strings) => void): void;
}

export interface WidgetSetup<R> {
  /** The parameters of the next run, read from the controls; undefined while there is nothing to run. */
  params(): Params | undefined;
  /** Draws a result; called again after a change of language or colour scheme. */
  render(result: R): void;
  /** Whatever else follows the language. */
  relabel?(): void;
  destroy?(): void;
  loadLogits?(logits: Float32Array, label: string, tokens?: readonly ModelToken[]): Promise<void>;
}

export interface ExperimentWidgetSpec<R> {
  experiment: ExperimentName;
  /** Runs that take long go to the page's Worker, with a progress bar. */
  inWorker?: (params: Params | undefined) => boolean;
  /** A main-thread computation standing in for runExperiment, for vocabulary-sized views. */
  compute?: (params: Params) => R;
  setup(kit: Kit): WidgetSetup<R>;
}

const WORKER_DEBOUNCE_MS = 150;

export function experimentWidget<R>(context: WidgetContext, spec: ExperimentWidgetSpec<R>): Widget {
  const { host, lab } = context;
  const schema = lab.experiments.find((e) => e.name === spec.experiment)!.params;
  const root = element('div', `sl-widget sl-${spec.experiment}`);
  const toolbar = element('div', 'sl-toolbar');
  const controls = element('div', 'sl-sliders');
  const status = element('div', 'sl-progress-box');
  const bar = element('progress', 'sl-progress');
  bar.max = 1;
  bar.hidden = true;
  const failure = element('p', 'sl-error');
  failure.setAttribute('role', 'alert');
  status.append(bar, failure);
  const body = element('div', 'sl-body');
  const handbook = handbookPanel(spec.experiment);
  root.append(toolbar, controls, status, body, ...(handbook ? [handbook.root] : []));
  host.replaceChildren(root);

  const labels: [{ textContent: string | null }, Label][] = [];
  const relabelControls: ((s: Strings) => void)[] = [];
  const charts: Chart[] = [];
  let last: { result: R; params: Params } | undefined;
  let latest = 0;
  // The Worker run in flight: a newer run cancels it.
  let inFlight: AbortController | undefined;
  let frame = 0;
  let timer = 0;

  const param = (name: string): ParamSpec => {
    const found = schema.find((p) => p.name === name);
    if (!found) throw new Error(`experiment ${spec.experiment} has no parameter ${name}`);
    return found;
  };

  const kit: Kit = {
    lab, root, toolbar, controls, body, param, handbook: handbook?.root,
    update: () => {
      if (spec.inWorker?.(setup.params())) {
        clearTimeout(timer);
        timer = window.setTimeout(() => void run(), WORKER_DEBOUNCE_MS);
      } else if (!frame) {
        frame = requestAnimationFrame(() => { frame = 0; void run(); });
      }
    },
    slider: (name, options) => {
      const schemaSlider = schema.find((p) => p.name === (options.param ?? name));
      const range = { ...schemaSlider?.slider, ...pick(options, ['min', 'max', 'step']) };
      const created = context.slider({
        name: kebab(name),
        min: range.min!,
        max: range.max!,
        step: range.step!,
        value: options.value ?? (schemaSlider?.default as number),
        format: options.format ?? String,
        fromAttribute: options.fromAttribute,
        onInput: options.onInput ?? kit.update,
      });
      // The shown value too: its format may hold words (a unit, "greedy").
      relabelControls.push((s) => { created.setLabel(options.label(s)); created.set(created.value()); });
      return created;
    },
    choice: <T extends string>(name: string, options: ChoiceOptions<T>) => {
      const choices = (schema.find((p) => p.name === name)?.choices ?? Object.keys(options.labels(strings()))) as T[];
      const created = segmented<T>(choices, options.initial ?? choices[0], (value) => { options.onSelect?.(value); kit.update(); });
      relabelControls.push((s) => created.setLabels(options.labels(s), options.groupLabel(s)));
      return created;
    },
    toggle: (name, label) => {
      const created = toggle(kebab(name), kit.update);
      relabelControls.push((s) => created.setLabel(label(s)));
      return created;
    },
    button: (className, label, onClick) => {
      const created = button(className, onClick);
      labels.push([created, label]);
      return created;
    },
    readouts: (names) => readouts(names),
    chart: (chart) => {
      charts.push(chart);
      return chart;
    },
    label: (node, label) => { labels.push([node, label]); },
    onRelabel: (callback) => { relabelControls.push(callback); },
  };

  const setup = spec.setup(kit);

  async function run(): Promise<void> {
    const params = setup.params();
    const id = ++latest;
    if (!params) {
      context.ready();  // nothing to run yet (e.g. no file chosen): show the controls
      return;
    }
    try {
      let result: R;
      if (spec.inWorker?.(params)) {
        const reveal = window.setTimeout(() => { if (id === latest) bar.hidden = false; }, 16);
        bar.removeAttribute('value');
        bar.setAttribute('aria-label', strings().running);
        inFlight?.abort();
        const controller = new AbortController();
        inFlight = controller;
        try {
          result = await runInWorker<R>({ kind: 'experiment', name: spec.experiment, params },
            (fraction) => { if (id === latest) bar.value = fraction; }, controller.signal);
        } finally {
          if (inFlight === controller) inFlight = undefined;
          clearTimeout(reveal);
          if (id === latest) bar.hidden = true;
        }
      } else {
        result = spec.compute ? spec.compute(params) : lab.runExperiment(spec.experiment, params) as R;
      }
      if (id !== latest) return;
      failure.textContent = '';
      body.classList.remove('sl-stale');
      last = { result, params };
      drawnWidth = root.clientWidth;
      setup.render(result);
      context.emit(params, result);
      context.ready();
    } catch (error) {
      if (id !== latest) return;
      if (!(error instanceof SamplingLabError)) {
        context.ready();
        throw error;
      }
      if (error.argument === 'onProgress') return;  // cancelled by a newer run
      failure.textContent = localiseError(error);
      body.classList.add('sl-stale');
      context.ready();
    }
  }

  function relabel(): void {
    const s = strings();
    if (bar.hasAttribute('aria-label')) bar.setAttribute('aria-label', s.running);
    for (const relabelControl of relabelControls) relabelControl(s);
    for (const [node, label] of labels) node.textContent = label(s);
    setup.relabel?.();
    handbook?.relabel();
    for (const chart of charts) chart.reset();
    if (last) setup.render(last.result);
  }

  // Charts draw in CSS pixels of their width: a new width redraws them.
  let drawnWidth = 0;
  const resize = new ResizeObserver(() => {
    const width = root.clientWidth;
    if (!last || Math.abs(width - drawnWidth) < 8) return;
    drawnWidth = width;
    setup.render(last.result);
  });
  resize.observe(root);

  relabel();
  void run();
  return {
    relabel,
    loadLogits: setup.loadLogits,
    destroy: () => {
      latest++;
      inFlight?.abort();
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      resize.disconnect();
      handbook?.destroy();
      setup.destroy?.();
      for (const chart of charts) chart.destroy();
    },
  };
}

/** topP → top-p: the attribute and URL key of a parameter. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function pick<T extends object, K extends keyof T>(object: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => object[k] !== undefined).map((k) => [k, object[k]])) as Partial<Pick<T, K>>;
}
