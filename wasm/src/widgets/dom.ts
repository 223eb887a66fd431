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

/** Sets a node's text only where it differs: an unchanged text then costs no style or layout. */
export function setText(node: Node, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * Makes `root`'s children match `nodes` (new, detached elements): where the tags agree, each
 * existing element takes the new one's attributes and text, so that a redraw restyles and lays
 * out only what changed; elsewhere the new ones replace them.
 */
export function patchChildren(root: Element, nodes: readonly Element[]): void {
  const children = root.children;
  if (children.length !== nodes.length || nodes.some((node, i) => children[i].tagName !== node.tagName)) {
    root.replaceChildren(...nodes);
    return;
  }
  nodes.forEach((node, i) => patchElement(children[i], node));
}

function patchElement(old: Element, node: Element): void {
  // Text mixed with elements is not matched node by node: the new element stands in.
  if (node.childNodes.length !== node.children.length && node.children.length > 0) {
    old.replaceWith(node);
    return;
  }
  for (const { name, value } of Array.from(node.attributes)) {
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  for (const { name } of Array.from(old.attributes)) {
    if (!node.hasAttribute(name)) old.removeAttribute(name);
  }
  if (node.children.length > 0 || old.children.length > 0) patchChildren(old, Array.from(node.children));
  else setText(old, node.textContent ?? '');
}

/**
 * Fills `table` (caption, header row, body) from data. A table already of the same shape (a
 * slider's redraw) keeps its cells and only their changed texts are set.
 */
export function fillTable(table: HTMLTableElement, data: TableData): HTMLTableElement {
  const cells = data.rows.map((row) => row.map((cell, i) => ({
    text: typeof cell === 'object' ? cell.text : String(cell),
    header: (typeof cell === 'object' ? cell.header : data.rowHeaders && i === 0) ?? false,
    label: data.head[i],
  })));
  if (sameShape(table, data, cells)) {
    if (table.caption) setText(table.caption, data.caption!);
    data.head.forEach((title, i) => setText(table.tHead!.rows[0].cells[i], title));
    cells.forEach((row, r) => row.forEach((cell, i) => {
      const node = table.tBodies[0].rows[r].cells[i];
      setText(node, cell.text);
      if (cell.label && node.dataset.label !== cell.label) node.dataset.label = cell.label;
    }));
    return table;
  }
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
  for (const row of cells) {
    const tr = element('tr');
    for (const cell of row) {
      const node = element(cell.header ? 'th' : 'td', undefined, cell.text);
      if (cell.header) (node as HTMLTableCellElement).scope = 'row';
      // The column's title, which narrow layouts show beside each value (stacked cards).
      if (cell.label) node.dataset.label = cell.label;
      tr.append(node);
    }
    body.append(tr);
  }
  parts.push(head, body);
  table.replaceChildren(...parts);
  return table;
}

/** Whether `table` has the caption, columns, rows and header cells `data` would give it. */
function sameShape(table: HTMLTableElement, data: TableData, cells: readonly { header: boolean }[][]): boolean {
  const body = table.tBodies[0];
  if (!table.tHead || !body || table.tBodies.length !== 1 || (table.caption !== null) !== (data.caption !== undefined)) return false;
  if (table.tHead.rows[0]?.cells.length !== data.head.length || body.rows.length !== cells.length) return false;
  return cells.every((row, r) => body.rows[r].cells.length === row.length &&
    row.every((cell, i) => (body.rows[r].cells[i].tagName === 'TH') === cell.header));
}

export interface LegendItem {
  label: string;
  /** A swatch class (e.g. "greedy") or a CSS colour variable (e.g. "--sl-series-1"). */
  swatch: string;
}

/** Fills `box` with swatches and labels. */
export function fillLegend(box: HTMLElement, items: readonly LegendItem[]): HTMLElement {
  // The same items again (a slider's redraw) leave the legend as it is.
  const key = JSON.stringify(items);
  if (legendKeys.get(box) === key) return box;
  legendKeys.set(box, key);
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

const legendKeys = new WeakMap<HTMLElement, string>();

/**
 * The drawing size of an SVG chart in CSS pixels: its box's width, and a height that grows on
 * narrow screens. Charts use it as their viewBox, so text sized in px renders at that size.
 */
export function chartSize(boxWidth: number, height: number): { width: number; height: number } {
  const width = Math.max(240, Math.round(boxWidth || 600));
  return { width, height: width < 480 ? Math.round(height * 1.3) : height };
}
