// Labelled SVG bars of a small distribution in rank order: the tempered distribution as outlines
// (before truncation), the kept, renormalised one filled (after), the cumulative mass of the
// tempered one against the top-p level, the min-p line, the top-k boundary, the filter that cut
// each token, and sampled frequencies as dots with ±2 standard-error whiskers. A hidden table
// carries the numbers.
import type { FilterStage } from '../../sampling-lab-core.js';
import { STAGE_TABLE } from '../../generated/tables.js';
import { fillLegend, fillTable, patchChildren, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';
import { small } from '../numbers.js';

export interface BarChartData {
  labels: readonly string[];
  tempered: readonly number[];
  kept: readonly number[];
  /** The stage that cut each bar's token (undefined or null when kept). */
  cutBy: readonly (FilterStage['filter'] | null | undefined)[];
  topP: number;
  minP: number;
  topK: number;
  summary: string;
  /** Sampled frequencies after n draws, drawn as dots with ±2 SE whiskers. */
  sampled?: { frequencies: readonly number[]; n: number };
  text: {
    token: string; tempered: string; kept: string; sampled: string; cumulative: string;
    cutBy: Record<FilterStage['filter'], string>; topP: string; minP: string; topK: string;
  };
}

const [BASE_HEIGHT, TOP, BOTTOM, RIGHT] = [240, 22, 44, 34];
const SHORT = STAGE_TABLE.abbreviations;
// About the width of one character of a stage's name at the chart's label size (px).
const CHARACTER_WIDTH = 7;

export class BarChart extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars');
  }

  draw(data: BarChartData): void {
    const { labels, tempered, kept, cutBy, sampled, text } = data;
    const { svg: root, width, height } = this.frame(data.summary, BASE_HEIGHT);
    const plotWidth = width - RIGHT;
    const slot = plotWidth / tempered.length;
    const narrow = slot < 44;
    const whisker = (p: number, f: number) => 2 * Math.sqrt(Math.max(p * (1 - p), f * (1 - f)) / sampled!.n);
    const highest = Math.max(...tempered, ...kept, ...(sampled ? sampled.frequencies.map((f, i) => f + whisker(kept[i], f)) : []), 1e-9);
    const bottom = height - BOTTOM;
    const scale = (bottom - TOP) / highest;
    const y = (p: number) => bottom - p * scale;
    // The cumulative mass has its own axis on the right: 0 at the bottom, 1 at the top.
    const yCumulative = (c: number) => bottom - c * (bottom - TOP);
    const nodes: SVGElement[] = [];

    // What cut the tokens, once under each run of neighbours cut by the same stage: its full name
    // where it clears the names beside it and the plot's edges, else its short one.
    const cutOf = (i: number) => (kept[i] > 0 ? undefined : cutBy[i] ?? undefined);
    const runs: { filter: FilterStage['filter']; centre: number; half: number }[] = [];
    for (let start = 0; start < tempered.length;) {
      const filter = cutOf(start);
      let end = start + 1;
      while (end < tempered.length && cutOf(end) === filter) end++;
      if (filter) runs.push({ filter, centre: ((start + end) / 2) * slot, half: (text.cutBy[filter].length * CHARACTER_WIDTH) / 2 });
      start = end;
    }
    runs.forEach((run, r) => {
      const clears = run.centre - run.half >= 0 && run.centre + run.half <= plotWidth &&
        (r === 0 || runs[r - 1].centre + runs[r - 1].half + 4 <= run.centre - run.half) &&
        (r === runs.length - 1 || run.centre + run.half + 4 <= runs[r + 1].centre - runs[r + 1].half);
      nodes.push(svg('text', { x: run.centre, y: bottom + 32, class: 'cut-by' }, clears ? text.cutBy[run.filter] : SHORT[run.filter]));
    });

    let cumulative = 0;
    const cumulativePoints: string[] = [`0,${yCumulative(0)}`];
    tempered.forEach((p, i) => {
      const x = i * slot + slot * 0.15;
      const barWidth = slot * 0.7;
      nodes.push(svg('rect', { x, y: y(p), width: barWidth, height: Math.max(p * scale, 0.5), class: 'tempered' }));
      if (kept[i] > 0) nodes.push(svg('rect', { x, y: y(kept[i]), width: barWidth, height: kept[i] * scale, class: 'kept' }));
      const shown = kept[i] > 0 ? kept[i] : p;
      // The value sits above the sampled dot's whisker too, which would cover it.
      const above = sampled ? sampled.frequencies[i] + whisker(kept[i], sampled.frequencies[i]) : 0;
      // Narrow slots keep only the kept tokens' values.
      if (!narrow || kept[i] > 0) {
        nodes.push(svg('text', { x: x + barWidth / 2, y: Math.min(y(Math.max(shown, p)), y(above) - 6) - 4, class: kept[i] > 0 ? 'value' : 'value cut' }, formatShort(shown)));
      }
      nodes.push(svg('text', { x: x + barWidth / 2, y: bottom + 16, class: 'label' }, labels[i]));
      if (sampled) {
        const f = sampled.frequencies[i];
        const spread = whisker(kept[i], f);
        nodes.push(svg('line', { x1: x + barWidth / 2, x2: x + barWidth / 2, y1: y(Math.max(0, f - spread)), y2: y(f + spread), class: 'whisker' }),
          svg('circle', { cx: x + barWidth / 2, cy: y(f), r: 4, class: 'sampled' }));
      }
      cumulative += p;
      cumulativePoints.push(`${(i + 1) * slot},${yCumulative(Math.min(cumulative, 1))}`);
    });
    nodes.push(svg('polyline', { points: cumulativePoints.join(' '), class: 'cumulative' }));
    // The right axis of the cumulative mass, and the levels and boundaries the filters use.
    for (const c of [0, 0.5, 1]) nodes.push(svg('text', { x: plotWidth + 4, y: yCumulative(c) + 4, class: 'axis' }, String(c)));
    if (data.topP < 1) {
      nodes.push(svg('line', { x1: 0, x2: plotWidth, y1: yCumulative(data.topP), y2: yCumulative(data.topP), class: 'level top-p' }),
        svg('text', { x: plotWidth - 4, y: yCumulative(data.topP) - 4, class: 'level-label' }, `${text.topP} ${data.topP}`));
    }
    if (data.minP > 0) {
      const line = data.minP * Math.max(...tempered);
      nodes.push(svg('line', { x1: 0, x2: plotWidth, y1: y(line), y2: y(line), class: 'level min-p' }),
        svg('text', { x: plotWidth - 4, y: y(line) - 4, class: 'level-label' }, `${text.minP} ${data.minP}`));
    }
    if (data.topK > 0 && data.topK < tempered.length) {
      const x = data.topK * slot;
      nodes.push(svg('line', { x1: x, x2: x, y1: TOP - 12, y2: bottom, class: 'level top-k' }),
        svg('text', { x: x + 4, y: TOP - 2, class: 'level-label start' }, `${text.topK} ${data.topK}`));
    }
    patchChildren(root, nodes);
    fillLegend(this.legend, [
      { label: text.tempered, swatch: 'tempered' },
      { label: text.kept, swatch: '--sl-kept' },
      { label: text.cumulative, swatch: 'cumulative' },
      ...(sampled ? [{ label: text.sampled, swatch: 'sampled' }] : []),
    ]);
    fillTable(this.table, {
      caption: data.summary,
      head: [text.token, text.tempered, text.kept, ...(sampled ? [text.sampled] : [])],
      rows: labels.map((label, i) => [label, tempered[i].toFixed(4), kept[i].toFixed(4), ...(sampled ? [sampled.frequencies[i].toFixed(4)] : [])]),
      rowHeaders: true,
    });
  }

}

/** 0.44, .062, .00031: short enough for a bar label, readable when small. */
export function formatShort(p: number): string {
  if (p >= 0.0995) return p.toFixed(2);
  if (p >= 0.001) return p.toFixed(3).replace(/^0/, '');
  return small(p).replace(/^0\./, '.');
}
