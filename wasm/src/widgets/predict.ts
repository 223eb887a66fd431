// Predict, then reveal: the reader commits to a guess (a slider or a choice) before a widget shows
// the answer, then sees the answer and how far the guess was. Until then the widget keeps the
// parts that give the answer away hidden (it asks `revealed()` when it renders).
import { segmented, slider, type Segmented, type Slider } from './controls.js';
import { element } from './dom.js';
import type { Kit } from './kit.js';
import { strings, type Strings } from './i18n.js';

type Label = (s: Strings) => string;

export interface PredictionSpec {
  /** Kebab-case name: the guess control's name. */
  name: string;
  question: Label;
  /** A numeric guess… */
  slider?: { label: Label; min: number; max: number; step: number; value: number; format: (v: number) => string };
  /** …or one of these choices. */
  choices?: (s: Strings) => Record<string, string>;
  /** Called when the answer is revealed, hidden again or the guess changes after the reveal: re-render. */
  onChange(): void;
}

export interface Prediction {
  root: HTMLElement;
  revealed(): boolean;
  /** The guess: the slider's value or the chosen key (undefined before a choice). */
  guess(): number | string | undefined;
  /** The answer and how far the guess was, shown once revealed. */
  setAnswer(text: string): void;
}

export function prediction(kit: Kit, spec: PredictionSpec): Prediction {
  const root = element('div', 'sl-predict');
  root.dataset.predict = spec.name;
  const question = element('p', 'sl-predict-question');
  kit.label(question, spec.question);
  const controls = element('div', 'sl-predict-controls');
  let revealed = false;
  let guessSlider: Slider | undefined;
  let guessChoice: Segmented<string> | undefined;
  let chosen: string | undefined;
  const changed = () => { if (revealed) spec.onChange(); };
  if (spec.slider) {
    const { label, ...range } = spec.slider;
    guessSlider = slider({ name: `${spec.name}-guess`, ...range, onInput: changed });
    guessSlider.input.dataset.guess = '';  // a guess, not a parameter: it moves no result
    kit.label({ set textContent(text: string) { guessSlider!.setLabel(text); } }, label);
    controls.append(guessSlider.root);
  }
  const reveal = kit.button('sl-reveal', (s) => s.revealAnswer, () => {
    revealed = true;
    layout();
    spec.onChange();
    answer.focus();
  });
  if (spec.choices) {
    const keys = Object.keys(spec.choices(strings()));
    guessChoice = segmented<string>(keys, '', (value) => {
      chosen = value;
      reveal.disabled = false;
      changed();
    });
    kit.onRelabel((s) => guessChoice!.setLabels(spec.choices!(s), spec.question(s)));
    controls.append(guessChoice.root);
    reveal.disabled = true;
  }
  const again = kit.button('sl-guess-again', (s) => s.guessAgain, () => {
    revealed = false;
    layout();
    spec.onChange();
    reveal.focus();
  });
  const answer = element('p', 'sl-predict-answer');
  answer.tabIndex = -1;
  answer.setAttribute('role', 'status');
  controls.append(reveal, again);
  root.append(question, controls, answer);
  function layout(): void {
    reveal.hidden = revealed;
    again.hidden = !revealed;
    answer.hidden = !revealed;
    root.classList.toggle('sl-revealed', revealed);
  }
  layout();
  return {
    root,
    revealed: () => revealed,
    guess: () => (guessSlider ? guessSlider.value() : chosen),
    setAnswer: (text) => { answer.textContent = revealed ? text : ''; },
  };
}
