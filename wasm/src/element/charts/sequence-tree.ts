// A two-step sequence tree: conditional probabilities on the edges, each leaf's sequence
// probability, and the greedy, most probable and beam paths marked.
import { chartSize, element, fillLegend, svg } from '../dom.js';
import type { Chart } from '../kit.js';

export interface TreeData {
  /** P(first token) for the two roots' children, then P(second | first), breadth-first. */
  edges: readonly number[];
  /** Leaf label and sequence probability, in the order A a1, A a2, B b1, B b2. */
  leaves: readonly { label: string; prob: number }[];
  /** Paths as token lists; an edge is on a path when the path starts with the edge's prefix. */
  paths: readonly { path: readonly number[]; className: string; label: string }[];
  rootLabels: readonly string[];
  summary: string;
}

const BASE_HEIGHT = 240;

export class SequenceTree implements Chart {
  #box: HTMLElement;
  #svg?: SVGSVGElement;
  #legend = element('div', 'sl-legend');

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  draw({ edges, leaves, paths, rootLabels, summary }: TreeData): void {
    if (!this.#svg) {
      this.#svg = svg('svg', { class: 'sl-tree-svg', role: 'img' });
      this.#box.replaceChildren(this.#svg, this.#legend);
    }
    const { width, height } = chartSize(this.#box, BASE_HEIGHT);
    this.#svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.#svg.setAttribute('aria-label', summary);
    const onPath = (prefix: number[]) => paths.filter((p) => prefix.every((t, i) => p.path[i] === t)).map((p) => p.className);
    // Leaves' labels need about 100 px to the right of the last column.
    const [x0, x1, x2] = [24, Math.round(width * 0.36), Math.round(Math.min(width * 0.72, width - 110))];
    const row = height / 8;
    const firstY = [2 * row, 6 * row];
    const leafY = [row, 3 * row, 5 * row, 7 * row];
    const nodes: SVGElement[] = [];
    for (let a = 0; a < 2; a++) {
      nodes.push(svg('line', { x1: x0, y1: height / 2, x2: x1, y2: firstY[a], class: ['edge', ...onPath([a])].join(' ') }),
        svg('text', { x: (x0 + x1) / 2, y: (height / 2 + firstY[a]) / 2 - 8, class: 'prob' }, edges[a].toFixed(2)),
        svg('text', { x: x1, y: firstY[a] - 10, class: 'node' }, rootLabels[a]));
      for (let b = 0; b < 2; b++) {
        const y = leafY[2 * a + b];
        const leaf = leaves[2 * a + b];
        nodes.push(svg('line', { x1, y1: firstY[a], x2, y2: y, class: ['edge', ...onPath([a, b])].join(' ') }),
          svg('text', { x: (x1 + x2) / 2, y: (firstY[a] + y) / 2 - 6, class: 'prob' }, edges[2 + 2 * a + b].toFixed(2)),
          svg('text', { x: x2 + 8, y: y + 5, class: 'leaf' }, `${leaf.label}  ${leaf.prob.toFixed(2)}`));
      }
    }
    this.#svg.replaceChildren(...nodes);
    fillLegend(this.#legend, paths.map((p) => ({ label: p.label, swatch: p.className })));
  }

  reset(): void {
    this.#svg = undefined;
  }

  destroy(): void {
    this.reset();
  }
}
