// Four exact samplers against p: grouped histograms, max deviation, χ² p-value and time per
// sample, run in the Worker.
import type { SamplersResult } from '../../index.js';
import { GroupedBars } from '../charts/grouped-bars.js';
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
      const chart = kit.chart(new GroupedBars(chartBox));
      const table = element('table', 'sl-table');
      kit.body.append(chartBox, table);
      return {
        params: () => ({ p, n: SAMPLE_COUNTS[n.value()], seed }),
        render(result) {
          const s = strings();
          seedLabel.textContent = `${s.seed} ${seed}`;
          const names = result.methods.map((m) => s.methodNames[m.name]);
          chart.draw({
            categories: p.map((_, i) => `x${i + 1}`),
            categoryLabel: s.token,
            reference: { label: 'p', values: p },
            series: result.methods.map((m, i) => ({ label: names[i], color: METHOD_COLORS[i], values: m.frequencies })),
            summary: s.samplersSummary(result.n),
          });
          fillTable(table, {
            head: [s.method, s.maxDeviation, s.chiSquareP, s.nanosPerSample],
            rows: result.methods.map((m, i) => [names[i], m.maxDeviation.toFixed(4), m.chiSquare.pValue.toPrecision(3), m.nanosPerSample.toFixed(1)]),
            rowHeaders: true,
          });
        },
        relabel: () => { seedLabel.textContent = `${strings().seed} ${seed}`; },
      };
    },
  });
}
