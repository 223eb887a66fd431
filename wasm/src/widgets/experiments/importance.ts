// Importance sampling as the chapter runs it: q shifted 0, 1 and a shift the reader sets (3, the
// chapter's, at first) from p, side by side on one axis with the true mean as a dashed vertical
// line, the spread of plain IS against TIS (clipped) over repeated trials, the ESS of each (after
// the reader's guess of it), every estimator's bias, std and MSE, and where such weights and clips
// appear in RL.
import type { EstimatorName, ImportanceResult } from '../../lab/experiments.js';
import { GroupedBars } from '../charts/grouped-bars.js';
import { LineChart } from '../charts/line-chart.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import { prediction } from '../predict.js';
import type { Widget, WidgetContext } from './types.js';

const ESTIMATORS: EstimatorName[] = ['none', 'tis', 'mis', 'selfNormalised'];
const SHOWN: EstimatorName[] = ['none', 'tis'];
const SERIES_COLORS = ['--sl-series-1', '--sl-series-2'];
// The chapter's first two shifts stay; the third is the slider's.
const FIXED_SHIFTS = [0, 1];
const REPEATS = 300;

export function importanceWidget(context: WidgetContext): Widget {
  return experimentWidget<ImportanceResult>(context, {
    experiment: 'importance',
    inWorker: () => true,
    setup(kit) {
      const chapterShifts = kit.param('shifts').default as number[];
      const shift = kit.slider('shift', { param: 'shifts', label: (s) => s.shiftSlider, value: chapterShifts[chapterShifts.length - 1], format: (v) => v.toFixed(1) });
      const clip = kit.slider('clip', { label: (s) => s.clip, format: (v) => v.toFixed(1) });
      kit.controls.append(shift.root, clip.root);
      let last: ImportanceResult | undefined;
      const guess = prediction(kit, {
        name: 'ess',
        question: (s) => s.essQuestion,
        slider: { label: (s) => s.essGuess, min: 0, max: 1000, step: 10, value: 500, format: (v) => v.toLocaleString('en') },
        onChange: () => { if (last) render(last); },
      });
      const numbers = kit.readouts(['true-mean', 'ess']);
      const panels = element('div', 'sl-small-multiples');
      const charts = [...FIXED_SHIFTS, 0].map(() => {
        const panel = element('figure', 'sl-panel');
        const caption = element('figcaption');
        const box = element('div', 'sl-chart');
        panel.append(caption, box);
        panels.append(panel);
        return { caption, chart: kit.chart(new LineChart(box)) };
      });
      const table = element('table', 'sl-table');
      const estimatorList = element('ul', 'sl-note sl-estimators');
      const note = element('p', 'sl-note');
      kit.label(note, (s) => s.importanceNote);
      const rl = element('p', 'sl-note');
      kit.label(rl, (s) => s.importanceRl);
      // The slider's q against p, token by token: the weight w = p/q each token's samples carry.
      const tokenBox = element('div', 'sl-chart');
      const tokenChart = kit.chart(new GroupedBars(tokenBox));
      const weightBox = element('div', 'sl-chart');
      const weightChart = kit.chart(new LineChart(weightBox));
      // One batch of the slider's q: its weights sorted, the few that carry most of the weight, what the clip cuts.
      const batchBox = element('div', 'sl-chart');
      const batchChart = kit.chart(new LineChart(batchBox));
      const batchNumbers = kit.readouts(['top1', 'top10', 'batch-ess', 'clipped']);
      kit.body.append(guess.root, tokenBox, weightBox, batchBox, batchNumbers.root, numbers.root, panels, table, estimatorList, note, rl);

      function render(result: ImportanceResult): void {
        last = result;
        const s = strings();
        const revealed = guess.revealed();
        // The handbook's figures print the ESS.
        if (kit.handbook) kit.handbook.hidden = !revealed;
        const asked = result.rows[result.rows.length - 1];
        guess.setAnswer(s.essAnswer(asked.shift, asked.essMean!, result.n, result.repeats, guess.guess() as number));
        numbers.set('true-mean', s.trueMean, result.trueMean.toFixed(2));
        numbers.set('ess', s.essPerShiftOf(result.rows.map((r) => r.shift)),
          revealed ? result.rows.map((r) => r.essMean!.toFixed(0)).join(' / ') + ` (n = ${result.n.toLocaleString('en')})` : '?');
        const { edges } = result.rows[0].histogram!;
        const centres = edges.slice(1).map((edge, i) => (edge + edges[i]) / 2);
        // One axis for every shift: the same bins and the same height.
        const tallest = Math.max(...result.rows.flatMap((r) => SHOWN.flatMap((name) => r.histogram!.counts[name])));
        result.rows.forEach((row, i) => {
          charts[i].caption.textContent = s.shiftCaption(row.shift, revealed ? row.essMean! : undefined, result.trueMean);
          charts[i].chart.draw({
            xLabel: s.estimateAxis, yLabel: s.trials, height: 200,
            xRange: [edges[0], edges[edges.length - 1]], yRange: () => [0, tallest * 1.05],
            // TIS dashed: where it equals plain IS (no weight clipped), both stay visible.
            series: SHOWN.map((name, j) => ({ label: s.estimatorNames[name], color: SERIES_COLORS[j], dash: j ? [6, 4] : undefined })),
            markers: [{ x: result.trueMean, color: '--sl-text' }],
          }, [centres, ...SHOWN.map((name) => row.histogram!.counts[name])], s.importanceSummary(result.repeats));
        });
        drawWeights(result, revealed);
        estimatorList.replaceChildren(...ESTIMATORS.map((name) => element('li', undefined, s.estimatorLine(s.estimatorNames[name], s.estimatorMeaning[name]))));
        fillTable(table, {
          head: [s.shift, s.estimator, s.bias, s.std, 'MSE'],
          rows: result.rows.flatMap((row) => ESTIMATORS.map((name) => {
            const e = row.estimators![name];
            return [String(row.shift), s.estimatorNames[name], e.bias.toFixed(3), e.std.toFixed(3), e.mse.toFixed(4)];
          })),
        });
      }
      function drawWeights(result: ImportanceResult, revealed: boolean): void {
        const s = strings();
        const row = result.rows[result.rows.length - 1];
        const tokens = result.p.map((_, i) => `x${i}`);
        tokenChart.draw({
          categories: tokens, categoryLabel: s.token,
          reference: { label: s.targetP, values: result.p },
          series: [{ label: s.proposalQ(row.shift), color: '--sl-series-2', values: row.q }],
          summary: s.pqSummary(row.shift),
        });
        const clipLine = (length: number) => Array<number>(length).fill(result.clip);
        weightChart.draw({
          xLabel: s.token, yLabel: 'w = p/q', height: 180, logY: true,
          series: [{ label: s.tokenWeight, color: '--sl-series-1', points: true }, { label: s.clipLevel(result.clip), color: '--sl-bad', dash: [6, 4] }],
        }, [result.p.map((_, i) => i), row.batch.tokenWeights, clipLine(result.p.length)], s.tokenWeightSummary(row.shift));
        for (const part of [batchBox, batchNumbers.root]) part.hidden = !revealed;
        if (!revealed) return;
        const ranks = Array.from(row.batch.sortedWeights, (_, i) => i + 1);
        batchChart.draw({
          xLabel: s.sampleRank, yLabel: 'w = p/q', height: 200, logX: true, logY: true,
          series: [{ label: s.sortedWeights(result.n), color: '--sl-series-1' }, { label: s.clipLevel(result.clip), color: '--sl-bad', dash: [6, 4] }],
        }, [ranks, Array.from(row.batch.sortedWeights), clipLine(ranks.length)], s.batchSummary(row.shift, result.n));
        const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
        batchNumbers.set('top1', s.topShare(1), percent(row.batch.top1));
        batchNumbers.set('top10', s.topShare(10), percent(row.batch.top10));
        batchNumbers.set('batch-ess', s.batchEss, `${row.ess.toFixed(0)} / ${result.n.toLocaleString('en')}`);
        batchNumbers.set('clipped', s.clippedAt(result.clip), s.clippedWhat(row.batch.clippedSamples, percent(row.batch.clippedWeight)));
      }
      return {
        params: () => ({ shifts: [...FIXED_SHIFTS, shift.value()], clip: clip.value(), repeats: REPEATS }),
        render,
      };
    },
  });
}
