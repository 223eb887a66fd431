// Four exact samplers against p: each frequency's deviation from p against the ±2 standard-error
// band chance alone fills, the largest deviation and the χ² p-value, with a word on reading
// p-values; run in the Worker. (Time per sample is left to the benchmarks: at these sizes it is
// mostly noise.)
import type { SamplersResult } from '../../index.js';
import { DeviationChart } from '../charts/deviation-chart.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

const SAMPLE_COUNTS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
const METHOD_COLORS = ['--sl-series-1', '--sl-series-2', '--sl-series-3', '--sl-series-4'];

export function samplersWidget(context: WidgetContext): Widget {
  return experimentWidget<SamplersResult>(context, {
    experiment: 'samplers',
    inWorker: () => true,
    setup(kit) {
      let seed = 0;
      const p = kit.param('p').default as number[];
      const seedLabel = element('span', 'sl-seed');
      const reseed = kit.button('sl-reseed', (s) => s.reseed, () => { seed++; kit.update(); });
      kit.toolbar.append(seedLabel, reseed);
      const n = kit.slider('n', {
        label: (s) => s.sampleCount, min: 0, max: SAMPLE_COUNTS.length - 1, step: 1,
        value: SAMPLE_COUNTS.indexOf(kit.param('n').default as number),
        fromAttribute: (count) => Math.max(0, SAMPLE_COUNTS.findIndex((c) => c >= count)),
        format: (i) => SAMPLE_COUNTS[i].toLocaleString(),
      });
      kit.controls.append(n.root);
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new DeviationChart(chartBox));
      const table = element('table', 'sl-table');
      const note = element('p', 'sl-note');
      kit.label(note, (s) => s.pValueNote);
      kit.body.append(chartBox, table, note);
      return {
        params: () => ({ p, n: SAMPLE_COUNTS[n.value()], seed }),
        render(result) {
          const s = strings();
          seedLabel.textContent = `${s.seed} ${seed}`;
          const names = result.methods.map((m) => s.methodNames[m.name]);
          chart.draw({
            categories: p.map((pi, i) => `x${i + 1} (p = ${pi})`),
            categoryLabel: s.token,
            band: Array.from(result.standardErrors, (se) => 2 * se),
            bandLabel: s.twoStandardErrors,
            series: result.methods.map((m, i) => ({ label: names[i], color: METHOD_COLORS[i], values: Array.from(m.deviations) })),
            summary: s.samplersSummary(result.n),
          });
          fillTable(table, {
            head: [s.method, s.maxDeviation, s.chiSquareP],
            rows: result.methods.map((m, i) => [names[i], m.maxDeviation.toFixed(4), m.chiSquare.pValue.toPrecision(3)]),
            rowHeaders: true,
          });
        },
        relabel: () => { seedLabel.textContent = `${strings().seed} ${seed}`; },
      };
    },
  });
}
