import type { Lab } from '../../index.js';
import type { Slider, SliderSpec } from '../controls.js';

export interface WidgetContext {
  host: HTMLElement;
  lab: Lab;
  /**
   * A slider whose first value comes from the address (with the url-state attribute), else the
   * element's attribute of the same name, else spec.value. The reset button returns it there.
   */
  slider(spec: SliderSpec): Slider;
  /** Announces the current parameters and result as a bubbling `change` event. */
  emit(params: object, result: unknown): void;
  /** The first result (or error) is drawn: the widget may be shown. */
  ready(): void;
}

export interface Widget {
  /** Re-renders labels and charts after a change of language or colour scheme. */
  relabel(): void;
  destroy(): void;
  /** Shows logits from elsewhere (a model's position), where the widget draws a distribution. */
  loadLogits?(logits: Float32Array, label: string): void;
}

export type WidgetFactory = (context: WidgetContext) => Widget;
