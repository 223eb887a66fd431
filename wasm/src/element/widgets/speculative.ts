// Speculative sampling: target p and draft q with their overlap min(p, q) shaded (the
// acceptance), the simulated output against p, and tokens per verification against γ.
import type { SpeculativeResult } from '../../index.js';
import { strings } from '../i18n.js';
import { debounced, element, readouts, segmented, toggle, workerExperiment } from '../controls.js';
import { GroupedBars } from '../charts/grouped-bars.js';
import type { Widget, WidgetContext } from './types.js';

const P = [0.5, 0.3, 0.15, 0.05];
const PRESETS = {
  uniform: [0.25, 0.25, 0.25, 0.25],
  close: [0.45, 0.32, 0.15, 0.08],
  far: [0.05, 0.15, 0.3, 0.5],
} as const;
type Preset = keyof typeof PRESETS;
const SVG = 'http://www.w3.org/2000/svg';

function overlapBars(p: readonly number[], q: readonly number[], labels: { p: string; q: string; overlap: string; summary: string }): SVGSVGElement {
  const picture = document.createElementNS(SVG, 'svg');
  picture.setAttribute('viewBox', '0 0 600 200');
  picture.setAttribute('class', 'sl-bars sl-overlap');
  picture.setAttribute('role', 'img');
  picture.setAttribute('aria-label', labels.summary);
  const slot = 600 / p.length;
  const scale = 160 / Math.max(...p, ...q);
  const rect = (x: number, value: number, width: number, className: string) => {
    const r = document.createElementNS(SVG, 'rect');
    Object.entries({ x, y: 180 - value * scale, width, height: value * scale, class: className })
      .forEach(([k, v]) => r.setAttribute(k, String(v)));
    return r;
  };
  p.forEach((pi, i) => {
    const left = i * slot + slot * 0.15;
    picture.append(rect(left, pi, slot * 0.35, 'target'), rect(left + slot * 0.35, q[i], slot * 0.35, 'draft'),
      rect(left, Math.min(pi, q[i]), slot * 0.7, 'overlap'));
    const text = document.createElementNS(SVG, 'text');
    text.setAttribute('x', String(left + slot * 0.35));
    text.setAttribute('y', '196');
    text.setAttribute('class', 'label');
    text.textContent = `x${i + 1}`;
    picture.append(text);
  });
  return picture;
}

export function speculativeWidget({ host, slider, emit }: WidgetContext): Widget {
  let result: SpeculativeResult | undefined;
  const later = debounced(() => void run());
  const root = element('div', 'sl-widget sl-speculative');
  const toolbar = element('div', 'sl-toolbar');
  const presets = segmented<Preset>(['uniform', 'close', 'far'], 'uniform', later.schedule);
  const topK = toggle('top-k', later.schedule);
  const pitfall = toggle('pitfall', later.schedule);
  toolbar.append(presets.root, topK.root, pitfall.root);
  const overlapBox = element('div', 'sl-chart');
  const overlapLegend = element('div', 'sl-legend');
  const outputBox = element('div', 'sl-chart');
  const outputChart = new GroupedBars();
  const sliders = element('div', 'sl-sliders');
  const gamma = slider({ name: 'gamma', min: 1, max: 8, step: 1, value: 4, onInput: later.schedule, format: String });
  sliders.append(gamma.root);
  const numbers = readouts(['acceptance', 'simulated-acceptance', 'chi-square', 'tokens-formula', 'tokens-simulated']);
  const status = element('div', 'sl-progress-box');
  root.append(toolbar, overlapBox, overlapLegend, sliders, status, numbers.root, outputBox);
  host.replaceChildren(root);
  const runInWorker = workerExperiment<SpeculativeResult>(status, 'speculative', () => strings().running, (next, params) => {
    result = next;
    render();
    emit(params, next);
  });

  async function run(): Promise<void> {
    const params = {
      p: P, q: [...PRESETS[presets.value()]], n: 200_000, seed: 0, gamma: gamma.value(),
      topK: topK.checked() ? 2 : 0, mode: pitfall.checked() ? 'pitfall' : 'exact',
    };
    pitfall.input.disabled = !topK.checked();
    await runInWorker(params);
  }

  function render(): void {
    if (!result) return;
    const s = strings();
    const r = result;
    overlapBox.replaceChildren(overlapBars(r.target, r.draft, { p: 'p', q: 'q', overlap: s.overlap, summary: s.overlapSummary(r.acceptance.theory) }));
    overlapLegend.innerHTML = `<span><i class="sl-swatch target"></i>p ${s.targetModel}</span><span><i class="sl-swatch draft"></i>q ${s.draftModel}</span><span><i class="sl-swatch overlap"></i>${s.overlap}</span>`;
    numbers.set('acceptance', s.acceptanceTheory, r.acceptance.theory.toFixed(3));
    numbers.set('simulated-acceptance', s.acceptanceSimulated, `${r.acceptance.empirical.toFixed(3)} ± ${(2 * r.acceptance.standardError).toFixed(3)}`);
    numbers.set('chi-square', s.chiSquareP, r.output.chiSquare.pValue.toPrecision(3));
    numbers.set('tokens-formula', s.tokensFormula, r.expectedTokens.formula.toFixed(2));
    numbers.set('tokens-simulated', s.tokensSimulated, r.expectedTokens.simulated.toFixed(2));
    outputChart.draw(outputBox, {
      categories: r.target.map((_, i) => `x${i + 1}`),
      reference: { label: s.targetReference, values: r.target },
      series: [{ label: s.outputFrequencies, color: r.output.chiSquare.pValue < 1e-6 ? '--sl-bad' : '--sl-series-1', values: r.output.frequencies }],
      summary: s.outputSummary,
    });
  }

  function relabel(): void {
    const s = strings();
    presets.setLabels({ uniform: s.presetUniform, close: s.presetClose, far: s.presetFar }, s.draftModel);
    topK.setLabel(s.topKBoth);
    pitfall.setLabel(s.pitfall);
    gamma.setLabel(s.draftTokens);
    outputChart.reset();
    render();
  }

  relabel();
  void run();
  return { relabel, destroy: later.cancel };
}
