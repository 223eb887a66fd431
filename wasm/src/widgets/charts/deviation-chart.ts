// Frequency − p per category for several series, against the band of ±2 standard errors that
// chance alone fills: a correct sampler's dots stay inside about 95 % of the time.
import { fillLegend, fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';
import { small } from '../numbers.js';

export interface DeviationData {
  categories: readonly string[];
  /** A second, smaller line under each category (e.g. its p), so narrow slots never overlap. */
  sublabels?: readonly string[];
  categoryLabel: string;
  /** 2 standard errors of a frequency, per category. */
  band: readonly number[];
  bandLabel: string;
  series: { label: string; color: string; values: readonly number[] }[];
  summary: string;
  /** Keep at least this half-height of the y-axis (a fixed scale); the data may still widen it. */
  extent?: number;
}

const [BASE_HEIGHT, TOP, BOTTOM, LEFT] = [220, 12, 40, 56];

export class DeviationChart extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars sl-deviation');
  }

  /** Draws, and returns the half-height of the y-axis it used. */
  draw(data: DeviationData): number {
    const { svg: root, width, height } = this.frame(data.summary, BASE_HEIGHT);
    const extent = Math.max(data.extent ?? 0, 1.15 * Math.max(...data.band, ...data.series.flatMap((s) => s.values.map(Math.abs)), 1e-9));
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
      // data-token: the widget highlights one category in all its views.
      const mark = <E extends SVGElement>(node: E) => { node.dataset.token = String(i); return node; };
      nodes.push(mark(svg('rect', { x: left + slot * 0.08, y: y(data.band[i]), width: slot * 0.84, height: y(-data.band[i]) - y(data.band[i]), class: 'band' })));
      data.series.forEach((series, j) => {
        const x = left + slot * (0.2 + (0.6 * (j + 0.5)) / data.series.length);
        nodes.push(mark(svg('circle', { cx: x, cy: y(series.values[i]), r: 5, style: `fill: var(${series.color})`, class: 'dot' })));
      });
      nodes.push(mark(svg('text', { x: left + slot / 2, y: height - 22, class: 'label' }, category)));
      if (data.sublabels) nodes.push(mark(svg('text', { x: left + slot / 2, y: height - 6, class: 'sublabel' }, data.sublabels[i])));
    });
    patchChildren(root, nodes);
    fillLegend(this.legend, [{ label: data.bandLabel, swatch: 'band' }, ...data.series.map((s) => ({ label: s.label, swatch: s.color }))]);
    fillTable(this.table, {
      caption: data.summary,
      head: [data.categoryLabel, data.bandLabel, ...data.series.map((s) => s.label)],
      rows: data.categories.map((c, i) => [c, `±${data.band[i].toFixed(4)}`, ...data.series.map((s) => s.values[i].toFixed(4))]),
      rowHeaders: true,
    });
    return extent;
  }

}

function formatTick(v: number): string {
  return v >= 0.01 ? v.toFixed(2) : small(v, 1);
}
