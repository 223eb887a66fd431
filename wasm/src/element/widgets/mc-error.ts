// The 1/√n law: the spread of a Bernoulli frequency over repeated runs against sqrt(p(1−p)/n),
// on log-log axes, run in the Worker.
import type { McErrorResult } from '../../index.js';
import { strings } from '../i18n.js';
import { debounced, element, readouts, workerExperiment } from '../controls.js';
import { LineChart } from '../charts/line-chart.js';
import type { Widget, WidgetContext } from './types.js';

// 10, 30, 100, 300, … up to the largest n chosen.
function sampleSizes(largest: number): number[] {
  const sizes: number[] = [];
  for (let decade = 10; decade <= largest; decade *= 10) {
    sizes.push(decade);
    if (3 * decade <= largest) sizes.push(3 * decade);
  }
  return sizes;
}

export function mcErrorWidget({ host, slider, emit }: WidgetContext): Widget {
  let last: McErrorResult | undefined;
  const later = debounced(() => void run());
  const root = element('div', 'sl-widget sl-mc-error');
  const chartBox = element('div', 'sl-chart');
  const chart = new LineChart();
  const sliders = element('div', 'sl-sliders');
  const largest = slider({ name: 'max-n', min: 2, max: 4, step: 1, value: 4, onInput: later.schedule, fromAttribute: Math.log10,
    format: (v) => (10 ** v).toLocaleString() });
  const repeats = slider({ name: 'repeats', min: 100, max: 5000, step: 100, value: 2000, onInput: later.schedule,
    format: (v) => v.toLocaleString() });
  sliders.append(largest.root, repeats.root);
  const table = element('table', 'sl-table');
  const status = element('div', 'sl-progress-box');
  root.append(chartBox, sliders, status, table);
  host.replaceChildren(root);
  const runInWorker = workerExperiment<McErrorResult>(status, 'mc-error', () => strings().running, (next, params) => {
    last = next;
    render();
    emit(params, next);
  });

  async function run(): Promise<void> {
    const params = { p: 0.3, ns: sampleSizes(10 ** largest.value()), repeats: repeats.value(), seed: 0 };
    await runInWorker(params);
  }

  function render(): void {
    if (!last) return;
    const s = strings();
    const rows = last.rows;
    chart.draw(chartBox, {
      xLabel: s.drawsPerRun, yLabel: s.stdOfEstimate, logX: true, logY: true,
      series: [{ label: s.theoryLine, color: '--sl-cut', dash: [6, 4] }, { label: s.measured, color: '--sl-kept', points: true }],
    }, [rows.map((r) => r.n), rows.map((r) => r.theory), rows.map((r) => r.std)], s.mcErrorSummary(last.repeats));
    table.innerHTML = `<thead><tr><th scope="col">n</th><th scope="col">${s.measured}</th><th scope="col">${s.theoryLine}</th><th scope="col">${s.ratio}</th></tr></thead><tbody>` +
      rows.map((r) => `<tr><td>${r.n.toLocaleString()}</td><td>${r.std.toFixed(4)}</td><td>${r.theory.toFixed(4)}</td><td>${(r.std / r.theory).toFixed(3)}</td></tr>`).join('') +
      '</tbody>';
  }

  function relabel(): void {
    const s = strings();
    largest.setLabel(s.largestN);
    repeats.setLabel(s.repeats);
    chart.destroy();
    render();
  }

  relabel();
  void run();
  return { relabel, destroy: () => { later.cancel(); chart.destroy(); } };
}

/** The standard error of an accuracy measured on a finite eval set. */
export function evalErrorWidget({ host, lab, slider, emit }: WidgetContext): Widget {
  const root = element('div', 'sl-widget sl-eval-error');
  const sliders = element('div', 'sl-sliders');
  const questions = slider({ name: 'questions', min: 50, max: 5000, step: 50, value: 200, onInput: () => update(), format: String });
  const accuracy = slider({ name: 'accuracy', min: 0.5, max: 0.99, step: 0.01, value: 0.7, onInput: () => update(), format: (v) => v.toFixed(2) });
  sliders.append(questions.root, accuracy.root);
  const numbers = readouts(['standard-error', 'interval']);
  root.append(sliders, numbers.root);
  host.replaceChildren(root);

  function update(): void {
    const s = strings();
    const params = { questions: questions.value(), accuracy: accuracy.value() };
    const result = lab.runExperiment('eval-error', params);
    numbers.set('standard-error', s.standardErrorLabel, `${(100 * result.standardError).toFixed(1)} pp`);
    numbers.set('interval', s.interval95, result.interval95.map((x) => `${(100 * x).toFixed(1)}%`).join(' – '));
    emit(params, result);
  }

  function relabel(): void {
    const s = strings();
    questions.setLabel(s.questions);
    accuracy.setLabel(s.accuracy);
    update();
  }

  relabel();
  return { relabel, destroy: () => {} };
}
