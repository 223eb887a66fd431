// Decoding a sequence on the model, as the chapter's speculative and sequence sections describe
// it: speculative decoding step by step beside the chapter's formula, and beam search against
// greedy decoding and sampling. The models run in the Worker; this file shows what it reports.
import type { OptionSpec } from 'sampling-lab';
import type { JobListeners } from './model-client';
import type { BeamRow, PlainTiming, SpeculativeStepView, SpeculativeTotals, Token } from './model-protocol';
import {
  button, failureText, filterSliders, node, pairNames, promptField, runAndStop, seedField, slider, table, type Plan, type Runner, type Section,
} from './real-model-kit';
import { realModelText } from './text';

const shownText = (text: string): string => (text === '' ? '∅' : text.replace(/\n/g, '↵'));

type ChipKind = 'accepted' | 'rejected' | 'unchecked' | 'residual' | 'greedy' | 'bonus' | 'ngram';
const MARKS: Record<ChipKind, string> = { accepted: '✓', rejected: '✗', unchecked: '', residual: '↻', greedy: '↻', bonus: '+', ngram: '' };

// A token with its role in the step, said in words for screen readers beside the mark.
function chip(token: Token, kind: ChipKind): HTMLElement {
  const t = realModelText();
  const words: Record<ChipKind, string> = {
    accepted: t.chipAccepted, rejected: t.chipRejected, unchecked: t.chipUnchecked, residual: t.chipResidual, greedy: t.chipGreedy, bonus: t.chipBonus,
    ngram: t.chipNgram,
  };
  const box = node('span', `rm-chip rm-chip-${kind}`);
  box.dataset.token = String(token.token);
  box.append(node('span', 'rm-visually-hidden', `${words[kind]}: `));
  if (MARKS[kind]) box.append(node('span', 'rm-chip-mark', MARKS[kind]));
  box.append(node('span', 'rm-chip-text', shownText(token.text)));
  return box;
}

function stepItem(step: SpeculativeStepView, index: number, run: Run): HTMLLIElement {
  const { greedy, lookup } = run;
  const t = realModelText();
  const item = node('li', 'rm-spec-step');
  item.append(node('span', 'rm-spec-index', t.stepLabel(index + 1)));
  // Prompt lookup: the n-gram it matched, then what followed it before.
  if (lookup) {
    if (step.ngram) item.append(...step.ngram.map((token) => chip(token, 'ngram')), node('span', 'rm-spec-arrow', '⇒'));
    else item.append(node('span', 'rm-spec-nomatch', t.noMatch));
  }
  step.proposed.forEach((token, i) => {
    item.append(chip(token, i < step.accepted ? 'accepted' : i === step.accepted ? 'rejected' : 'unchecked'));
  });
  if (step.emitted) {
    item.append(node('span', 'rm-spec-arrow', '→'), chip(step.emitted, step.fromResidual ? (greedy ? 'greedy' : 'residual') : 'bonus'));
  }
  return item;
}

interface Run {
  gamma: number;
  greedy: boolean;
  /** Proposals by prompt lookup (no draft model). */
  lookup: boolean;
  steps: SpeculativeStepView[];
  totals?: SpeculativeTotals;
  plain?: PlainTiming;
  state: 'decoding' | 'timing' | 'done' | 'stopped';
}

// The running totals and, once plain decoding was timed, the speed-up, each beside the formula.
function statsTable(run: Run): HTMLElement {
  const t = realModelText();
  const { totals, gamma, plain } = run;
  const box = node('div', 'rm-table-box');
  if (!totals || totals.targetCalls === 0) return box;
  const alpha = totals.checked > 0 ? totals.accepted / totals.checked : 0;
  const { expected } = totals;
  const a = alpha.toFixed(3);
  const rows: string[][] = [
    [t.alphaName, `${totals.accepted} / ${totals.checked} = ${a}`, '—'],
    [t.perPassName, `${totals.tokens} / ${totals.targetCalls} = ${(totals.tokens / totals.targetCalls).toFixed(2)}`,
      // At α = 1 the quotient is 0/0; its limit is γ + 1.
      `E = (1 − α^(γ+1))/(1 − α) = ${alpha >= 1 ? 'γ + 1' : `(1 − ${a}^${gamma + 1})/(1 − ${a})`} = ${expected.toFixed(2)}`],
  ];
  const measured = plain && `${plain.targetMs.toFixed(0)} ms / ${totals.wallMs.toFixed(0)} ms = ${(plain.targetMs / totals.wallMs).toFixed(2)}`;
  if (plain && run.lookup) {
    // No draft passes: c = 0, and the formula's speed-up is E itself.
    rows.push([t.speedupName, measured!, `E/(γ·0 + 1) = ${expected.toFixed(2)}`]);
  } else if (plain) {
    const c = plain.draftStepMs / plain.targetStepMs;
    rows.push(
      [t.costName, `${plain.draftStepMs.toFixed(1)} ms / ${plain.targetStepMs.toFixed(1)} ms = ${c.toFixed(3)}`, '—'],
      [t.speedupName, measured!, `E/(γc + 1) = ${expected.toFixed(2)}/(${gamma}·${c.toFixed(3)} + 1) = ${(expected / (gamma * c + 1)).toFixed(2)}`],
    );
  }
  const passes = run.lookup ? t.lookupPasses(totals.targetCalls, totals.tokens) : t.passes(totals.targetCalls, totals.draftCalls, totals.tokens);
  box.append(table(t.statsCaption, t.statsColumns, rows), node('p', 'rm-note', passes));
  return box;
}

