// Lines and points on log or linear axes, as SVG in the box's CSS pixels: colours are the page's
// CSS variables (so dark mode needs no redraw), the legend is text, and a hidden table carries
// the numbers. Null values break a line.
import { fillLegend, fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';
import { powerOfTen, small } from '../numbers.js';

export interface SeriesSpec {
  label: string;
  /** CSS custom property holding the colour, e.g. "--sl-kept". */
  color: string;
  points?: boolean;
  dash?: number[];
  /** The legend's words for it, where they differ from its table column's; false: no legend entry (a band's second edge). */
  legend?: string | false;
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
  /** Vertical dashed lines at these x values (e.g. a true value), in a CSS variable's colour, each labelled at the top (or the bottom) if given. */
  markers?: { x: number; color: string; label?: string; below?: boolean }[];
}

/** The x values, then one array of y values (null: no value) per series. */
export type LineData = readonly ArrayLike<number | null | undefined>[];

// A decade far from 1 as 10ᵏ (an axis of 151,936 ranks or probabilities to 10⁻¹²).
const tickLabel = (v: number) => {
  if (v === 0 || (Math.abs(v) >= 0.001 && Math.abs(v) < 1e5)) return String(+v.toPrecision(6));
  const decade = Math.log10(Math.abs(v));
  return Math.abs(decade - Math.round(decade)) < 1e-9 && v > 0 ? powerOfTen(decade) : small(v, 1);
};

// At most this many rows in the hidden table that stands in for the chart.
const TABLE_ROWS = 40;
const [TOP, RIGHT, BOTTOM, LEFT_LABEL] = [10, 14, 40, 18];

interface Axis {
  log: boolean;
  low: number;
  high: number;
}

/** Pixels from the axis's low end to v, over an axis `span` pixels long (log axes in decades). */
function scale(axis: Axis, span: number): (v: number) => number {
  const f = axis.log ? Math.log10 : (x: number) => x;
  const low = f(axis.low);
  const perUnit = span / (f(axis.high) - low || 1);
  return (v) => (f(v) - low) * perUnit;
}

/** Round values in [low, high], about `count` of them: 1, 2 or 5 × 10^k apart, or decades on a log axis. */
function ticks(axis: Axis, count: number): number[] {
  const { low, high } = axis;
  if (axis.log) {
    const first = Math.ceil(Math.log10(low) - 1e-9);
    const last = Math.floor(Math.log10(high) + 1e-9);
    if (last - first >= 1) {
      const stride = Math.max(1, Math.ceil((last - first + 1) / count));
      const decades: number[] = [];
      for (let k = first; k <= last; k += stride) decades.push(10 ** k);
      return decades;
    }
  }
  const raw = (high - low) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw || 1));
  // A step a rounding error above a round one (0.2000001) takes the round one.
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw * (1 - 1e-9)) ?? 10 * magnitude;
  const values: number[] = [];
  for (let v = Math.ceil(low / step - 1e-9) * step; v <= high + step * 1e-9; v += step) values.push(+v.toPrecision(12));
  return values.filter((v) => !axis.log || v > 0);
}

/** [min, max] of the finite values usable on the axis (positive ones on a log axis). */
function extent(values: Iterable<number | null | undefined>, log: boolean): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    if (v == null || !Number.isFinite(v) || (log && v <= 0)) continue;
    low = Math.min(low, v);
    high = Math.max(high, v);
  }
  if (low > high) return log ? [1, 10] : [0, 1];
  if (low === high) return log ? [low / 2, high * 2] : [low - (Math.abs(low) || 1) / 2, high + (Math.abs(high) || 1) / 2];
  return [low, high];
}

