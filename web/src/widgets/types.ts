import type { Lab } from 'sampling-lab';

export interface Widget {
  /** Re-renders every label, after a language change. */
  relabel(): void;
  destroy(): void;
}

export type WidgetFactory = (host: HTMLElement, lab: Lab) => Widget;
