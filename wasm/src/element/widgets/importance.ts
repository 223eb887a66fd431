// Importance sampling: how far q is shifted from p, the ESS, and the spread of estimates over
// repeated trials for plain IS, TIS (clipped), MIS (masked) and self-normalised IS.
import type { EstimatorName, ImportanceResult } from '../../index.js';
import { LineChart } from '../charts/line-chart.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

const ESTIMATORS: EstimatorName[] = ['none', 'tis', 'mis', 'selfNormalised'];
const SHOWN: EstimatorName[] = ['none', 'tis'];
const SERIES_COLORS = ['--sl-series-1', '--sl-series-2'];
const REPEATS = 300;

export function importanceWidget(context: WidgetContext): Widget {
  return experimentWidget<ImportanceResult>(context, {
    experiment: 'importance',
    inWorker: () => true,
    setup(kit) {
      const shift = kit.slider('shift', { param: 'shifts', label: (s) => s.shift, value: 3, format: (v) => v.toFixed(1) });
      const clip = kit.slider('clip', { label: (s) => s.clip, format: (v) => v.toFixed(1) });
      kit.controls.append(shift.root, clip.root);
      const numbers = kit.readouts(['true-mean', 'estimate', 'ess']);
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new LineChart(chartBox));
      const table = element('table', 'sl-table');
      kit.body.append(numbers.root, chartBox, table);
      return {
        params: () => ({ shifts: [shift.value()], clip: clip.value(), repeats: REPEATS }),
        render(result) {
          const s = strings();
          const row = result.rows[0];
          numbers.set('true-mean', s.trueMean, result.trueMean.toFixed(2));
          numbers.set('estimate', s.oneEstimate, `${row.estimate.toFixed(2)} / ${row.clipped.toFixed(2)}`);
          numbers.set('ess', s.ess, `${row.ess.toFixed(0)} / ${result.n}`);
          const { edges, counts } = row.histogram!;
          const centres = edges.slice(1).map((edge, i) => (edge + edges[i]) / 2);
          const width = edges[1] - edges[0];
          const truth = centres.map((c) => (Math.abs(c - result.trueMean) <= width / 2 ? Math.max(...counts.none, ...counts.tis) : null));
          chart.draw({
            xLabel: s.estimateAxis, yLabel: s.trials,
            series: [
              ...SHOWN.map((name, i) => ({ label: s.estimatorNames[name], color: SERIES_COLORS[i] })),
              { label: s.trueMean, color: '--sl-text', points: true },
            ],
          }, [centres, ...SHOWN.map((name) => counts[name]), truth], s.importanceSummary(result.repeats));
          fillTable(table, {
            head: [s.estimator, s.bias, s.std, 'MSE'],
            rows: ESTIMATORS.map((name) => {
              const e = row.estimators![name];
              return [s.estimatorNames[name], e.bias.toFixed(3), e.std.toFixed(3), e.mse.toFixed(4)];
            }),
            rowHeaders: true,
          });
        },
      };
    },
  });
}
