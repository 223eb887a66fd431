// Importance sampling: how far q is shifted from p, the ESS, and the spread of estimates over
// repeated trials for plain IS, TIS (clipped), MIS (masked) and self-normalised IS.
import type { EstimatorName, ImportanceResult } from '../../index.js';
import { strings } from '../i18n.js';
import { debounced, element, readouts, workerExperiment } from '../controls.js';
import { LineChart } from '../charts/line-chart.js';
import type { Widget, WidgetContext } from './types.js';

const ESTIMATORS: EstimatorName[] = ['none', 'tis', 'mis', 'selfNormalised'];
const REPEATS = 300;
const BINS = 40;

export function importanceWidget({ host, slider, emit }: WidgetContext): Widget {
  let result: ImportanceResult | undefined;
  const later = debounced(() => void run());
  const root = element('div', 'sl-widget sl-importance');
  const sliders = element('div', 'sl-sliders');
  const shift = slider({ name: 'shift', min: 0, max: 4, step: 0.5, value: 3, onInput: later.schedule, format: (v) => v.toFixed(1) });
  const clip = slider({ name: 'clip', min: 1, max: 6, step: 0.5, value: 2, onInput: later.schedule, format: (v) => v.toFixed(1) });
  sliders.append(shift.root, clip.root);
  const numbers = readouts(['true-mean', 'estimate', 'ess']);
  const chartBox = element('div', 'sl-chart');
  const chart = new LineChart();
  const table = element('table', 'sl-table');
  const status = element('div', 'sl-progress-box');
  root.append(sliders, status, numbers.root, chartBox, table);
  host.replaceChildren(root);
  const runInWorker = workerExperiment<ImportanceResult>(status, 'importance', () => strings().running, (next, params) => {
    result = next;
    render();
    emit(params, next);
  });

  async function run(): Promise<void> {
    const params = { shifts: [shift.value()], n: 1000, clip: clip.value(), seed: 0, repeats: REPEATS };
    await runInWorker(params);
  }

  function render(): void {
    if (!result) return;
    const s = strings();
    const row = result.rows[0];
    numbers.set('true-mean', s.trueMean, result.trueMean.toFixed(2));
    numbers.set('estimate', s.oneEstimate, `${row.estimate.toFixed(2)} / ${row.clipped.toFixed(2)}`);
    numbers.set('ess', s.ess, `${row.ess.toFixed(0)} / ${result.n}`);
    // Histogram of the repeated estimates of plain IS and TIS on shared bins.
    const none = row.estimates!.none;
    const tis = row.estimates!.tis;
    const lo = Math.min(...none, ...tis, result.trueMean);
    const hi = Math.max(...none, ...tis, result.trueMean);
    const width = (hi - lo) / BINS || 1;
    const centres = Array.from({ length: BINS }, (_, i) => lo + (i + 0.5) * width);
    const histogram = (values: number[]) => {
      const bins = new Array<number>(BINS).fill(0);
      for (const v of values) bins[Math.min(BINS - 1, Math.floor((v - lo) / width))]++;
      return bins;
    };
    const truth = centres.map((c) => (Math.abs(c - result!.trueMean) <= width / 2 ? REPEATS / 4 : null));
    chart.draw(chartBox, {
      xLabel: s.estimateAxis, yLabel: s.trials,
      series: [
        { label: s.estimatorNames.none, color: '--sl-series-1' },
        { label: s.estimatorNames.tis, color: '--sl-series-2' },
        { label: s.trueMean, color: '--sl-text', points: true },
      ],
    }, [centres, histogram(none), histogram(tis), truth], s.importanceSummary(REPEATS));
    const head = `<tr><th scope="col">${s.estimator}</th><th scope="col">${s.bias}</th><th scope="col">${s.std}</th><th scope="col">MSE</th></tr>`;
    table.innerHTML = `<thead>${head}</thead><tbody>` + ESTIMATORS.map((name) => {
      const e = row.estimators![name];
      return `<tr><th scope="row">${s.estimatorNames[name]}</th><td>${e.bias.toFixed(3)}</td><td>${e.std.toFixed(3)}</td><td>${e.mse.toFixed(4)}</td></tr>`;
    }).join('') + '</tbody>';
  }

  function relabel(): void {
    const s = strings();
    shift.setLabel(s.shift);
    clip.setLabel(s.clip);
    chart.destroy();
    render();
  }

  relabel();
  void run();
  return { relabel, destroy: () => { later.cancel(); chart.destroy(); } };
}
