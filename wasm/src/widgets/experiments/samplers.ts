// Four exact samplers against p: each frequency's deviation from p against the ±2 standard-error
// band chance alone fills, on a y-axis that can stay fixed while n grows (so the band visibly
// narrows, by the printed ratio), the largest deviation and the χ² p-value, run in the Worker.
// Below, the mechanisms: single draws of one method stepped or played — u against the CDF, the
// noisy logits and their argmax, the racing clocks, the alias column and coin, all from the
// core's sampler-trace on the keys the samplers use — each dropping into a histogram. Hovering or
// focusing a token highlights it in every view. (Time per sample is left to the benchmarks.)
import type { SamplersResult, SamplerTraceResult } from '../../lab/experiments.js';
import { segmented, slider } from '../controls.js';
import { DeviationChart } from '../charts/deviation-chart.js';
import { DrawHistogram, MechanismChart } from '../charts/mechanism-chart.js';
import { element, fillTable } from '../dom.js';
import { strings, type Strings } from '../i18n.js';
import { experimentWidget, type Kit } from '../kit.js';
import { player } from '../player.js';
import type { Widget, WidgetContext } from './types.js';

const SAMPLE_COUNTS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
const METHOD_COLORS = ['--sl-series-1', '--sl-series-2', '--sl-series-3', '--sl-series-4'];
const METHODS = ['inverse-cdf', 'gumbel-max', 'exponential-race', 'alias'] as const;
type Method = typeof METHODS[number];
// Draws fetched from the core at a time; stepping past them fetches the next ones.
const TRACE_BATCH = 100;

export function samplersWidget(context: WidgetContext): Widget {
  return experimentWidget<SamplersResult>(context, {
    experiment: 'samplers',
    inWorker: () => true,
    setup(kit) {
      let seed = 0;
      const p = kit.param('p').default as number[];
      const labels = p.map((_, i) => `x${i + 1}`);
      const seedLabel = element('span', 'sl-seed');
      const reseed = kit.button('sl-reseed', (s) => s.reseed, () => { seed++; mechanism.restart(); kit.update(); });
      kit.toolbar.append(seedLabel, reseed);
      const n = kit.slider('n', {
        label: (s) => s.sampleCount, min: 0, max: SAMPLE_COUNTS.length - 1, step: 1,
        value: SAMPLE_COUNTS.indexOf(kit.param('n').default as number),
        fromAttribute: (count) => Math.max(0, SAMPLE_COUNTS.findIndex((c) => c >= count)),
        format: (i) => SAMPLE_COUNTS[i].toLocaleString(),
      });
      const fixedScale = kit.toggle('fixed-scale', (s) => s.fixedScale);
      fixedScale.input.checked = true;
      fixedScale.input.addEventListener('change', () => { extent = undefined; });
      kit.controls.append(n.root, fixedScale.root);
      const bandNote = element('p', 'sl-band-note');
      bandNote.setAttribute('aria-live', 'polite');
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new DeviationChart(chartBox));
      const table = element('table', 'sl-table');
      const note = element('p', 'sl-note');
      kit.label(note, (s) => s.pValueNote);
      const mechanism = mechanismPanel(kit, p, labels, () => seed);
      kit.body.append(bandNote, chartBox, table, note, mechanism.root);
      // The fixed scale: the axis only widens when the data need it, so a larger n keeps it.
      let extent: number | undefined;
      let previous: { n: number; band: number } | undefined;
      let bandText = (s: Strings) => s.bandHint;
      return {
        params: () => ({ p, n: SAMPLE_COUNTS[n.value()], seed }),
        render(result) {
          const s = strings();
          seedLabel.textContent = `${s.seed} ${seed}`;
          const names = result.methods.map((m) => s.methodNames[m.name]);
          const used = chart.draw({
            categories: labels,
            sublabels: p.map((pi) => `p = ${pi}`),
            categoryLabel: s.token,
            band: Array.from(result.standardErrors, (se) => 2 * se),
            bandLabel: s.twoStandardErrors,
            series: result.methods.map((m, i) => ({ label: names[i], color: METHOD_COLORS[i], values: Array.from(m.deviations) })),
            summary: s.samplersSummary(result.n),
            extent: fixedScale.checked() ? extent : undefined,
          });
          if (fixedScale.checked()) extent = used;
          const band = 2 * result.standardErrors[0];
          // Kept as a function of the strings: a redraw after the language changes says it again.
          if (previous && previous.n !== result.n) {
            const [from, before, fixed] = [previous.n, previous.band, fixedScale.checked()];
            bandText = (t) => t.bandRatio(from, result.n, before, band, fixed);
          } else if (!previous) {
            bandText = (t) => t.bandHint;
          }
          bandNote.textContent = bandText(s);
          if (!previous || previous.n !== result.n) previous = { n: result.n, band };
          fillTable(table, {
            head: [s.method, s.maxDeviation, s.chiSquareP],
            rows: result.methods.map((m, i) => [names[i], m.maxDeviation.toFixed(4), m.chiSquare.pValue.toPrecision(3)]),
            rowHeaders: true,
          });
          mechanism.reapplyHighlight();
        },
        relabel: () => {
          seedLabel.textContent = `${strings().seed} ${seed}`;
          mechanism.relabel();
        },
        destroy: () => mechanism.destroy(),
      };
    },
  });
}

