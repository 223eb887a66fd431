// Small DOM helpers shared by widgets: labelled range sliders and readouts.
let nextId = 0;

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K, className?: string, text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export interface Slider {
  root: HTMLElement;
  input: HTMLInputElement;
  value(): number;
  set(value: number): void;
  setLabel(text: string): void;
  setRange(min: number, max: number): void;
}

export interface SliderSpec {
  name: string;
  min: number;
  max: number;
  step: number;
  value: number;
  format: (value: number) => string;
  onInput: () => void;
}

/** A labelled, keyboard-operable <input type=range> with its value shown beside it. */
export function slider(spec: SliderSpec): Slider {
  const id = `sl-${spec.name}-${nextId++}`;
  const root = element('div', 'sl-slider');
  const label = element('label');
  label.htmlFor = id;
  const input = element('input');
  Object.assign(input, { type: 'range', id, name: spec.name, min: String(spec.min), max: String(spec.max), step: String(spec.step) });
  input.value = String(spec.value);
  const output = element('output');
  output.htmlFor.add(id);
  const show = () => {
    output.textContent = spec.format(Number(input.value));
    input.setAttribute('aria-valuetext', output.textContent);
  };
  input.addEventListener('input', () => { show(); spec.onInput(); });
  root.append(label, input, output);
  show();
  return {
    root,
    input,
    value: () => Number(input.value),
    set: (value) => { input.value = String(value); show(); },
    setLabel: (text) => { label.textContent = text; },
    setRange: (min, max) => { input.min = String(min); input.max = String(max); show(); },
  };
}

/**
 * Runs `task` and shows a progress bar if it outlasts a frame, or the error if it fails. Only
 * the latest run of a runner reports back; earlier results are dropped.
 */
export function workerRunner(host: HTMLElement, label: () => string) {
  const bar = element('progress', 'sl-progress');
  bar.max = 1;
  bar.hidden = true;
  const failure = element('p', 'sl-error');
  failure.setAttribute('role', 'alert');
  host.append(bar, failure);
  let latest = 0;
  return async <T>(task: (onProgress: (fraction: number) => void) => Promise<T>): Promise<T | undefined> => {
    const run = ++latest;
    bar.setAttribute('aria-label', label());
    const reveal = window.setTimeout(() => { if (run === latest) bar.hidden = false; }, 16);
    bar.removeAttribute('value');
    try {
      const result = await task((fraction) => { if (run === latest) bar.value = fraction; });
      if (run === latest) failure.textContent = '';
      return run === latest ? result : undefined;
    } catch (error) {
      if (run === latest) failure.textContent = (error as Error).message;
      return undefined;
    } finally {
      clearTimeout(reveal);
      if (run === latest) bar.hidden = true;
    }
  };
}

export function button(className: string, onClick: () => void): HTMLButtonElement {
  const node = element('button', className);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}