// γ, the filters and a seed; each step lists the draft's proposals and what became of them.
export function speculativeDecodingSection(options: readonly OptionSpec[], run: Runner, plan: Plan): Section {
  const root = node('section', 'rm-decode');
  const title = node('h3');
  const text = node('p');
  const which = node('p', 'rm-note rm-draft-which');
  // Where the proposals come from: the draft model (a second file), or prompt lookup on the model already loaded.
  const source = node('fieldset', 'rm-source');
  const sourceLegend = node('legend');
  const choices = (['draft', 'lookup'] as const).map((value) => {
    const label = node('label', 'rm-source-choice');
    const input = node('input');
    Object.assign(input, { type: 'radio', name: 'rm-spec-source', value, checked: value === 'draft' });
    const words = node('span');
    label.append(input, words);
    input.addEventListener('change', () => {
      // A finished run of the other source goes: the text above now explains this one.
      if (current && current.lookup !== lookingUp() && current.state !== 'decoding' && current.state !== 'timing') {
        current = undefined;
        for (const shown of [output, steps, stats]) shown.replaceChildren();
        status.textContent = '';
      }
      relabel();
    });
    return { value, label, input, words };
  });
  source.append(sourceLegend, ...choices.map((choice) => choice.label));
  const lookingUp = () => choices[1].input.checked;
  const prompt = promptField('rm-spec-prompt');
  const gamma = slider('rm-spec-gamma', { min: 1, max: 8, step: 1, value: 4 });
  const ngram = slider('rm-spec-ngram', { min: 1, max: 4, step: 1, value: 3 });
  const length = slider('rm-spec-tokens', { min: 8, max: 64, step: 8, value: 32 });
  const filters = filterSliders(options, 'rm-spec-');
  const seed = seedField('rm-spec-seed');
  const controls = node('div', 'rm-controls');
  controls.append(gamma.box, ngram.box, length.box, ...filters.boxes, seed.box);
  const { go, stop } = runAndStop('rm-spec-go', decode);
  const legend = node('p', 'rm-legend');
  const output = node('p', 'rm-output');
  const steps = node('ol', 'rm-spec-steps');
  // It scrolls: the keyboard reaches it.
  steps.tabIndex = 0;
  const status = node('p', 'rm-status');
  const stats = node('div', 'rm-spec-stats');
  stats.setAttribute('aria-live', 'polite');
  root.append(title, text, source, which, prompt.label, prompt.input, controls, go, stop, legend, output, steps, status, stats);
  let current: Run | undefined;

  async function decode(signal: AbortSignal): Promise<void> {
    const chosen = filters.values();
    const shown: Run = { gamma: Number(gamma.input.value), greedy: chosen.temperature === 0, lookup: lookingUp(), steps: [], state: 'decoding' };
    current = shown;
    output.replaceChildren(node('span', 'rm-prompt-echo', prompt.input.value));
    steps.replaceChildren();
    relabel();
    try {
      const common = { prompt: prompt.input.value, filters: { ...chosen, seed: Number(seed.input.value) }, gamma: shown.gamma, maxNewTokens: Number(length.input.value) };
      const listeners: JobListeners<'speculative'> = {
        signal,
        // A model file not loaded yet downloads first: say so here, where the reader is.
        onLoading: (progress) => {
          const t = realModelText();
          status.textContent = t.downloading(t.megabytes(progress.loaded / 1e6, progress.total / 1e6));
        },
        onEvent: (event) => {
          if ('timing' in event) {
            shown.state = 'timing';
          } else {
            const { step } = event;
            shown.steps.push(step);
            shown.totals = step.totals;
            steps.append(stepItem(step, shown.steps.length - 1, shown));
            // The step's text, joined whole (the chips above show each token's own bytes).
            if (step.textDelta) output.append(node('span', 'rm-generated', step.textDelta));
          }
          showTotals();
        },
      };
      // Prompt lookup runs on the model the page loaded first: no second download. Its events and
      // result are the speculative job's.
      const result = shown.lookup
        ? await run({ kind: 'lookup', model: plan.primary, ngramMax: Number(ngram.input.value), ...common }, listeners as unknown as JobListeners<'lookup'>)
        : await run({ kind: 'speculative', target: plan.target, draft: plan.draft, ...common }, listeners);
      shown.totals = result.totals;
      shown.plain = result.plain;
      shown.state = result.plain ? 'done' : 'stopped';
      showTotals();
    } catch (caught) {
      shown.state = 'stopped';
      status.textContent = failureText(caught)();
    }
  }

  function relabel(): void {
    const t = realModelText();
    const pair = pairNames(plan);
    const lookup = lookingUp();
    title.textContent = t.decodeTitle;
    text.textContent = lookup ? t.lookupText : t.decodeText;
    sourceLegend.textContent = t.proposalSource;
    choices[0].words.textContent = t.sourceDraft;
    choices[1].words.textContent = t.sourceLookup;
    which.textContent = lookup ? t.lookupWhich(plan.primary.dtype)
      : pair.kind === 'other' ? t.draftFrom(pair.draft, pair.target) : t.draftIsLowerPrecision(pair.draft, pair.target);
    ngram.box.hidden = !lookup;
    ngram.setLabel(t.ngramMax);
    prompt.relabel(t.defaultPrompt);
    gamma.setLabel(t.gamma);
    length.setLabel(t.newTokens);
    filters.relabel();
    seed.relabel();
    steps.setAttribute('aria-label', t.stepsLabel);
    go.textContent = t.runDecode;
    stop.textContent = t.stop;
    const greedy = current?.greedy ?? false;
    legend.replaceChildren(node('span', '', t.legend), ...([
      ...(current?.lookup ? [['ngram', t.legendNgram]] as const : []),
      ['accepted', t.legendAccepted], ['rejected', t.legendRejected], ['unchecked', t.legendUnchecked],
      greedy ? ['greedy', t.legendGreedy] : ['residual', current?.lookup ? t.legendLookupResidual : t.legendResidual], ['bonus', t.legendBonus],
    ] as const).map(([kind, words]) => node('span', `rm-chip rm-chip-${kind}`, words)));
    legend.hidden = !current;
    if (!current) return;
    steps.replaceChildren(...current.steps.map((step, i) => stepItem(step, i, current!)));
    showTotals();
  }

  function showTotals(): void {
    if (!current) return;
    const t = realModelText();
    status.textContent = current.state === 'timing' ? (current.lookup ? t.timingTarget : t.timing)(current.totals!.tokens)
      : current.state === 'stopped' && current.totals ? t.stopped : '';
    stats.replaceChildren(statsTable(current));
  }
  return { root, relabel };
}

