// Grouped SVG bars: several series per category against a reference drawn as an outline, with a
// legend and a hidden table for screen readers.
import { fillLegend, fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';

export interface GroupedBarsData {
  categories: string[];
  /** What the categories are, e.g. "token": the first column of the hidden table. */
  categoryLabel: string;
  reference: { label: string; values: readonly number[] };
  series: { label: string; color: string; values: readonly number[] }[];
  summary: string;
}

const [BASE_HEIGHT, TOP, BOTTOM] = [220, 12, 24];

export class GroupedBars extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars');
  }

  draw(data: GroupedBarsData): void {
    const { svg: root, width: WIDTH, height: HEIGHT } = this.frame(data.summary, BASE_HEIGHT);
    const slot = WIDTH / data.categories.length;
    const barWidth = (slot * 0.8) / data.series.length;
    const max = Math.max(...data.reference.values, ...data.series.flatMap((s) => s.values));
    const y = (v: number) => HEIGHT - BOTTOM - (v / max) * (HEIGHT - TOP - BOTTOM);
    const nodes: SVGElement[] = [];
    data.categories.forEach((category, i) => {
      const left = i * slot + slot * 0.1;
      data.series.forEach((series, j) => {
        const v = series.values[i];
        nodes.push(svg('rect', {
          x: left + j * barWidth, y: y(v), width: barWidth * 0.9, height: Math.max(HEIGHT - BOTTOM - y(v), 0.5),
          style: `fill: var(${series.color})`,
        }));
      });
      const reference = data.reference.values[i];
      nodes.push(svg('rect', { x: left - 2, y: y(reference), width: slot * 0.8 + 4, height: HEIGHT - BOTTOM - y(reference), class: 'reference' }));
      nodes.push(svg('text', { x: left + slot * 0.4, y: HEIGHT - 6, class: 'label' }, category));
    });
    patchChildren(root, nodes);
    fillLegend(this.legend, [
      { label: data.reference.label, swatch: 'reference' },
      ...data.series.map((s) => ({ label: s.label, swatch: s.color })),
    ]);
    fillTable(this.table, {
      caption: data.summary,
      head: [data.categoryLabel, data.reference.label, ...data.series.map((s) => s.label)],
      rows: data.categories.map((c, i) => [c, data.reference.values[i].toFixed(4), ...data.series.map((s) => s.values[i].toFixed(4))]),
      rowHeaders: true,
    });
  }

}
