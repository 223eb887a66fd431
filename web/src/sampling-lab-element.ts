// <sampling-lab experiment="…">: one chapter experiment as a live widget. It loads the shared
// WebAssembly instance and builds itself only once it first scrolls into view.
import { onLanguageChange, strings } from './i18n';
import { sharedLab } from './lab';
import { filtersWidget } from './widgets/filters';
import { importanceWidget } from './widgets/importance';
import { mcErrorWidget } from './widgets/mc-error';
import { sampleSizeWidget } from './widgets/sample-size';
import { samplersWidget } from './widgets/samplers';
import { sequenceWidget } from './widgets/sequence';
import { speculativeWidget } from './widgets/speculative';
import type { Widget, WidgetFactory } from './widgets/types';

const WIDGETS: Record<string, WidgetFactory> = {
  filters: filtersWidget,
  samplers: samplersWidget,
  'mc-error': mcErrorWidget,
  sequence: sequenceWidget,
  speculative: speculativeWidget,
  importance: importanceWidget,
  'sample-size': sampleSizeWidget,
};

export class SamplingLabElement extends HTMLElement {
  #widget?: Widget;
  #visibility?: IntersectionObserver;
  #stopLanguage?: () => void;

  connectedCallback(): void {
    if (this.#visibility || this.#widget) return;
    this.#status(strings().loading);
    this.#visibility = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.#visibility?.disconnect();
        void this.#start();
      }
    }, { rootMargin: '200px' });
    this.#visibility.observe(this);
  }

  disconnectedCallback(): void {
    this.#visibility?.disconnect();
    this.#visibility = undefined;
    this.#stopLanguage?.();
    this.#widget?.destroy();
    this.#widget = undefined;
  }

  async #start(): Promise<void> {
    const name = this.getAttribute('experiment') ?? '';
    const factory = WIDGETS[name];
    if (!factory) {
      this.#status(strings().unknownExperiment + name);
      return;
    }
    try {
      const lab = await sharedLab();
      if (!this.isConnected) return;
      this.#widget = factory(this, lab);
      this.#stopLanguage = onLanguageChange(() => this.#widget?.relabel());
    } catch (error) {
      this.#status(strings().loadFailed + (error as Error).message);
      throw error;
    }
  }

  #status(text: string): void {
    const note = document.createElement('p');
    note.className = 'sl-status';
    note.textContent = text;
    this.replaceChildren(note);
  }
}
