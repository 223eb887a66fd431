// Four exact samplers against p: grouped histograms, max deviation, χ² p-value and time per
// sample, run in the Worker.
import type { SamplersResult } from '../../index.js';
import { strings } from '../i18n.js';
import { button, debounced, element, workerExperiment } from '../controls.js';
import { GroupedBars } from '../charts/grouped-bars.js';
import type { Widget, WidgetContext } from './types.js';

const P = [0.5, 0.25, 0.15, 0.07, 0.03];
const SAMPLE_COUNTS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
const METHOD_COLORS = ['--sl-series-1', '--sl-series-2', '--sl-series-3', '--sl-series-4'];

export function samplersWidget({ host, slider, emit }: WidgetContext): Widget {
  let seed = 0;
  let last: SamplersResult | undefined;
  const root = element('div', 'sl-widget sl-samplers');
  const toolbar = element('div', 'sl-toolbar');
  const seedLabel = element('span', 'sl-seed');
  const reseed = button('sl-reseed', () => { seed++; run(); });
  toolbar.append(seedLabel, reseed);
  const chartBox = element('div', 'sl-chart');
  const chart = new GroupedBars();
  const sliders = element('div', 'sl-sliders');
  const later = debounced(() => void run());
  const nSlider = slider({ name: 'n', min: 0, max: SAMPLE_COUNTS.length - 1, step: 1,
    value: SAMPLE_COUNTS.indexOf(200_000), onInput: later.schedule,
    fromAttribute: (n) => Math.max(0, SAMPLE_COUNTS.findIndex((c) => c >= n)), format: (i) => SAMPLE_COUNTS[i].toLocaleString() });
  sliders.append(nSlider.root);
  const table = element('table', 'sl-table');
  const status = element('div', 'sl-progress-box');
  root.append(toolbar, chartBox, sliders, status, table);
  host.replaceChildren(root);
  const runInWorker = workerExperiment<SamplersResult>(status, 'samplers', () => strings().running, (next, params) => {
    last = next;
    render();
    emit(params, next);
  });

  async function run(): Promise<void> {
    const params = { p: P, n: SAMPLE_COUNTS[nSlider.value()], seed };
    seedLabel.textContent = `${strings().seed} ${seed}`;
    await runInWorker(params);
  }

  function render(): void {
    if (!last) return;
    const s = strings();
    const names = last.methods.map((m) => s.methodNames[m.name]);
    chart.draw(chartBox, {
      categories: P.map((_, i) => `x${i + 1}`),
      reference: { label: 'p', values: P },
      series: last.methods.map((m, i) => ({ label: names[i], color: METHOD_COLORS[i], values: m.frequencies })),
      summary: s.samplersSummary(last.n),
    });
    const head = `<tr><th scope="col">${s.method}</th><th scope="col">${s.maxDeviation}</th><th scope="col">${s.chiSquareP}</th><th scope="col">${s.nanosPerSample}</th></tr>`;
    const rows = last.methods.map((m, i) => `<tr><th scope="row">${names[i]}</th><td>${m.maxDeviation.toFixed(4)}</td>` +
      `<td>${m.chiSquare.pValue.toPrecision(3)}</td><td>${m.nanosPerSample.toFixed(1)}</td></tr>`);
    table.innerHTML = `<thead>${head}</thead><tbody>${rows.join('')}</tbody>`;
  }

  function relabel(): void {
    const s = strings();
    nSlider.setLabel(s.sampleCount);
    reseed.textContent = s.reseed;
    seedLabel.textContent = `${s.seed} ${seed}`;
    chart.reset();
    render();
  }

  relabel();
  void run();
  return { relabel, destroy: later.cancel };
}
