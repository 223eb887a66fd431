// One draw of a sampler, as the method makes it: u against the CDF's steps (inverse CDF), the
// noisy logits and their argmax (Gumbel-max), the racing clocks (exponential race), the alias
// table's column and coin (alias); and the histogram the draws drop into. Every number comes from
// the core's sampler-trace; elements that stand for a token carry data-token, so the widget can
// highlight that token in every view.
import type { SamplerTraceResult } from '../../lab/experiments.js';
import { fillLegend, fillTable, svg } from '../dom.js';
import { SvgChart } from './svg-chart.js';

type Draw = SamplerTraceResult['draws'][number];

export interface MechanismData {
  trace: SamplerTraceResult;
  draw: Draw;
  p: readonly number[];
  labels: readonly string[];
  text: {
    summary: string; token: string; cdf: string; logP: string; noisy: string; time: string; column: string; coin: string;
    argmax: string; first: string; keep: string; alias: string;
  };
}

const [BASE_HEIGHT, TOP, BOTTOM, LEFT, RIGHT] = [230, 18, 40, 44, 12];

const token = (element: SVGElement, t: number) => { element.dataset.token = String(t); return element; };
const fixed = (v: number, digits = 3) => v.toFixed(digits);

export class MechanismChart extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars sl-mechanism');
  }

  draw(data: MechanismData): void {
    const { svg: root, width, height } = this.frame(data.text.summary, BASE_HEIGHT);
    const view = { width, height, slot: (width - LEFT - RIGHT) / data.p.length, bottom: height - BOTTOM };
    const nodes = {
      'inverse-cdf': () => this.#inverseCdf(data, view),
      'gumbel-max': () => this.#gumbel(data, view),
      'exponential-race': () => this.#race(data, view),
      alias: () => this.#alias(data, view),
    }[data.trace.method]();
    if (data.trace.method !== 'exponential-race') {
      data.labels.forEach((label, i) => nodes.push(token(svg('text', { x: LEFT + (i + 0.5) * view.slot, y: height - 22, class: 'label' }, label), i)));
    }
    root.replaceChildren(...nodes);
    fillLegend(this.legend, data.trace.method === 'gumbel-max'
      ? [{ label: data.text.logP, swatch: 'log-p' }, { label: data.text.noisy, swatch: '--sl-kept' }, { label: 'G', swatch: '--sl-series-2' }]
      : []);
    fillTable(this.table, { caption: data.text.summary, head: this.#head(data), rows: this.#rows(data), rowHeaders: true });
  }

  // The CDF's steps: token i's jump runs from F(i − 1) to F(i); the level u meets the first step above it.
  #inverseCdf({ trace, draw, p }: MechanismData, view: View): SVGElement[] {
    const cdf = trace.cdf!;
    const y = (level: number) => view.bottom - level * (view.bottom - TOP);
    const nodes: SVGElement[] = [axisLine(view), ...[0, 0.5, 1].map((level) => svg('text', { x: LEFT - 6, y: y(level) + 4, class: 'axis-left' }, String(level)))];
    p.forEach((_, i) => {
      const below = i === 0 ? 0 : cdf[i - 1];
      const x = LEFT + i * view.slot;
      nodes.push(svg('line', { x1: x, x2: x + view.slot, y1: y(cdf[i]), y2: y(cdf[i]), class: 'step' }),
        token(svg('rect', { x: x + view.slot * 0.3, y: y(cdf[i]), width: view.slot * 0.4, height: Math.max(1, y(below) - y(cdf[i])), class: `jump${i === draw.token ? ' chosen' : ''}` }), i));
    });
    const u = draw.u!;
    const hit = LEFT + (draw.token + 0.5) * view.slot;
    nodes.push(enter(svg('line', { x1: LEFT, x2: hit, y1: y(u), y2: y(u), class: 'level-u' })),
      enter(svg('line', { x1: hit, x2: hit, y1: y(u), y2: view.bottom, class: 'level-u drop' })),
      svg('text', { x: LEFT + 4, y: y(u) - 6, class: 'u-label start' }, `u = ${fixed(u, 4)}`));
    return nodes;
  }

  // log p_i (hollow) and log p_i + G_i (filled), the noise between them; the highest filled one wins.
  #gumbel({ trace, draw, p, text }: MechanismData, view: View): SVGElement[] {
    const logs = trace.logP!;
    const noisy = draw.noisyLogits!;
    const finite = [...logs, ...noisy].filter(Number.isFinite);
    const [low, high] = [Math.min(...finite), Math.max(...finite)];
    const y = (v: number) => view.bottom - ((v - low) / (high - low || 1)) * (view.bottom - TOP - 14);
    const nodes: SVGElement[] = [axisLine(view),
      svg('text', { x: LEFT - 6, y: y(high) + 4, class: 'axis-left' }, high.toFixed(1)),
      svg('text', { x: LEFT - 6, y: y(low) + 4, class: 'axis-left' }, low.toFixed(1))];
    p.forEach((_, i) => {
      const x = LEFT + (i + 0.5) * view.slot;
      const won = i === draw.token;
      if (!Number.isFinite(logs[i])) return;
      nodes.push(token(enter(svg('line', { x1: x, x2: x, y1: y(logs[i]), y2: y(noisy[i]), class: 'noise' })), i),
        token(svg('circle', { cx: x, cy: y(logs[i]), r: 5, class: 'log-p' }), i),
        token(enter(svg('circle', { cx: x, cy: y(noisy[i]), r: won ? 7 : 5, class: `noisy${won ? ' chosen' : ''}` })), i));
      if (won) nodes.push(svg('text', { x, y: y(noisy[i]) - 12, class: 'winner' }, text.argmax));
    });
    return nodes;
  }

  // One lane per token: its clock rings at E_i / p_i; the lanes grow at one speed, so the first to ring wins.
  #race({ draw, labels, text }: MechanismData, view: View): SVGElement[] {
    const arrivals = draw.arrivals!;
    const lane = (view.bottom - TOP) / arrivals.length;
    // Time runs to 3 × the winner's ring, so the winner's lane is a third of the width.
    const horizon = 3 * arrivals[draw.token];
    const x = (t: number) => LEFT + Math.min(1, t / horizon) * (view.width - LEFT - RIGHT);
    const nodes: SVGElement[] = [
      svg('line', { x1: LEFT, x2: LEFT, y1: TOP, y2: view.bottom, class: 'zero' }),
      svg('line', { x1: x(arrivals[draw.token]), x2: x(arrivals[draw.token]), y1: TOP - 6, y2: view.bottom, class: 'ring' }),
      svg('text', { x: view.width - RIGHT, y: view.bottom + 28, class: 'axis-right' }, `${text.time} ${horizon.toFixed(2)}`),
      svg('text', { x: LEFT, y: view.bottom + 28, class: 'axis-start' }, '0'),
    ];
    arrivals.forEach((arrival, i) => {
      const top = TOP + i * lane + lane * 0.2;
      const won = i === draw.token;
      const bar = token(svg('rect', { x: LEFT, y: top, width: Math.max(1, x(arrival) - LEFT), height: lane * 0.6, class: `clock${won ? ' chosen' : ''}` }), i);
      // Each lane grows in proportion to its length: all at one speed, the winner done first.
      bar.style.setProperty('--grow', `${Math.min(1, arrival / horizon)}`);
      nodes.push(enter(bar), token(svg('text', { x: LEFT - 6, y: top + lane * 0.3 + 4, class: 'axis-left' }, labels[i]), i),
        svg('text', { x: Math.min(x(arrival) + 4, view.width - RIGHT - 40), y: top + lane * 0.3 + 4, class: 'clock-value start' },
          arrival > horizon ? `${arrival.toFixed(2)} →` : arrival.toFixed(3)));
    });
    nodes.push(svg('text', { x: x(arrivals[draw.token]) + 4, y: TOP - 8, class: 'winner start' }, text.first));
    return nodes;
  }

  // Column i: its own token up to threshold[i], its alias above; the coin's height picks the part.
  #alias({ trace, draw, text }: MechanismData, view: View): SVGElement[] {
    const { threshold, alias } = trace.aliasTable!;
    const y = (level: number) => view.bottom - level * (view.bottom - TOP);
    const nodes: SVGElement[] = [axisLine(view), ...[0, 1].map((level) => svg('text', { x: LEFT - 6, y: y(level) + 4, class: 'axis-left' }, String(level)))];
    threshold.forEach((keep, i) => {
      const x = LEFT + i * view.slot + view.slot * 0.12;
      const w = view.slot * 0.76;
      const picked = i === draw.column;
      const own = draw.coin! < keep;
      nodes.push(token(svg('rect', { x, y: y(keep), width: w, height: y(0) - y(keep), class: `own${picked && own ? ' chosen' : ''}${picked ? ' picked' : ''}` }), i));
      if (keep < 1) {
        nodes.push(token(svg('rect', { x, y: y(1), width: w, height: y(keep) - y(1), class: `alias${picked && !own ? ' chosen' : ''}${picked ? ' picked' : ''}` }), alias[i]),
          token(svg('text', { x: x + w / 2, y: y(1) + 14, class: 'part-label' }, `→x${alias[i] + 1}`), alias[i]));
      }
    });
    const x = LEFT + draw.column! * view.slot;
    nodes.push(enter(svg('line', { x1: x, x2: x + view.slot, y1: y(draw.coin!), y2: y(draw.coin!), class: 'coin' })),
      svg('text', { x: x + view.slot / 2, y: y(draw.coin!) - 5, class: 'u-label' }, `${text.coin} ${fixed(draw.coin!)}`));
    return nodes;
  }

  #head({ trace, text }: MechanismData): string[] {
    switch (trace.method) {
      case 'inverse-cdf': return [text.token, text.cdf];
      case 'gumbel-max': return [text.token, text.logP, 'G', text.noisy];
      case 'exponential-race': return [text.token, 'E', text.time];
      case 'alias': return [text.column, text.keep, text.alias];
    }
  }

  #rows({ trace, draw, labels }: MechanismData): string[][] {
    switch (trace.method) {
      case 'inverse-cdf': return labels.map((l, i) => [l, fixed(trace.cdf![i], 4)]);
      case 'gumbel-max': return labels.map((l, i) => [l, fixed(trace.logP![i]), fixed(draw.gumbel![i]), fixed(draw.noisyLogits![i])]);
      case 'exponential-race': return labels.map((l, i) => [l, fixed(draw.clocks![i]), fixed(draw.arrivals![i])]);
      case 'alias': return labels.map((l, i) => [l, fixed(trace.aliasTable!.threshold[i]), labels[trace.aliasTable!.alias[i]]]);
    }
  }
}

