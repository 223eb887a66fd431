// A uPlot chart on log or linear axes, coloured from the page's CSS variables and resized with
// its box. Rebuilt only when its labels change; data updates are cheap.
import uPlot from 'uplot';
import { element, fillTable } from '../dom.js';
import type { Chart } from '../kit.js';

export interface SeriesSpec {
  label: string;
  /** CSS custom property holding the colour, e.g. "--sl-kept". */
  color: string;
  points?: boolean;
  dash?: number[];
}

export interface LineChartSpec {
  xLabel: string;
  yLabel: string;
  logX?: boolean;
  logY?: boolean;
  xRange?: [number, number];
  yRange?: (min: number, max: number) => [number, number];
  series: SeriesSpec[];
  height?: number;
  /** Vertical dashed lines at these x values (e.g. a true value), in a CSS variable's colour. */
  markers?: { x: number; color: string }[];
}

const tickLabel = (v: number | null) =>
  v == null ? '' : v === 0 || (Math.abs(v) >= 0.001 && Math.abs(v) < 1e5) ? String(+v.toPrecision(6)) : v.toExponential(0);

// At most this many rows in the hidden table that stands in for the chart.
const TABLE_ROWS = 40;

export class LineChart implements Chart {
  #box: HTMLElement;
  #plot?: uPlot;
  #resize?: ResizeObserver;
  #table = element('table', 'sl-visually-hidden');
  #key = '';
  #markers: LineChartSpec['markers'] = [];

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  draw(spec: LineChartSpec, data: uPlot.AlignedData, summary: string): void {
    const box = this.#box;
    const key = JSON.stringify([spec.xLabel, spec.yLabel, spec.series.map((s) => s.label), spec.xRange]);
    this.#markers = spec.markers;
    if (this.#plot && key === this.#key) {
      this.#plot.setData(data);
      this.#describe(summary);
      this.#fillTable(spec, data, summary);
      return;
    }
    this.reset();
    this.#key = key;
    const style = getComputedStyle(box);
    const color = (name: string) => style.getPropertyValue(name).trim() || '#888';
    const axis = (label: string): uPlot.Axis => ({
      label,
      stroke: color('--sl-text'),
      grid: { stroke: color('--sl-grid'), width: 1 },
      ticks: { stroke: color('--sl-grid'), width: 1 },
      values: (_u, splits) => splits.map(tickLabel),
    });
    const height = spec.height ?? 240;
    const width = () => Math.max(box.clientWidth, 260);
    this.#plot = new uPlot({
      width: width(),
      height,
      scales: {
        x: { distr: spec.logX ? 3 : 1, time: false, ...(spec.xRange ? { range: () => spec.xRange! } : {}) },
        y: { distr: spec.logY ? 3 : 1, ...(spec.yRange ? { range: (_u, min, max) => spec.yRange!(min, max) } : {}) },
      },
      axes: [axis(spec.xLabel), axis(spec.yLabel)],
      legend: { show: spec.series.length > 1, live: false },
      cursor: { show: false },
      hooks: { draw: [(u) => this.#drawMarkers(u, color)] },
      series: [
        {},
        ...spec.series.map((s): uPlot.Series => ({
          label: s.label,
          stroke: color(s.color),
          width: 2,
          dash: s.dash,
          paths: s.points ? () => null : undefined,
          points: s.points ? { show: true, size: 7, fill: color(s.color) } : { show: false },
        })),
      ],
    }, data, box);
    this.#describe(summary);
    this.#resize = new ResizeObserver(() => this.#plot?.setSize({ width: width(), height }));
    this.#resize.observe(box);
    box.append(this.#table);
    this.#fillTable(spec, data, summary);
  }

  #drawMarkers(u: uPlot, color: (name: string) => string): void {
    const { ctx, bbox } = u;
    for (const marker of this.#markers ?? []) {
      const x = u.valToPos(marker.x, 'x', true);
      ctx.save();
      ctx.strokeStyle = color(marker.color);
      ctx.lineWidth = 2 * devicePixelRatio;
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.beginPath();
      ctx.moveTo(x, bbox.top);
      ctx.lineTo(x, bbox.top + bbox.height);
      ctx.stroke();
      ctx.restore();
    }
  }

  /** Rebuilt at the next draw, with the current colours and labels. */
  reset(): void {
    this.#resize?.disconnect();
    this.#plot?.destroy();
    this.#plot = undefined;
    this.#key = '';
  }

  destroy(): void {
    this.reset();
    this.#table.remove();
  }

  // The plot area is the image; the legend beside it stays outside, as text.
  #describe(summary: string): void {
    const plotArea = this.#plot?.root.querySelector('.u-wrap');
    plotArea?.setAttribute('role', 'img');
    plotArea?.setAttribute('aria-label', summary);
  }

  // The data behind the chart for screen readers, thinned to TABLE_ROWS evenly spaced rows.
  #fillTable(spec: LineChartSpec, data: uPlot.AlignedData, summary: string): void {
    const stride = Math.max(1, Math.ceil(data[0].length / TABLE_ROWS));
    const cell = (v: number | null | undefined) => (v == null ? '' : String(+v.toPrecision(4)));
    const rows: string[][] = [];
    for (let i = 0; i < data[0].length; i += stride) rows.push(data.map((series) => cell(series[i])));
    fillTable(this.#table, { caption: summary, head: [spec.xLabel, ...spec.series.map((s) => s.label)], rows });
  }
}
