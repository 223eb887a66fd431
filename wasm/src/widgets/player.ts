// The play/pause button of a step-through panel (the samplers' draws, the speculative and beam
// steppers): while playing it takes a step every interval() ms; its label and aria-pressed say
// which. And a core run shown one step at a time, as the steppers show theirs.
import type { Strings } from './i18n.js';
import { strings } from './i18n.js';
import type { Kit } from './kit.js';

export interface Player {
  button: HTMLButtonElement;
  start(): void;
  pause(): void;
  playing(): boolean;
}

/** A step may pause the player (at the end of a run): the next tick is set before it runs. */
export function player(kit: Kit, step: () => void, interval: () => number): Player {
  let timer = 0;
  const button = kit.button('sl-play', (s) => (timer ? s.pauseDraws : s.playDraws), () => (timer ? pause() : start()));
  const show = () => {
    button.textContent = timer ? strings().pauseDraws : strings().playDraws;
    button.setAttribute('aria-pressed', String(timer !== 0));
  };
  function start(): void {
    const tick = () => {
      timer = window.setTimeout(tick, interval());
      step();
    };
    timer = window.setTimeout(tick, 0);
    show();
  }
  function pause(): void {
    clearTimeout(timer);
    timer = 0;
    show();
  }
  return { button, start, pause, playing: () => timer !== 0 };
}

/** A core run shown one step at a time; `run` and `shown` are what render() draws. */
export interface StepThrough<R> {
  readonly run: R | undefined;
  /** Steps shown, 0 … run.steps.length. */
  readonly shown: number;
  step: HTMLButtonElement;
  play: Player;
  /** Runs it again when its settings changed, then shows it before its first step. */
  follow(): void;
  /** Back to before the first step. */
  restart(): void;
}

/**
 * The step button and the player of a run with `steps`: a step shows one more, and after the last
 * the run starts again from its first (the player pauses there).
 */
export function stepThrough<S, R extends { steps: readonly unknown[] }>(kit: Kit, options: {
  settings: () => S; run: (settings: S) => R; render: () => void; stepLabel: (s: Strings) => string; stepsPerSecond: number;
}): StepThrough<R> {
  let run: R | undefined;
  let key = '';
  let shown = 0;
  const advance = () => {
    if (!run) return play.pause();
    if (shown >= run.steps.length) shown = 0;
    shown++;
    options.render();
    if (shown >= run.steps.length) play.pause();
  };
  const play = player(kit, advance, () => 1000 / options.stepsPerSecond);
  const step = kit.button('sl-step', options.stepLabel, () => { play.pause(); advance(); });
  return {
    get run() { return run; },
    get shown() { return shown; },
    step,
    play,
    follow() {
      const chosen = options.settings();
      const next = JSON.stringify(chosen);
      if (next === key) return;
      key = next;
      play.pause();
      run = options.run(chosen);
      shown = 0;
      options.render();
    },
    restart() {
      play.pause();
      shown = 0;
      options.render();
    },
  };
}
