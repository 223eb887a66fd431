// Every figure the handbook prints for these experiments, once, with where it is printed (this
// chapter, or the other chapter that prints it), how it is rounded and the live value it
// corresponds to. The tests assert each (exact figures to their printed digits, Monte-Carlo ones
// within 4 standard errors: the handbook drew with PyTorch's generator, this lab with Philox)
// and the page shows each beside its live value and its source. A number no chapter prints (the
// chapter's Monte-Carlo-error code shows no output) is not here.
import type { ExperimentName, ExperimentTypes, SequenceHandbookResult } from '../lab/experiments.js';
import { small } from './numbers.js';

/** The chapters that print the figures: this one, "概率与采样", and the two it points to. */
export type HandbookChapter = 'probability' | 'decoding' | 'serving';

/** Each chapter's name in Chinese and English, as the handbook panel names a figure's source. */
export const HANDBOOK_CHAPTERS: Record<HandbookChapter, { zh: string; en: string }> = {
  probability: { zh: '本章（概率与采样）', en: 'this chapter (probability and sampling)' },
  decoding: { zh: '解码与采样一章', en: 'the decoding chapter' },
  serving: { zh: '推理服务一章（投机解码）', en: 'the serving chapter (speculative decoding)' },
};

/** One figure the handbook prints: where, as printed and rounded, and the live value it corresponds to in experiment `N`'s result. */
export interface HandbookFigure<N extends ExperimentName = ExperimentName> {
  /** Stable key, e.g. "decoding.probs". */
  id: string;
  /** The chapter that prints it. */
  chapter: HandbookChapter;
  /** Where in that chapter, e.g. "section “Sampling algorithms”" or "exercise 2". */
  where: string;
  /** Chapter and place in one line, e.g. "Probability and sampling chapter, exercise 2". */
  source: string;
  /** The experiment whose result gives the live value. */
  experiment: N;
  /** The experiment's parameters for this figure. */
  params: ExperimentTypes[N]['params'];
  /** As printed. */
  printed: number | number[];
  /** Its rounding: the decimals printed; negative rounds to tens (−1), hundreds (−2)… */
  digits: number;
  /** How the chapter got to its rounded figure, where that is more than rounding the exact value. */
  rounding?: string;
  /** The live value the printed one corresponds to. */
  live(result: ExperimentTypes[N]['result']): number | number[];
  /** For Monte-Carlo figures: the standard error of the live value. */
  standardError?(result: ExperimentTypes[N]['result']): number | number[];
}

const CHAPTER_NAMES: Record<HandbookChapter, string> = {
  probability: 'Probability and sampling chapter', decoding: 'Decoding chapter', serving: 'Serving chapter, speculative decoding',
};
const CHAPTER_P = [0.5, 0.25, 0.15, 0.07, 0.03];
const SAMPLER_N = 200_000;
const bernoulliSE = (p: readonly number[], n: number) => p.map((pi) => Math.sqrt(pi * (1 - pi) / n));

/** A figure as the page prints it: its digits (0.441, 1,000), as the chapter does when small (0.0006). */
export function formatFigure(x: number, digits: number): string {
  if (x !== 0 && Math.abs(x) < 1e-3) return small(x);
  // Negative digits round to tens, hundreds…: 1,152 printed to −1 digits is 1,150.
  return digits <= 0 ? (Math.round(x / 10 ** -digits) * 10 ** -digits).toLocaleString('en') : x.toFixed(digits);
}

function figure<N extends ExperimentName>(f: Omit<HandbookFigure<N>, 'source'>): HandbookFigure {
  return { ...f, source: `${CHAPTER_NAMES[f.chapter]}, ${f.where}` } as unknown as HandbookFigure;
}