// The same prompt greedily, by beam search at widths 2 and 4, and sampled, with each sequence's log p.
export function beamSection(run: Runner, plan: Plan): Section {
  const root = node('section', 'rm-beam');
  const title = node('h3');
  const text = node('p');
  const prompt = promptField('rm-beam-prompt');
  const length = slider('rm-beam-tokens', { min: 4, max: 24, step: 1, value: 12 });
  const seed = seedField('rm-beam-seed');
  const controls = node('div', 'rm-controls');
  controls.append(length.box, seed.box);
  const go = button('rm-beam-go');
  const results = node('div', 'rm-table-box');
  const verdict = node('p', 'rm-verdict');
  verdict.setAttribute('aria-live', 'polite');
  root.append(title, text, prompt.label, prompt.input, controls, go, results, verdict);
  let rows: BeamRow[] = [];
  let seedUsed = 0;

  go.addEventListener('click', async () => {
    go.disabled = true;
    rows = [];
    seedUsed = Number(seed.input.value);
    relabel();
    try {
      await run({ kind: 'beam', model: plan.primary, prompt: prompt.input.value, widths: [2, 4], maxNewTokens: Number(length.input.value), seed: seedUsed }, {
        onEvent: (row) => {
          rows.push(row);
          relabel();
        },
      });
    } catch (caught) {
      verdict.textContent = failureText(caught)();
      rows = [];
    } finally {
      go.disabled = false;
    }
  });

  function label(row: BeamRow): string {
    const t = realModelText();
    return row.kind === 'greedy' ? t.greedy : row.kind === 'beam' ? t.beam(row.width) : t.sampled(seedUsed);
  }

  function relabel(): void {
    const t = realModelText();
    title.textContent = t.beamTitle;
    text.textContent = t.beamText;
    prompt.relabel(t.defaultPrompt);
    length.setLabel(t.beamTokens);
    seed.relabel();
    go.textContent = t.runBeam;
    results.replaceChildren(...(rows.length === 0 ? [] : [table(t.beamCaption, t.beamColumns, rows.map((row) => [
      label(row), shownText(row.text), row.logProb.toFixed(2), (row.logProb / row.tokens).toFixed(2),
    ]))]));
    const greedy = rows.find((row) => row.kind === 'greedy');
    if (!greedy || rows.length < 4) {
      if (rows.length > 0) verdict.textContent = '';
      return;
    }
    const best = rows.reduce((a, b) => (b.logProb > a.logProb ? b : a));
    // Equal up to float rounding is the same sequence found.
    const gap = best.logProb - greedy.logProb;
    verdict.textContent = gap <= 1e-6 ? t.greedyBest : t.greedyNot(label(best), gap.toFixed(2), Math.exp(gap).toPrecision(3));
  }
  return { root, relabel };
}
