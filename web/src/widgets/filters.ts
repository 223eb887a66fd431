// The distribution-shape widget: temperature, top-k, top-p and min-p on the handbook's 12 tokens
// or on a 151,936-token synthetic vocabulary drawn as a log-rank chart.
import type { Lab } from 'sampling-lab';
import { strings } from '../i18n';
import { element, readouts, segmented, slider, type Slider } from '../controls';
import { BarChart } from '../charts/bar-chart';
import { RankChart } from '../charts/rank-chart';
import type { Widget } from './types';

// The handbook's softmax widget logits (labels come from i18n).
const HANDBOOK_LOGITS = [4.2, 3.6, 3.1, 2.4, 2.0, 1.6, 1.1, 0.6, 0.1, -0.4, -1.0, -1.8];
type Mode = 'handbook' | 'synthetic';

const percent = (x: number) => `${(100 * x).toFixed(x >= 0.1 ? 1 : 2)}%`;

export function filtersWidget(host: HTMLElement, lab: Lab): Widget {
  let mode: Mode = 'handbook';
  let synthetic: { logits: Float32Array; ranking: Uint32Array } | undefined;
  let frame = 0;
  let playing = 0;

  const root = element('div', 'sl-widget sl-filters');
  const toolbar = element('div', 'sl-toolbar');
  const modeSwitch = segmented<Mode>(['handbook', 'synthetic'], 'handbook', (m) => setMode(m));
  const playButton = element('button', 'sl-play');
  playButton.type = 'button';
  playButton.addEventListener('click', () => (playing ? stop() : play()));
  toolbar.append(modeSwitch.root, playButton);

  const chartBox = element('div', 'sl-chart');
  const bars = new BarChart();
  const rankChart = new RankChart();

  const sliders = element('div', 'sl-sliders');
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; update(); });
  };
  const temperature = slider({ name: 'temperature', min: 0, max: 2, step: 0.05, value: 1, onInput: schedule,
    format: (t) => (t === 0 ? `0 (${strings().greedy})` : t.toFixed(2)) });
  const topK = slider({ name: 'top-k', min: 0, max: 12, step: 1, value: 0, onInput: schedule, format: String });
  const topP = slider({ name: 'top-p', min: 0.1, max: 1, step: 0.01, value: 0.9, onInput: schedule, format: (p) => p.toFixed(2) });
  const minP = slider({ name: 'min-p', min: 0, max: 0.5, step: 0.01, value: 0, onInput: schedule, format: (p) => p.toFixed(2) });
  const allSliders: [Slider, keyof ReturnType<typeof strings>][] = [
    [temperature, 'temperature'], [topK, 'topK'], [topP, 'topP'], [minP, 'minP'],
  ];
  sliders.append(...allSliders.map(([s]) => s.root));

  const numbers = readouts(['entropy', 'kept', 'kept-mass', 'top-prob', 'tokens-for-90']);

  root.append(toolbar, chartBox, sliders, numbers.root);
  host.replaceChildren(root);

  function options() {
    return { temperature: temperature.value(), topK: topK.value(), topP: topP.value(), minP: minP.value() };
  }

  function update(): void {
    const s = strings();
    const o = options();
    const logits = mode === 'handbook' ? HANDBOOK_LOGITS : synthetic!.logits;
    const filtered = mode === 'handbook'
      ? lab.runExperiment('filters', { logits, ...o })
      : lab.distribution(logits, o);
    // Bars show the tempered distribution: kept tokens renormalised, cut ones as they were.
    const tempered = lab.distribution(logits, { temperature: o.temperature }).probs;
    const tokensFor90 = lab.coverCount(logits, 0.9, { temperature: o.temperature });

    if (mode === 'handbook') {
      bars.draw(chartBox, s.tokenLabels, tempered, filtered.probs, s.chartSummary(filtered.kept, logits.length));
    } else {
      rankChart.draw(chartBox, synthetic!.ranking, tempered, filtered.kept, {
        rank: s.rank, probability: s.probability, kept: s.keptSeries, cut: s.cutSeries,
        summary: s.chartSummary(filtered.kept, logits.length),
      });
    }
    numbers.set('entropy', s.entropy, `${filtered.entropyBits.toFixed(2)} ${s.bits}`);
    numbers.set('kept', s.kept, `${filtered.kept.toLocaleString()} ${s.keptUnit}`.trim());
    numbers.set('kept-mass', s.keptMass, percent(filtered.keptMass));
    numbers.set('top-prob', s.topProb, percent(filtered.topProb));
    numbers.set('tokens-for-90', s.tokensFor90, `${tokensFor90.toLocaleString()} ${s.tokensUnit}`.trim());
    host.dispatchEvent(new CustomEvent('change', { bubbles: true, detail: { params: o, result: filtered } }));
  }

  function setMode(next: Mode): void {
    mode = next;
    if (mode === 'synthetic' && !synthetic) {
      const logits = lab.syntheticLogits();
      synthetic = { logits, ranking: lab.ranking(logits) };
    }
    topK.setRange(0, mode === 'handbook' ? 12 : 200);
    chartBox.replaceChildren();
    update();
  }

  function play(): void {
    playing = window.setInterval(() => {
      const t = temperature.value();
      temperature.set(t >= 2 ? 0.1 : Math.round((t + 0.05) * 100) / 100);
      update();
    }, 100);
    relabel();
  }

  function stop(): void {
    clearInterval(playing);
    playing = 0;
    relabel();
  }

  function relabel(): void {
    const s = strings();
    modeSwitch.setLabels({ handbook: s.handbookTokens, synthetic: s.syntheticTokens }, s.distribution);
    playButton.textContent = playing ? s.pause : s.play;
    playButton.setAttribute('aria-pressed', String(Boolean(playing)));
    for (const [control, key] of allSliders) control.setLabel(s[key] as string);
  }

  relabel();
  setMode('handbook');
  return {
    relabel: () => { relabel(); rankChart.destroy(); chartBox.replaceChildren(); update(); },
    destroy: () => { stop(); cancelAnimationFrame(frame); rankChart.destroy(); },
  };
}
