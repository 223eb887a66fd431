// Sequence probability: the handbook's two-step tree with editable probabilities and the greedy,
// best and beam paths marked; or many random models, where greedy misses and wider beams catch up.
import type { SequenceHandbookResult, SequenceRandomResult } from '../../index.js';
import { SequenceTree } from '../charts/sequence-tree.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'handbook' | 'random';
type Result = SequenceHandbookResult | SequenceRandomResult;
const RANDOM_MODELS = 300;
// Tokens of the handbook tree: step 1 is A/B, step 2 is a1/a2 after A and b1/b2 after B.
const tokenLabels = (path: readonly number[]) => path.map((t, i) => (i === 0 ? 'AB'[t] : `${'ab'[path[0]]}${t + 1}`));

export function sequenceWidget(context: WidgetContext): Widget {
  return experimentWidget<Result>(context, {
    experiment: 'sequence',
    inWorker: (params) => params?.mode === 'random',
    setup(kit) {
      const mode = kit.choice<Mode>('mode', {
        labels: (s) => ({ handbook: s.handbookTree, random: s.randomModels }), groupLabel: (s) => s.model, onSelect: () => layout(),
      });
      kit.toolbar.append(mode.root);
      // Handbook tree: P(A), P(a1 | A), P(b1 | B); the other edges are their complements.
      const tree = kit.param('tree').default as number[];
      const edge = (name: string, label: string, value: number) =>
        kit.slider(name, { label: () => label, min: 0.05, max: 0.95, step: 0.05, value, format: (p) => p.toFixed(2) });
      const treeSliders = [edge('p-a', 'P(A)', tree[0]), edge('p-a1', 'P(a1 | A)', tree[2]), edge('p-b1', 'P(b1 | B)', tree[4])];
      const vocab = kit.slider('vocab', { label: (s) => s.vocabSize, value: 3 });
      const depth = kit.slider('depth', { label: (s) => s.sequenceLength, value: 4 });
      const sharpness = kit.slider('sharpness', { label: (s) => s.sharpness, format: (v) => v.toFixed(1) });
      const randomSliders = [vocab, depth, sharpness];
      kit.controls.append(...treeSliders.map((s) => s.root), ...randomSliders.map((s) => s.root));

      const treeBox = element('div', 'sl-chart sl-tree');
      const treeChart = kit.chart(new SequenceTree(treeBox));
      const treeNumbers = kit.readouts(['best', 'greedy', 'beam']);
      const randomNumbers = kit.readouts(['greedy-miss', 'closing-width']);
      const table = element('table', 'sl-table');
      kit.body.append(treeBox, treeNumbers.root, randomNumbers.root, table);

      function layout(): void {
        const handbook = mode.value() === 'handbook';
        for (const control of treeSliders) control.root.hidden = !handbook;
        for (const control of randomSliders) control.root.hidden = handbook;
        for (const part of [treeBox, treeNumbers.root]) part.hidden = !handbook;
        for (const part of [randomNumbers.root, table]) part.hidden = handbook;
      }
      layout();

      function renderTree(r: SequenceHandbookResult): void {
        const s = strings();
        const [a, a1, b1] = treeSliders.map((control) => control.value());
        const beam = r.beams.find((b) => b.width === 2)!;
        const leafOf = (path: number[]) => r.leaves.find((leaf) => leaf.path.every((t, i) => t === path[i]))!;
        treeChart.draw({
          edges: [a, 1 - a, a1, 1 - a1, b1, 1 - b1],
          leaves: [[0, 0], [0, 1], [1, 0], [1, 1]].map((path) => ({ label: tokenLabels(path).join(' '), prob: leafOf(path).prob })),
          paths: [
            { path: r.greedy.path, className: 'greedy', label: s.greedyPath },
            { path: r.best.path, className: 'best', label: s.bestPath },
            { path: beam.path, className: 'beam', label: s.beamPath },
          ],
          rootLabels: ['A', 'B'],
          summary: s.treeSummary,
        });
        const describe = (p: { path: number[]; prob: number }) => `(${tokenLabels(p.path).join(', ')}) ${p.prob.toFixed(2)}`;
        treeNumbers.set('best', s.bestPath, describe(r.best));
        treeNumbers.set('greedy', s.greedyPath, describe(r.greedy));
        treeNumbers.set('beam', s.beamPath, describe(beam));
      }

      function renderRandom(r: SequenceRandomResult): void {
        const s = strings();
        randomNumbers.set('greedy-miss', s.greedyMissRate, `${(100 * r.greedyMissRate).toFixed(1)}%`);
        randomNumbers.set('closing-width', s.closingWidth, r.closingWidth === null ? '—' : String(r.closingWidth));
        fillTable(table, {
          head: [s.beamWidth, s.missRate, s.meanProbRatio],
          rows: r.beams.map((b) => [b.width, `${(100 * b.missRate).toFixed(1)}%`, b.meanProbRatio.toFixed(4)]),
        });
      }

      return {
        params() {
          if (mode.value() === 'random') {
            return { mode: 'random', vocab: vocab.value(), depth: depth.value(), sharpness: sharpness.value(), models: RANDOM_MODELS };
          }
          const [a, a1, b1] = treeSliders.map((control) => control.value());
          return { mode: 'handbook', tree: [a, 1 - a, a1, 1 - a1, b1, 1 - b1] };
        },
        render: (r) => (r.mode === 'handbook' ? renderTree(r) : renderRandom(r)),
      };
    },
  });
}
