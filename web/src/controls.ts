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
