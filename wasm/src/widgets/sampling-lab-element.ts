// <sampling-lab experiment="…">: one chapter experiment as a live widget. It loads the page's
// shared WebAssembly instance and builds itself only once it first scrolls into view.
import { button, slider, type Slider, type SliderSpec } from './controls.js';
import { element } from './dom.js';
import { isDark, onHostChange, strings } from './i18n.js';
import { sharedLab } from './lab.js';
import { installStyles } from './styles.js';
import { WIDGETS } from './experiments/index.js';
import type { ModelToken, Widget, WidgetContext } from './experiments/types.js';

// How long the sliders rest before their values are written into the address.
const URL_WRITE_DELAY_MS = 250;

/**
 * `<sampling-lab experiment="…">`: one chapter experiment as a live widget. It loads the page's
 * shared WebAssembly instance and builds itself only once it first scrolls into view.
 */
export class SamplingLabElement extends HTMLElement {
  #widget?: Widget;
  #started?: Promise<void>;
  #visibility?: IntersectionObserver;
  #stopWatching?: () => void;
  #sliders: { slider: Slider; initial: number }[] = [];
  // Slider values (undefined: back at the initial one) not yet in the address, and their timer.
  #unwritten = new Map<string, number | undefined>();
  #urlTimer = 0;
  // Whether the element made itself a tab stop until it is built.
  #placeholderStop = false;
  // What the element says before its widget is built, in the page's language of the moment.
  #statusText?: () => string;
  // Resolves when the widget has drawn its first result.
  #drawn = resolvable();

  constructor() {
    super();
    // Inner controls' native change events end here, after their own listeners ran: listeners on
    // <sampling-lab> and above see only the widget's change, with its documented detail. Added at
    // construction, this runs before every listener added once the element is defined.
    this.addEventListener('change', (event) => {
      if (event.target !== this) event.stopImmediatePropagation();
    });
  }

