// The <sampling-lab> element class, without registering it (no side effects).
export { SamplingLabElement } from './element/sampling-lab-element.js';
