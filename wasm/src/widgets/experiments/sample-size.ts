// Exercise 2 as a lesson: the two configurations' estimates, each a sampling distribution that
// narrows as 1/√n, separate as the reader moves n; below, the difference ± z standard errors over
// n leaves 0 behind at the sample size the exercise asks for (≈ 1,150 in the chapter's numbers).
import type { SampleSizeResult } from '../../lab/experiments.js';
import { LineChart } from '../charts/line-chart.js';
import { element, setText } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'means' | 'proportions';

// The n slider moves in steps of log₁₀ n over the core's band, 10 to 100,000.
const drawsAt = (exponent: number) => Math.round(10 ** exponent);

export function sampleSizeWidget(context: WidgetContext): Widget {
  return experimentWidget<SampleSizeResult>(context, {
    experiment: 'sample-size',
    setup(kit) {
      const mode = kit.choice<Mode>('mode', {
        labels: (s) => ({ means: s.twoMeans, proportions: s.twoProportions }), groupLabel: (s) => s.compare, onSelect: () => layout(),
      });
      kit.toolbar.append(mode.root);
      const two = (v: number) => v.toFixed(2);
      const one = (v: number) => v.toFixed(1);
      const draws = kit.slider('draws', {
        label: (s) => s.drawsPerConfiguration, min: 1, max: 5, step: 0.05, value: 2, format: (v) => drawsAt(v).toLocaleString('en'),
      });
      const delta = kit.slider('delta', { label: (s) => s.difference, format: two });
      const std = kit.slider('std', { label: (s) => s.stdPerRun, format: one });
      const p1 = kit.slider('p1', { label: () => 'p₁', format: two });
      const p2 = kit.slider('p2', { label: () => 'p₂', format: two });
      const z = kit.slider('z', { label: (s) => s.zStandardErrors, format: one });
      kit.controls.append(draws.root, delta.root, std.root, p1.root, p2.root, z.root);
      const distributionsBox = element('div', 'sl-chart');
      const distributions = kit.chart(new LineChart(distributionsBox));
      const bandBox = element('div', 'sl-chart');
      const band = kit.chart(new LineChart(bandBox));
      const verdict = element('p', 'sl-verdict');
      verdict.setAttribute('aria-live', 'polite');
      const numbers = kit.readouts(['n', 'standard-error', 'z-at-n']);
      // Two proportions are the eval section's question: how many questions tell 70 % from 72 %.
      const note = element('p', 'sl-note');
      const noteText = element('span');
      kit.label(noteText, (s) => s.evalTieBack);
      const link = element('a');
      link.href = '#eval-error';
      kit.label(link, (s) => s.evalTieBackLink);
      note.append(noteText, ' ', link);
      // Equal proportions have no sample size: said in place of the readouts, not as an error.
      const tied = element('p', 'sl-note');
      kit.label(tied, (s) => s.tiedProportions);
      const shown = [distributionsBox, verdict, bandBox, numbers.root];
      kit.body.append(distributionsBox, verdict, bandBox, numbers.root, tied, note);
      function layout(): void {
        const means = mode.value() === 'means';
        delta.root.hidden = !means;
        std.root.hidden = !means;
        p1.root.hidden = means;
        p2.root.hidden = means;
      }
      layout();
      return {
        params: () => {
          const equal = mode.value() === 'proportions' && p1.value() === p2.value();
          tied.hidden = !equal;
          for (const part of shown) part.hidden = equal;
          return equal ? undefined : {
            mode: mode.value(), delta: delta.value(), std: std.value(), z: z.value(), p1: p1.value(), p2: p2.value(), n: drawsAt(draws.value()),
          };
        },
        render(result) {
          const s = strings();
          const at = result.at!;
          const [first, second] = result.means;
          const name = result.mode === 'means' ? s.configurationMean : s.configurationProportion;
          distributions.draw({
            xLabel: s.estimateAtN(at.n), yLabel: s.density, height: 200, yRange: (_, max) => [0, max * 1.05],
            series: [{ label: name('A', first), color: '--sl-series-1' }, { label: name('B', second), color: '--sl-series-2' }],
            markers: [{ x: first, color: '--sl-series-1' }, { x: second, color: '--sl-series-2' }],
          }, [at.distributions.x, at.distributions.first, at.distributions.second], s.distributionsSummary(at.n));
          const difference = second - first;
          band.draw({
            xLabel: s.drawsPerConfiguration, yLabel: s.differenceAxis, logX: true, height: 200,
            series: [
              { label: s.differenceLine(difference), color: '--sl-series-1' },
              { label: s.bandHigh(z.value()), legend: s.bandLegend(z.value()), color: '--sl-series-1', dash: [6, 4] },
              { label: s.bandLow(z.value()), legend: false, color: '--sl-series-1', dash: [6, 4] },
              { label: s.zeroLine, color: '--sl-text' },
            ],
            markers: [
              { x: result.perConfiguration, color: '--sl-cut', label: `≈ ${result.perConfiguration.toLocaleString('en')}` },
              { x: at.n, color: '--sl-series-2', label: `n = ${at.n.toLocaleString('en')}`, below: true },
            ],
          }, [result.band!.n, Array.from(result.band!.n, () => difference), result.band!.high, result.band!.low,
            Array.from(result.band!.n, () => 0)], s.bandSummary(result.perConfiguration));
          setText(verdict, s.separationVerdict(at.n, at.z, z.value(), result.perConfiguration));
          numbers.set('n', s.perConfiguration, result.perConfiguration.toLocaleString('en'));
          numbers.set('standard-error', s.standardErrorAtN, result.standardErrorAtN.toFixed(4));
          numbers.set('z-at-n', s.zAtN(at.n), at.z.toFixed(2));
        },
      };
    },
  });
}
