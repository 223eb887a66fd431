// The 1/√n law: the spread of a Bernoulli frequency over repeated runs against sqrt(p(1−p)/n),
// on log-log axes, run in the Worker; and the error bars of an eval set.
import type { EvalErrorResult, McErrorResult } from '../../index.js';
import { LineChart } from '../charts/line-chart.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
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

export function mcErrorWidget(context: WidgetContext): Widget {
  return experimentWidget<McErrorResult>(context, {
    experiment: 'mc-error',
    inWorker: () => true,
    setup(kit) {
      const largest = kit.slider('max-n', {
        label: (s) => s.largestN, min: 2, max: 4, step: 1, value: 4, fromAttribute: Math.log10,
        format: (v) => (10 ** v).toLocaleString(),
      });
      const repeats = kit.slider('repeats', { label: (s) => s.repeats, format: (v) => v.toLocaleString() });
      kit.controls.append(largest.root, repeats.root);
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new LineChart(chartBox));
      const table = element('table', 'sl-table');
      kit.body.append(chartBox, table);
      return {
        params: () => ({ p: kit.param('p').default, ns: sampleSizes(10 ** largest.value()), repeats: repeats.value() }),
        render(result) {
          const s = strings();
          const rows = result.rows;
          chart.draw({
            xLabel: s.drawsPerRun, yLabel: s.stdOfEstimate, logX: true, logY: true,
            series: [{ label: s.theoryLine, color: '--sl-cut', dash: [6, 4] }, { label: s.measured, color: '--sl-kept', points: true }],
          }, [rows.map((r) => r.n), rows.map((r) => r.theory), rows.map((r) => r.std)], s.mcErrorSummary(result.p, result.repeats));
          fillTable(table, {
            head: ['n', s.measured, s.theoryLine, s.ratio],
            rows: rows.map((r) => [r.n.toLocaleString(), r.std.toFixed(4), r.theory.toFixed(4), (r.std / r.theory).toFixed(3)]),
          });
        },
      };
    },
  });
}

/** The standard error of an accuracy measured on a finite eval set. */
export function evalErrorWidget(context: WidgetContext): Widget {
  return experimentWidget<EvalErrorResult>(context, {
    experiment: 'eval-error',
    setup(kit) {
      const questions = kit.slider('questions', { label: (s) => s.questions });
      const accuracy = kit.slider('accuracy', { label: (s) => s.accuracy, format: (v) => v.toFixed(2) });
      kit.controls.append(questions.root, accuracy.root);
      const numbers = kit.readouts(['standard-error', 'interval']);
      kit.body.append(numbers.root);
      return {
        params: () => ({ questions: questions.value(), accuracy: accuracy.value() }),
        render(result) {
          const s = strings();
          numbers.set('standard-error', s.standardErrorLabel, `${(100 * result.standardError).toFixed(1)} pp`);
          numbers.set('interval', s.interval95, result.interval95.map((x) => `${(100 * x).toFixed(1)}%`).join(' – '));
        },
      };
    },
  });
}
