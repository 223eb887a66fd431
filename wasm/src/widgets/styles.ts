// The widgets' stylesheet, added to the document once. Colours are custom properties on the
// element, so a host page can restyle them.
import { reservedHeights } from './reserved-heights.js';
import { LESSON_CSS } from './styles-lesson.js';

const LIGHT = `
  --sl-bg: #ffffff;
  --sl-surface: #f6f7f9;
  --sl-text: #1d2330;
  --sl-muted: #5b6475;
  --sl-grid: #dfe3ea;
  --sl-kept: #2563eb;
  --sl-cut: #7b8290;
  --sl-accent: #2563eb;
  --sl-series-1: #2563eb;
  --sl-series-2: #b45309;
  --sl-series-3: #059669;
  --sl-series-4: #9333ea;
  --sl-bad: #dc2626;
  --sl-greedy: #b45309;
  --sl-best: #059669;
  color-scheme: light;`;

const DARK = `
  --sl-bg: #14171d;
  --sl-surface: #1d2129;
  --sl-text: #e6e9ef;
  --sl-muted: #a3abbb;
  --sl-grid: #2f3541;
  --sl-kept: #6ea0ff;
  --sl-cut: #8a93a5;
  --sl-accent: #6ea0ff;
  --sl-series-1: #6ea0ff;
  --sl-series-2: #f0a64a;
  --sl-series-3: #3fc79a;
  --sl-series-4: #c084fc;
  --sl-bad: #f87171;
  --sl-greedy: #f0a64a;
  --sl-best: #3fc79a;
  color-scheme: dark;`;

