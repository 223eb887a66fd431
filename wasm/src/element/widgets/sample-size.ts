// Exercise 2 as a calculator: samples per configuration before a difference exceeds z standard
// errors, for two means or two proportions.
import { strings } from '../i18n.js';
import { element, readouts, segmented } from '../controls.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'means' | 'proportions';

export function sampleSizeWidget({ host, lab, slider, emit }: WidgetContext): Widget {
  const root = element('div', 'sl-widget sl-sample-size');
  const modeSwitch = segmented<Mode>(['means', 'proportions'], 'means', () => { layout(); update(); });
  const toolbar = element('div', 'sl-toolbar');
  toolbar.append(modeSwitch.root);
  const sliders = element('div', 'sl-sliders');
  const delta = slider({ name: 'delta', min: 0.02, max: 0.5, step: 0.01, value: 0.1, onInput: () => update(), format: (v) => v.toFixed(2) });
  const std = slider({ name: 'std', min: 0.2, max: 3, step: 0.1, value: 1.2, onInput: () => update(), format: (v) => v.toFixed(1) });
  const p1 = slider({ name: 'p1', min: 0.05, max: 0.95, step: 0.01, value: 0.7, onInput: () => update(), format: (v) => v.toFixed(2) });
  const p2 = slider({ name: 'p2', min: 0.05, max: 0.95, step: 0.01, value: 0.72, onInput: () => update(), format: (v) => v.toFixed(2) });
  const z = slider({ name: 'z', min: 1, max: 3, step: 0.1, value: 2, onInput: () => update(), format: (v) => v.toFixed(1) });
  sliders.append(delta.root, std.root, p1.root, p2.root, z.root);
  const numbers = readouts(['n', 'standard-error']);
  const error = element('p', 'sl-error');
  error.setAttribute('role', 'alert');
  root.append(toolbar, sliders, numbers.root, error);
  host.replaceChildren(root);

  function layout(): void {
    const means = modeSwitch.value() === 'means';
    delta.root.hidden = !means;
    std.root.hidden = !means;
    p1.root.hidden = means;
    p2.root.hidden = means;
  }

  function update(): void {
    const s = strings();
    const params = { mode: modeSwitch.value(), delta: delta.value(), std: std.value(), z: z.value(), p1: p1.value(), p2: p2.value() };
    try {
      const result = lab.runExperiment('sample-size', params);
      error.textContent = '';
      numbers.set('n', s.perConfiguration, result.perConfiguration.toLocaleString());
      numbers.set('standard-error', s.standardErrorAtN, result.standardErrorAtN.toFixed(4));
      emit(params, result);
    } catch (failure) {
      error.textContent = (failure as Error).message;
    }
  }

  function relabel(): void {
    const s = strings();
    modeSwitch.setLabels({ means: s.twoMeans, proportions: s.twoProportions }, s.compare);
    delta.setLabel(s.difference);
    std.setLabel(s.stdPerRun);
    p1.setLabel('p₁');
    p2.setLabel('p₂');
    z.setLabel(s.zStandardErrors);
    update();
  }

  layout();
  relabel();
  return { relabel, destroy: () => {} };
}
