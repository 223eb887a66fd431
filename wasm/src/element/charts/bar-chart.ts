// Labelled SVG bars: kept tokens at their renormalised probability, cut tokens grey.
const SVG = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export interface BarChartData {
  labels: readonly string[];
  tempered: Float32Array;
  filtered: ArrayLike<number>;
  summary: string;
  /** Sampled frequencies, drawn as marks over the bars. */
  empirical?: readonly number[];
  empiricalLabel: string;
}

export class BarChart {
  #svg?: SVGSVGElement;
  #table?: HTMLTableElement;

  draw(box: HTMLElement, { labels, tempered, filtered, summary, empirical, empiricalLabel }: BarChartData): void {
    const n = tempered.length;
    const width = 600;
    const height = 220;
    const top = 18;
    const bottom = 26;
    const slot = width / n;
    if (!this.#svg || !box.contains(this.#svg)) {
      this.#svg = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'sl-bars', role: 'img' });
      this.#table = document.createElement('table');
      this.#table.className = 'sl-visually-hidden';
      box.replaceChildren(this.#svg, this.#table);
    }
    this.#svg.setAttribute('aria-label', summary);
    const shown = Array.from({ length: n }, (_, i) => (filtered[i] > 0 ? filtered[i] : tempered[i]));
    const scale = (height - top - bottom) / Math.max(...shown, ...(empirical ?? []), 1e-9);
    const children: SVGElement[] = [];
    const rows: string[] = [];
    shown.forEach((p, i) => {
      const isKept = filtered[i] > 0;
      const barHeight = Math.max(p * scale, 0.5);
      const x = i * slot + slot * 0.15;
      const y = height - bottom - barHeight;
      children.push(svg('rect', { x, y, width: slot * 0.7, height: barHeight, class: isKept ? 'kept' : 'cut' }));
      const value = svg('text', { x: x + slot * 0.35, y: y - 4, class: 'value' });
      value.textContent = p >= 0.0995 ? p.toFixed(2) : p.toFixed(3).replace(/^0/, '');
      const label = svg('text', { x: x + slot * 0.35, y: height - 8, class: 'label' });
      label.textContent = labels[i];
      children.push(value, label);
      if (empirical) {
        const markY = height - bottom - empirical[i] * scale;
        children.push(svg('line', { x1: x - 2, x2: x + slot * 0.7 + 2, y1: markY, y2: markY, class: 'empirical' }));
      }
      const sampled = empirical ? `<td>${empirical[i].toFixed(3)}</td>` : '';
      rows.push(`<tr><td>${labels[i]}</td><td>${p.toFixed(4)}</td><td>${isKept ? '✓' : '✗'}</td>${sampled}</tr>`);
    });
    this.#svg.replaceChildren(...children);
    this.#table!.innerHTML = `<caption>${summary}${empirical ? ` (${empiricalLabel})` : ''}</caption>${rows.join('')}`;
  }
}
