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

  constructor(box: HTMLElement, className: string) {
    this.#box = box;
    this.#className = className;
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
    const size = chartSize(this.#box, baseHeight);
    const drawn = { width: size.width, height: height ?? size.height };
    this.#svg.setAttribute('viewBox', `0 0 ${drawn.width} ${drawn.height}`);
    this.#svg.setAttribute('aria-label', summary);
    return { svg: this.#svg, ...drawn };
  }

  reset(): void {
    this.#svg = undefined;
  }

  destroy(): void {
    this.reset();
  }
}
