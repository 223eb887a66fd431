/**
 * Registers `<sampling-lab>` once, however many times this module is imported.
 * @module sampling-lab/define
 */
import { SamplingLabElement } from '../widgets/sampling-lab-element.js';

if (!customElements.get('sampling-lab')) customElements.define('sampling-lab', SamplingLabElement);

export { SamplingLabElement };
