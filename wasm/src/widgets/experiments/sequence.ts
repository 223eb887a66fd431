// Sequence probability: the handbook's two-step tree with editable probabilities; a three-step
// tree where greedy, beam width 2 and the most probable sequence all differ (width 4 finds it);
// or many random models, where greedy misses and wider beams catch up. Every path in its colour.
// On the two trees the reader first guesses (the most probable sequence; whether width 2 finds
// it); leaf probabilities and paths appear after. Below, why it is all done in log space: a
// product of per-token probabilities underflowing to 0 against the sum of their logs.
import type { LogSpaceResult, SequenceHandbookResult, SequenceRandomResult } from '../../lab/experiments.js';
import { SequenceTree } from '../charts/sequence-tree.js';
import { element, fillTable } from '../dom.js';
import { strings } from '../i18n.js';
import { experimentWidget, type Kit } from '../kit.js';
import { prediction } from '../predict.js';
import type { Widget, WidgetContext } from './types.js';
import { fromLog10, small } from '../numbers.js';
import { stepThrough } from '../player.js';

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

      let last: Result | undefined;
      const rerender = () => { if (last) render(last); };
      // Guess first: which leaf of the handbook tree is most probable; whether width 2 finds the three-step tree's best.
      const bestGuess = prediction(kit, {
        name: 'best-sequence', question: (s) => s.bestSequenceQuestion, onChange: rerender,
        choices: () => Object.fromEntries(leafPaths(2).map((path) => [`leaf-${path.join('')}`, tokenLabels(path).join(' ')])),
      });
      const beamGuess = prediction(kit, {
        name: 'beam-finds-best', question: (s) => s.beamQuestion, onChange: rerender,
        choices: (s) => ({ yes: s.yes, no: s.no }),
      });
      const treeBox = element('div', 'sl-chart sl-tree');
      const treeChart = kit.chart(new SequenceTree(treeBox));
      const treeNumbers = kit.readouts(['best', 'greedy', 'beam']);
      const randomNumbers = kit.readouts(['greedy-miss', 'closing-width']);
      const table = element('table', 'sl-table');
      const note = element('p', 'sl-note');
      const logSpace = logSpacePanel(kit);
      const beamSteps = beamStepsPanel(kit, () => ({ vocab: vocab.value(), depth: depth.value(), sharpness: sharpness.value() }));
      kit.body.append(bestGuess.root, beamGuess.root, treeBox, treeNumbers.root, randomNumbers.root, table, note, beamSteps.root, logSpace.root);

      function layout(): void {
        const chosen = mode.value();
        for (const control of treeSliders) control.root.hidden = chosen !== 'handbook';
        for (const control of randomSliders) control.root.hidden = chosen !== 'random';
        bestGuess.root.hidden = chosen !== 'handbook';
        beamGuess.root.hidden = chosen !== 'beam';
        treeBox.hidden = chosen === 'random';
        for (const part of [randomNumbers.root, table, beamSteps.root]) part.hidden = chosen !== 'random';
        if (chosen !== 'random') beamSteps.pause();
      }
      layout();

      function renderTree(r: SequenceHandbookResult): void {
        const s = strings();
        const handbook = r.depth === 2;
        const guess = handbook ? bestGuess : beamGuess;
        const revealed = guess.revealed();
        treeNumbers.root.hidden = !revealed;
        note.hidden = !revealed;
        if (kit.handbook) kit.handbook.hidden = handbook && !revealed;
        note.textContent = handbook ? s.handbookTreeNote : s.beamTreeNote;
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
          paths: revealed ? [
            { path: r.greedy.path, className: 'greedy', label: `${s.greedyPath}: ${name(r.greedy.path)}` },
            ...beams.map((b, i) => ({ path: b.path, className: i === 0 ? 'beam' : 'beam-wide', label: `${s.beamWidthPath(b.width)}: ${name(b.path)}` })),
            { path: r.best.path, className: 'best', label: `${s.bestPath}: ${name(r.best.path)}` },
          ] : [],
          summary: handbook ? s.treeSummary : s.beamTreeSummary,
          columns: { sequence: s.treeSequence, probability: s.treeProbability },
          hideLeaves: !revealed,
        });
        const describe = (p: { path: number[]; prob: number }) => `(${name(p.path).split(' ').join(', ')}) ${p.prob.toFixed(2)}`;
        treeNumbers.set('best', s.bestPath, describe(r.best));
        treeNumbers.set('greedy', s.greedyPath, describe(r.greedy));
        treeNumbers.set('beam', beams.map((b) => s.beamWidthPath(b.width)).join(' / '), beams.map(describe).join(' / '));
        if (handbook) {
          const chosen = bestGuess.guess() as string | undefined;
          const leaf = chosen === undefined ? undefined : r.leaves.find((l) => `leaf-${l.path.join('')}` === chosen);
          bestGuess.setAnswer(s.bestSequenceAnswer(describe(r.best), describe(r.greedy), leaf && describe(leaf), leaf ? r.best.prob - leaf.prob : 0));
        } else {
          const widthTwo = beams.find((b) => b.width === 2)!;
          const found = widthTwo.path.every((t, i) => t === r.best.path[i]);
          beamGuess.setAnswer(s.beamAnswer(found, (beamGuess.guess() === 'yes') === found, describe(widthTwo), describe(r.best)));
        }
      }

      function renderRandom(r: SequenceRandomResult): void {
        const s = strings();
        note.hidden = false;
        note.textContent = s.dullNote;
        if (kit.handbook) kit.handbook.hidden = false;
        randomNumbers.set('greedy-miss', s.greedyMissRate, `${(100 * r.greedyMissRate).toFixed(1)}%`);
        randomNumbers.set('closing-width', s.closingWidth, r.closingWidth === null ? '—' : String(r.closingWidth));
        fillTable(table, {
          head: [s.beamWidth, s.missRate, s.meanProbRatio],
          rows: r.beams.map((b) => [b.width, `${(100 * b.missRate).toFixed(1)}%`, b.meanProbRatio.toFixed(4)]),
        });
        beamSteps.follow();
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
        render,
        relabel: () => { logSpace.render(); beamSteps.render(); },
        destroy: () => beamSteps.pause(),
      };

      function render(r: Result): void {
        last = r;
        if (r.mode === 'handbook') renderTree(r); else renderRandom(r);
      }
    },
  });
}

