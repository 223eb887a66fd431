// The 1/√n law: the spread of a Bernoulli frequency over repeated runs against sqrt(p(1−p)/n),
// on log-log axes, run in the Worker.
import type { Lab, McErrorResult } from 'sampling-lab';
import { strings } from '../i18n';
import { debounced, element, slider, workerRunner } from '../controls';
import { LineChart } from '../charts/line-chart';
import { runInWorker } from '../worker-client';
import type { Widget } from './types';

// 10, 30, 100, 300, … up to the largest n chosen.
function sampleSizes(largest: number): number[] {
  const sizes: number[] = [];
  for (let decade = 10; decade <= largest; decade *= 10) {
    sizes.push(decade);
    if (3 * decade <= largest) sizes.push(3 * decade);
  }
  return sizes;
}

export function mcErrorWidget(host: HTMLElement, _lab: Lab): Widget {
  let last: McErrorResult | undefined;
  const later = debounced(() => void run());
  const root = element('div', 'sl-widget sl-mc-error');
  const chartBox = element('div', 'sl-chart');
  const chart = new LineChart();
  const sliders = element('div', 'sl-sliders');
  const largest = slider({ name: 'max-n', min: 2, max: 4, step: 1, value: 4, onInput: later.schedule,
    format: (v) => (10 ** v).toLocaleString() });
  const repeats = slider({ name: 'repeats', min: 100, max: 5000, step: 100, value: 2000, onInput: later.schedule,
    format: (v) => v.toLocaleString() });
  sliders.append(largest.root, repeats.root);
  const table = element('table', 'sl-table');
  const status = element('div', 'sl-progress-box');
  root.append(chartBox, sliders, status, table);
  host.replaceChildren(root);
  const runner = workerRunner(status, () => strings().running);

  async function run(): Promise<void> {
    const params = { p: 0.3, ns: sampleSizes(10 ** largest.value()), repeats: repeats.value(), seed: 0 };
    const result = await runner((onProgress) => runInWorker<McErrorResult>('mc-error', params, onProgress));
    if (!result) return;
    last = result;
    render();
    host.dispatchEvent(new CustomEvent('change', { bubbles: true, detail: { params, result } }));
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
