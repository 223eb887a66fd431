// The 1/√n law: where a Bernoulli frequency's estimates fall over repeated runs, and their
// standard deviation against sqrt(p(1−p)/n) on log-log axes with its fitted −½ slope, run in the
// Worker; and the error bars of an eval set, with the question whether a 2-point gap shows.
import type { EvalErrorResult, McErrorResult } from '../../lab/experiments.js';
import { IntervalChart } from '../charts/interval-chart.js';
import { LineChart } from '../charts/line-chart.js';
import { element, fillTable, setText } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import { prediction } from '../predict.js';
import type { Widget, WidgetContext } from './types.js';

// Estimates that fall onto the chart per frame, and how far (in decades of n) each n's dots spread sideways.
const DROPPED_PER_FRAME = 2;
const JITTER = 0.14;

// The guesses offered for "100 times the draws makes the spread … times smaller".
const SHRINK_GUESSES = [1, 2, 3, 5, 10, 20, 50, 100];

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
      // The guess: how many times smaller the spread gets with 100 times the draws.
      let last: McErrorResult | undefined;
      const question = prediction(kit, {
        name: 'slope',
        question: (s) => s.slopeQuestion,
        slider: { label: (s) => s.slopeGuess, min: 0, max: SHRINK_GUESSES.length - 1, step: 1, value: 0, format: (i) => `${SHRINK_GUESSES[i]}×` },
        onChange: () => { if (last) render(last); },
      });
      const numbers = kit.readouts(['slope']);
      const spreadBox = element('div', 'sl-chart');
      const spreadChart = kit.chart(new LineChart(spreadBox));
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new LineChart(chartBox));
      const table = element('table', 'sl-table');
      kit.body.append(question.root, spreadBox, numbers.root, chartBox, table);
      function render(result: McErrorResult): void {
        last = result;
        const s = strings();
        // The answer's parts stay hidden until the guess.
        for (const part of [numbers.root, chartBox, table, ...(kit.handbook ? [kit.handbook] : [])]) part.hidden = !question.revealed();
        const rows = result.rows;
        dropEstimates(result);
        const slope = result.slope === null ? '—' : result.slope.toFixed(3);
        numbers.set('slope', s.fittedSlope, `${slope} (${s.theory} −0.5)`);
        // The measured shrink over the largest hundredfold step of n the rows hold.
        const pair = rows.map((r) => [r, rows.find((other) => other.n === 100 * r.n)] as const).reverse().find(([, other]) => other);
        const measured = pair ? { from: pair[0].n, to: pair[1]!.n, before: pair[0].std, after: pair[1]!.std } : undefined;
        question.setAnswer(s.slopeAnswer(slope, SHRINK_GUESSES[question.guess() as number], measured));
        chart.draw({
          xLabel: s.drawsPerRun, yLabel: s.stdOfEstimate, logX: true, logY: true,
          series: [{ label: s.theoryLine, color: '--sl-cut', dash: [6, 4] }, { label: s.measured, color: '--sl-kept', points: true }],
        }, [rows.map((r) => r.n), rows.map((r) => r.theory), rows.map((r) => r.std)], s.mcErrorSummary(result.p, result.repeats));
        fillTable(table, {
          head: ['n', s.measured, s.theoryLine, s.ratio, s.outsideEnvelope],
          rows: rows.map((r) => [r.n.toLocaleString(), r.std.toFixed(4), r.theory.toFixed(4), r.ratio.toFixed(3), `${(100 * r.outside).toFixed(1)}%`]),
        });
      }

      // The runs' estimates fall onto the chart one by one, a few per frame, inside the band
      // p ± 2 SE that narrows as 1/√n (all at once for a reader who asks for less motion).
      let dropping = 0;
      function dropEstimates(result: McErrorResult): void {
        cancelAnimationFrame(dropping);
        const shown = Math.max(...result.rows.map((r) => r.estimates.length));
        const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
        let count = still ? shown : 0;
        const frame = () => {
          count = Math.min(shown, count + DROPPED_PER_FRAME);
          drawEstimates(result, count);
          if (count < shown) dropping = requestAnimationFrame(frame);
        };
        if (still) drawEstimates(result, count);
        else frame();
      }

      function drawEstimates(result: McErrorResult, count: number): void {
        const s = strings();
        const rows = result.rows;
        // Each n's dots spread a little sideways (a fixed low-discrepancy offset per run), envelope first.
        const dots = rows.flatMap((r) => r.estimates.slice(0, count).map((estimate, j) => ({ x: r.n * 10 ** (JITTER * (((j * 0.618034) % 1) - 0.5)), y: estimate })));
        const none = (length: number) => Array<null>(length).fill(null);
        const x = [...rows.map((r) => r.n), ...dots.map((d) => d.x)];
        spreadChart.draw({
          xLabel: s.drawsPerRun, yLabel: s.estimateOfP, logX: true, height: 240,
          series: [
            { label: s.oneRunEstimate, color: '--sl-series-1', points: true },
            { label: s.envelopeHigh, legend: s.envelope, color: '--sl-cut', dash: [6, 4] },
            { label: s.envelopeLow, legend: false, color: '--sl-cut', dash: [6, 4] },
            { label: s.trueP(result.p), color: '--sl-text' },
          ],
        }, [x, [...none(rows.length), ...dots.map((d) => d.y)], [...rows.map((r) => r.envelope[1]), ...none(dots.length)],
          [...rows.map((r) => r.envelope[0]), ...none(dots.length)], [...rows.map(() => result.p), ...none(dots.length)]],
        s.dotsSummary(result.p, count, result.repeats));
      }
      return {
        params: () => ({ p: kit.param('p').default, ns: sampleSizes(10 ** largest.value()), repeats: repeats.value() }),
        render,
      };
    },
  });
}

