// Horizontal error bars on one axis: an estimate and its interval per row, so that overlapping
// intervals can be seen overlapping.
import { fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';

export interface IntervalData {
  rows: { label: string; value: number; low: number; high: number; className: string }[];
  format(value: number): string;
  columns: { label: string; value: string; interval: string };
  summary: string;
}

const [ROW, TOP, LEFT, RIGHT] = [44, 16, 96, 24];

export class IntervalChart extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars sl-intervals');
  }

  draw(data: IntervalData): void {
    const { svg: root, width, height } = this.frame(data.summary, 0, TOP + data.rows.length * ROW + 24);
    const lo = Math.min(...data.rows.map((r) => r.low));
    const hi = Math.max(...data.rows.map((r) => r.high));
    const pad = (hi - lo) * 0.15 || 0.01;
    const [from, to] = [lo - pad, hi + pad];
    const x = (v: number) => LEFT + ((v - from) / (to - from)) * (width - LEFT - RIGHT);
    const nodes: SVGElement[] = [];
    data.rows.forEach((row, i) => {
      const y = TOP + i * ROW + ROW / 2;
      nodes.push(svg('text', { x: LEFT - 8, y: y + 5, class: 'row-label' }, row.label),
        svg('line', { x1: x(row.low), x2: x(row.high), y1: y, y2: y, class: `interval ${row.className}` }),
        svg('line', { x1: x(row.low), x2: x(row.low), y1: y - 8, y2: y + 8, class: `interval ${row.className}` }),
        svg('line', { x1: x(row.high), x2: x(row.high), y1: y - 8, y2: y + 8, class: `interval ${row.className}` }),
        svg('circle', { cx: x(row.value), cy: y, r: 5, class: `estimate ${row.className}` }));
    });
    for (const v of [from + pad, (from + to) / 2, to - pad]) {
      nodes.push(svg('text', { x: x(v), y: height - 6, class: 'label' }, data.format(v)));
    }
    patchChildren(root, nodes);
    fillTable(this.table, {
      caption: data.summary,
      head: [data.columns.label, data.columns.value, data.columns.interval],
      rows: data.rows.map((r) => [r.label, data.format(r.value), `${data.format(r.low)} – ${data.format(r.high)}`]),
      rowHeaders: true,
    });
  }

}