const samplerFigure = (method: number, name: string, printed: number[], deviation: number) => [
  figure({
    id: `samplers.${name}.frequencies`, chapter: 'probability', where: 'section “Sampling algorithms”', experiment: 'samplers',
    params: { p: CHAPTER_P, n: SAMPLER_N, seed: 0 }, printed, digits: 3,
    live: (r) => Array.from(r.methods[method].frequencies),
    standardError: () => bernoulliSE(CHAPTER_P, SAMPLER_N),
  }),
  figure({
    id: `samplers.${name}.maxDeviation`, chapter: 'probability', where: 'section “Sampling algorithms”', experiment: 'samplers',
    params: { p: CHAPTER_P, n: SAMPLER_N, seed: 0 }, printed: deviation, digits: 4,
    live: (r) => r.methods[method].maxDeviation,
    standardError: () => Math.max(...bernoulliSE(CHAPTER_P, SAMPLER_N)),
  }),
];

const importanceRow = (shift: number, estimate: number, ess: number, clipped: number) => {
  const params = { shifts: [shift], repeats: 400 };
  const source = { chapter: 'probability', where: 'section “Importance sampling”' } as const;
  return [
    figure({
      id: `importance.shift${shift}.estimate`, ...source, experiment: 'importance', params, printed: estimate, digits: 2,
      live: (r) => r.rows[0].estimate, standardError: (r) => r.rows[0].estimators!.none.std,
    }),
    figure({
      id: `importance.shift${shift}.ess`, ...source, experiment: 'importance', params, printed: ess, digits: 0,
      live: (r) => r.rows[0].ess, standardError: (r) => r.rows[0].essStd!,
    }),
    figure({
      id: `importance.shift${shift}.clipped`, ...source, experiment: 'importance', params, printed: clipped, digits: 2,
      live: (r) => r.rows[0].clipped, standardError: (r) => r.rows[0].estimators!.tis.std,
    }),
  ];
};

