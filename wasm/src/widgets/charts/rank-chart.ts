// Log-rank chart of a vocabulary-sized distribution: probability of the r-th most likely token
// against r, the kept tokens in one colour and the tokens of each cutting stage in another.
import type { Chart } from '../kit.js';
import { LineChart } from './line-chart.js';

export interface RankChartLabels {
  rank: string;
  probability: string;
  kept: string;
  /** The name of what cut a token, from its lab.stages() code. */
  cutBy: (code: number) => string;
  summary: string;
}

const SPARSE_POINTS = 32;

// Stage colours in the order the cutting stages appear; the kept tokens have --sl-kept.
const STAGE_COLOURS = ['--sl-cut', '--sl-series-2', '--sl-series-3', '--sl-series-4', '--sl-bad', '--sl-greedy', '--sl-best', '--sl-accent'];

// Every rank up to 256, then log-spaced: ~1,500 points draw the whole curve at any width.
function sampledRanks(vocabulary: number): number[] {
  const ranks: number[] = [];
  for (let r = 0; r < Math.min(256, vocabulary); r++) ranks.push(r);
  for (let x = Math.log(256); ; x += Math.log(vocabulary) / 1200) {
    const r = Math.floor(Math.exp(x));
    if (r >= vocabulary) break;
    if (r > ranks[ranks.length - 1]) ranks.push(r);
  }
  if (ranks[ranks.length - 1] !== vocabulary - 1) ranks.push(vocabulary - 1);
  return ranks;
}

export class RankChart implements Chart {
  #chart: LineChart;
  #ranks: number[] = [];

  constructor(box: HTMLElement) {
    this.#chart = new LineChart(box);
  }

  /** `cutBy` as lab.stages() returns it: 0 for a kept token, else the code of what cut it. */
  draw(ranking: Uint32Array, tempered: Float32Array, cutBy: Uint8Array, labels: RankChartLabels): void {
    if (this.#ranks[this.#ranks.length - 1] !== ranking.length - 1) this.#ranks = sampledRanks(ranking.length);
    const ranks = this.#ranks;
    const x = ranks.map((r) => r + 1);
    const codes = [0, ...new Set(ranks.map((r) => cutBy[ranking[r]]).filter((code) => code > 0))];
    const series = codes.map((code) => ranks.map((r) => (cutBy[ranking[r]] === code ? tempered[ranking[r]] || null : null)));
    this.#chart.draw({
      xLabel: labels.rank,
      yLabel: labels.probability,
      logX: true,
      logY: true,
      xRange: [1, ranking.length],
      // Probabilities below 1e-12 leave the chart rather than squash the head into a corner.
      yRange: (min) => [Math.max(min, 1e-12), 1],
      // A stage that cut only a few tokens (XTC's head) is drawn as points, or its line would not show.
      series: codes.map((code, i) => ({
        label: code === 0 ? labels.kept : labels.cutBy(code),
        color: code === 0 ? '--sl-kept' : STAGE_COLOURS[(i - 1) % STAGE_COLOURS.length],
        points: series[i].filter((p) => p !== null).length <= SPARSE_POINTS,
      })),
    }, [x, ...series], labels.summary);
  }

  reset(): void {
    this.#chart.reset();
  }

  destroy(): void {
    this.#chart.destroy();
  }
}
