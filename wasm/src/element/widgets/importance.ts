// Importance sampling as the chapter runs it: q shifted 0, 1 and 3 from p, side by side on one
// axis with the true mean marked, the spread of plain IS against TIS (clipped) over repeated
// trials, the ESS of each, and every estimator's bias, std and MSE.
import type { EstimatorName, ImportanceResult } from '../../index.js';
import { LineChart } from '../charts/line-chart.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

const ESTIMATORS: EstimatorName[] = ['none', 'tis', 'mis', 'selfNormalised'];
const SHOWN: EstimatorName[] = ['none', 'tis'];
const SERIES_COLORS = ['--sl-series-1', '--sl-series-2'];
const SHIFTS = [0, 1, 3];
const REPEATS = 300;

export function importanceWidget(context: WidgetContext): Widget {
  return experimentWidget<ImportanceResult>(context, {
    experiment: 'importance',
    inWorker: () => true,
    setup(kit) {
      const clip = kit.slider('clip', { label: (s) => s.clip, format: (v) => v.toFixed(1) });
      kit.controls.append(clip.root);
      const numbers = kit.readouts(['true-mean', 'ess']);
      const panels = element('div', 'sl-small-multiples');
      const charts = SHIFTS.map(() => {
        const panel = element('figure', 'sl-panel');
        const caption = element('figcaption');
        const box = element('div', 'sl-chart');
        panel.append(caption, box);
        panels.append(panel);
        return { caption, chart: kit.chart(new LineChart(box)) };
      });
      const table = element('table', 'sl-table');
      const note = element('p', 'sl-note');
      kit.label(note, (s) => s.importanceNote);
      kit.body.append(numbers.root, panels, table, note);
      return {
        params: () => ({ shifts: SHIFTS, clip: clip.value(), repeats: REPEATS }),
        render(result) {
          const s = strings();
          numbers.set('true-mean', s.trueMean, result.trueMean.toFixed(2));
          numbers.set('ess', s.essPerShift, result.rows.map((r) => r.essMean!.toFixed(0)).join(' / ') + ` (n = ${result.n.toLocaleString('en')})`);
          const { edges } = result.rows[0].histogram!;
          const centres = edges.slice(1).map((edge, i) => (edge + edges[i]) / 2);
          const width = edges[1] - edges[0];
          // One axis for every shift: the same bins and the same height.
          const tallest = Math.max(...result.rows.flatMap((r) => SHOWN.flatMap((name) => r.histogram!.counts[name])));
          result.rows.forEach((row, i) => {
            charts[i].caption.textContent = s.shiftCaption(row.shift, row.essMean!);
            const truth = centres.map((c) => (Math.abs(c - result.trueMean) <= width / 2 ? tallest : null));
            charts[i].chart.draw({
              xLabel: s.estimateAxis, yLabel: s.trials, height: 200,
              xRange: [edges[0], edges[edges.length - 1]], yRange: () => [0, tallest * 1.05],
              series: [
                // TIS dashed: where it equals plain IS (no weight clipped), both stay visible.
                ...SHOWN.map((name, j) => ({ label: s.estimatorNames[name], color: SERIES_COLORS[j], dash: j ? [6, 4] : undefined })),
                { label: s.trueMean, color: '--sl-text', points: true },
              ],
            }, [centres, ...SHOWN.map((name) => row.histogram!.counts[name]), truth], s.importanceSummary(result.repeats));
          });
          fillTable(table, {
            head: [s.shift, s.estimator, s.bias, s.std, 'MSE'],
            rows: result.rows.flatMap((row) => ESTIMATORS.map((name) => {
              const e = row.estimators![name];
              return [String(row.shift), s.estimatorNames[name], e.bias.toFixed(3), e.std.toFixed(3), e.mse.toFixed(4)];
            })),
          });
        },
      };
    },
  });
}
