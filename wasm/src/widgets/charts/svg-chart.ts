// What every SVG chart shares: an <svg role="img"> in its box, drawn in CSS pixels of the box's
// width (so text keeps its size on a phone), with a legend and the hidden table that stands in
// for it for screen readers.
import { chartSize, element, svg } from '../dom.js';
import type { Chart } from '../kit.js';

export abstract class SvgChart implements Chart {
  protected readonly legend = element('div', 'sl-legend');
  protected readonly table = element('table', 'sl-visually-hidden');
  readonly #box: HTMLElement;
  readonly #className: string;
  #svg?: SVGSVGElement;
  // The box's width as a ResizeObserver last saw it: reading clientWidth in a draw would lay out
  // the page again after each chart drawn before (the kit redraws when the width changes).
  #width = 0;
  readonly #resize = new ResizeObserver(([entry]) => {
    this.#width = entry.contentRect.width;
  });

  constructor(box: HTMLElement, className: string) {
    this.#box = box;
    this.#className = className;
    this.#resize.observe(box);
  }

  /**
   * This draw's <svg>, described by `summary`, its viewBox the box's width by `height` (or by
   * `baseHeight`, taller on narrow screens, when no height is given).
   */
  protected frame(summary: string, baseHeight: number, height?: number): { svg: SVGSVGElement; width: number; height: number } {
    if (!this.#svg) {
      this.#svg = svg('svg', { class: this.#className, role: 'img' });
      this.#box.replaceChildren(this.#svg, this.legend, this.table);
    }
    const size = chartSize(this.#width || this.#box.clientWidth, baseHeight);
    const drawn = { width: size.width, height: height ?? size.height };
    this.#svg.setAttribute('viewBox', `0 0 ${drawn.width} ${drawn.height}`);
    this.#svg.setAttribute('aria-label', summary);
    return { svg: this.#svg, ...drawn };
  }

  reset(): void {
    this.#svg = undefined;
  }

  destroy(): void {
    this.#resize.disconnect();
    this.reset();
  }
}
