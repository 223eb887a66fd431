// Every figure the handbook prints, asserted once (the list is wasm/src/handbook.ts): exact ones
// to their printed digits, Monte-Carlo ones within 4 standard errors of the live value.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type ExperimentLab as Lab } from 'sampling-lab/experiments';
import { HANDBOOK_CHAPTERS, HANDBOOK_FIGURES } from 'sampling-lab/handbook';

let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

const list = (x: number | number[]) => (Array.isArray(x) ? x : [x]);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

for (const figure of HANDBOOK_FIGURES) {
  it(`${figure.id}: ${JSON.stringify(figure.printed)} (${figure.source})`, () => {
    const result = lab.runExperiment(figure.experiment, figure.params as never);
    const live = list(figure.live(result as never));
    const printed = list(figure.printed);
    expect(live).toHaveLength(printed.length);
    if (!figure.standardError) {
      expect(live.map((x) => round(x, figure.digits))).toEqual(printed);
      return;
    }
    const se = list(figure.standardError(result as never));
    // Half a unit of the last printed digit is rounding, not chance.
    const rounding = 0.5 * 10 ** -figure.digits;
    printed.forEach((p, i) => expect(Math.abs(p - live[i]), `entry ${i}`).toBeLessThanOrEqual(4 * se[Math.min(i, se.length - 1)] + rounding));
  });
}

it('names for every figure the chapter that prints it and the place there', () => {
  const chapters = new Set(Object.keys(HANDBOOK_CHAPTERS));
  for (const figure of HANDBOOK_FIGURES) {
    expect(chapters.has(figure.chapter), figure.id).toBe(true);
    expect(figure.where.length, figure.id).toBeGreaterThan(3);
  }
  // This chapter prints no output of its Monte-Carlo-error code: no figure claims one.
  expect(HANDBOOK_FIGURES.filter((f) => f.experiment === 'mc-error')).toEqual([]);
  // Figures of other chapters say so.
  expect(HANDBOOK_FIGURES.filter((f) => f.experiment === 'speculative').every((f) => f.chapter === 'serving')).toBe(true);
  expect(HANDBOOK_FIGURES.filter((f) => f.experiment === 'filters').every((f) => f.chapter === 'decoding')).toBe(true);
});
