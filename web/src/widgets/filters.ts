// The distribution-shape widget: temperature, top-k, top-p and min-p on the handbook's 12 tokens
// or on a 151,936-token synthetic vocabulary drawn as a log-rank chart.
import type { Lab } from 'sampling-lab';
import { strings } from '../i18n';
import { element, slider, type Slider } from '../controls';
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
  const modeGroup = element('div', 'sl-segmented');
  modeGroup.setAttribute('role', 'group');
  const modeButtons = (['handbook', 'synthetic'] as const).map((m) => {
    const button = element('button', 'sl-segment');
    button.type = 'button';
    button.dataset.mode = m;
    button.addEventListener('click', () => setMode(m));
    return button;
  });
  modeGroup.append(...modeButtons);
  const playButton = element('button', 'sl-play');
  playButton.type = 'button';
  playButton.addEventListener('click', () => (playing ? stop() : play()));
  toolbar.append(modeGroup, playButton);

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

  const readouts = element('dl', 'sl-readouts');
  readouts.setAttribute('aria-live', 'polite');
  const readout = (name: string) => {
    const item = element('div', 'sl-readout');
    item.dataset.readout = name;
    const term = element('dt');
    const value = element('dd');
    item.append(term, value);
    readouts.append(item);
    return { term, value };
  };
  const entropy = readout('entropy');
  const kept = readout('kept');
  const keptMass = readout('kept-mass');
  const topProb = readout('top-prob');
  const cover = readout('tokens-for-90');

  root.append(toolbar, chartBox, sliders, readouts);
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
    entropy.value.textContent = `${filtered.entropyBits.toFixed(2)} ${s.bits}`;
    kept.value.textContent = `${filtered.kept.toLocaleString()} ${s.keptUnit}`.trim();
    keptMass.value.textContent = percent(filtered.keptMass);
    topProb.value.textContent = percent(filtered.topProb);
    cover.value.textContent = `${tokensFor90.toLocaleString()} ${s.tokensUnit}`.trim();
    host.dispatchEvent(new CustomEvent('change', { bubbles: true, detail: { params: o, result: filtered } }));
  }

  function setMode(next: Mode): void {
    mode = next;
    if (mode === 'synthetic' && !synthetic) {
      const logits = lab.syntheticLogits();
      synthetic = { logits, ranking: lab.ranking(logits) };
    }
    topK.setRange(0, mode === 'handbook' ? 12 : 200);
    modeButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.mode === mode)));
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
    modeGroup.setAttribute('aria-label', s.distribution);
    modeButtons[0].textContent = s.handbookTokens;
    modeButtons[1].textContent = s.syntheticTokens;
    playButton.textContent = playing ? s.pause : s.play;
    playButton.setAttribute('aria-pressed', String(Boolean(playing)));
    for (const [control, key] of allSliders) control.setLabel(s[key] as string);
    entropy.term.textContent = s.entropy;
    kept.term.textContent = s.kept;
    keptMass.term.textContent = s.keptMass;
    topProb.term.textContent = s.topProb;
    cover.term.textContent = s.tokensFor90;
  }

  relabel();
  setMode('handbook');
  return {
    relabel: () => { relabel(); rankChart.destroy(); chartBox.replaceChildren(); update(); },
    destroy: () => { stop(); cancelAnimationFrame(frame); rankChart.destroy(); },
  };
}
