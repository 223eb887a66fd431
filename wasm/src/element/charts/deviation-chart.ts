// Frequency − p per category for several series, against the band of ±2 standard errors that
// chance alone fills: a correct sampler's dots stay inside about 95 % of the time.
import { chartSize, element, fillLegend, fillTable, svg } from '../dom.js';
import type { Chart } from '../kit.js';

export interface DeviationData {
  categories: readonly string[];
  categoryLabel: string;
  /** 2 standard errors of a frequency, per category. */
  band: readonly number[];
  bandLabel: string;
  series: { label: string; color: string; values: readonly number[] }[];
  summary: string;
}

const [BASE_HEIGHT, TOP, BOTTOM, LEFT] = [220, 12, 26, 56];

export class DeviationChart implements Chart {
  #box: HTMLElement;
  #svg?: SVGSVGElement;
  #legend = element('div', 'sl-legend');
  #table = element('table', 'sl-visually-hidden');

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  draw(data: DeviationData): void {
    if (!this.#svg) {
      this.#svg = svg('svg', { class: 'sl-bars sl-deviation', role: 'img' });
      this.#box.replaceChildren(this.#svg, this.#legend, this.#table);
    }
    const { width, height } = chartSize(this.#box, BASE_HEIGHT);
    this.#svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.#svg.setAttribute('aria-label', data.summary);
    const extent = 1.15 * Math.max(...data.band, ...data.series.flatMap((s) => s.values.map(Math.abs)), 1e-9);
    const middle = (TOP + height - BOTTOM) / 2;
    const y = (v: number) => middle - (v / extent) * (middle - TOP);
    const slot = (width - LEFT) / data.categories.length;
    const nodes: SVGElement[] = [
      svg('line', { x1: LEFT, x2: width, y1: middle, y2: middle, class: 'zero' }),
      svg('text', { x: LEFT - 6, y: y(extent * 0.8) + 4, class: 'axis-left' }, `+${formatTick(extent * 0.8)}`),
      svg('text', { x: LEFT - 6, y: middle + 4, class: 'axis-left' }, '0'),
      svg('text', { x: LEFT - 6, y: y(-extent * 0.8) + 4, class: 'axis-left' }, `−${formatTick(extent * 0.8)}`),
    ];
    data.categories.forEach((category, i) => {
      const left = LEFT + i * slot;
      nodes.push(svg('rect', { x: left + slot * 0.08, y: y(data.band[i]), width: slot * 0.84, height: y(-data.band[i]) - y(data.band[i]), class: 'band' }));
      data.series.forEach((series, j) => {
        const x = left + slot * (0.2 + (0.6 * (j + 0.5)) / data.series.length);
        nodes.push(svg('circle', { cx: x, cy: y(series.values[i]), r: 5, style: `fill: var(${series.color})`, class: 'dot' }));
      });
      nodes.push(svg('text', { x: left + slot / 2, y: height - 6, class: 'label' }, category));
    });
    this.#svg.replaceChildren(...nodes);
    fillLegend(this.#legend, [{ label: data.bandLabel, swatch: 'band' }, ...data.series.map((s) => ({ label: s.label, swatch: s.color }))]);
    fillTable(this.#table, {
      caption: data.summary,
      head: [data.categoryLabel, data.bandLabel, ...data.series.map((s) => s.label)],
      rows: data.categories.map((c, i) => [c, `±${data.band[i].toFixed(4)}`, ...data.series.map((s) => s.values[i].toFixed(4))]),
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

function formatTick(v: number): string {
  return v >= 0.01 ? v.toFixed(2) : v.toExponential(0);
}
