// Log-rank chart of a vocabulary-sized distribution: probability of the r-th most likely token
// against r, kept tokens in colour and cut ones grey.
import type { Chart } from '../kit.js';
import { LineChart } from './line-chart.js';

export interface RankChartLabels {
  rank: string;
  probability: string;
  kept: string;
  cut: string;
  summary: string;
}

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

  draw(ranking: Uint32Array, tempered: Float32Array, kept: number, labels: RankChartLabels): void {
    if (this.#ranks[this.#ranks.length - 1] !== ranking.length - 1) this.#ranks = sampledRanks(ranking.length);
    const ranks = this.#ranks;
    const x = ranks.map((r) => r + 1);
    const keptSeries = ranks.map((r) => (r < kept ? tempered[ranking[r]] || null : null));
    const cutSeries = ranks.map((r) => (r >= kept - 1 ? tempered[ranking[r]] || null : null));
    this.#chart.draw({
      xLabel: labels.rank,
      yLabel: labels.probability,
      logX: true,
      logY: true,
      xRange: [1, ranking.length],
      // Probabilities below 1e-12 leave the chart rather than squash the head into a corner.
      yRange: (min) => [Math.max(min, 1e-12), 1],
      series: [{ label: labels.kept, color: '--sl-kept' }, { label: labels.cut, color: '--sl-cut' }],
    }, [x, keptSeries, cutSeries], labels.summary);
  }

  reset(): void {
    this.#chart.reset();
  }

  destroy(): void {
    this.#chart.destroy();
  }
}
