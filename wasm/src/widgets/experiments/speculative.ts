// Speculative sampling: target p and draft q with their overlap min(p, q) outlined (the
// acceptance) and the residual max(0, p − q) a rejection resamples from, a slider that moves the
// draft towards the target, acceptance against 1 − TV as it does, the simulated output against p,
// and tokens per verification against γ. The reader guesses the acceptance rate before its
// numbers and the sweep show; the pitfall's over-acceptance and exercise 1's answer are put into
// words, and a low χ² p-value is read for what it is (a new seed tells chance from a bug).
import type { SpeculativeResult } from '../../lab/experiments.js';
import { GroupedBars } from '../charts/grouped-bars.js';
import { LineChart } from '../charts/line-chart.js';
import { OverlapBars } from '../charts/overlap-bars.js';
import { element } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget, type Kit } from '../kit.js';
import { stepThrough } from '../player.js';
import { prediction } from '../predict.js';
import type { Widget, WidgetContext } from './types.js';

const PRESETS = {
  uniform: [0.25, 0.25, 0.25, 0.25],
  close: [0.45, 0.32, 0.15, 0.08],
  far: [0.05, 0.15, 0.3, 0.5],
} as const;
type Preset = keyof typeof PRESETS;
const EXERCISE_TOP_K = 2;

export function speculativeWidget(context: WidgetContext): Widget {
  return experimentWidget<SpeculativeResult>(context, {
    experiment: 'speculative',
    inWorker: () => true,
    setup(kit) {
      const presets = kit.choice<Preset>('q', {
        labels: (s) => ({ uniform: s.presetUniform, close: s.presetClose, far: s.presetFar }), groupLabel: (s) => s.draftModel,
      });
      const topK = kit.toggle('top-k', (s) => s.topKBoth(EXERCISE_TOP_K));
      const pitfall = kit.toggle('pitfall', (s) => s.pitfall);
      kit.toolbar.append(presets.root, topK.root, pitfall.root);
      const gamma = kit.slider('gamma', { label: (s) => s.draftTokens });
      const closeness = kit.slider('closeness', { label: (s) => s.closeness, format: (v) => v.toFixed(2) });
      kit.controls.append(closeness.root, gamma.root);
      let seed = 0;
      const seedLabel = element('span', 'sl-seed');
      const reseed = kit.button('sl-reseed', (s) => s.reseed, () => { seed++; kit.update(); });
      kit.toolbar.append(seedLabel, reseed);
      let last: SpeculativeResult | undefined;
      const guess = prediction(kit, {
        name: 'acceptance',
        question: (s) => s.acceptanceQuestion,
        slider: { label: (s) => s.acceptanceGuess, min: 0, max: 1, step: 0.01, value: 0.5, format: (v) => v.toFixed(2) },
        onChange: () => { if (last) render(last); },
      });
      const explanation = element('p', 'sl-verdict');
      const chiNote = element('p', 'sl-note');
      const sweepBox = element('div', 'sl-chart');
      const sweep = kit.chart(new LineChart(sweepBox));
      const overlapBox = element('div', 'sl-chart');
      const overlap = kit.chart(new OverlapBars(overlapBox));
      const numbers = kit.readouts(['acceptance', 'simulated-acceptance', 'chi-square', 'tokens-formula', 'tokens-simulated']);
      const outputBox = element('div', 'sl-chart');
      const output = kit.chart(new GroupedBars(outputBox));
      const stepper = stepperPanel(kit, () => ({ q: [...PRESETS[presets.value()]], gamma: gamma.value(), seed }));
      kit.body.append(guess.root, overlapBox, numbers.root, explanation, sweepBox, outputBox, chiNote, stepper.root);
      return {
        params() {
          pitfall.input.disabled = !topK.checked();
          return {
            p: kit.param('p').default, q: [...PRESETS[presets.value()]], gamma: gamma.value(),
            topK: topK.checked() ? EXERCISE_TOP_K : 0, mode: topK.checked() && pitfall.checked() ? 'pitfall' : 'exact',
            closeness: closeness.value(), seed,
          };
        },
        render,
        relabel: () => { seedLabel.textContent = `${strings().seed} ${seed}`; stepper.render(); },
        destroy: () => stepper.pause(),
      };

      function render(r: SpeculativeResult): void {
        last = r;
        stepper.follow();
        const s = strings();
        seedLabel.textContent = `${s.seed} ${seed}`;
        const revealed = guess.revealed();
        // The acceptance's numbers and the sweep give the answer: they wait for the guess.
        for (const part of [numbers.root, sweepBox, ...(kit.handbook ? [kit.handbook] : [])]) part.hidden = !revealed;
        guess.setAnswer(s.acceptanceAnswer(r.acceptance.theory, r.acceptance.empirical, guess.guess() as number));
        explanation.textContent = r.mode === 'pitfall'
          ? s.pitfallWhy(r.acceptance.empirical, r.acceptance.theory, r.output.chiSquare.pValue)
          : topK.checked() ? s.exerciseOneAnswer(EXERCISE_TOP_K, r.acceptance.theory, r.acceptance.untruncated) : '';
        explanation.hidden = !revealed || !explanation.textContent;
        chiNote.textContent = s.speculativeChiSquareNote(r.output.chiSquare.pValue, r.mode === 'pitfall');
        const target = Array.from(r.target);
        const categories = target.map((_, i) => `x${i + 1}`);
        overlap.draw({
          categories, p: target, q: Array.from(r.draft), summary: revealed ? s.overlapSummary(r.acceptance.theory) : s.overlapSummaryBeforeGuess,
          labels: { category: s.token, p: `p ${s.targetModel}`, q: `q ${s.draftModel}`, overlap: s.overlap, residual: s.residual },
        });
        numbers.set('acceptance', s.acceptanceTheory, r.acceptance.theory.toFixed(3));
        // ± one standard error, as the handbook table beside it.
        numbers.set('simulated-acceptance', s.acceptanceSimulated, `${r.acceptance.empirical.toFixed(3)} ± ${r.acceptance.standardError.toFixed(4)}`);
        numbers.set('chi-square', s.chiSquareP, r.output.chiSquare.pValue.toPrecision(3));
        numbers.set('tokens-formula', s.tokensFormula, r.expectedTokens.formula.toFixed(2));
        numbers.set('tokens-simulated', s.tokensSimulated, r.expectedTokens.simulated.toFixed(2));
        sweep.draw({
          xLabel: '1 − TV(p, q)', yLabel: s.acceptanceRate, height: 200, xRange: [0, 1], yRange: () => [0, 1],
          series: [{ label: s.theoryDiagonal, color: '--sl-muted', dash: [6, 4] }, { label: s.simulatedAcceptance, color: '--sl-series-1', points: true }],
        }, [r.sweep.map((point) => point.oneMinusTV), r.sweep.map((point) => point.oneMinusTV), r.sweep.map((point) => point.simulated)],
        s.sweepSummary);
        output.draw({
          categories,
          categoryLabel: s.token,
          reference: { label: s.targetReference, values: target },
          series: [{ label: s.outputFrequencies, color: r.output.chiSquare.pValue < 1e-6 ? '--sl-bad' : '--sl-series-1', values: Array.from(r.output.frequencies) }],
          summary: s.outputSummary,
        });
      }
    },
  });
}

