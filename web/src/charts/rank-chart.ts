// Log-rank chart of a vocabulary-sized distribution (uPlot): probability of the r-th most
// likely token against r, kept tokens in colour and cut ones grey.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

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

function cssColor(box: HTMLElement, name: string): string {
  return getComputedStyle(box).getPropertyValue(name).trim() || '#888';
}

export class RankChart {
  #plot?: uPlot;
  #ranks: number[] = [];
  #resize?: ResizeObserver;

  draw(box: HTMLElement, ranking: Uint32Array, tempered: Float32Array, kept: number, labels: RankChartLabels): void {
    if (this.#ranks.length === 0 || this.#ranks[this.#ranks.length - 1] !== ranking.length - 1) {
      this.#ranks = sampledRanks(ranking.length);
    }
    const x = this.#ranks.map((r) => r + 1);
    const keptSeries = this.#ranks.map((r) => (r < kept ? tempered[ranking[r]] || null : null));
    const cutSeries = this.#ranks.map((r) => (r >= kept - 1 ? tempered[ranking[r]] || null : null));
    const data: uPlot.AlignedData = [x, keptSeries, cutSeries];
    box.setAttribute('role', 'img');
    box.setAttribute('aria-label', labels.summary);
    if (!this.#plot || !box.contains(this.#plot.root)) {
      this.destroy();
      const axisColor = cssColor(box, '--sl-text');
      const gridColor = cssColor(box, '--sl-grid');
      const axis = (label: string): uPlot.Axis => ({
        label, stroke: axisColor, grid: { stroke: gridColor, width: 1 }, ticks: { stroke: gridColor, width: 1 },
        values: (_u, splits) => splits.map((v) => (v == null ? '' : v >= 0.001 && v < 1e5 ? String(v) : v.toExponential(0))),
      });
      const vocabulary = ranking.length;
      this.#plot = new uPlot({
        width: Math.max(box.clientWidth, 280),
        height: 240,
        // Probabilities below 1e-12 leave the chart rather than squash the head into a corner.
        scales: {
          x: { distr: 3, time: false, range: () => [1, vocabulary] },
          y: { distr: 3, range: (_u, min) => [Math.max(min, 1e-12), 1] },
        },
        axes: [axis(labels.rank), axis(labels.probability)],
        legend: { show: false },
        cursor: { show: false },
        series: [
          {},
          { label: labels.kept, stroke: cssColor(box, '--sl-kept'), width: 2, points: { show: false } },
          { label: labels.cut, stroke: cssColor(box, '--sl-cut'), width: 2, points: { show: false } },
        ],
      }, data, box);
      this.#resize = new ResizeObserver(() => this.#plot?.setSize({ width: Math.max(box.clientWidth, 280), height: 240 }));
      this.#resize.observe(box);
    } else {
      this.#plot.setData(data);
    }
  }

  destroy(): void {
    this.#resize?.disconnect();
    this.#plot?.destroy();
    this.#plot = undefined;
  }
}
