/**
 * The `<sampling-lab>` element class, without registering it (no side effects).
 * @module sampling-lab/element
 */
export { SamplingLabElement } from '../widgets/sampling-lab-element.js';
export { sharedLab } from '../widgets/lab.js';
export { localised, strings, type Strings } from '../widgets/i18n.js';
// The widget kit's DOM helpers and labelled slider, which the page builds its own sections from.
export { element, fillTable, type Cell, type TableData } from '../widgets/dom.js';
export { slider, type Slider, type SliderSpec } from '../widgets/controls.js';
export type { ModelToken } from '../widgets/experiments/types.js';
