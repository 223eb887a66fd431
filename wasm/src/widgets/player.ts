// The play/pause button of a step-through panel (the samplers' draws, the speculative stepper):
// while playing it takes a step every interval() ms; its label and aria-pressed say which.
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