  /** Custom-element hook: installs the styles, shows the loading line and waits for the element to near the viewport before building the widget. */
  connectedCallback(): void {
    if (this.#visibility || this.#widget) return;
    installStyles();
    this.#status(() => strings().loading);
    // A widget not started yet still follows the page's language (its loading line).
    this.#stopWatching = onHostChange(() => {
      if (this.#widget) {
        this.#labelFooter();
        this.#widget.relabel();
      } else if (this.#statusText) {
        this.#status(this.#statusText);
      }
    });
    this.#visibility = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.#visibility?.disconnect();
        this.#started ??= this.#start();
      }
    }, { rootMargin: '200px' });
    this.#visibility.observe(this);
    // Until it is built the element itself is a tab stop, so that Tab pressed faster than it
    // builds still stops here; focused, it builds and hands focus to its first control.
    if (!this.hasAttribute('tabindex')) {
      this.tabIndex = 0;
      this.#placeholderStop = true;
      this.addEventListener('focus', () => void this.#focusWhenBuilt(), { once: true });
    }
  }

  async #focusWhenBuilt(): Promise<void> {
    this.#visibility?.disconnect();
    this.#started ??= this.#start();
    await this.#drawn.promise;
    if (document.activeElement === this || document.activeElement === document.body) {
      this.querySelector<HTMLElement>('input, button, select, textarea, a[href], [tabindex="0"]')?.focus();
    }
  }

  /** Custom-element hook: stops watching, destroys the widget and forgets its sliders, so that reconnecting builds it afresh. */
  disconnectedCallback(): void {
    this.#visibility?.disconnect();
    this.#visibility = undefined;
    this.#stopWatching?.();
    this.#stopWatching = undefined;
    this.#widget?.destroy();
    this.#widget = undefined;
    this.#started = undefined;
    this.#drawn = resolvable();
    this.#sliders = [];
  }

  /** Returns every slider to its first value. */
  reset(): void {
    for (const { slider: s, initial } of this.#sliders) {
      s.set(initial);
      s.input.dispatchEvent(new Event('input'));
    }
    // A click, not a hand on a slider: the address follows at once.
    this.#writeUrl();
  }

  /**
   * Loads logits from elsewhere, e.g. a model's distribution at one position, into a widget that
   * draws distributions (filters, temperature), under its own tab, with `tokens` naming the most
   * likely tokens; builds the widget first if it has not started.
   */
  async loadLogits(logits: Float32Array, label: string, tokens?: readonly ModelToken[]): Promise<void> {
    this.#visibility?.disconnect();
    this.#started ??= this.#start();
    await this.#started;
    if (!this.#widget?.loadLogits) throw new Error(`the ${this.#experiment} widget shows no logits`);
    // Building the widget and drawing the logits are tasks of their own, each well under 100 ms;
    // the widget computes what it draws in the page's Worker.
    await this.#drawn.promise;
    await this.#widget?.loadLogits?.(logits, label, tokens);
  }

  get #experiment(): string {
    return this.getAttribute('experiment') ?? '';
  }

  async #start(): Promise<void> {
    const factory = WIDGETS[this.#experiment];
    if (!factory) {
      this.#status(() => strings().unknownExperiment + this.#experiment);
      return;
    }
    try {
      const lab = await sharedLab();
      if (!this.isConnected) return;
      // Hidden until its first result is drawn: its parts appear at once instead of moving.
      this.classList.add('sl-starting');
      this.#statusText = undefined;
      this.#widget = factory(this.#context(lab));
      this.append(this.#footer());
      this.#labelFooter();
    } catch (error) {
      this.#status(() => strings().loadFailed + (error as Error).message);
      throw error;
    }
  }

  #context(lab: WidgetContext['lab']): WidgetContext {
    return {
      host: this,
      lab,
      slider: (spec) => this.#slider(spec),
      emit: (params, result) => this.dispatchEvent(new CustomEvent('change', {
        bubbles: true, detail: { experiment: this.#experiment, params, result },
      })),
      ready: () => {
        this.classList.remove('sl-starting');
        // Built: its own controls are the tab stops now.
        if (this.#placeholderStop) this.removeAttribute('tabindex');
        this.#placeholderStop = false;
        this.#drawn.resolve();
      },
    };
  }

  #slider(spec: SliderSpec): Slider {
    const attribute = this.getAttribute(spec.name);
    const fromAttribute = spec.fromAttribute ?? ((v: number) => v);
    const initial = attribute !== null && Number.isFinite(Number(attribute)) ? fromAttribute(Number(attribute)) : spec.value;
    const remembered = this.hasAttribute('url-state') ? Number(new URLSearchParams(location.search).get(this.#urlKey(spec.name)) ?? NaN) : NaN;
    const created = slider({
      ...spec,
      value: Number.isFinite(remembered) ? remembered : initial,
      onInput: () => {
        if (this.hasAttribute('url-state')) this.#remember(spec.name, created.value(), initial);
        spec.onInput();
      },
    });
    this.#sliders.push({ slider: created, initial });
    return created;
  }

  #urlKey(name: string): string {
    return `${this.id || this.#experiment}.${name}`;
  }

  // Slider values live in the query string, so a setting can be shared as a link. Written once a
  // hand rests: a history entry per input event was a tenth of a redraw.
  #remember(name: string, value: number, initial: number): void {
    this.#unwritten.set(this.#urlKey(name), value === initial ? undefined : value);
    clearTimeout(this.#urlTimer);
    this.#urlTimer = window.setTimeout(() => this.#writeUrl(), URL_WRITE_DELAY_MS);
  }

  #writeUrl(): void {
    clearTimeout(this.#urlTimer);
    if (this.#unwritten.size === 0) return;
    const url = new URL(location.href);
    for (const [key, kept] of this.#unwritten) {
      if (kept === undefined) url.searchParams.delete(key);
      else url.searchParams.set(key, String(kept));
    }
    this.#unwritten.clear();
    history.replaceState(history.state, '', url);
  }

  #footer(): HTMLElement {
    const footer = element('div', 'sl-footer');
    const reset = button('sl-reset', () => this.reset());
    const copy = button('sl-copy-embed', () => void this.#showEmbedCode(code, confirmation));
    const confirmation = element('span', 'sl-copied');
    confirmation.setAttribute('role', 'status');
    const code = element('textarea', 'sl-embed-code');
    code.readOnly = true;
    code.hidden = true;
    code.rows = 4;
    footer.append(reset, copy, confirmation, code);
    return footer;
  }

  // An iframe of this widget's page under embed/, plus the listener that sizes it.
  // An iframe of this widget's page under embed/ with the current settings, language and theme,
  // plus the listener that sizes it; copied to the clipboard, with a word that it was.
  async #showEmbedCode(code: HTMLTextAreaElement, confirmation: HTMLElement): Promise<void> {
    const base = this.getAttribute('embed-base') ?? new URL('embed/', document.baseURI).href;
    const src = new URL(`${this.#experiment}.html`, base.endsWith('/') ? base : `${base}/`);
    for (const { slider: s, initial } of this.#sliders) {
      if (s.value() !== initial) src.searchParams.set(s.input.name, String(s.value()));
    }
    src.searchParams.set('lang', document.documentElement.lang.toLowerCase().startsWith('en') ? 'en' : 'zh-CN');
    src.searchParams.set('theme', isDark(this) ? 'dark' : 'light');
    code.value = `<iframe src="${src.href.replace(/&/g, '&amp;')}" title="Sampling Lab: ${this.#experiment}" loading="lazy" style="width:100%;border:0"></iframe>\n`
      + '<script>addEventListener("message",e=>{if(e.data&&e.data.type==="sampling-lab:height")'
      + 'for(const f of document.querySelectorAll("iframe"))if(f.contentWindow===e.source)f.style.height=e.data.height+"px"})</script>';
    code.hidden = false;
    code.select();
    const copied = await (navigator.clipboard?.writeText(code.value).then(() => true, () => false) ?? Promise.resolve(false));
    confirmation.textContent = copied ? strings().embedCopied : strings().embedSelected;
  }

  #labelFooter(): void {
    const s = strings();
    const footer = this.querySelector(':scope > .sl-footer')!;
    footer.querySelector('.sl-reset')!.textContent = s.reset;
    footer.querySelector('.sl-copy-embed')!.textContent = s.copyEmbed;
    footer.querySelector('.sl-embed-code')!.setAttribute('aria-label', s.embedCode);
  }

  #status(text: () => string): void {
    this.#statusText = text;
    const note = document.createElement('p');
    note.className = 'sl-status';
    note.textContent = text();
    this.replaceChildren(note);
  }
}

/** A promise with its resolve function beside it. */
function resolvable(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => { resolve = done; });
  return { promise, resolve };
}
