// Exercise 2 as a calculator: samples per configuration before a difference exceeds z standard
// errors, for two means or two proportions.
import type { SampleSizeResult } from '../../lab/experiments.js';
import { element } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'means' | 'proportions';

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
      const delta = kit.slider('delta', { label: (s) => s.difference, format: two });
      const std = kit.slider('std', { label: (s) => s.stdPerRun, format: one });
      const p1 = kit.slider('p1', { label: () => 'p₁', format: two });
      const p2 = kit.slider('p2', { label: () => 'p₂', format: two });
      const z = kit.slider('z', { label: (s) => s.zStandardErrors, format: one });
      kit.controls.append(delta.root, std.root, p1.root, p2.root, z.root);
      const numbers = kit.readouts(['n', 'standard-error']);
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
      kit.body.append(numbers.root, tied, note);
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
          numbers.root.hidden = equal;
          return equal ? undefined : { mode: mode.value(), delta: delta.value(), std: std.value(), z: z.value(), p1: p1.value(), p2: p2.value() };
        },
        render(result) {
          const s = strings();
          numbers.set('n', s.perConfiguration, result.perConfiguration.toLocaleString());
          numbers.set('standard-error', s.standardErrorAtN, result.standardErrorAtN.toFixed(4));
        },
      };
    },
  });
}