export class LineChart extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-lines');
  }

  draw(spec: LineChartSpec, data: LineData, summary: string): void {
    const { svg: root, width, height } = this.frame(summary, spec.height ?? 240, spec.height);
    const xs = Array.from(data[0], (v) => v ?? NaN);
    const [xLow, xHigh] = spec.xRange ?? extent(xs, !!spec.logX);
    const yValues = data.slice(1).flatMap((series) => Array.from(series));
    let [yLow, yHigh] = extent(yValues, !!spec.logY);
    if (spec.yRange) [yLow, yHigh] = spec.yRange(yLow, yHigh);
    else if (!spec.logY) [yLow, yHigh] = [yLow - (yHigh - yLow) * 0.05, yHigh + (yHigh - yLow) * 0.05];
    const xAxis: Axis = { log: !!spec.logX, low: xLow, high: xHigh };
    const yAxis: Axis = { log: !!spec.logY, low: yLow, high: yHigh };
    const yTicks = ticks(yAxis, height < 200 ? 3 : 5);
    // The y tick labels' width decides where the plot starts.
    const left = LEFT_LABEL + 8 + 7 * Math.max(...yTicks.map((v) => tickLabel(v).length), 1);
    const plot = { left, right: width - RIGHT, top: TOP, bottom: height - BOTTOM };
    const [xScale, yScale] = [scale(xAxis, plot.right - plot.left), scale(yAxis, plot.bottom - plot.top)];
    const px = (v: number) => plot.left + xScale(v);
    const py = (v: number) => plot.bottom - yScale(v);
    const inside = (x: number, y: number | null | undefined): y is number =>
      y != null && Number.isFinite(x) && Number.isFinite(y) && (!spec.logX || x > 0) && (!spec.logY || y > 0) &&
      x >= xLow && x <= xHigh && y >= yLow && y <= yHigh;
    const nodes: SVGElement[] = [];

    for (const v of yTicks) {
      nodes.push(svg('line', { x1: plot.left, x2: plot.right, y1: py(v), y2: py(v), class: 'grid' }),
        svg('text', { x: plot.left - 6, y: py(v) + 4, class: 'tick y' }, tickLabel(v)));
    }
    for (const v of ticks(xAxis, Math.max(3, Math.floor((plot.right - plot.left) / 70)))) {
      // A label that would run past the right edge ends at it instead.
      const label = tickLabel(v);
      const x = Math.min(px(v), width - 2 - 3.5 * label.length);
      nodes.push(svg('line', { x1: px(v), x2: px(v), y1: plot.top, y2: plot.bottom, class: 'grid' }),
        svg('text', { x, y: plot.bottom + 16, class: 'tick x' }, label));
    }
    nodes.push(svg('rect', { x: plot.left, y: plot.top, width: plot.right - plot.left, height: plot.bottom - plot.top, class: 'frame' }),
      svg('text', { x: (plot.left + plot.right) / 2, y: height - 6, class: 'axis-label' }, spec.xLabel),
      svg('text', { x: LEFT_LABEL - 4, y: (plot.top + plot.bottom) / 2, class: 'axis-label',
        transform: `rotate(-90 ${LEFT_LABEL - 4} ${(plot.top + plot.bottom) / 2})` }, spec.yLabel));
    for (const marker of spec.markers ?? []) {
      if (marker.x < xLow || marker.x > xHigh) continue;
      nodes.push(svg('line', { x1: px(marker.x), x2: px(marker.x), y1: plot.top, y2: plot.bottom, class: 'marker', style: `stroke: var(${marker.color})` }));
      if (marker.label) {
        // Right of the line, or left of it when it would run past the plot's right edge.
        const after = px(marker.x) + 4 + 7 * marker.label.length < plot.right;
        nodes.push(svg('text', {
          x: px(marker.x) + (after ? 4 : -4), y: marker.below ? plot.bottom - 6 : plot.top + 12, class: 'marker-label',
          'text-anchor': after ? 'start' : 'end', style: `fill: var(${marker.color})`,
        }, marker.label));
      }
    }
    spec.series.forEach((series, s) => {
      const ys = data[s + 1];
      const colour = `var(${series.color})`;
      if (series.points) {
        for (let i = 0; i < xs.length; i++) {
          if (inside(xs[i], ys[i])) nodes.push(svg('circle', { cx: px(xs[i]), cy: py(ys[i] as number), r: 3.5, style: `fill: ${colour}` }));
        }
        return;
      }
      // One path, its pieces split where a value is missing.
      let path = '';
      let pen = 'M';
      for (let i = 0; i < xs.length; i++) {
        const y = ys[i];
        if (!inside(xs[i], y)) {
          pen = 'M';
          continue;
        }
        path += `${pen}${px(xs[i]).toFixed(1)},${py(y).toFixed(1)}`;
        pen = 'L';
      }
      if (path) nodes.push(svg('path', { d: path, class: 'line', style: `stroke: ${colour}${series.dash ? `; stroke-dasharray: ${series.dash.join(' ')}` : ''}` }));
    });
    patchChildren(root, nodes);
    const listed = spec.series.filter((s) => s.legend !== false);
    fillLegend(this.legend, listed.length > 1 ? listed.map((s) => ({ label: s.legend || s.label, swatch: s.color })) : []);
    this.#fillTable(spec, data, summary);
  }

  // The data behind the chart for screen readers, thinned to TABLE_ROWS evenly spaced rows.
  #fillTable(spec: LineChartSpec, data: LineData, summary: string): void {
    const stride = Math.max(1, Math.ceil(data[0].length / TABLE_ROWS));
    const cell = (v: number | null | undefined) => (v == null ? '' : String(+v.toPrecision(4)));
    const rows: string[][] = [];
    for (let i = 0; i < data[0].length; i += stride) rows.push(data.map((series) => cell(series[i])));
    fillTable(this.table, { caption: summary, head: [spec.xLabel, ...spec.series.map((s) => s.label)], rows });
  }
}
