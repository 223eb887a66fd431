// Sequence probability: the handbook's two-step tree with editable probabilities; a three-step
// tree where greedy, beam width 2 and the most probable sequence all differ (width 4 finds it);
// or many random models, where greedy misses and wider beams catch up. Every path in its colour.
import type { SequenceHandbookResult, SequenceRandomResult } from '../../index.js';
import { SequenceTree } from '../charts/sequence-tree.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import type { Widget, WidgetContext } from './types.js';

type Mode = 'handbook' | 'beam' | 'random';
type Result = SequenceHandbookResult | SequenceRandomResult;
const RANDOM_MODELS = 300;
// Tokens of the handbook tree: step 1 is A/B, step 2 is a1/a2 after A and b1/b2 after B.
const tokenLabels = (path: readonly number[]) => path.map((t, i) => (i === 0 ? 'AB'[t] : `${'ab'[path[0]]}${t + 1}`));
// A three-step tree where beam width matters: greedy takes A b 2 (0.18), beam width 2 keeps B a
// and A b after step 2 and ends at B a 2 (0.22), and only width 4 finds A a 2 (0.24), whose second
// step (0.45) looked worse than A b's (0.55). P(first child) per inner node, breadth-first.
const BEAM_TREE = [0.6, 0.45, 0.9, 0.1, 0.45, 0.4, 0.1];
const BEAM_TOKENS = ['AB', 'ab', '12'];
const BEAM_WIDTHS = [1, 2, 4];
const breadthFirst = (firstChild: readonly number[]) => firstChild.flatMap((p) => [p, 1 - p]);
// Every leaf's path, breadth-first.
const leafPaths = (depth: number) => Array.from({ length: 2 ** depth }, (_, i) => Array.from({ length: depth }, (_, l) => (i >> (depth - 1 - l)) & 1));

export function sequenceWidget(context: WidgetContext): Widget {
  return experimentWidget<Result>(context, {
    experiment: 'sequence',
    inWorker: (params) => params?.mode === 'random',
    setup(kit) {
      // Three views over the core's two modes: the beam tree is a handbook-mode tree of depth 3.
      const mode = kit.choice<Mode>('view', {
        labels: (s) => ({ handbook: s.handbookTree, beam: s.beamTree, random: s.randomModels }), groupLabel: (s) => s.model, onSelect: () => layout(),
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
      const note = element('p', 'sl-note');
      kit.label(note, (s) => s.dullNote);
      kit.body.append(treeBox, treeNumbers.root, randomNumbers.root, table, note);

      function layout(): void {
        const chosen = mode.value();
        for (const control of treeSliders) control.root.hidden = chosen !== 'handbook';
        for (const control of randomSliders) control.root.hidden = chosen !== 'random';
        for (const part of [treeBox, treeNumbers.root]) part.hidden = chosen === 'random';
        for (const part of [randomNumbers.root, table]) part.hidden = chosen !== 'random';
      }
      layout();

      function renderTree(r: SequenceHandbookResult): void {
        const s = strings();
        const handbook = r.depth === 2;
        const firstChild = handbook ? (() => { const [a, a1, b1] = treeSliders.map((c) => c.value()); return [a, a1, b1]; })() : BEAM_TREE;
        const token = (path: readonly number[]) => (handbook ? tokenLabels(path) : path.map((t, level) => BEAM_TOKENS[level][t])).at(-1)!;
        const name = (path: readonly number[]) => path.map((_, level) => token(path.slice(0, level + 1))).join(' ');
        const probOf = (path: readonly number[]) => r.leaves.find((leaf) => leaf.path.every((t, i) => t === path[i]))!.prob;
        const beams = r.beams.filter((b) => b.width > 1);
        treeChart.draw({
          depth: r.depth,
          firstChild,
          leaves: leafPaths(r.depth).map(probOf),
          token,
          paths: [
            { path: r.greedy.path, className: 'greedy', label: `${s.greedyPath}: ${name(r.greedy.path)}` },
            ...beams.map((b, i) => ({ path: b.path, className: i === 0 ? 'beam' : 'beam-wide', label: `${s.beamWidthPath(b.width)}: ${name(b.path)}` })),
            { path: r.best.path, className: 'best', label: `${s.bestPath}: ${name(r.best.path)}` },
          ],
          summary: s.treeSummary,
          columns: { sequence: s.treeSequence, probability: s.treeProbability },
        });
        const describe = (p: { path: number[]; prob: number }) => `(${name(p.path).split(' ').join(', ')}) ${p.prob.toFixed(2)}`;
        treeNumbers.set('best', s.bestPath, describe(r.best));
        treeNumbers.set('greedy', s.greedyPath, describe(r.greedy));
        treeNumbers.set('beam', beams.map((b) => s.beamWidthPath(b.width)).join(' / '), beams.map(describe).join(' / '));
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
          if (mode.value() === 'beam') return { mode: 'handbook', depth: 3, tree: breadthFirst(BEAM_TREE), widths: BEAM_WIDTHS };
          const [a, a1, b1] = treeSliders.map((control) => control.value());
          return { mode: 'handbook', tree: breadthFirst([a, a1, b1]) };
        },
        render: (r) => (r.mode === 'handbook' ? renderTree(r) : renderRandom(r)),
      };
    },
  });
}
