import type { ExperimentLab as Lab } from '../../lab/experiment-lab.js';
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

/** A token of a model's vocabulary with its string, e.g. { token: 9707, text: 'Hello' }. */
export interface ModelToken {
  token: number;
  text: string;
}

export interface Widget {
  /** Re-renders labels and charts after a change of language or colour scheme. */
  relabel(): void;
  destroy(): void;
  /**
   * Shows logits from elsewhere (a model's position), where the widget draws a distribution;
   * `tokens` names its most likely tokens for the chart and the list.
   */
  loadLogits?(logits: Float32Array, label: string, tokens?: readonly ModelToken[]): Promise<void>;
}

export type WidgetFactory = (context: WidgetContext) => Widget;
