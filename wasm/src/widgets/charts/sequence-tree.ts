// A binary sequence tree of any small depth: conditional probabilities on the edges, each leaf's
// sequence probability, and the greedy, beam and most probable paths each drawn in its own
// colour and lane, so that paths sharing an edge all stay visible.
import { fillLegend, fillTable, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';

export interface TreeData {
  depth: number;
  /** P(first child) of every inner node, breadth-first (the second child has the rest). */
  firstChild: readonly number[];
  /** Sequence probability of every leaf, in breadth-first order. */
  leaves: readonly number[];
  /** The label of a path's last token (paths are lists of 0/1 choices from the root). */
  token(path: readonly number[]): string;
  paths: readonly { path: readonly number[]; className: string; label: string }[];
  summary: string;
  columns: { sequence: string; probability: string };
  /** Before the reader's guess: the leaves' probabilities show as "?" (the edges keep theirs). */
  hideLeaves?: boolean;
}

const BASE_HEIGHT = 240;
const LANE = 4;

export class SequenceTree extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-tree-svg');
  }

  draw(data: TreeData): void {
    const leafCount = 2 ** data.depth;
    const { svg: root, width, height } = this.frame(data.summary, BASE_HEIGHT, Math.max(BASE_HEIGHT, leafCount * 34));
    // Columns from the root to the leaves; leaves' labels need about 110 px on the right.
    const right = Math.max(width * 0.55, width - 120);
    const x = (level: number) => 24 + ((right - 24) * level) / data.depth;
    // A node at `level`, index `i` (breadth-first within its level) sits at the middle of its leaves.
    const y = (level: number, i: number) => {
      const span = 2 ** (data.depth - level);
      return ((i * span + span / 2) / leafCount) * (height - 20) + 10;
    };
    const edges: SVGElement[] = [];
    const paths: SVGElement[] = [];
    const labels: SVGElement[] = [];
    for (let level = 0; level < data.depth; level++) {
      for (let i = 0; i < 2 ** level; i++) {
        const node = 2 ** level - 1 + i;
        for (let child = 0; child < 2; child++) {
          const [x1, y1, x2, y2] = [x(level), y(level, i), x(level + 1), y(level + 1, 2 * i + child)];
          const p = child === 0 ? data.firstChild[node] : 1 - data.firstChild[node];
          edges.push(svg('line', { x1, y1, x2, y2, class: 'edge' }));
          // Beside the band the highlighted paths' lanes take: above an upper edge, below a lower one.
          const clear = 6 + (data.paths.length * LANE) / 2;
          labels.push(svg('text', { x: (x1 + x2) / 2, y: (y1 + y2) / 2 + (child === 0 ? -clear : clear + 10), class: 'prob' }, p.toFixed(2)));
          // Leaves are named with their whole sequence below; inner nodes by their token.
          if (level + 1 < data.depth) labels.push(svg('text', { x: x2, y: y2 - 8, class: 'node' }, data.token([...pathOf(i, level), child])));
          // Each path that takes this edge, in its own lane.
          data.paths.forEach((path, lane) => {
            const prefix = prefixIndex(path.path, level);
            if (prefix !== i || path.path[level] !== child) return;
            const offset = (lane - (data.paths.length - 1) / 2) * LANE;
            paths.push(svg('line', { x1, y1: y1 + offset, x2, y2: y2 + offset, class: `edge ${path.className}` }));
          });
        }
      }
    }
    const names = data.leaves.map((_, i) => {
      const path = pathOf(i, data.depth);
      return path.map((_, level) => data.token(path.slice(0, level + 1))).join(' ');
    });
    data.leaves.forEach((prob, i) => {
      labels.push(svg('text', { x: x(data.depth) + 10, y: y(data.depth, i) + 5, class: 'leaf' }, `${names[i]}  ${data.hideLeaves ? '?' : prob.toFixed(3)}`));
    });
    fillTable(this.table, {
      caption: data.summary,
      head: [data.columns.sequence, data.columns.probability, ...data.paths.map((p) => p.label)],
      rows: data.leaves.map((prob, i) => [names[i], data.hideLeaves ? '?' : prob.toFixed(3), ...data.paths.map((p) => (pathOf(i, data.depth).every((t, l) => p.path[l] === t) ? '✓' : ''))]),
      rowHeaders: true,
    });
    root.replaceChildren(...edges, ...paths, ...labels);
    fillLegend(this.legend, data.paths.map((p) => ({ label: p.label, swatch: p.className })));
  }

}

// The breadth-first index, within its level, of the node a path reaches after `level` steps.
function prefixIndex(path: readonly number[], level: number): number {
  let index = 0;
  for (let step = 0; step < level; step++) index = 2 * index + path[step];
  return index;
}

// The choices leading to node `index` (breadth-first within its level) at `level`.
function pathOf(index: number, level: number): number[] {
  return Array.from({ length: level }, (_, step) => (index >> (level - 1 - step)) & 1);
}