// Evals a reader can simulate: each click adds one (or ten) to the run, which the core repeats
// with the same streams, so the dots accumulate and follow the sliders.
const MAX_EVALS = 500;
// A seed whose first evals look like the long run (B ahead in about 2 of 3): seed 1's first
// eleven all put B ahead, which would teach the opposite of the lesson.
const EVAL_SEED = 11;

/** The standard error of an accuracy measured on a finite eval set, and evals simulated one by one. */
export function evalErrorWidget(context: WidgetContext): Widget {
  return experimentWidget<EvalErrorResult>(context, {
    experiment: 'eval-error',
    setup(kit) {
      const questions = kit.slider('questions', { label: (s) => s.questions });
      const accuracy = kit.slider('accuracy', { label: (s) => s.accuracy, format: (v) => v.toFixed(2), onInput: () => { fitGap(); kit.update(); } });
      const gap = kit.slider('gap', { label: (s) => s.gap, format: (v) => `${(100 * v).toFixed(1)} ${strings().percentagePoints}` });
      // B scores at most 100 %: the gap's slider ends there, so that it never shows a gap the text does not use.
      const largestGap = Number(gap.input.max);
      const fitGap = () => gap.setRange(Number(gap.input.min), Math.min(largestGap, Math.round((1 - accuracy.value()) * 1e9) / 1e9));
      fitGap();
      kit.controls.append(questions.root, accuracy.root, gap.root);
      const numbers = kit.readouts(['standard-error', 'interval', 'z', 'needed']);
      const chartBox = element('div', 'sl-chart');
      const chart = kit.chart(new IntervalChart(chartBox));
      const verdict = element('p', 'sl-verdict');
      let evals = 0;
      const simulate = (more: number) => { evals = Math.min(MAX_EVALS, evals + more); kit.update(); };
      const simulateOne = kit.button('sl-simulate-eval', (s) => s.simulateEval(questions.value()), () => simulate(1));
      const simulateTen = kit.button('sl-simulate-evals', (s) => s.simulateEvals(10), () => simulate(10));
      const clear = kit.button('sl-clear-evals', (s) => s.clearEvals, () => { evals = 0; kit.update(); });
      const buttons = element('div', 'sl-mechanism-controls');
      buttons.append(simulateOne, simulateTen, clear);
      const tally = element('p', 'sl-draw-readout');
      tally.setAttribute('aria-live', 'polite');
      const simulatedBox = element('div', 'sl-chart');
      const simulated = kit.chart(new LineChart(simulatedBox));
      kit.body.append(chartBox, numbers.root, verdict, buttons, tally, simulatedBox);
      const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
      return {
        params: () => ({ questions: questions.value(), accuracy: accuracy.value(), gap: gap.value(), evals, seed: EVAL_SEED }),
        render(result) {
          const s = strings();
          chart.draw({
            rows: [
              { label: s.modelA, value: result.accuracy, low: result.interval95[0], high: result.interval95[1], className: 'first' },
              { label: s.modelB, value: result.other.accuracy, low: result.other.interval95[0], high: result.other.interval95[1], className: 'second' },
            ],
            format: percent,
            columns: { label: s.model, value: s.accuracy, interval: s.interval95 },
            summary: s.intervalsSummary(result.questions),
          });
          numbers.set('standard-error', s.standardErrorLabel, `${(100 * result.standardError).toFixed(1)} ${s.percentagePoints}`);
          numbers.set('interval', s.interval95OfA, result.interval95.map(percent).join(' – '));
          numbers.set('z', s.gapInSe, result.z.toFixed(2));
          numbers.set('needed', s.questionsForGap, result.questionsForGap.toLocaleString('en'));
          verdict.textContent = s.gapVerdict(result.z >= 2, result.questions, result.other.accuracy - result.accuracy, result.questionsForGap);
          setText(simulateOne, s.simulateEval(result.questions));
          simulateOne.disabled = simulateTen.disabled = evals >= MAX_EVALS;
          const run = result.simulated;
          simulatedBox.hidden = !run;
          setText(tally, run ? s.evalTally(run.first.length, run.secondAhead, run.tied, run.secondBehind, result.questions) : s.evalTallyEmpty(result.questions));
          if (!run) return;
          const index = Array.from(run.first, (_, i) => i + 1);
          const last = Math.max(10, run.first.length + 1);
          simulated.draw({
            xLabel: s.evalNumber, yLabel: s.measuredAccuracy, height: 200, xRange: [0, last],
            series: [
              { label: s.modelA, color: '--sl-series-1', points: true },
              { label: s.modelB, color: '--sl-series-2', points: true },
              { label: s.trueAccuracy(s.modelA), color: '--sl-series-1', dash: [6, 4] },
              { label: s.trueAccuracy(s.modelB), color: '--sl-series-2', dash: [6, 4] },
            ],
          }, [[...index, 0, last], [...run.first, null, null], [...run.second, null, null],
            [...index.map(() => null), result.accuracy, result.accuracy], [...index.map(() => null), result.other.accuracy, result.other.accuracy]],
          s.simulatedSummary(run.first.length, result.questions));
        },
      };
    },
  });
}