/** Every figure the handbook prints, once: the tests check each against its live value, and the page shows each beside it. */
export const HANDBOOK_FIGURES: readonly HandbookFigure[] = [
  figure({
    id: 'decoding.probs', chapter: 'decoding', where: 'worked example', experiment: 'filters', params: {},
    printed: [0.441, 0.268, 0.162, 0.06, 0.036, 0.022, 0.008, 0.003], digits: 3, live: (r) => Array.from(r.probs),
  }),
  figure({ id: 'decoding.topK3', chapter: 'decoding', where: 'worked example', experiment: 'filters', params: { topK: 3 }, printed: 3, digits: 0, live: (r) => r.kept }),
  figure({ id: 'decoding.topP0.8', chapter: 'decoding', where: 'worked example', experiment: 'filters', params: { topP: 0.8 }, printed: 3, digits: 0, live: (r) => r.kept }),
  figure({ id: 'decoding.minP0.1', chapter: 'decoding', where: 'worked example', experiment: 'filters', params: { minP: 0.1 }, printed: 4, digits: 0, live: (r) => r.kept }),
  figure({
    id: 'decoding.T0.5.topP0.8', chapter: 'decoding', where: 'worked example', experiment: 'filters', params: { temperature: 0.5, topP: 0.8 },
    printed: 2, digits: 0, live: (r) => r.kept,
  }),
  ...[[0.75, 3], [0.5, 1]].map(([p, kept]) => figure({
    id: `decoding.exercise.topP${p}`, chapter: 'decoding', where: 'exercise', experiment: 'filters',
    params: { logits: [0.5, 0.2, 0.15, 0.1, 0.05].map(Math.log), topP: p }, printed: kept, digits: 0, live: (r) => r.kept,
  })),
  figure({
    id: 'decoding.penalties', chapter: 'decoding', where: 'worked example', experiment: 'filters',
    params: { logits: [0, 0, 0, 0, 0], presencePenalty: 0.5, frequencyPenalty: 0.2, generatedIds: [1, 1, 3] },
    printed: [0, -0.9, 0, -0.7, 0], digits: 1, live: (r) => Array.from(r.probs, (p) => Math.log(p / r.probs[0])),
  }),
  ...samplerFigure(0, 'inverseCdf', [0.499, 0.25, 0.151, 0.07, 0.03], 0.0014),
  ...samplerFigure(1, 'gumbelMax', [0.501, 0.249, 0.151, 0.07, 0.03], 0.0015),
  ...samplerFigure(2, 'exponentialRace', [0.501, 0.249, 0.15, 0.069, 0.03], 0.0006),
  figure({
    id: 'eval-error.standardError', chapter: 'probability', where: 'Monte-Carlo error, text', experiment: 'eval-error',
    params: {}, printed: 0.03, digits: 2, live: (r) => r.standardError,
  }),
  figure({ id: 'sequence.best', chapter: 'probability', where: 'section “Sequence probability”', experiment: 'sequence', params: {}, printed: 0.36, digits: 2, live: (r) => (r as SequenceHandbookResult).best.prob }),
  figure({ id: 'sequence.greedy', chapter: 'probability', where: 'section “Sequence probability”', experiment: 'sequence', params: {}, printed: 0.3, digits: 2, live: (r) => (r as SequenceHandbookResult).greedy.prob }),
  figure({ id: 'speculative.acceptance', chapter: 'serving', where: 'Monte-Carlo check of speculative sampling', experiment: 'speculative', params: {}, printed: 0.7, digits: 3, live: (r) => r.acceptance.theory }),
  figure({
    id: 'speculative.acceptance.simulated', chapter: 'serving', where: 'Monte-Carlo check of speculative sampling', experiment: 'speculative', params: {}, printed: 0.699, digits: 3,
    live: (r) => r.acceptance.empirical, standardError: (r) => r.acceptance.standardError,
  }),
  figure({
    id: 'speculative.output', chapter: 'serving', where: 'Monte-Carlo check of speculative sampling', experiment: 'speculative', params: {}, printed: [0.499, 0.3, 0.151, 0.05], digits: 3,
    live: (r) => Array.from(r.output.frequencies), standardError: (r) => bernoulliSE(Array.from(r.target), r.n),
  }),
  figure({ id: 'speculative.tokens', chapter: 'serving', where: 'exercise', experiment: 'speculative', params: {}, printed: 2.77, digits: 2, live: (r) => r.expectedTokens.formula }),
  figure({ id: 'importance.trueMean', chapter: 'probability', where: 'section “Importance sampling”', experiment: 'importance', params: {}, printed: 6.2, digits: 2, live: (r) => r.trueMean }),
  ...importanceRow(0, 6.18, 1000, 6.18),
  ...importanceRow(1, 6.11, 922, 6.11),
  ...importanceRow(3, 6.6, 489, 4.98),
  figure({
    id: 'sample-size.means', chapter: 'probability', where: 'exercise 2', experiment: 'sample-size', params: {}, printed: 1150, digits: -1,
    rounding: 'exact (2·√2·1.2/0.1)² = 1,152; the chapter writes √2·1.2 ≈ 1.7, (2·1.7/0.1)² = 1,156, and prints ≈ 1150',
    live: (r) => r.n,
  }),
];

/**
 * The chapter's figures measured on Qwen3-0.6B, which no offline test can reproduce: the page's
 * real-model section shows each beside the value measured in the reader's browser.
 */
export const REAL_MODEL_FIGURES = {
  source: CHAPTER_NAMES.probability,
  /** First 400 tokens of the sample passage, logits at index 49. */
  temperature: {
    position: 50,
    rows: [
      { temperature: 0.5, topProb: 0.302, tokensFor90: 4 },
      { temperature: 1.0, topProb: 0.146, tokensFor90: 110 },
      { temperature: 1.5, topProb: 0.044, tokensFor90: 6708 },
    ],
  },
  /**
   * FP32 target against its group-wise fake-INT4 draft over 400 positions. The chapter's text gives
   * the mean (about 70 %, equal to the mean of 1 − TV) and the minimum (3 %); its code's printed
   * output, median included, is not shown.
   */
  acceptance: { positions: 400, mean: 0.70, min: 0.03 },
} as const;
