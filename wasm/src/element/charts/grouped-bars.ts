// Grouped SVG bars: several series per category against a reference drawn as an outline,
// with a legend and a hidden table for screen readers.
const SVG = 'http://www.w3.org/2000/svg';

export interface GroupedBarsData {
  categories: string[];
  reference: { label: string; values: readonly number[] };
  series: { label: string; color: string; values: readonly number[] }[];
  summary: string;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export class GroupedBars {
  #svg?: SVGSVGElement;
  #legend?: HTMLElement;
  #table?: HTMLTableElement;

  reset(): void {
    this.#svg = undefined;
  }

  draw(box: HTMLElement, data: GroupedBarsData): void {
    if (!this.#svg || !box.contains(this.#svg)) {
      this.#svg = svg('svg', { viewBox: '0 0 600 220', class: 'sl-bars', role: 'img' });
      this.#legend = document.createElement('div');
      this.#legend.className = 'sl-legend';
      this.#table = document.createElement('table');
      this.#table.className = 'sl-visually-hidden';
      box.replaceChildren(this.#svg, this.#legend, this.#table);
    }
    const [width, height, top, bottom] = [600, 220, 12, 24];
    const slot = width / data.categories.length;
    const barWidth = (slot * 0.8) / data.series.length;
    const max = Math.max(...data.reference.values, ...data.series.flatMap((s) => s.values));
    const y = (v: number) => height - bottom - (v / max) * (height - top - bottom);
    const nodes: SVGElement[] = [];
    data.categories.forEach((category, i) => {
      const left = i * slot + slot * 0.1;
      data.series.forEach((series, j) => {
        const v = series.values[i];
        nodes.push(svg('rect', {
          x: left + j * barWidth, y: y(v), width: barWidth * 0.9, height: Math.max(height - bottom - y(v), 0.5),
          style: `fill: var(${series.color})`,
        }));
      });
      const ref = data.reference.values[i];
      nodes.push(svg('rect', { x: left - 2, y: y(ref), width: slot * 0.8 + 4, height: height - bottom - y(ref), class: 'reference' }));
      const label = svg('text', { x: left + slot * 0.4, y: height - 6, class: 'label' });
      label.textContent = category;
      nodes.push(label);
    });
    this.#svg.replaceChildren(...nodes);
    this.#svg.setAttribute('aria-label', data.summary);
    this.#legend!.innerHTML = [
      `<span><i class="sl-swatch reference"></i>${data.reference.label}</span>`,
      ...data.series.map((s) => `<span><i class="sl-swatch" style="background: var(${s.color})"></i>${s.label}</span>`),
    ].join('');
    const head = `<tr><th></th><th>${data.reference.label}</th>${data.series.map((s) => `<th>${s.label}</th>`).join('')}</tr>`;
    const rows = data.categories.map((c, i) =>
      `<tr><th>${c}</th><td>${data.reference.values[i].toFixed(4)}</td>${data.series.map((s) => `<td>${s.values[i].toFixed(4)}</td>`).join('')}</tr>`);
    this.#table!.innerHTML = `<caption>${data.summary}</caption>${head}${rows.join('')}`;
  }
}