interface MechanismPanel {
  root: HTMLElement;
  /** New seed or method: back to draw 1 with an empty histogram. */
  restart(): void;
  relabel(): void;
  reapplyHighlight(): void;
  destroy(): void;
}

function mechanismPanel(kit: Kit, p: readonly number[], labels: readonly string[], seed: () => number): MechanismPanel {
  const root = element('section', 'sl-mechanisms');
  const heading = element('h3', 'sl-mechanisms-title');
  kit.label(heading, (s) => s.mechanismsTitle);
  const intro = element('p', 'sl-note');
  kit.label(intro, (s) => s.mechanismsIntro);
  let method: Method = 'inverse-cdf';
  // Choosing a method redraws this panel only: the experiment above does not depend on it.
  const methodChoice = segmented<Method>(METHODS, method, (value) => { method = value; pause(); restart(); });
  kit.onRelabel((s) => methodChoice.setLabels(Object.fromEntries(METHODS.map((m) => [m, s.methodNames[m]])) as Record<Method, string>, s.method));
  const chips = element('div', 'sl-token-chips');
  const chipButtons = labels.map((label, i) => {
    const chip = element('button', 'sl-token-chip', `${label} · p = ${p[i]}`);
    chip.type = 'button';
    chip.dataset.token = String(i);
    return chip;
  });
  chips.append(...chipButtons);
  kit.onRelabel((s) => chips.setAttribute('aria-label', s.tokenChips));
  chips.setAttribute('role', 'group');
  const buttons = element('div', 'sl-mechanism-controls');
  const step = kit.button('sl-step', (s) => s.stepDraw, () => { pause(); advance(); });
  const play = player(kit, () => advance(), () => 1000 / speed.value());
  const [start, pause] = [play.start, play.pause];
  const clear = kit.button('sl-clear-draws', (s) => s.clearDraws, () => { pause(); restart(); });
  const speed = slider({ name: 'draw-speed', min: 1, max: 20, step: 1, value: 2, format: (v) => strings().drawsPerSecond(v), onInput: () => { if (play.playing()) { pause(); start(); } } });
  speed.input.dataset.player = '';  // the player's pace, not a parameter: it moves no result
  // The value's words follow the language too.
  kit.label({ set textContent(text: string) { speed.setLabel(text); speed.set(speed.value()); } }, (s) => s.drawSpeed);
  buttons.append(step, play.button, clear, speed.root);
  const readout = element('p', 'sl-draw-readout');
  readout.setAttribute('aria-live', 'polite');
  const why = element('p', 'sl-note sl-method-why');
  const mechanismBox = element('div', 'sl-chart');
  const mechanismChart = kit.chart(new MechanismChart(mechanismBox));
  const histogramBox = element('div', 'sl-chart');
  const histogram = kit.chart(new DrawHistogram(histogramBox));
  root.append(heading, intro, methodChoice.root, chips, buttons, readout, mechanismBox, histogramBox, why);

  let trace: SamplerTraceResult | undefined;
  let shown = 0;  // draws so far; the latest is draw shown − 1
  let counts = p.map(() => 0);
  let highlighted: number | null = null;
  const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');

  function traceFrom(first: number): SamplerTraceResult {
    return kit.lab.runExperiment('sampler-trace', {
      p: [...p], method, seed: seed(), stream: METHODS.indexOf(method), first, n: TRACE_BATCH,
    });
  }

  function advance(): void {
    if (!trace || shown >= trace.first + trace.draws.length) trace = traceFrom(shown);
    counts[trace.draws[shown - trace.first].token]++;
    shown++;
    draw();
  }

  function draw(): void {
    const s = strings();
    why.textContent = s.methodWhy[method];
    // The animation fits within one step of the player.
    root.style.setProperty('--sl-step-ms', `${Math.min(700, Math.round(800 / speed.value()))}ms`);
    if (shown === 0) {
      readout.textContent = s.noDrawYet;
      mechanismBox.hidden = true;
    } else {
      mechanismBox.hidden = false;
      const current = trace!.draws[shown - 1 - trace!.first];
      readout.textContent = s.drawReadout(method, shown, current, labels, trace!);
      mechanismChart.draw({
        trace: trace!, draw: current, p, labels,
        text: {
          summary: s.mechanismSummary(s.methodNames[method], shown), token: s.token, cdf: 'F(x)', logP: 'log p', noisy: 'log p + G',
          time: s.ringTime, column: s.aliasColumn, coin: s.coin, argmax: 'argmax', first: s.firstToRing, keep: s.aliasKeep, alias: s.aliasOf,
        },
      });
    }
    histogram.draw({
      counts, expected: p.map((pi) => pi * shown), draws: shown,
      latest: shown > 0 ? trace!.draws[shown - 1 - trace!.first].token : undefined, labels,
      text: { summary: s.histogramSummary(shown), token: s.token, count: s.drawCount, expected: s.expectedCount },
    });
    root.classList.toggle('sl-reduced-motion', reducedMotion.matches);
    applyHighlight();
  }

  function restart(): void {
    trace = undefined;
    shown = 0;
    counts = p.map(() => 0);
    draw();
  }

  // One token lit in every view of the widget: bars, CDF steps, noisy logits, clocks, columns, histogram, dots.
  function applyHighlight(): void {
    const widget = kit.root;
    widget.classList.toggle('sl-highlighting', highlighted !== null);
    for (const node of widget.querySelectorAll<HTMLElement | SVGElement>('[data-token]')) {
      node.classList.toggle('sl-highlight', node.dataset.token === String(highlighted));
    }
  }
  const tokenOf = (event: Event) => (event.target as Element).closest?.('[data-token]') as HTMLElement | null;
  const onOver = (event: Event) => {
    const found = tokenOf(event);
    const next = found ? Number(found.dataset.token) : null;
    if (next !== highlighted) { highlighted = next; applyHighlight(); }
  };
  const onOut = (event: Event) => {
    if (!tokenOf(event)) return;
    highlighted = null;
    applyHighlight();
  };
  kit.root.addEventListener('mouseover', onOver);
  kit.root.addEventListener('focusin', onOver);
  kit.root.addEventListener('mouseout', onOut);
  kit.root.addEventListener('focusout', onOut);

  // A player off-screen stops: nobody is watching it.
  const visibility = new IntersectionObserver((entries) => { if (entries.some((e) => !e.isIntersecting)) pause(); });
  visibility.observe(root);
  restart();
  return {
    root,
    restart,
    relabel: () => draw(),
    reapplyHighlight: applyHighlight,
    destroy: () => { pause(); visibility.disconnect(); },
  };
}
