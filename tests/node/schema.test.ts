// The one schema: the core publishes every option and experiment parameter with its kind,
// default and range, and the package's checks, the CLI and the widgets read it.
import { loadSamplingLab as loadSampler, type OptionSpec } from 'sampling-lab';
import { beforeAll, expect, it } from 'vitest';
import { defaultsOf, loadSamplingLab, SamplingLabError, type ExperimentLab as Lab } from 'sampling-lab/experiments';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

it('publishes each option with its kind, group, default, range and slot', () => {
  const topP = lab.options.find((o) => o.name === 'topP')!;
  expect(topP).toMatchObject({ kind: 'probability', group: 'filter', default: 1, min: 0, max: 1, minExclusive: true });
  expect(topP.doc).toMatch(/Holtzman/);
  // Scalars, id lists and number lists each count their slots from 0 in table order.
  const kinds = { scalar: (o: OptionSpec) => o.kind !== 'array' && o.kind !== 'bitmask',
    ids: (o: OptionSpec) => (o.kind === 'array' && o.items!.kind === 'integer') || o.kind === 'bitmask',
    numbers: (o: OptionSpec) => o.kind === 'array' && o.items!.kind === 'number' };
  for (const pick of Object.values(kinds)) {
    const slots = lab.options.filter(pick).map((o) => o.slot);
    expect(slots).toEqual(slots.map((_, i) => i));
  }
  expect(lab.options.filter(kinds.numbers).map((o) => o.name)).toEqual(['logitBias.values']);
  expect(lab.options.find((o) => o.name === 'mirostat.mu')).toMatchObject({ kind: 'optional', default: null });
  expect(lab.options.filter((o) => o.kind === 'bitmask').map((o) => o.name)).toEqual(['allowedMask']);
});

it('the sampler\'s lab publishes the same options without their docs and sliders, which the experiments lab reads from its module', async () => {
  const sampler = await loadSampler();
  expect(sampler.options.length).toBe(lab.options.length);
  expect(sampler.options).toEqual(lab.options.map(({ doc, slider, ...spec }) => {
    expect(doc.length).toBeGreaterThan(0);
    return spec;
  }));
  expect(sampler.options.some((o) => 'doc' in o || 'slider' in o)).toBe(false);
  expect(lab.options.find((o) => o.name === 'topK')!.slider).toEqual({ min: 0, max: 200, step: 1 });
});

it('publishes each experiment\'s parameters, and running with their defaults equals running with none', () => {
  for (const info of lab.experiments) {
    expect(info.params.length).toBeGreaterThan(0);
    for (const param of info.params) {
      expect(['number', 'integer', 'seed', 'probability', 'choice', 'array', 'bitmask', 'optional']).toContain(param.kind);
      expect(param.doc.length).toBeGreaterThan(0);
    }
    if (info.name === 'samplers') continue;  // its result carries timings
    expect(lab.runExperiment(info.name, defaultsOf(info.params))).toEqual(lab.runExperiment(info.name));
  }
});

it('the filters experiment takes every filter and penalty option of the table', () => {
  const filters = lab.experiments.find((e) => e.name === 'filters')!.params.map((p) => p.name);
  for (const option of lab.options.filter((o) => o.group !== 'randomKey')) expect(filters).toContain(option.name);
});

it('rejects a value outside its range with one message per kind', () => {
  const message = (call: () => unknown) => {
    try { call(); } catch (error) { return (error as SamplingLabError).message; }
    return '';
  };
  expect(message(() => lab.runExperiment('samplers', { seed: -1 }))).toBe(message(() => lab.sampleToken([1, 2], { seed: -1 })));
  expect(message(() => lab.runExperiment('filters', { topP: 0 }))).toBe(message(() => lab.distribution([1, 2], { topP: 0 })));
  expect(message(() => lab.runExperiment('filters', { topK: 1.5 }))).toMatch(/topK must be an integer in \[0, 16777216\]/);
});
