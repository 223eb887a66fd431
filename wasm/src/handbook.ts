// Every figure the handbook prints for these experiments, once, with the live value it
// corresponds to. The tests assert each (exact figures to their printed digits, Monte-Carlo ones
// within 4 standard errors: the handbook drew with PyTorch's generator, this lab with Philox)
// and the page shows each beside its live value.
import type { ExperimentName, ExperimentTypes, SequenceHandbookResult } from './experiments.js';

type Result<N extends ExperimentName> = ExperimentTypes[N]['result'];

export interface HandbookFigure<N extends ExperimentName = ExperimentName> {
  /** Stable key, e.g. "decoding.probs". */
  id: string;
  /** Where the handbook prints it. */
  source: string;
  experiment: N;
  params: ExperimentTypes[N]['params'];
  /** As printed. */
  printed: number | number[];
  /** Decimals printed. */
  digits: number;
  /** The live value the printed one corresponds to. */
  live(result: Result<N>): number | number[];
  /** For Monte-Carlo figures: the standard error of the live value. */
  standardError?(result: Result<N>): number | number[];
}

const DECODING = 'Decoding chapter, worked example';
const PROBABILITY = 'Probability and sampling chapter';
const SERVING = 'Serving chapter, speculative decoding';
const CHAPTER_P = [0.5, 0.25, 0.15, 0.07, 0.03];
const SAMPLER_N = 200_000;
const bernoulliSE = (p: readonly number[], n: number) => p.map((pi) => Math.sqrt(pi * (1 - pi) / n));
// Standard error of a sample standard deviation over r repeats: σ / √(2(r − 1)).
const stdSE = (std: number, repeats: number) => std / Math.sqrt(2 * (repeats - 1));

/** A figure as the page prints it: its digits (0.441, 1,000), readable when small (3.1e-4). */
export function formatFigure(x: number, digits: number): string {
  if (x !== 0 && Math.abs(x) < 1e-3) return x.toExponential(1);
  // Negative digits round to tens, hundreds…: 1,152 printed to −1 digits is 1,150.
  return digits <= 0 ? (Math.round(x / 10 ** -digits) * 10 ** -digits).toLocaleString('en') : x.toFixed(digits);
}

function figure<N extends ExperimentName>(f: HandbookFigure<N>): HandbookFigure {
  return f as unknown as HandbookFigure;
}

const samplerFigure = (method: number, name: string, printed: number[], deviation: number) => [
  figure({
    id: `samplers.${name}.frequencies`, source: `${PROBABILITY}, experiment 2`, experiment: 'samplers',
    params: { p: CHAPTER_P, n: SAMPLER_N, seed: 0 }, printed, digits: 3,
    live: (r) => Array.from(r.methods[method].frequencies),
    standardError: () => bernoulliSE(CHAPTER_P, SAMPLER_N),
  }),
  figure({
    id: `samplers.${name}.maxDeviation`, source: `${PROBABILITY}, experiment 2`, experiment: 'samplers',
    params: { p: CHAPTER_P, n: SAMPLER_N, seed: 0 }, printed: deviation, digits: 4,
    live: (r) => r.methods[method].maxDeviation,
    standardError: () => Math.max(...bernoulliSE(CHAPTER_P, SAMPLER_N)),
  }),
];

const importanceRow = (shift: number, estimate: number, ess: number, clipped: number) => {
  const params = { shifts: [shift], repeats: 400 };
  const source = `${PROBABILITY}, experiment 6`;
  return [
    figure({
      id: `importance.shift${shift}.estimate`, source, experiment: 'importance', params, printed: estimate, digits: 2,
      live: (r) => r.rows[0].estimate, standardError: (r) => r.rows[0].estimators!.none.std,
    }),
    figure({
      id: `importance.shift${shift}.ess`, source, experiment: 'importance', params, printed: ess, digits: 0,
      live: (r) => r.rows[0].ess, standardError: (r) => r.rows[0].essStd!,
    }),
    figure({
      id: `importance.shift${shift}.clipped`, source, experiment: 'importance', params, printed: clipped, digits: 2,
      live: (r) => r.rows[0].clipped, standardError: (r) => r.rows[0].estimators!.tis.std,
    }),
  ];
};

