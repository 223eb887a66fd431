// The distribution-shape widget: temperature, top-k, top-p and min-p on the handbook's 12 tokens,
// on a 151,936-token synthetic vocabulary, or on logits loaded from a .npy file, with the
// chapter's real-model readouts (top probability and tokens for 90 % at three temperatures).
import type { TemperatureResult } from '../../index.js';
import { npyRow, parseNpy, type NpyArray } from '../../npy.js';
import { strings } from '../i18n.js';
import { button, element, readouts, segmented, type Slider } from '../controls.js';
import { BarChart } from '../charts/bar-chart.js';
import { RankChart } from '../charts/rank-chart.js';
import type { Widget, WidgetContext } from './types.js';

// The handbook's softmax widget logits (labels come from i18n).
const HANDBOOK_LOGITS = [4.2, 3.6, 3.1, 2.4, 2.0, 1.6, 1.1, 0.6, 0.1, -0.4, -1.0, -1.8];
const SAMPLE_DRAWS = 1000;
type Mode = 'handbook' | 'synthetic' | 'file';

const percent = (x: number) => `${(100 * x).toFixed(x >= 0.1 ? 1 : 2)}%`;

export function filtersWidget(context: WidgetContext, initialMode: Mode = 'handbook'): Widget {
  const { host, lab, slider, emit } = context;
  let mode: Mode = initialMode;
  // The distribution being shaped, with its ranking for the log-rank chart.
  let source: { logits: Float32Array | number[]; ranking?: Uint32Array } = { logits: HANDBOOK_LOGITS };
  let file: NpyArray | undefined;
  let temperatures: TemperatureResult | undefined;
  let empirical: number[] | undefined;
  let seed = 0;
  let frame = 0;
  let playing = 0;

  const root = element('div', 'sl-widget sl-filters');
  const toolbar = element('div', 'sl-toolbar');
  const modeSwitch = segmented<Mode>(['handbook', 'synthetic', 'file'], mode, (m) => setMode(m));
  const playButton = button('sl-play', () => (playing ? stop() : play()));
  const sampleButton = button('sl-sample', () => sample());
  toolbar.append(modeSwitch.root, playButton, sampleButton);

  const filePanel = element('div', 'sl-file');
  const fileInput = element('input');
  fileInput.type = 'file';
  fileInput.accept = '.npy';
  const fileLabel = element('label', 'sl-drop');
  const fileText = element('span');
  fileLabel.append(fileText, fileInput);
  const fileError = element('p', 'sl-error');
  fileError.setAttribute('role', 'alert');
  filePanel.append(fileLabel, fileError);

  const chartBox = element('div', 'sl-chart');
  const bars = new BarChart();
  const rankChart = new RankChart();

  const sliders = element('div', 'sl-sliders');
  const schedule = () => {
    empirical = undefined;
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; update(); });
  };
  const temperature = slider({ name: 'temperature', min: 0, max: 2, step: 0.05, value: 1, onInput: schedule,
    format: (t) => (t === 0 ? `0 (${strings().greedy})` : t.toFixed(2)) });
  const topK = slider({ name: 'top-k', min: 0, max: 12, step: 1, value: 0, onInput: schedule, format: String });
  const topP = slider({ name: 'top-p', min: 0.1, max: 1, step: 0.01, value: 0.9, onInput: schedule, format: (p) => p.toFixed(2) });
  const minP = slider({ name: 'min-p', min: 0, max: 0.5, step: 0.01, value: 0, onInput: schedule, format: (p) => p.toFixed(2) });
  const position = slider({ name: 'position', min: 0, max: 0, step: 1, value: 0, onInput: () => loadRow(), format: String });
  const labelled: [Slider, 'temperature' | 'topK' | 'topP' | 'minP' | 'position'][] = [
    [temperature, 'temperature'], [topK, 'topK'], [topP, 'topP'], [minP, 'minP'], [position, 'position'],
  ];
  sliders.append(...labelled.map(([s]) => s.root));

  const numbers = readouts(['entropy', 'kept', 'kept-mass', 'top-prob', 'tokens-for-90']);
  const table = element('table', 'sl-table sl-temperatures');
  root.append(toolbar, filePanel, chartBox, sliders, numbers.root, table);
  host.replaceChildren(root);

  function options() {
    return { temperature: temperature.value(), topK: topK.value(), topP: topP.value(), minP: minP.value() };
  }

  function update(): void {
    const s = strings();
    const o = options();
    const logits = source.logits;
    const result = mode === 'handbook'
      ? lab.runExperiment('filters', { logits, ...o })
      : lab.distribution(logits, o);
    // Bars show the tempered distribution: kept tokens renormalised, cut ones as they were.
    const tempered = lab.distribution(logits, { temperature: o.temperature }).probs;
    const tokensFor90 = lab.coverCount(logits, 0.9, { temperature: o.temperature });
    const summary = s.chartSummary(result.kept, logits.length);
    if (mode === 'handbook') {
      bars.draw(chartBox, { labels: s.tokenLabels, tempered, filtered: result.probs, summary, empirical, empiricalLabel: s.sampledFrequency });
    } else {
      rankChart.draw(chartBox, source.ranking!, tempered, result.kept, {
        rank: s.rank, probability: s.probability, kept: s.keptSeries, cut: s.cutSeries, summary,
      });
    }
    numbers.set('entropy', s.entropy, `${result.entropyBits.toFixed(2)} ${s.bits}`);
    numbers.set('kept', s.kept, `${result.kept.toLocaleString()} ${s.keptUnit}`.trim());
    numbers.set('kept-mass', s.keptMass, percent(result.keptMass));
    numbers.set('top-prob', s.topProb, percent(result.topProb));
    numbers.set('tokens-for-90', s.tokensFor90, `${tokensFor90.toLocaleString()} ${s.tokensUnit}`.trim());
    emit(o, result);
  }

  // The chapter's real-model readouts for the current logits, recomputed when they change.
  function updateTemperatures(): void {
    temperatures = mode === 'synthetic'
      ? lab.runExperiment('temperature')
      : lab.runExperiment('temperature', { logits: source.logits });
    renderTemperatures();
  }

  function renderTemperatures(): void {
    if (!temperatures) return;
    const s = strings();
    table.innerHTML = `<caption>${s.temperatureCaption(temperatures.vocabSize)}</caption>` +
      `<thead><tr><th scope="col">T</th><th scope="col">${s.topProb}</th><th scope="col">${s.tokensFor90}</th><th scope="col">${s.entropy}</th></tr></thead><tbody>` +
      temperatures.rows.map((r) => `<tr><td>${r.temperature}</td><td>${r.topProb.toFixed(3)}</td><td>${r.tokensForMass.toLocaleString()}</td><td>${r.entropyBits.toFixed(2)}</td></tr>`).join('') +
      '</tbody>';
  }

  // Draws from the filtered distribution, drawn over the bars.
  function sample(): void {
    const probs = lab.distribution(source.logits, options()).probs;
    const draws = lab.sample(probs, { isProbs: true, n: SAMPLE_DRAWS, seed: seed++, method: 'alias' });
    const counts = new Array<number>(probs.length).fill(0);
    for (const d of draws) counts[d]++;
    empirical = counts.map((c) => c / SAMPLE_DRAWS);
    update();
  }

  function setMode(next: Mode): void {
    mode = next;
    empirical = undefined;
    if (mode === 'handbook') source = { logits: HANDBOOK_LOGITS };
    if (mode === 'synthetic') {
      const logits = lab.syntheticLogits();
      source = { logits, ranking: lab.ranking(logits) };
    }
    filePanel.hidden = mode !== 'file';
    sampleButton.hidden = mode !== 'handbook';
    position.root.hidden = !(mode === 'file' && file && file.shape.length === 2);
    topK.setRange(0, mode === 'handbook' ? 12 : 200);
    chartBox.replaceChildren();
    rankChart.destroy();
    if (mode === 'file' && !file) {
      chartBox.textContent = strings().chooseFile;
      table.replaceChildren();
      numbers.root.hidden = true;
      return;
    }
    numbers.root.hidden = false;
    if (mode === 'file') {
      loadRow();
      return;
    }
    updateTemperatures();
    update();
  }

  function loadRow(): void {
    if (!file) return;
    const logits = Float32Array.from(npyRow(file, file.shape.length === 2 ? position.value() : undefined));
    source = { logits, ranking: lab.ranking(logits) };
    updateTemperatures();
    update();
  }

  async function loadFile(chosen: File): Promise<void> {
    try {
      const parsed = parseNpy(new Uint8Array(await chosen.arrayBuffer()));
      // Surface bad logits (NaN, empty) now, with the core's message.
      lab.coverCount(npyRow(parsed, parsed.shape.length === 2 ? 0 : undefined), 0.9);
      file = parsed;
      fileError.textContent = '';
      position.setRange(0, parsed.shape.length === 2 ? parsed.shape[0] - 1 : 0);
      position.set(0);
      modeSwitch.select('file');
    } catch (error) {
      fileError.textContent = (error as Error).message;
    }
  }

  fileInput.addEventListener('change', () => { if (fileInput.files?.[0]) void loadFile(fileInput.files[0]); });
  root.addEventListener('dragover', (event) => event.preventDefault());
  root.addEventListener('drop', (event) => {
    event.preventDefault();
    const dropped = event.dataTransfer?.files[0];
    if (dropped) void loadFile(dropped);
  });

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
    modeSwitch.setLabels({ handbook: s.handbookTokens, synthetic: s.syntheticTokens, file: s.npyFile }, s.distribution);
    playButton.textContent = playing ? s.pause : s.play;
    playButton.setAttribute('aria-pressed', String(Boolean(playing)));
    sampleButton.textContent = s.sampleN(SAMPLE_DRAWS);
    fileText.textContent = s.dropNpy;
    for (const [control, key] of labelled) control.setLabel(s[key]);
    renderTemperatures();
  }

  relabel();
  setMode(mode);
  return {
    relabel: () => { relabel(); rankChart.destroy(); chartBox.replaceChildren(); if (mode !== 'file' || file) update(); },
    destroy: () => { stop(); cancelAnimationFrame(frame); rankChart.destroy(); },
  };
}

/** The chapter's real-model experiment: the same widget, opened on the synthetic vocabulary. */
export function temperatureWidget(context: WidgetContext): Widget {
  return filtersWidget(context, 'synthetic');
}