// Steps played per second in the beam stepper.
const BEAM_STEPS_PER_SECOND = 1;
// Tokens of a random model, by id.
const randomTokens = (path: readonly number[]) => path.map((t) => 'abcdefgh'[t]).join(' ');

/**
 * Beam search on one of the random models, one step at a time: every kept prefix extended by every
 * token, ranked by log-probability, the best `width` kept and the rest pruned; beside it greedy's
 * path after the same number of steps. The model is the first where greedy misses the most
 * probable sequence, until the reader asks for another; the steps come from the core ('beam-steps').
 */
function beamStepsPanel(kit: Kit, settings: () => { vocab: number; depth: number; sharpness: number }) {
  const root = element('section', 'sl-mechanisms sl-beam-steps');
  const heading = element('h3', 'sl-mechanisms-title');
  kit.label(heading, (s) => s.beamStepsTitle);
  const intro = element('p', 'sl-note');
  kit.label(intro, (s) => s.beamStepsIntro);
  const width = kit.slider('beam-width', { label: (s) => s.beamWidth, min: 1, max: 4, step: 1, value: 2, onInput: () => stepper.follow() });
  let model: number | undefined;
  const stepper = stepThrough(kit, {
    settings: () => ({ ...settings(), width: width.value(), model }), run: (chosen) => kit.lab.runExperiment('beam-steps', chosen),
    render, stepLabel: (s) => s.stepBeam, stepsPerSecond: BEAM_STEPS_PER_SECOND,
  });
  const buttons = element('div', 'sl-mechanism-controls');
  const another = kit.button('sl-another-model', (s) => s.anotherModel, () => { model = (stepper.run?.model ?? 0) + 1; stepper.follow(); });
  buttons.append(width.root, stepper.step, stepper.play.button, another);
  const readout = element('p', 'sl-draw-readout');
  readout.setAttribute('aria-live', 'polite');
  const table = element('table', 'sl-table sl-compact sl-frontier');
  const verdict = element('p', 'sl-note');
  root.append(heading, intro, buttons, readout, table, verdict);

  function render(): void {
    const { run: steps, shown } = stepper;
    if (!steps) return;
    const s = strings();
    const current = shown > 0 ? steps.steps[shown - 1] : undefined;
    const greedyPath = steps.greedy.path.slice(0, shown);
    const isGreedy = (path: readonly number[]) => path.length === greedyPath.length && path.every((t, i) => t === greedyPath[i]);
    readout.textContent = current
      ? s.beamStepReadout(shown, steps.depth, current.candidates.length, steps.width,
        randomTokens(greedyPath), Math.exp(steps.greedy.logProbs[shown - 1]), current.candidates.some((c) => c.kept && isGreedy(c.path)))
      : s.beamStepsStart(steps.model + 1, steps.vocab, steps.depth, steps.width);
    table.hidden = !current;
    if (current) {
      fillTable(table, {
        caption: s.frontierCaption(shown),
        head: [s.treeSequence, 'log P', s.treeProbability, s.beamStatus],
        rows: current.candidates.map((c) => [
          `${randomTokens(c.path)}${isGreedy(c.path) ? ` ← ${s.greedyPath}` : ''}`, c.logProb === null ? '−∞' : c.logProb.toFixed(2),
          c.logProb === null ? '0' : Math.exp(c.logProb).toFixed(3),
          c.kept ? s.keptInBeam : s.pruned,
        ]),
      });
      current.candidates.forEach((c, i) => { table.tBodies[0].rows[i].className = c.kept ? 'sl-kept' : 'sl-pruned'; });
    }
    const done = shown === steps.steps.length;
    verdict.hidden = !done;
    const describe = (p: { path: number[]; prob: number }) => `${randomTokens(p.path)} (${p.prob.toFixed(3)})`;
    if (done) verdict.textContent = s.beamStepsVerdict(steps.width, describe(steps.beam), describe(steps.greedy), describe(steps.best),
      steps.beam.prob >= steps.best.prob - 1e-12, steps.greedy.prob >= steps.best.prob - 1e-12);
  }
  return { root, follow: stepper.follow, render, pause: stepper.play.pause };
}

