// The <sampling-lab> element class, without registering it (no side effects).
export { SamplingLabElement } from './element/sampling-lab-element.js';
export { sharedLab } from './element/lab.js';
export { strings } from './element/i18n.js';
export type { ModelToken } from './element/widgets/types.js';
