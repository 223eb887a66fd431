// Labelled SVG bars of a small distribution: the tempered distribution as outlines, the kept,
// renormalised one filled, sampled frequencies as marks; a hidden table carries the numbers.
import { chartSize, element, fillTable, svg } from '../dom.js';
import type { Chart } from '../kit.js';

export interface BarChartData {
  labels: readonly string[];
  tempered: readonly number[];
  kept: readonly number[];
  summary: string;
  /** Sampled frequencies, drawn as marks. */
  empirical?: readonly number[];
  columns: { token: string; tempered: string; kept: string; sampled: string };
}

const [BASE_HEIGHT, TOP, BOTTOM] = [220, 18, 26];

export class BarChart implements Chart {
  #box: HTMLElement;
  #svg?: SVGSVGElement;
  #table = element('table', 'sl-visually-hidden');

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  draw({ labels, tempered, kept, summary, empirical, columns }: BarChartData): void {
    if (!this.#svg) {
      this.#svg = svg('svg', { class: 'sl-bars', role: 'img' });
      this.#box.replaceChildren(this.#svg, this.#table);
    }
    const { width: WIDTH, height: HEIGHT } = chartSize(this.#box, BASE_HEIGHT);
    this.#svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    this.#svg.setAttribute('aria-label', summary);
    const slot = WIDTH / tempered.length;
    const scale = (HEIGHT - TOP - BOTTOM) / Math.max(...tempered, ...kept, ...(empirical ?? []), 1e-9);
    const y = (p: number) => HEIGHT - BOTTOM - p * scale;
    const nodes: SVGElement[] = [];
    tempered.forEach((p, i) => {
      const x = i * slot + slot * 0.15;
      const width = slot * 0.7;
      nodes.push(svg('rect', { x, y: y(p), width, height: Math.max(p * scale, 0.5), class: 'tempered' }));
      if (kept[i] > 0) nodes.push(svg('rect', { x, y: y(kept[i]), width, height: kept[i] * scale, class: 'kept' }));
      const shown = kept[i] > 0 ? kept[i] : p;
      nodes.push(svg('text', { x: x + width / 2, y: y(Math.max(shown, p)) - 4, class: 'value' }, formatShort(shown)));
      nodes.push(svg('text', { x: x + width / 2, y: HEIGHT - 8, class: 'label' }, labels[i]));
      if (empirical) nodes.push(svg('line', { x1: x - 2, x2: x + width + 2, y1: y(empirical[i]), y2: y(empirical[i]), class: 'empirical' }));
    });
    this.#svg.replaceChildren(...nodes);
    fillTable(this.#table, {
      caption: summary,
      head: [columns.token, columns.tempered, columns.kept, ...(empirical ? [columns.sampled] : [])],
      rows: labels.map((label, i) => [label, tempered[i].toFixed(4), kept[i].toFixed(4), ...(empirical ? [empirical[i].toFixed(4)] : [])]),
      rowHeaders: true,
    });
  }

  reset(): void {
    this.#svg = undefined;
  }

  destroy(): void {
    this.reset();
  }
}

/** 0.44, .062, 3.1e-4: short enough for a bar label, readable when small. */
export function formatShort(p: number): string {
  if (p >= 0.0995) return p.toFixed(2);
  if (p >= 0.001) return p.toFixed(3).replace(/^0/, '');
  return p === 0 ? '0' : p.toExponential(1);
}
