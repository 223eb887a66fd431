// Styles of the lesson parts: the samplers' mechanisms (single draws, the histogram they drop
// into, one token highlighted in every view) and predict-then-reveal questions. Every animation
// is CSS, so prefers-reduced-motion turns it off in one rule.
export const LESSON_CSS = `
.sl-mechanisms { margin-top: 1.25rem; border-top: 1px solid var(--sl-grid); padding-top: .5rem; }
.sl-mechanisms-title { font-size: 1.05rem; margin: .25rem 0; }
.sl-token-chips, .sl-mechanism-controls, .sl-predict-controls { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0; }
.sl-mechanism-controls .sl-slider { min-width: 200px; flex: 1 1 200px; }
sampling-lab .sl-token-chip { min-height: 44px; font-variant-numeric: tabular-nums; }
.sl-frontier tr.sl-kept td { font-weight: 600; }
.sl-frontier tr.sl-pruned td { color: var(--sl-muted); }
.sl-frontier tr.sl-pruned td:first-child { text-decoration: line-through; }
.sl-draw-readout { min-height: 3em; margin: .25rem 0; font-variant-numeric: tabular-nums; }
.sl-band-note { margin: .25rem 0; min-height: 1.5em; font-variant-numeric: tabular-nums; }
.sl-deviation text.sublabel { fill: var(--sl-muted); font-size: 11px; }
.sl-mechanism line.step { stroke: var(--sl-muted); stroke-width: 1.5; stroke-dasharray: 3 3; }
.sl-mechanism rect.jump { fill: var(--sl-kept); opacity: .55; }
.sl-mechanism .chosen { opacity: 1 !important; stroke: var(--sl-text); stroke-width: 2; }
.sl-mechanism line.level-u { stroke: var(--sl-series-2); stroke-width: 2.5; }
.sl-mechanism line.level-u.drop { stroke-dasharray: 4 3; }
.sl-mechanism text.u-label { fill: var(--sl-series-2); font-size: 13px; font-weight: 600; paint-order: stroke; stroke: var(--sl-surface); stroke-width: 4px; }
.sl-swatch.log-p { border: 2px solid var(--sl-muted); border-radius: 50%; }
.sl-mechanism text.start, .sl-mechanism text.axis-start { text-anchor: start; }
.sl-mechanism text.axis-right { text-anchor: end; fill: var(--sl-muted); font-size: 11px; }
.sl-mechanism text.axis-start { fill: var(--sl-muted); font-size: 11px; }
.sl-mechanism text.axis-left, .sl-histogram text.axis-left { fill: var(--sl-muted); font-size: 11px; text-anchor: end; }
.sl-mechanism line.zero, .sl-histogram line.zero { stroke: var(--sl-muted); stroke-width: 1; }
.sl-mechanism line.noise { stroke: var(--sl-series-2); stroke-width: 3; }
.sl-mechanism circle.log-p { fill: var(--sl-surface); stroke: var(--sl-muted); stroke-width: 2; }
.sl-mechanism circle.noisy { fill: var(--sl-kept); }
.sl-mechanism text.winner { fill: var(--sl-text); font-weight: 600; font-size: 12px; }
.sl-mechanism rect.clock { fill: var(--sl-kept); opacity: .55; }
.sl-mechanism line.ring { stroke: var(--sl-series-2); stroke-width: 2; stroke-dasharray: 4 3; }
.sl-mechanism text.clock-value { fill: var(--sl-muted); font-size: 11px; }
.sl-mechanism rect.own { fill: var(--sl-kept); opacity: .45; }
.sl-mechanism rect.alias { fill: var(--sl-series-3); opacity: .45; }
.sl-mechanism rect.picked { stroke: var(--sl-text); stroke-width: 1.5; }
.sl-mechanism line.coin { stroke: var(--sl-series-2); stroke-width: 3; }
.sl-mechanism text.part-label { fill: var(--sl-text); font-size: 11px; }
.sl-histogram rect.count { fill: var(--sl-kept); }
.sl-histogram rect.count.latest { fill: var(--sl-series-2); }
.sl-histogram rect.dropped { fill: var(--sl-series-2); }
sampling-lab .sl-highlighting [data-token]:not(.sl-highlight) { opacity: .25; }
sampling-lab .sl-highlighting .sl-token-chip.sl-highlight { border-color: var(--sl-accent); color: var(--sl-accent); }
sampling-lab .sl-highlighting svg .sl-highlight { stroke: var(--sl-text); stroke-width: 2.5; }
sampling-lab .sl-highlighting svg text.sl-highlight { stroke: none; font-weight: 700; }
@keyframes sl-enter { from { opacity: 0; } to { opacity: 1; } }
@keyframes sl-grow { from { transform: scaleX(0); } to { transform: scaleX(1); } }
@keyframes sl-fall { from { transform: translateY(var(--fall)); } to { transform: translateY(0); } }
.sl-mechanism .sl-enter { animation: sl-enter var(--sl-step-ms, 500ms) ease-out both; }
.sl-mechanism rect.clock.sl-enter { transform-box: fill-box; transform-origin: left; animation: sl-grow calc(3 * var(--sl-step-ms, 500ms) * var(--grow, 1)) linear both; }
.sl-histogram rect.dropped.sl-enter { animation: sl-fall var(--sl-step-ms, 500ms) ease-in both; }
@media (prefers-reduced-motion: reduce) {
  sampling-lab .sl-enter { animation: none !important; }
}
.sl-predict { margin: .75rem 0; padding: .5rem .75rem; border-left: 3px solid var(--sl-accent); background: var(--sl-bg); border-radius: 0 8px 8px 0; }
.sl-predict-question { margin: 0 0 .25rem; font-weight: 600; }
.sl-predict-controls .sl-slider { min-width: 220px; flex: 1 1 220px; }
.sl-predict-answer { margin: .25rem 0 0; }
sampling-lab .sl-reveal:disabled { opacity: .55; cursor: not-allowed; }
.sl-predict-answer:focus { outline: none; }
`;
