// The widgets' controls: labelled range sliders, buttons, toggles, segmented choices, readouts.
import { element, setText } from './dom.js';

let nextId = 0;

/** A slider built by {@link slider}: its elements, and how to read and change it. */
export interface Slider {
  /** The wrapper holding the label, the range input and the shown value. */
  root: HTMLElement;
  input: HTMLInputElement;
  /** The input's current value. */
  value(): number;
  /** Moves the slider to `value` and updates the shown value, without an input event. */
  set(value: number): void;
  /** Sets the label's text. */
  setLabel(text: string): void;
  /** Sets the input's min and max and updates the shown value. */
  setRange(min: number, max: number): void;
}

/** What {@link slider} builds a slider from. */
export interface SliderSpec {
  /** Kebab-case parameter name; also the element attribute that sets its first value. */
  name: string;
  min: number;
  max: number;
  step: number;
  value: number;
  /** The value as shown beside the slider (and as its aria-valuetext). */
  format: (value: number) => string;
  /** Called on each input event, after the shown value is updated. */
  onInput: () => void;
  /** Slider position for an attribute's value, where the two differ (e.g. log scales). */
  fromAttribute?: (value: number) => number;
  /** The input's id, where a page addresses it (default: unique, from the name). */
  id?: string;
}

/** A labelled, keyboard-operable <input type=range> with its value shown beside it. */
export function slider(spec: SliderSpec): Slider {
  const id = spec.id ?? `sl-${spec.name}-${nextId++}`;
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

export function button(className: string, onClick: () => void): HTMLButtonElement {
  const node = element('button', className);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

export interface Readouts {
  root: HTMLElement;
  set(name: string, term: string, value: string): void;
}

/** A list of labelled numbers, one per name, announced once they settle. */
// Readouts change many times a second while a slider moves or a sweep plays: screen readers hear
// them once things settle, in one sentence.
const ANNOUNCE_AFTER_MS = 1000;

export function readouts(names: readonly string[]): Readouts {
  const root = element('div', 'sl-readouts-box');
  const list = element('dl', 'sl-readouts');
  const announcer = element('p', 'sl-visually-hidden');
  announcer.setAttribute('role', 'status');
  root.append(list, announcer);
  let timer = 0;
  const items = new Map<string, { term: HTMLElement; value: HTMLElement }>();
  for (const name of names) {
    const item = element('div', 'sl-readout');
    item.dataset.readout = name;
    const term = element('dt');
    const value = element('dd');
    item.append(term, value);
    list.append(item);
    items.set(name, { term, value });
  }
  return {
    root,
    set: (name, term, value) => {
      const item = items.get(name)!;
      setText(item.term, term);
      setText(item.value, value);
      clearTimeout(timer);
      timer = window.setTimeout(() => {
        announcer.textContent = [...items.values()].filter((i) => !i.term.parentElement!.hidden && i.value.textContent)
          .map((i) => `${i.term.textContent} ${i.value.textContent}`).join('; ');
      }, ANNOUNCE_AFTER_MS);
    },
  };
}

export interface Toggle {
  root: HTMLElement;
  input: HTMLInputElement;
  checked(): boolean;
  setLabel(text: string): void;
}

export function toggle(name: string, onChange: () => void): Toggle {
  const root = element('label', 'sl-toggle');
  const input = element('input');
  input.type = 'checkbox';
  input.name = name;
  input.addEventListener('change', onChange);
  const text = element('span');
  root.append(input, text);
  return { root, input, checked: () => input.checked, setLabel: (t) => { text.textContent = t; } };
}

export interface Segmented<T extends string> {
  root: HTMLElement;
  value(): T;
  /** Chooses `value` as a click would. */
  select(value: T): void;
  setLabels(labels: Record<T, string>, groupLabel: string): void;
}

/** A group of mutually exclusive buttons (aria-pressed marks the chosen one). */
export function segmented<T extends string>(options: readonly T[], initial: T, onSelect: (value: T) => void): Segmented<T> {
  let current = initial;
  const root = element('div', 'sl-segmented');
  root.setAttribute('role', 'group');
  const select = (option: T) => {
    current = option;
    buttons.forEach((other, i) => other.setAttribute('aria-pressed', String(options[i] === current)));
    onSelect(option);
  };
  const buttons = options.map((option) => {
    const b = button('sl-segment', () => select(option));
    b.dataset.value = option;
    b.setAttribute('aria-pressed', String(option === initial));
    return b;
  });
  root.append(...buttons);
  return {
    root,
    value: () => current,
    select,
    setLabels: (labels, groupLabel) => {
      root.setAttribute('aria-label', groupLabel);
      buttons.forEach((b, i) => { b.textContent = labels[options[i]]; });
    },
  };
}
