// Sequence probability: the handbook's two-step tree with editable probabilities and the greedy,
// best and beam paths marked; or many random models, where greedy misses and wider beams catch up.
import type { SequenceRandomResult } from '../../index.js';
import { strings } from '../i18n.js';
import { debounced, element, readouts, segmented, workerExperiment } from '../controls.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'handbook' | 'random';
const SVG = 'http://www.w3.org/2000/svg';
// Tokens of the handbook tree: step 1 is A/B, step 2 is a1/a2 after A and b1/b2 after B.
const label = (path: readonly number[]) =>
  path.map((t, i) => (i === 0 ? 'AB'[t] : `${'ab'[path[0]]}${t + 1}`));

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>, text?: string) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function sequenceWidget({ host, lab, slider, emit }: WidgetContext): Widget {
  let mode: Mode = 'handbook';
  const root = element('div', 'sl-widget sl-sequence');
  const modeSwitch = segmented<Mode>(['handbook', 'random'], 'handbook', (m) => { mode = m; layout(); });
  const toolbar = element('div', 'sl-toolbar');
  toolbar.append(modeSwitch.root);

  // Handbook tree: P(A), P(a1 | A), P(b1 | B).
  const treeBox = element('div', 'sl-chart sl-tree');
  const treeSliders = element('div', 'sl-sliders');
  const probability = (name: string, value: number) =>
    slider({ name, min: 0.05, max: 0.95, step: 0.05, value, onInput: () => drawTree(), format: (p) => p.toFixed(2) });
  const pA = probability('p-a', 0.6);
  const pA1 = probability('p-a1', 0.5);
  const pB1 = probability('p-b1', 0.9);
  treeSliders.append(pA.root, pA1.root, pB1.root);
  const treeNumbers = readouts(['best', 'greedy', 'beam']);
  const treePanel = element('div');
  treePanel.append(treeBox, treeSliders, treeNumbers.root);

  // Random models, run in the Worker.
  const randomPanel = element('div');
  const later = debounced(() => void runRandom());
  const randomSliders = element('div', 'sl-sliders');
  const vocab = slider({ name: 'vocab', min: 2, max: 5, step: 1, value: 3, onInput: later.schedule, format: String });
  const depth = slider({ name: 'depth', min: 2, max: 5, step: 1, value: 4, onInput: later.schedule, format: String });
  const sharpness = slider({ name: 'sharpness', min: 0.5, max: 4, step: 0.5, value: 1, onInput: later.schedule, format: (v) => v.toFixed(1) });
  randomSliders.append(vocab.root, depth.root, sharpness.root);
  const randomNumbers = readouts(['greedy-miss', 'closing-width']);
  const status = element('div', 'sl-progress-box');
  const table = element('table', 'sl-table');
  randomPanel.append(randomSliders, status, randomNumbers.root, table);
  const runInWorker = workerExperiment<SequenceRandomResult>(status, 'sequence', () => strings().running, (next, params) => {
    randomResult = next;
    renderRandom();
    emit(params, next);
  });
  let randomResult: SequenceRandomResult | undefined;

  root.append(toolbar, treePanel, randomPanel);
  host.replaceChildren(root);

  function tree(): number[] {
    const [a, a1, b1] = [pA.value(), pA1.value(), pB1.value()];
    return [a, 1 - a, a1, 1 - a1, b1, 1 - b1];
  }

  function drawTree(): void {
    const s = strings();
    const params = { tree: tree() };
    const result = lab.runExperiment('sequence', params);
    if (result.mode !== 'handbook') return;
    const beam = result.beams.find((b) => b.width === 2)!;
    const onPath = (path: number[], prefix: number[]) => prefix.every((t, i) => path[i] === t);
    const probs = tree();
    const nodes: SVGElement[] = [];
    const x0 = 60, x1 = 260, x2 = 460, ys = [60, 180], leafY = [30, 90, 150, 210];
    for (let a = 0; a < 2; a++) {
      const classes = (prefix: number[]) => ['edge',
        onPath(result.greedy.path, prefix) ? 'greedy' : '', onPath(result.best.path, prefix) ? 'best' : '',
        onPath(beam.path, prefix) ? 'beam' : ''].join(' ').trim();
      nodes.push(svg('line', { x1: x0, y1: 120, x2: x1, y2: ys[a], class: classes([a]) }));
      nodes.push(svg('text', { x: (x0 + x1) / 2, y: (120 + ys[a]) / 2 - 8, class: 'prob' }, probs[a].toFixed(2)));
      nodes.push(svg('text', { x: x1, y: ys[a] - 10, class: 'node' }, 'AB'[a]));
      for (let b = 0; b < 2; b++) {
        const y = leafY[2 * a + b];
        const p = probs[2 + 2 * a + b];
        nodes.push(svg('line', { x1, y1: ys[a], x2, y2: y, class: classes([a, b]) }));
        nodes.push(svg('text', { x: (x1 + x2) / 2, y: (ys[a] + y) / 2 - 6, class: 'prob' }, p.toFixed(2)));
        nodes.push(svg('text', { x: x2 + 8, y: y + 5, class: 'leaf' }, `${label([a, b]).join(' ')}  ${(probs[a] * p).toFixed(2)}`));
      }
    }
    const picture = svg('svg', { viewBox: '0 0 600 240', class: 'sl-tree-svg', role: 'img', 'aria-label': s.treeSummary });
    picture.replaceChildren(...nodes);
    const legend = element('div', 'sl-legend');
    legend.innerHTML = `<span><i class="sl-swatch greedy"></i>${s.greedyPath}</span><span><i class="sl-swatch best"></i>${s.bestPath}</span><span><i class="sl-swatch beam"></i>${s.beamPath}</span>`;
    treeBox.replaceChildren(picture, legend);
    const describe = (p: { path: number[]; prob: number }) => `(${label(p.path).join(', ')}) ${p.prob.toFixed(2)}`;
    treeNumbers.set('best', s.bestPath, describe(result.best));
    treeNumbers.set('greedy', s.greedyPath, describe(result.greedy));
    treeNumbers.set('beam', s.beamPath, describe(beam));
    emit(params, result);
  }

  async function runRandom(): Promise<void> {
    const params = { mode: 'random', vocab: vocab.value(), depth: depth.value(), sharpness: sharpness.value(), models: 300, seed: 0 };
    await runInWorker(params);
  }

  function renderRandom(): void {
    if (!randomResult) return;
    const s = strings();
    const r = randomResult;
    randomNumbers.set('greedy-miss', s.greedyMissRate, `${(100 * r.greedyMissRate).toFixed(1)}%`);
    randomNumbers.set('closing-width', s.closingWidth, r.closingWidth === null ? '—' : String(r.closingWidth));
    table.innerHTML = `<thead><tr><th scope="col">${s.beamWidth}</th><th scope="col">${s.missRate}</th><th scope="col">${s.meanProbRatio}</th></tr></thead><tbody>` +
      r.beams.map((b) => `<tr><td>${b.width}</td><td>${(100 * b.missRate).toFixed(1)}%</td><td>${b.meanProbRatio.toFixed(4)}</td></tr>`).join('') + '</tbody>';
  }

  function layout(): void {
    treePanel.hidden = mode !== 'handbook';
    randomPanel.hidden = mode !== 'random';
    if (mode === 'random' && !randomResult) void runRandom();
  }

  function relabel(): void {
    const s = strings();
    modeSwitch.setLabels({ handbook: s.handbookTree, random: s.randomModels }, s.model);
    pA.setLabel('P(A)');
    pA1.setLabel('P(a1 | A)');
    pB1.setLabel('P(b1 | B)');
    vocab.setLabel(s.vocabSize);
    depth.setLabel(s.sequenceLength);
    sharpness.setLabel(s.sharpness);
    drawTree();
    renderRandom();
  }

  relabel();
  layout();
  return { relabel, destroy: later.cancel };
}
