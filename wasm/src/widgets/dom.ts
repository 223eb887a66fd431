// DOM helpers for widgets. Data only ever enters the page as textContent or attribute values.
const SVG_NS = 'http://www.w3.org/2000/svg';

/** A new HTML element with an optional class name and text (set as textContent, never as HTML). */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K, className?: string, text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K, attributes: Record<string, string | number> = {}, text?: string,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A table cell: its text (a number is shown with String()), or an object that can make it a header cell. */
export type Cell = string | number | { text: string; header?: boolean };

/** What {@link fillTable} fills a table with: caption, column titles and rows of cells. */
export interface TableData {
  caption?: string;
  head: readonly string[];
  rows: readonly (readonly Cell[])[];
  /** The first cell of each row is its header. */
  rowHeaders?: boolean;
}

/** Fills `table` (caption, header row, body) from data. */
export function fillTable(table: HTMLTableElement, data: TableData): HTMLTableElement {
  const parts: HTMLElement[] = [];
  if (data.caption !== undefined) parts.push(element('caption', undefined, data.caption));
  const head = element('thead');
  const headRow = element('tr');
  for (const title of data.head) {
    const th = element('th', undefined, title);
    th.scope = 'col';
    headRow.append(th);
  }
  head.append(headRow);
  const body = element('tbody');
  for (const row of data.rows) {
    const tr = element('tr');
    row.forEach((cell, i) => {
      const isHeader = typeof cell === 'object' ? cell.header : data.rowHeaders && i === 0;
      const node = element(isHeader ? 'th' : 'td', undefined, typeof cell === 'object' ? cell.text : String(cell));
      if (isHeader) (node as HTMLTableCellElement).scope = 'row';
      // The column's title, which narrow layouts show beside each value (stacked cards).
      if (data.head[i]) node.dataset.label = data.head[i];
      tr.append(node);
    });
    body.append(tr);
  }
  parts.push(head, body);
  table.replaceChildren(...parts);
  return table;
}

export interface LegendItem {
  label: string;
  /** A swatch class (e.g. "greedy") or a CSS colour variable (e.g. "--sl-series-1"). */
  swatch: string;
}

/** Fills `box` with swatches and labels. */
export function fillLegend(box: HTMLElement, items: readonly LegendItem[]): HTMLElement {
  box.replaceChildren(...items.map(({ label, swatch }) => {
    const item = element('span');
    const mark = element('i', 'sl-swatch');
    if (swatch.startsWith('--')) mark.style.background = `var(${swatch})`;
    else mark.classList.add(swatch);
    item.append(mark, label);
    return item;
  }));
  return box;
}

/**
 * The drawing size of an SVG chart in CSS pixels: its box's width, and a height that grows on
 * narrow screens. Charts use it as their viewBox, so text sized in px renders at that size.
 */
export function chartSize(boxWidth: number, height: number): { width: number; height: number } {
  const width = Math.max(240, Math.round(boxWidth || 600));
  return { width, height: width < 480 ? Math.round(height * 1.3) : height };
}