// Log space: `length` tokens of one probability each, their product in float32 and float64 (both
// reach 0) against the sum of their logs; numbers from the core's log-space experiment.
function logSpacePanel(kit: Kit): { root: HTMLElement; render(): void } {
  const root = element('section', 'sl-mechanisms sl-log-space');
  const heading = element('h3', 'sl-mechanisms-title');
  kit.label(heading, (s) => s.logSpaceTitle);
  const schema = kit.lab.experiments.find((e) => e.name === 'log-space')!.params;
  const spec = (name: string) => schema.find((p) => p.name === name)!;
  const tokenProb = kit.slider('token-prob', {
    label: (s) => s.logSpaceTokenProb, ...spec('tokenProb').slider, value: spec('tokenProb').default as number,
    format: (v) => v.toFixed(2), onInput: () => render(),
  });
  const length = kit.slider('length', {
    label: (s) => s.logSpaceLength, ...spec('length').slider, value: spec('length').default as number,
    format: (v) => v.toLocaleString('en'), onInput: () => render(),
  });
  const sliders = element('div', 'sl-sliders');
  sliders.append(tokenProb.root, length.root);
  const numbers = kit.readouts(['float64', 'float32', 'log-sum']);
  const verdict = element('p', 'sl-note');
  root.append(heading, sliders, numbers.root, verdict);
  function render(): void {
    const s = strings();
    const r = kit.lab.runExperiment('log-space', { tokenProb: tokenProb.value(), length: length.value() }) as LogSpaceResult;
    numbers.set('float64', s.productIn('float64'), small(r.productFloat64, 4));
    numbers.set('float32', s.productIn('float32'), small(r.productFloat32, 4));
    numbers.set('log-sum', s.logSumLabel, `${r.logSum.toFixed(2)} (= ${fromLog10(r.log10Prob)})`);
    verdict.textContent = s.logSpaceVerdict(r.length, r.tokenProb, r.float32ZeroAt, r.float64ZeroAt);
  }
  render();
  return { root, render };
}
