// The distribution-shape widget: temperature, top-k, top-p and min-p on the handbook's 12 tokens,
// on a 151,936-token synthetic vocabulary, on logits loaded from a .npy file, or on a real model's
// position (its own tab, with the top tokens by name), with the chapter's real-model readouts (top
// probability and tokens for 90 % at three temperatures).
import type { FiltersParams, FiltersResult, TemperatureResult } from '../../lab/experiments.js';
import { npyRow, parseNpy, type NpyArray } from '../../lab/npy.js';
import { SamplingLabError } from '../../lab/errors.js';
import { STAGE_TABLE } from '../../generated/tables.js';
import { BarChart } from '../charts/bar-chart.js';
import { RankChart } from '../charts/rank-chart.js';
import { element, fillTable } from '../dom.js';
import { localiseError, strings } from '../i18n.js';
import { experimentWidget } from '../kit.js';
import { runInWorker } from '../worker-client.js';
import type { Widget, WidgetContext } from './types.js';

// The handbook's softmax widget logits (labels come from i18n).
const HANDBOOK_LOGITS = [4.2, 3.6, 3.1, 2.4, 2.0, 1.6, 1.1, 0.6, 0.1, -0.4, -1.0, -1.8];
const SAMPLE_DRAWS = 1000;
const SAMPLE_BATCH = 50;
// A sweep steps T by this every SWEEP_MS, once from its lowest to its highest value.
const SWEEP_STEP = 0.05;
const SWEEP_MS = 100;
// The top tokens of a model's position shown by name: bars as wide as the chart allows, and a list.
const TOP_LISTED = 10;
type Mode = 'handbook' | 'synthetic' | 'file' | 'model';