export const HANDBOOK_FIGURES: readonly HandbookFigure[] = [
  figure({
    id: 'decoding.probs', source: DECODING, experiment: 'filters', params: {},
    printed: [0.441, 0.268, 0.162, 0.06, 0.036, 0.022, 0.008, 0.003], digits: 3, live: (r) => Array.from(r.probs),
  }),
  figure({ id: 'decoding.topK3', source: DECODING, experiment: 'filters', params: { topK: 3 }, printed: 3, digits: 0, live: (r) => r.kept }),
  figure({ id: 'decoding.topP0.8', source: DECODING, experiment: 'filters', params: { topP: 0.8 }, printed: 3, digits: 0, live: (r) => r.kept }),
  figure({ id: 'decoding.minP0.1', source: DECODING, experiment: 'filters', params: { minP: 0.1 }, printed: 4, digits: 0, live: (r) => r.kept }),
  figure({
    id: 'decoding.T0.5.topP0.8', source: DECODING, experiment: 'filters', params: { temperature: 0.5, topP: 0.8 },
    printed: 2, digits: 0, live: (r) => r.kept,
  }),
  ...[[0.75, 3], [0.5, 1]].map(([p, kept]) => figure({
    id: `decoding.exercise.topP${p}`, source: `${DECODING}, exercise`, experiment: 'filters',
    params: { logits: [0.5, 0.2, 0.15, 0.1, 0.05].map(Math.log), topP: p }, printed: kept, digits: 0, live: (r) => r.kept,
  })),
  figure({
    id: 'decoding.penalties', source: DECODING, experiment: 'filters',
    params: { logits: [0, 0, 0, 0, 0], presencePenalty: 0.5, frequencyPenalty: 0.2, generatedIds: [1, 1, 3] },
    printed: [0, -0.9, 0, -0.7, 0], digits: 1, live: (r) => Array.from(r.probs, (p) => Math.log(p / r.probs[0])),
  }),
  ...samplerFigure(0, 'inverseCdf', [0.499, 0.25, 0.151, 0.07, 0.03], 0.0014),
  ...samplerFigure(1, 'gumbelMax', [0.501, 0.249, 0.151, 0.07, 0.03], 0.0015),
  ...samplerFigure(2, 'exponentialRace', [0.501, 0.249, 0.15, 0.069, 0.03], 0.0006),
  ...([[0, 100, 0.0458, 0.0458], [1, 10000, 0.0046, 0.0046]] as const).flatMap(([row, n, std, theory]) => [
    figure({
      id: `mc-error.n${n}.theory`, source: `${PROBABILITY}, experiment 3`, experiment: 'mc-error', params: {},
      printed: theory, digits: 4, live: (r) => r.rows[row].theory,
    }),
    figure({
      id: `mc-error.n${n}.std`, source: `${PROBABILITY}, experiment 3`, experiment: 'mc-error', params: {},
      printed: std, digits: 4, live: (r) => r.rows[row].std, standardError: (r) => stdSE(r.rows[row].std, r.repeats),
    }),
  ]),
  figure({
    id: 'eval-error.standardError', source: `${PROBABILITY}, Monte-Carlo error ("about 3 points")`, experiment: 'eval-error',
    params: {}, printed: 0.03, digits: 2, live: (r) => r.standardError,
  }),
  figure({ id: 'sequence.best', source: `${PROBABILITY}, experiment 4`, experiment: 'sequence', params: {}, printed: 0.36, digits: 2, live: (r) => (r as SequenceHandbookResult).best.prob }),
  figure({ id: 'sequence.greedy', source: `${PROBABILITY}, experiment 4`, experiment: 'sequence', params: {}, printed: 0.3, digits: 2, live: (r) => (r as SequenceHandbookResult).greedy.prob }),
  figure({ id: 'speculative.acceptance', source: SERVING, experiment: 'speculative', params: {}, printed: 0.7, digits: 3, live: (r) => r.acceptance.theory }),
  figure({
    id: 'speculative.acceptance.simulated', source: SERVING, experiment: 'speculative', params: {}, printed: 0.699, digits: 3,
    live: (r) => r.acceptance.empirical, standardError: (r) => r.acceptance.standardError,
  }),
  figure({
    id: 'speculative.output', source: SERVING, experiment: 'speculative', params: {}, printed: [0.499, 0.3, 0.151, 0.05], digits: 3,
    live: (r) => Array.from(r.output.frequencies), standardError: (r) => bernoulliSE(Array.from(r.target), r.n),
  }),
  figure({ id: 'speculative.tokens', source: `${SERVING}, exercise`, experiment: 'speculative', params: {}, printed: 2.77, digits: 2, live: (r) => r.expectedTokens.formula }),
  figure({ id: 'importance.trueMean', source: `${PROBABILITY}, experiment 6`, experiment: 'importance', params: {}, printed: 6.2, digits: 2, live: (r) => r.trueMean }),
  ...importanceRow(0, 6.18, 1000, 6.18),
  ...importanceRow(1, 6.11, 922, 6.11),
  ...importanceRow(3, 6.6, 489, 4.98),
  figure({ id: 'sample-size.means', source: `${PROBABILITY}, exercise 2`, experiment: 'sample-size', params: {}, printed: 1150, digits: -1, live: (r) => r.n }),
];

/**
 * The chapter's figures measured on Qwen3-0.6B, which no offline test can reproduce: the page's
 * real-model section shows each beside the value measured in the reader's browser.
 */
export const REAL_MODEL_FIGURES = {
  source: PROBABILITY,
  /** First 400 tokens of the sample passage, logits at index 49. */
  temperature: {
    position: 50,
    rows: [
      { temperature: 0.5, topProb: 0.302, tokensFor90: 4 },
      { temperature: 1.0, topProb: 0.146, tokensFor90: 110 },
      { temperature: 1.5, topProb: 0.044, tokensFor90: 6708 },
    ],
  },
  /** FP32 target against its group-wise fake-INT4 draft over 400 positions. */
  acceptance: { positions: 400, mean: 0.70, median: 0.70, min: 0.03, meanOneMinusTV: 0.70 },
} as const;