// Steps played per second, and how many the stepper simulates.
const STEPS_PER_SECOND = 6;
const STEPS = 300;

/**
 * The chapter's rule one verification at a time, no model needed: γ drafts from q, each checked by
 * u < p/q, the first rejection redrawn from norm(max(0, p − q)); the emitted tokens' frequencies
 * under this rule converge to p, beside the wrong rule's (the redraw from p), which do not. Its
 * draft and γ follow the widget's; the steps come from the core ('speculative-steps').
 */
function stepperPanel(kit: Kit, settings: () => { q: number[]; gamma: number; seed: number }) {
  const root = element('section', 'sl-mechanisms sl-stepper');
  const heading = element('h3', 'sl-mechanisms-title');
  kit.label(heading, (s) => s.stepperTitle);
  const intro = element('p', 'sl-note');
  kit.label(intro, (s) => s.stepperIntro);
  const buttons = element('div', 'sl-mechanism-controls');
  const stepper = stepThrough(kit, {
    settings, render, stepLabel: (s) => s.stepVerify, stepsPerSecond: STEPS_PER_SECOND,
    run: (chosen) => kit.lab.runExperiment('speculative-steps', { q: chosen.q, gamma: Math.min(chosen.gamma, 8), steps: STEPS, seed: chosen.seed }),
  });
  const clear = kit.button('sl-clear-draws', (s) => s.clearDraws, () => stepper.restart());
  buttons.append(stepper.step, stepper.play.button, clear);
  const readout = element('p', 'sl-draw-readout');
  readout.setAttribute('aria-live', 'polite');
  const chartBox = element('div', 'sl-chart');
  const chart = kit.chart(new GroupedBars(chartBox));
  const verdict = element('p', 'sl-note');
  root.append(heading, intro, buttons, readout, chartBox, verdict);

  function render(): void {
    const { run: steps, shown } = stepper;
    if (!steps) return;
    const s = strings();
    const v = steps.target.length;
    const categories = Array.from(steps.target, (_, i) => `x${i + 1}`);
    const name = (token: number) => categories[token];
    const current = shown > 0 ? steps.steps[shown - 1] : undefined;
    readout.textContent = current
      ? s.stepperReadout(shown, current.drafts.map((d) => ({ token: name(d.token), u: d.u, ratio: d.ratio, accepted: d.accepted })),
        name(current.token), current.fromResidual, current.accepted + 1)
      : s.stepperNone;
    const row = (frequencies: Float64Array) => (shown > 0 ? Array.from(frequencies.subarray((shown - 1) * v, shown * v)) : Array<number>(v).fill(0));
    chart.draw({
      categories, categoryLabel: s.token,
      reference: { label: s.targetReference, values: Array.from(steps.target) },
      series: [
        { label: s.stepperRight, color: '--sl-series-1', values: row(steps.frequencies) },
        { label: s.stepperWrong, color: '--sl-bad', values: row(steps.wrongFrequencies) },
      ],
      summary: s.stepperSummary(shown > 0 ? steps.emitted[shown - 1] : 0, shown),
    });
    verdict.textContent = shown === steps.steps.length ? s.stepperVerdict(steps.chiSquare.pValue, steps.wrongChiSquare.pValue) : '';
  }
  return { root, follow: stepper.follow, render, pause: stepper.play.pause };
}