// Light by default; dark when the host page says so (MkDocs Material "slate", a .dark class)
// or, when it says nothing, when the system prefers it.
const WIDGET_CSS = `
sampling-lab {${LIGHT}}
:root[data-md-color-scheme="slate"] sampling-lab, :root.dark sampling-lab {${DARK}}
@media (prefers-color-scheme: dark) {
  :root:not([data-md-color-scheme]):not(.dark):not(.light) sampling-lab {${DARK}}
}
sampling-lab button {
  min-height: 44px;
  font: inherit;
  color: var(--sl-text);
  background: var(--sl-surface);
  border: 1px solid var(--sl-grid);
  border-radius: 6px;
  padding: .35rem .75rem;
  cursor: pointer;
}
sampling-lab button[aria-pressed="true"] { border-color: var(--sl-accent); color: var(--sl-accent); }
sampling-lab button:focus-visible, sampling-lab input:focus-visible { outline: 2px solid var(--sl-accent); outline-offset: 2px; }
sampling-lab, sampling-lab * { box-sizing: border-box; }
sampling-lab [hidden] { display: none !important; }
sampling-lab.sl-starting > * { visibility: hidden; }
sampling-lab { color: var(--sl-text); font-size: 16px; line-height: 1.5; }
sampling-lab { display: block; min-height: 12rem; }
${reservedHeights()}
.sl-widget {
  background: var(--sl-surface);
  border: 1px solid var(--sl-grid);
  border-radius: 10px;
  padding: 1rem;
}
.sl-status { color: var(--sl-muted); }
.sl-toolbar { display: flex; flex-wrap: wrap; gap: .5rem; justify-content: space-between; margin-bottom: .75rem; }
.sl-segmented { display: flex; flex-wrap: wrap; gap: .25rem; }

.sl-chart { position: relative; width: 100%; }
.sl-bars { width: 100%; height: auto; display: block; }
.sl-bars rect.kept { fill: var(--sl-kept); }
.sl-bars rect.tempered { fill: none; stroke: var(--sl-muted); stroke-width: 1.5; stroke-dasharray: 3 2; }
.sl-bars circle.sampled { fill: var(--sl-text); stroke: var(--sl-surface); stroke-width: 1.5; }
.sl-bars line.whisker { stroke: var(--sl-text); stroke-width: 2; }
.sl-bars polyline.cumulative { fill: none; stroke: var(--sl-series-2); stroke-width: 2; }
.sl-bars line.level { stroke: var(--sl-muted); stroke-width: 1.5; stroke-dasharray: 5 4; }
.sl-bars line.top-p { stroke: var(--sl-series-2); }
.sl-bars text.level-label { fill: var(--sl-muted); font-size: 11px; text-anchor: end; }
.sl-bars text.level-label.start { text-anchor: start; }
.sl-bars text.axis { fill: var(--sl-series-2); font-size: 11px; text-anchor: start; }
.sl-bars text.cut-by { fill: var(--sl-muted); font-size: 11px; }
.sl-bars text.value.cut { text-decoration: line-through; }
.sl-swatch.tempered { border: 1.5px dashed var(--sl-muted); }
.sl-swatch.cumulative { height: 2px; vertical-align: .25em; background: var(--sl-series-2); }
.sl-swatch.sampled { border-radius: 50%; background: var(--sl-text); }
.sl-deviation rect.band { fill: var(--sl-grid); stroke: var(--sl-muted); stroke-dasharray: 3 3; }
.sl-deviation line.zero { stroke: var(--sl-muted); stroke-width: 1; }
.sl-deviation circle.dot { stroke: var(--sl-surface); stroke-width: 1; }
.sl-deviation text.axis-left { fill: var(--sl-muted); font-size: 11px; text-anchor: end; }
.sl-swatch.band { background: var(--sl-grid); border: 1px dashed var(--sl-muted); }
.sl-note { color: var(--sl-muted); font-size: .9rem; margin: .5rem 0 0; }
.sl-advanced { margin: 0 0 1rem; }
/* Summaries stay list items, so the disclosure marker shows; padding makes them 44 px tall. */
.sl-advanced > summary { cursor: pointer; min-height: 44px; display: list-item; padding: .55rem 0; color: var(--sl-accent); }
.sl-advanced .sl-segmented { margin-top: .5rem; }
.sl-predict { margin: .5rem 0; }
.sl-predict summary { cursor: pointer; min-height: 44px; display: list-item; padding: .55rem 0; color: var(--sl-accent); }
.sl-verdict { margin: .5rem 0 0; font-weight: 600; }
.sl-intervals line.interval { stroke-width: 3; }
.sl-intervals .first { stroke: var(--sl-series-1); fill: var(--sl-series-1); }
.sl-intervals .second { stroke: var(--sl-series-2); fill: var(--sl-series-2); }
.sl-intervals text.row-label { fill: var(--sl-text); font-size: 13px; text-anchor: end; }
.sl-small-multiples { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: .5rem 1rem; }
.sl-panel { margin: 0; min-width: 0; }
.sl-panel figcaption { font-size: .9rem; color: var(--sl-muted); }
.sl-stale { opacity: .45; }
.sl-bars text { fill: var(--sl-text); font-size: 13px; text-anchor: middle; }
.sl-bars text.value { fill: var(--sl-muted); font-size: 11px; }
.sl-lines { width: 100%; height: auto; display: block; }
.sl-lines .grid { stroke: var(--sl-grid); stroke-width: 1; }
.sl-lines .frame { fill: none; stroke: var(--sl-grid); stroke-width: 1; }
.sl-lines .line { fill: none; stroke-width: 2; stroke-linejoin: round; }
.sl-lines .marker { stroke-width: 2; stroke-dasharray: 6 4; }
.sl-lines .marker-label { font-size: 12px; font-weight: 600; paint-order: stroke; stroke: var(--sl-bg); stroke-width: 3px; }
.sl-lines text { fill: var(--sl-text); font-size: 12px; }
.sl-lines text.tick.y { text-anchor: end; }
.sl-lines text.tick.x, .sl-lines text.axis-label { text-anchor: middle; }
.sl-top-chart { margin-bottom: .75rem; }
.sl-top-tokens { margin: .75rem 0; }
.sl-moments { margin: .75rem 0; }
.sl-moments-title { margin: .25rem 0; font-size: 1.05rem; }
.sl-moments-table { margin: .5rem 0; }
.sl-moments-table caption { text-align: left; color: var(--sl-muted); font-size: .85rem; }
.sl-moments-summary { margin: .25rem 0 0; }
.sl-top-tokens td { overflow-wrap: anywhere; }
.sl-top-tokens th:nth-child(2), .sl-top-tokens td:nth-child(2) { text-align: left; }
/* Play and pause drawn, not glyphs: U+23F8 is missing from many fonts. */
.sl-play::before {
  content: ""; display: inline-block; width: .7em; height: .8em; margin-right: .45em; vertical-align: -.05em;
  background: currentColor; clip-path: polygon(0 0, 100% 50%, 0 100%);
}
.sl-play[aria-pressed="true"]::before { clip-path: none; background: linear-gradient(to right, currentColor 0 35%, transparent 35% 65%, currentColor 65%); }

.sl-sliders { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: .5rem 1.5rem; margin: 1rem 0; }
.sl-slider { display: grid; grid-template-columns: 1fr auto; align-items: center; gap: 0 .5rem; }
.sl-slider label { grid-column: 1 / -1; font-size: .9rem; color: var(--sl-muted); }
.sl-slider input { width: 100%; height: 44px; margin: 0; accent-color: var(--sl-accent); }
.sl-slider output { font-variant-numeric: tabular-nums; min-width: 4.5em; text-align: right; }

.sl-readouts { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: .5rem; margin: 0; }
.sl-readout { background: var(--sl-bg); border-radius: 8px; padding: .4rem .6rem; }
.sl-readout dt { font-size: .8rem; color: var(--sl-muted); }
.sl-readout[data-readout="cuts"] { grid-column: 1 / -1; }
.sl-readout[data-readout="cuts"] dd { font-size: 1rem; }
.sl-readout dd { margin: 0; font-size: 1.15rem; font-variant-numeric: tabular-nums; }

.sl-visually-hidden {
  position: absolute !important; left: 0; top: 0; display: block; width: 1px; height: 1px; margin: -1px;
  padding: 0; border: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}

.sl-bars rect.reference { fill: none; stroke: var(--sl-text); stroke-width: 1.5; stroke-dasharray: 4 3; }
.sl-legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .85rem; color: var(--sl-muted); }
.sl-swatch { display: inline-block; width: .8em; height: .8em; margin-right: .3em; border-radius: 2px; vertical-align: -0.05em; }
.sl-swatch.reference { border: 1.5px dashed var(--sl-text); }
.sl-seed { align-self: center; color: var(--sl-muted); }
.sl-table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: .9rem; }
.sl-table th, .sl-table td { padding: .3rem .4rem; border-bottom: 1px solid var(--sl-grid); text-align: right; }
.sl-table th:first-child, .sl-table td:first-child { text-align: left; }
.sl-progress-box { min-height: 1.2rem; }
.sl-progress { width: 100%; accent-color: var(--sl-accent); }
sampling-lab { container-type: inline-size; }
/* Narrow widgets: each table row becomes a card of label–value lines, nothing scrolls sideways
   (a compact table's few short columns fit as they are). */
@container (max-width: 480px) {
  .sl-table:not(.sl-visually-hidden, .sl-compact), .sl-table:not(.sl-visually-hidden, .sl-compact) tbody,
  .sl-table:not(.sl-visually-hidden, .sl-compact) tr { display: block; }
  .sl-table:not(.sl-visually-hidden, .sl-compact) thead { display: none; }
  .sl-table:not(.sl-visually-hidden, .sl-compact) tr { border: 1px solid var(--sl-grid); border-radius: 8px; margin: .5rem 0; padding: .25rem .5rem; background: var(--sl-bg); }
  .sl-table:not(.sl-visually-hidden, .sl-compact) th, .sl-table:not(.sl-visually-hidden, .sl-compact) td {
    display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: .15rem 0; text-align: right;
  }
  /* The label keeps its width (a short one never breaks between its characters); a long one wraps within 45 %. */
  .sl-table:not(.sl-visually-hidden, .sl-compact) td[data-label]::before, .sl-table:not(.sl-visually-hidden, .sl-compact) th[data-label]::before {
    content: attr(data-label); color: var(--sl-muted); text-align: left; flex: 0 0 auto; max-width: 45%;
  }
  .sl-table:not(.sl-visually-hidden, .sl-compact) caption { display: block; text-align: left; }
}
.sl-footer { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
.sl-embed-code { flex-basis: 100%; width: 100%; font: 12px/1.4 ui-monospace, monospace; color: var(--sl-text); background: var(--sl-surface); border: 1px solid var(--sl-grid); border-radius: 6px; }
.sl-drop {
  position: relative; display: flex; align-items: center; justify-content: center; min-height: 88px; padding: 1rem;
  border: 2px dashed var(--sl-muted); border-radius: 8px; color: var(--sl-text); text-align: center; cursor: pointer;
}
.sl-drop:focus-within { outline: 2px solid var(--sl-accent); outline-offset: 2px; }
.sl-source { color: var(--sl-muted); margin: .5rem 0 0; }
.sl-source:empty { display: none; }
.sl-handbook { margin-top: 1rem; border-top: 1px solid var(--sl-grid); padding-top: .5rem; }
.sl-handbook-title { font-size: 1rem; font-weight: 600; margin: .25rem 0; min-height: 44px; display: list-item; padding: .55rem 0; cursor: pointer; }
.sl-handbook-explained { color: var(--sl-muted); font-size: .85rem; margin: .25rem 0 0; }
.sl-handbook-note { color: var(--sl-muted); font-size: .85rem; margin: .25rem 0 0; }
.sl-handbook-table td:last-child { color: var(--sl-muted); }
/* The verdict column keeps room for a word or two: "一致吗" never stacks one character a line. */
.sl-handbook-table th:last-child, .sl-handbook-table td:last-child { min-width: 5em; }
.sl-error { color: var(--sl-bad); margin: 0; }
.sl-error:empty { display: none; }

.sl-tree-svg { width: 100%; height: auto; display: block; }
.sl-tree-svg .edge { stroke: var(--sl-cut); stroke-width: 2; }
.sl-tree-svg .edge.beam { stroke: var(--sl-kept); stroke-width: 4; stroke-dasharray: 6 4; }
.sl-tree-svg .edge.beam-wide { stroke: var(--sl-series-4); stroke-width: 4; stroke-dasharray: 2 4; }
.sl-swatch.beam-wide { background: var(--sl-series-4); }
.sl-tree-svg .edge.greedy { stroke: var(--sl-greedy); stroke-width: 4; }
.sl-tree-svg .edge.best { stroke: var(--sl-best); stroke-width: 4; }
.sl-tree-svg text { fill: var(--sl-text); font-size: 15px; }
.sl-tree-svg text.prob { fill: var(--sl-muted); font-size: 13px; text-anchor: middle; }
/* A halo of the background keeps edge labels readable where a highlighted path passes. */
.sl-tree-svg text.prob, .sl-tree-svg text.node { paint-order: stroke; stroke: var(--sl-surface); stroke-width: 4px; stroke-linejoin: round; }
.sl-tree-svg text.node { text-anchor: middle; font-weight: 600; }
.sl-swatch.greedy { background: var(--sl-greedy); }
.sl-swatch.best { background: var(--sl-best); }
.sl-swatch.beam { background: var(--sl-kept); }
.sl-overlap rect.target { fill: var(--sl-series-1); }
.sl-overlap rect.draft { fill: var(--sl-series-2); }
.sl-overlap rect.overlap { fill: none; stroke: var(--sl-text); stroke-width: 2; }
.sl-swatch.target { background: var(--sl-series-1); }
.sl-swatch.draft { background: var(--sl-series-2); }
.sl-swatch.overlap { border: 2px solid var(--sl-text); }
.sl-overlap rect.residual { fill: var(--sl-bad); }
.sl-swatch.residual { background: var(--sl-bad); }
.sl-toggle { display: inline-flex; align-items: center; gap: .35rem; font-size: .9rem; }
.sl-toggle input { accent-color: var(--sl-accent); }
`;

export function installStyles(): void {
  if (document.getElementById('sampling-lab-styles')) return;
  const style = document.createElement('style');
  style.id = 'sampling-lab-styles';
  style.textContent = WIDGET_CSS + LESSON_CSS;
  document.head.append(style);
}