interface View { width: number; height: number; slot: number; bottom: number }

function axisLine(view: View): SVGElement {
  return svg('line', { x1: LEFT, x2: view.width - RIGHT, y1: view.bottom, y2: view.bottom, class: 'zero' });
}

// New parts of a draw animate in (CSS; none under prefers-reduced-motion).
function enter(element: SVGElement): SVGElement {
  element.classList.add('sl-enter');
  return element;
}

export interface HistogramData {
  counts: readonly number[];
  /** The expected count of each token after `draws` draws (draws · p_i), as outlines. */
  expected: readonly number[];
  draws: number;
  /** The token of the latest draw, which drops in. */
  latest?: number;
  labels: readonly string[];
  text: { summary: string; token: string; count: string; expected: string };
}

// HIST_TOP leaves room above the tallest bar for the square that drops onto it and its count.
const [HIST_HEIGHT, HIST_TOP, HIST_BOTTOM] = [150, 36, 24];

/** Counts of the draws so far against draws · p. */
export class DrawHistogram extends SvgChart {
  constructor(box: HTMLElement) {
    super(box, 'sl-bars sl-histogram');
  }

  draw(data: HistogramData): void {
    const { svg: root, width, height } = this.frame(data.text.summary, HIST_HEIGHT, HIST_HEIGHT);
    const slot = (width - LEFT - RIGHT) / data.counts.length;
    const highest = Math.max(1, ...data.counts, ...data.expected);
    const bottom = height - HIST_BOTTOM;
    const y = (c: number) => bottom - (c / highest) * (bottom - HIST_TOP);
    const nodes: SVGElement[] = [svg('line', { x1: LEFT, x2: width - RIGHT, y1: bottom, y2: bottom, class: 'zero' })];
    data.counts.forEach((count, i) => {
      const x = LEFT + i * slot + slot * 0.2;
      const w = slot * 0.6;
      const bar = token(svg('rect', { x, y: y(count), width: w, height: bottom - y(count), class: `count${i === data.latest ? ' latest' : ''}` }), i);
      nodes.push(bar, token(svg('rect', { x: x - 3, y: y(data.expected[i]), width: w + 6, height: bottom - y(data.expected[i]), class: 'reference' }), i),
        // Above the bar, the expected outline and the square that just dropped.
        token(svg('text', { x: x + w / 2, y: Math.min(y(count) - (i === data.latest ? 12 : 0), y(data.expected[i])) - 5, class: 'value' }, String(count)), i),
        token(svg('text', { x: x + w / 2, y: height - 6, class: 'label' }, data.labels[i]), i));
      if (i === data.latest) {
        // The new draw drops from the top onto its bar.
        const drop = token(svg('rect', { x: x + w / 2 - 5, y: y(count) - 10, width: 10, height: 10, class: 'dropped sl-enter' }), i);
        drop.style.setProperty('--fall', `${-(y(count) - 10)}px`);
        nodes.push(drop);
      }
    });
    root.replaceChildren(...nodes);
    fillLegend(this.legend, []);
    fillTable(this.table, {
      caption: data.text.summary,
      head: [data.text.token, data.text.count, data.text.expected],
      rows: data.labels.map((l, i) => [l, String(data.counts[i]), data.expected[i].toFixed(1)]),
      rowHeaders: true,
    });
  }
}
