// Below a widget: every figure the handbook prints for its experiment, with the chapter that
// prints it, beside the live value the same core computes for the handbook's own inputs.
// Monte-Carlo figures come with their standard error and a word on why they differ (another
// random generator), so a reader can see the printed value lies within the spread; a figure the
// chapter rounded its own way says how.
import { formatFigure as formatValue, HANDBOOK_CHAPTERS, HANDBOOK_FIGURES, type HandbookFigure } from './handbook.js';
import { element, fillTable } from './dom.js';
import { strings } from './i18n.js';
import { runInWorker } from './worker-client.js';

const list = (x: number | number[]) => (Array.isArray(x) ? x : [x]);

// One run per experiment and parameters, shared by every figure (and widget) that needs it.
const runs = new Map<string, Promise<unknown>>();
function run(figure: HandbookFigure): Promise<unknown> {
  const key = JSON.stringify([figure.experiment, figure.params]);
  if (!runs.has(key)) runs.set(key, runInWorker({ kind: 'experiment', name: figure.experiment, params: figure.params as Record<string, unknown> }, () => undefined));
  return runs.get(key)!;
}

interface Row {
  figure: HandbookFigure;
  live: number[];
  standardError?: number[];
}

export interface HandbookPanel {
  root: HTMLElement;
  relabel(): void;
  destroy(): void;
}

export function handbookPanel(experiment: string): HandbookPanel | undefined {
  const figures = HANDBOOK_FIGURES.filter((f) => f.experiment === experiment);
  if (!figures.length) return undefined;
  // Open beside the widget; folded on phones, where its rows become tall cards.
  const root = element('details', 'sl-handbook');
  root.open = !matchMedia('(max-width: 480px)').matches;
  const title = element('summary', 'sl-handbook-title');
  const table = element('table', 'sl-table sl-handbook-table');
  const note = element('p', 'sl-handbook-note');
  // One sentence per figure that the chapter rounded its own way.
  const explained = element('p', 'sl-handbook-explained');
  root.append(title, table, note, explained);
  // Until the live values arrive, each row shows its printed value and a placeholder: the table
  // has its final height from the start.
  let rows: Row[] = figures.map((figure) => ({ figure, live: [] }));
  let alive = true;

  void Promise.all(figures.map(async (figure) => {
    const result = await run(figure);
    return { figure, live: list(figure.live(result as never)), standardError: figure.standardError && list(figure.standardError(result as never)) };
  })).then((computed) => {
    if (!alive) return;
    rows = computed;
    relabel();
  }, () => undefined);

  function relabel(): void {
    const s = strings();
    title.textContent = s.handbookTitle;
    const chance = figures.some((f) => f.standardError);
    note.textContent = chance ? s.handbookChanceNote : s.handbookExactNote;
    explained.textContent = figures.filter((f) => f.rounding).map((f) => s.handbookRounding(f.id)).join(' ');
    const source = (figure: HandbookFigure) => s.handbookSourceOf(HANDBOOK_CHAPTERS[figure.chapter][s.language], figure.where);
    fillTable(table, {
      head: [s.handbookFigure, s.handbookSource, s.handbookPrinted, s.handbookLive, s.handbookAgreement],
      rows: rows.map(({ figure, live, standardError }) => {
        const printed = list(figure.printed);
        const label = [s.figureLabel(figure.id), source(figure)];
        if (!live.length) return [...label, printed.map((x) => formatValue(x, figure.digits)).join(', '), '…', '…'];
        // Rounded to tens or more, the live value shows whole and the agreement says to which digit.
        const shown = live.map((x) => formatValue(x, Math.max(figure.digits, 0))).join(', ');
        if (!standardError) {
          const same = live.every((x, i) => formatValue(x, figure.digits) === formatValue(printed[i], figure.digits));
          return [...label, printed.map((x) => formatValue(x, figure.digits)).join(', '), shown,
            same ? (figure.digits < 0 ? s.handbookSameRounded(-figure.digits) : s.handbookSame) : s.handbookDiffers];
        }
        // The largest distance of a printed entry from its live value, in standard errors.
        const z = Math.max(...printed.map((p, i) => {
          const gap = Math.abs(p - live[i]);
          const se = standardError[Math.min(i, standardError.length - 1)];
          return se > 0 ? gap / se : gap === 0 ? 0 : Infinity;
        }));
        const spread = standardError.length === 1 ? ` ± ${formatValue(standardError[0], figure.digits + 1)}` : '';
        return [...label, printed.map((x) => formatValue(x, figure.digits)).join(', '), shown + spread, s.handbookWithin(z)];
      }),
      rowHeaders: true,
    });
  }
  relabel();
  return { root, relabel, destroy: () => { alive = false; } };
}
