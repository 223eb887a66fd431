// Two distributions side by side per token, with their overlap min(p, q) outlined and the
// residual max(0, p − q) hatched on the target's bars: what an accepted draft covers, and what a
// rejection resamples from, at a glance.
import { fillLegend, fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';

export interface OverlapData {
  categories: readonly string[];
  p: readonly number[];
  q: readonly number[];
  labels: { category: string; p: string; q: string; overlap: string; residual: string };
  summary: string;
}

const [BASE_HEIGHT, TOP, BOTTOM] = [200, 10, 20];

export class OverlapBars extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars sl-overlap');
  }

  draw({ categories, p, q, labels, summary }: OverlapData): void {
    const { svg: root, width: WIDTH, height: HEIGHT } = this.frame(summary, BASE_HEIGHT);
    const slot = WIDTH / p.length;
    const scale = (HEIGHT - TOP - BOTTOM) / Math.max(...p, ...q);
    const rect = (x: number, value: number, width: number, className: string) =>
      svg('rect', { x, y: HEIGHT - BOTTOM - value * scale, width, height: value * scale, class: className });
    const nodes: SVGElement[] = [];
    p.forEach((pi, i) => {
      const left = i * slot + slot * 0.15;
      const residual = Math.max(0, pi - q[i]);
      nodes.push(rect(left, pi, slot * 0.35, 'target'), rect(left + slot * 0.35, q[i], slot * 0.35, 'draft'));
      if (residual > 0) {
        nodes.push(svg('rect', { x: left, y: HEIGHT - BOTTOM - pi * scale, width: slot * 0.35, height: residual * scale, class: 'residual' }));
      }
      nodes.push(rect(left, Math.min(pi, q[i]), slot * 0.7, 'overlap'),
        svg('text', { x: left + slot * 0.35, y: HEIGHT - 4, class: 'label' }, categories[i]));
    });
    patchChildren(root, nodes);
    fillLegend(this.legend, [
      { label: labels.p, swatch: 'target' }, { label: labels.q, swatch: 'draft' }, { label: labels.overlap, swatch: 'overlap' },
      { label: labels.residual, swatch: 'residual' },
    ]);
    fillTable(this.table, {
      caption: summary,
      head: [labels.category, labels.p, labels.q, labels.overlap, labels.residual],
      rows: categories.map((c, i) => [c, p[i].toFixed(4), q[i].toFixed(4), Math.min(p[i], q[i]).toFixed(4), Math.max(0, p[i] - q[i]).toFixed(4)]),
      rowHeaders: true,
    });
  }

}