/** A token string as the chart and the list show it: spaces, line breaks and control characters visible. */
export function shownToken(text: string): string {
  if (text === '') return '∅';
  return text.replace(/\n/g, '↵').replace(/^ +| +$/g, (spaces) => '␣'.repeat(spaces.length))
    .replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

const percent = (x: number) => `${(100 * x).toFixed(x >= 0.1 ? 1 : 2)}%`;

export function filtersWidget(context: WidgetContext, initialMode: Mode = 'handbook'): Widget {
  const { lab } = context;
  const stageOf = (code: number) => (code === 0 ? null : code === lab.masksCode ? 'masks' as const : lab.stageNames[code - 1]);
  let mode: Mode = initialMode;
  // The distribution being shaped, with its ranking for the log-rank chart.
  let source: { logits: Float32Array | number[]; ranking?: Uint32Array } = { logits: HANDBOOK_LOGITS };
  let file: (NpyArray & { name: string }) | undefined;
  // A real model's position (the page's real-model section): its logits and their ranking, where it is, its top tokens' strings.
  let model: { logits: Float32Array; ranking: Uint32Array; label: string; tokens: Map<number, string> } | undefined;
  let temperatures: TemperatureResult | undefined;
  // Draws so far, shown as they arrive: counts per token and how many.
  let sampled: { counts: number[]; n: number } | undefined;
  let seed = 0;
  let playing = 0;
  let sampling = 0;
  let chartsFrame = 0;
  // Counts requests for the temperature readouts: only the latest one's result is shown.
  let temperaturesAsked = 0;
  // The last result and what it was computed from.
  let computed: { logits: unknown; options: string; result: FiltersResult } | undefined;

  // One filters run per (logits, options); a model's position arrives with its run done in the Worker.
  const optionsKey = ({ logits, ...options }: Record<string, unknown>) => JSON.stringify(options);
  function computeFilters(params: Record<string, unknown>): FiltersResult {
    if (computed && computed.logits === params.logits && computed.options === optionsKey(params)) return computed.result;
    const result = lab.runExperiment('filters', params as FiltersParams);
    computed = { logits: params.logits, options: optionsKey(params), result };
    return result;
  }

  return experimentWidget<FiltersResult>(context, {
    experiment: 'filters',
    compute: computeFilters,
    setup(kit) {
      const modeSwitch = kit.choice<Mode>('mode', {
        labels: (s) => ({ handbook: s.handbookTokens(HANDBOOK_LOGITS.length), synthetic: s.syntheticTokens(lab.qwen3Vocabulary), file: s.npyFile, model: s.modelPosition }),
        groupLabel: (s) => s.distribution, initial: initialMode, onSelect: (m) => setMode(m),
      });
      const playButton = kit.button('sl-play', (s) => (playing ? s.pause : s.play), () => (playing ? stop() : play()));
      const sampleButton = kit.button('sl-sample', (s) => s.sampleN(SAMPLE_DRAWS), () => sample());
      kit.toolbar.append(modeSwitch.root, playButton, sampleButton);
      // Until a model's position is loaded there is nothing under its tab.
      const modelTab = modeSwitch.root.querySelector<HTMLElement>('[data-value="model"]')!;
      modelTab.hidden = true;

      const filePanel = element('div', 'sl-file');
      // The browser's own file button speaks the browser's language: a drop zone in the page's
      // language stands in for it, with the input still there for the keyboard.
      const fileInput = element('input', 'sl-visually-hidden');
      fileInput.type = 'file';
      fileInput.accept = '.npy';
      const fileLabel = element('label', 'sl-drop');
      const fileText = element('span');
      kit.label(fileText, (s) => s.dropNpy);
      fileLabel.append(fileText, fileInput);
      const fileError = element('p', 'sl-error');
      fileError.setAttribute('role', 'alert');
      // Where the shown logits come from: a file's name, or a model's position.
      const sourceNote = element('p', 'sl-source');
      filePanel.append(fileLabel, fileError);

      const temperature = kit.slider('temperature', { label: (s) => s.temperature, format: (t) => (t === 0 ? `0 (${strings().greedy})` : t.toFixed(2)) });
      const topK = kit.slider('topK', { label: (s) => s.topK, max: 12 });
      const topP = kit.slider('topP', { label: (s) => s.topP, value: 0.9, format: (p) => p.toFixed(2) });
      const minP = kit.slider('minP', { label: (s) => s.minP, format: (p) => p.toFixed(2) });
      const position = kit.slider('position', { label: (s) => s.position, min: 0, max: 0, step: 1, value: 0, onInput: () => loadRow() });
      const clearSamples = () => { stopSampling(); kit.update(); };
      // A hand on a slider, or the reset button (which moves every slider), ends a sweep.
      for (const control of [temperature, topK, topP, minP]) control.input.addEventListener('input', () => { stopSampling(); if (playing) stop(); });
      kit.controls.append(temperature.root, topK.root, topP.root, minP.root, position.root);

      // The other samplers, on the vocabulary-sized views: their sliders come from the option table.
      const advanced = element('details', 'sl-advanced');
      const advancedTitle = element('summary');
      kit.label(advancedTitle, (s) => s.advancedSamplers);
      const advancedNote = element('p', 'sl-note');
      kit.label(advancedNote, (s) => s.advancedNote);
      const typicalP = kit.slider('typicalP', { label: (s) => s.typicalP, format: (p) => p.toFixed(2) });
      const topNSigma = kit.slider('topNSigma', { label: (s) => s.topNSigma, format: (n) => n.toFixed(1) });
      const xtcProbability = kit.slider('xtcProbability', { param: 'xtc.probability', label: (s) => s.xtcProbability, format: (p) => p.toFixed(2) });
      const xtcThreshold = kit.slider('xtcThreshold', { param: 'xtc.threshold', label: (s) => s.xtcThreshold, format: (p) => p.toFixed(2) });
      const mirostatTau = kit.slider('mirostatTau', { param: 'mirostat.tau', label: (s) => s.mirostatTau, format: (t) => t.toFixed(1) });
      const mirostat = kit.choice<'off' | 'v1' | 'v2'>('mirostatVersion', { labels: (s) => s.mirostatVersions, groupLabel: (s) => s.mirostat });
      const order = kit.choice<'handbook' | 'llama.cpp'>('order', { labels: (s) => s.orders, groupLabel: (s) => s.order });
      const advancedSliders = element('div', 'sl-sliders');
      advancedSliders.append(typicalP.root, topNSigma.root, xtcProbability.root, xtcThreshold.root, mirostatTau.root);
      advanced.append(advancedTitle, advancedNote, mirostat.root, order.root, advancedSliders);
      kit.controls.after(advanced);

      const chartBox = element('div', 'sl-chart');
      const bars = kit.chart(new BarChart(chartBox));
      const rankChart = kit.chart(new RankChart(chartBox));
      // A model's position: its most likely tokens by name, as bars and as a list.
      const topBox = element('div', 'sl-chart sl-top-chart');
      const topBars = kit.chart(new BarChart(topBox));
      const topList = element('table', 'sl-table sl-compact sl-top-tokens');
      const numbers = kit.readouts(['entropy', 'kept', 'kept-mass', 'top-prob', 'tokens-for-90', 'cuts']);
      // E and Var of a drawn token's surprisal, before and after the cuts, with what they mean.
      const moments = element('section', 'sl-moments');
      const momentsTitle = element('h3', 'sl-moments-title');
      const momentsText = element('p', 'sl-note');
      const momentsTable = element('table', 'sl-table sl-compact sl-moments-table');
      const momentsSummary = element('p', 'sl-moments-summary');
      kit.label(momentsTitle, (s) => s.momentsTitle);
      kit.label(momentsText, (s) => s.momentsText);
      moments.append(momentsTitle, momentsText, momentsTable, momentsSummary);
      const table = element('table', 'sl-table sl-temperatures');
      kit.body.append(filePanel, sourceNote, topBox, chartBox, numbers.root, moments, topList, table);

      // A sweep that scrolls out of view stops: nobody is watching it.
      const visibility = new IntersectionObserver((entries) => {
        if (playing && entries.some((e) => !e.isIntersecting)) stop();
      });
      visibility.observe(kit.root);

      function setMode(next: Mode): void {
        // Another position of the model (or row of a file) keeps the charts: only their data change.
        const same = next === mode && next !== 'handbook';
        mode = next;
        stopSampling();
        if (mode === 'handbook') source = { logits: HANDBOOK_LOGITS };
        if (mode === 'synthetic') {
          const logits = lab.syntheticLogits();
          source = { logits, ranking: lab.ranking(logits) };
        }
        if (mode === 'model' && model) source = { logits: model.logits, ranking: model.ranking };
        filePanel.hidden = mode !== 'file';
        sourceNote.textContent = mode === 'model' ? model?.label ?? '' : mode === 'file' ? file?.name ?? '' : '';
        topBox.hidden = mode !== 'model';
        topList.hidden = mode !== 'model';
        advanced.hidden = mode === 'handbook';
        sampleButton.hidden = mode !== 'handbook';
        position.root.hidden = !(mode === 'file' && file?.shape.length === 2);
        topK.setRange(0, mode === 'handbook' ? 12 : kit.param('topK').slider!.max);
        if (!same) {
          bars.reset();
          rankChart.reset();
          topBars.reset();
          chartBox.replaceChildren();
        }
        const waiting = mode === 'file' && !file;
        numbers.root.hidden = waiting;
        moments.hidden = waiting;
        table.hidden = waiting;
        if (waiting) {
          chartBox.textContent = strings().chooseFile;
          return;
        }
        if (mode === 'file') loadRow();
        else updateTemperatures();
      }

      // The chapter's real-model readouts for the current logits, recomputed when they change: three
      // passes over the vocabulary, in the page's Worker.
      function updateTemperatures(): void {
        kit.update();
        const asked = ++temperaturesAsked;
        const params = mode === 'synthetic' ? {} : { logits: source.logits };
        void runInWorker<TemperatureResult>({ kind: 'experiment', name: 'temperature', params }, () => {}).then((result) => {
          if (asked !== temperaturesAsked) return;
          temperatures = result;
          renderTemperatures();
        });
      }

      function renderTemperatures(): void {
        if (!temperatures) return;
        const s = strings();
        fillTable(table, {
          caption: s.temperatureCaption(temperatures.vocabSize) + (mode === 'model' ? '' : s.standIn(realModelSection())),
          head: ['T', s.topProb, s.tokensFor90, s.entropy],
          rows: temperatures.rows.map((r) => [r.temperature, r.topProb.toFixed(3), r.tokensForMass.toLocaleString(), r.entropyBits.toFixed(2)]),
        });
      }

      // The host page's real-model section, when it has one (an embed has not).
      function realModelSection(): boolean {
        const selector = kit.root.closest('sampling-lab')?.getAttribute('real-model');
        return Boolean(selector && document.querySelector(selector));
      }

      function loadRow(): void {
        if (!file) return;
        const logits = Float32Array.from(npyRow(file, file.shape.length === 2 ? position.value() : undefined));
        source = { logits, ranking: lab.ranking(logits) };
        updateTemperatures();
      }

      async function loadFile(chosen: File): Promise<void> {
        try {
          const parsed = parseNpy(new Uint8Array(await chosen.arrayBuffer()));
          // Surface bad logits (NaN, empty) now, with the core's message.
          lab.coverCount(npyRow(parsed, parsed.shape.length === 2 ? 0 : undefined), 0.9);
          file = { ...parsed, name: chosen.name };
          fileError.textContent = '';
          position.setRange(0, parsed.shape.length === 2 ? parsed.shape[0] - 1 : 0);
          position.set(0);
          modeSwitch.select('file');
        } catch (error) {
          fileError.textContent = error instanceof SamplingLabError ? localiseError(error) : (error as Error).message;
        }
      }
      fileInput.addEventListener('change', () => { if (fileInput.files?.[0]) void loadFile(fileInput.files[0]); });
      kit.root.addEventListener('dragover', (event) => event.preventDefault());
      kit.root.addEventListener('drop', (event) => {
        event.preventDefault();
        const dropped = event.dataTransfer?.files[0];
        if (dropped) void loadFile(dropped);
      });

      // Draws from the filtered distribution, a batch per frame, so the dots can be seen settling
      // towards the bars; each has its ±2 standard-error whisker.
      function sample(): void {
        stopSampling();
        const { probs } = computeFilters({ logits: source.logits, ...options() });
        sampled = { counts: new Array<number>(probs.length).fill(0), n: 0 };
        const batch = () => {
          for (const d of lab.sample(probs, { isProbs: true, n: SAMPLE_BATCH, seed: seed++, method: 'alias' })) sampled!.counts[d]++;
          sampled!.n += SAMPLE_BATCH;
          kit.update();
          sampling = sampled!.n < SAMPLE_DRAWS ? requestAnimationFrame(batch) : 0;
        };
        batch();
      }

      function stopSampling(): void {
        cancelAnimationFrame(sampling);
        sampling = 0;
        sampled = undefined;
      }

      // Once through the temperatures, lowest to highest, then it stops.
      function play(): void {
        const [lowest, highest] = [Math.max(Number(temperature.input.min), SWEEP_STEP), Number(temperature.input.max)];
        temperature.set(lowest);
        clearSamples();
        playing = window.setInterval(() => {
          const next = Math.min(highest, Math.round((temperature.value() + SWEEP_STEP) * 100) / 100);
          temperature.set(next);
          clearSamples();
          if (next >= highest) stop();
        }, SWEEP_MS);
        labelPlay();
      }

      function stop(): void {
        stopSampling();
        clearInterval(playing);
        playing = 0;
        labelPlay();
      }

      function labelPlay(): void {
        const s = strings();
        playButton.textContent = playing ? s.pause : s.play;
        playButton.setAttribute('aria-pressed', String(Boolean(playing)));
      }

      function options(view = mode) {
        const basic = { temperature: temperature.value(), topK: topK.value(), topP: topP.value(), minP: minP.value() };
        if (view === 'handbook') return basic;
        // The filters experiment's flat names; its order is stage indices, empty for the handbook's.
        return {
          ...basic, typicalP: typicalP.value(), topNSigma: topNSigma.value(),
          order: order.value() === 'handbook' ? [] : STAGE_TABLE.presets[order.value()].map((stage) => lab.stageNames.indexOf(stage)),
          'xtc.probability': xtcProbability.value(), 'xtc.threshold': xtcThreshold.value(),
          'mirostat.version': ({ off: 0, v1: 1, v2: 2 } as const)[mirostat.value()], 'mirostat.tau': mirostatTau.value(),
        };
      }

      function drawTopTokens(result: FiltersResult): void {
        const s = strings();
        const ranking = source.ranking!;
        const fit = Math.max(4, Math.min(TOP_LISTED, Math.floor((topBox.clientWidth || 600) / 56)));
        const shown = topTokens(ranking, model!.tokens, fit);
        const chosen = options();
        topBars.draw({
          labels: shown.map((t) => (t.text.length > 6 ? `${t.text.slice(0, 5)}…` : t.text)),
          tempered: shown.map((t) => result.tempered[t.id]), kept: shown.map((t) => result.probs[t.id]),
          cutBy: shown.map((t) => stageOf(result.cutBy[t.id])),
          topP: chosen.topP, minP: chosen.minP, topK: chosen.topK, summary: s.topTokensSummary(shown.length),
          text: {
            token: s.token, tempered: s.beforeTruncation, kept: s.afterTruncation, cumulative: s.cumulativeMass,
            sampled: '', cutBy: s.cutBy, topP: 'top-p', minP: 'min-p', topK: 'top-k',
          },
        });
        fillTable(topList, {
          caption: s.topTokensCaption(TOP_LISTED),
          head: [s.rankColumn, s.token, s.probabilityBefore, s.probabilityAfter],
          rows: topTokens(ranking, model!.tokens, TOP_LISTED).map((t, i) => [
            String(i + 1), t.text, percent(result.tempered[t.id]), result.probs[t.id] > 0 ? percent(result.probs[t.id]) : s.cutSeries,
          ]),
        });
      }

      function drawMoments({ surprisal }: FiltersResult): void {
        const s = strings();
        const bits = (x: number) => x.toFixed(2);
        fillTable(momentsTable, {
          caption: s.momentsCaption,
          head: s.momentsColumns,
          rowHeaders: true,
          rows: (['mean', 'meanSquare', 'variance', 'standardDeviation'] as const).map((key) => [
            s.momentsRows[key], bits(surprisal.tempered[key]), bits(surprisal.kept[key]),
          ]),
        });
        momentsSummary.textContent = s.momentsSummary(bits(surprisal.kept.mean), bits(surprisal.kept.standardDeviation));
      }

      setMode(mode);
      return {
        params: () => (mode === 'file' && !file ? undefined : { logits: source.logits, ...options() }),
        render(result) {
          const s = strings();
          const summary = s.chartSummary(result.kept, source.logits.length);
          if (mode === 'handbook') {
            const chosen = options();
            bars.draw({
              labels: s.tokenLabels, tempered: Array.from(result.tempered), kept: Array.from(result.probs), cutBy: Array.from(result.cutBy, stageOf),
              topP: chosen.topP, minP: chosen.minP, topK: chosen.topK, summary,
              sampled: sampled && { frequencies: sampled.counts.map((c) => c / sampled!.n), n: sampled.n },
              text: {
                token: s.token, tempered: s.beforeTruncation, kept: s.afterTruncation, cumulative: s.cumulativeMass,
                sampled: sampled ? s.sampledCount(sampled.n) : '', cutBy: s.cutBy, topP: 'top-p', minP: 'min-p', topK: 'top-k',
              },
            });
          } else {
            // The numbers in this frame, the log-rank chart in the next, the named tokens in the one
            // after: no frame nears 100 ms when a position first arrives (its charts are built then).
            cancelAnimationFrame(chartsFrame);
            chartsFrame = requestAnimationFrame(() => {
              rankChart.draw(source.ranking!, result.tempered, result.cutBy, {
                rank: s.rank, probability: s.probability, kept: s.keptSeries, summary,
                cutBy: (code) => `${s.cutSeries}: ${s.cutBy[stageOf(code)!]}`,
              });
              if (mode === 'model') chartsFrame = requestAnimationFrame(() => drawTopTokens(result));
            });
          }
          numbers.set('entropy', s.entropyAfter, `${result.entropyBits.toFixed(2)} ${s.bits}`);
          numbers.set('kept', s.kept, `${result.kept.toLocaleString()} ${s.keptUnit}`.trim());
          numbers.set('kept-mass', s.keptMassBefore, percent(result.keptMass));
          numbers.set('top-prob', s.topProbAfter, percent(result.topProb));
          numbers.set('tokens-for-90', s.tokensFor90Before, `${result.tokensFor90.toLocaleString()} ${s.tokensUnit}`.trim());
          // Stages that only reshape (penalties, a temperature) cut nothing and are left out.
          const cuts = result.stages.filter((stage, i) => stage.kept < (i === 0 ? source.logits.length : result.stages[i - 1].kept));
          numbers.set('cuts', s.cutsTitle, cuts.length ? cuts.map((stage) => s.cutAfter(s.cutBy[stage.filter], stage.kept)).join(' → ') : s.noCut);
          drawMoments(result);
        },
        relabel: () => { labelPlay(); renderTemperatures(); },
        destroy: () => { stop(); temperaturesAsked++; cancelAnimationFrame(chartsFrame); visibility.disconnect(); },
        // The ranking and the first result come from the Worker: the main thread only draws them.
        async loadLogits(logits, label, tokens = []) {
          const params = { logits, ...options('model') };
          const [ranking, result] = await Promise.all([
            runInWorker<Uint32Array>({ kind: 'ranking', values: logits }, () => {}),
            runInWorker<FiltersResult>({ kind: 'experiment', name: 'filters', params }, () => {}),
          ]);
          model = { logits, ranking, label, tokens: new Map(tokens.map((t) => [t.token, t.text])) };
          computed = { logits, options: optionsKey(params), result };
          modelTab.hidden = false;
          modeSwitch.select('model');
        },
      };
    },
  });
}

/** The kept set's head by name: as many bars as fit at 56 px each, and the list of the first TOP_LISTED. */
function topTokens(ranking: Uint32Array, tokens: Map<number, string>, count: number): { id: number; text: string }[] {
  return Array.from(ranking.subarray(0, count), (id) => ({ id, text: shownToken(tokens.get(id) ?? `#${id}`) }));
}

/** The chapter's real-model experiment: the same widget, opened on the synthetic vocabulary. */
export function temperatureWidget(context: WidgetContext): Widget {
  return filtersWidget(context, 'synthetic');
}
