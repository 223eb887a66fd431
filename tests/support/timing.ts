// Wall-clock bounds (a rejection within 50 ms, no main-thread task over 100 ms, …) are asserted
// only by the timing suite, `npm run test:timing` (SAMPLING_LAB_TIMING=1): on a machine loaded by
// other work they flake, so `npm test` measures and prints them and asserts everything else.
import { expect } from 'vitest';

export const TIMING = process.env.SAMPLING_LAB_TIMING === '1';

/** Prints `measured` ms against its bound; asserts the bound in the timing suite only. */
export function expectWithin(label: string, measured: number, limitMs: number): void {
  console.log(`${label}: ${measured.toFixed(1)} ms (bound ${limitMs} ms${TIMING ? '' : ', asserted by npm run test:timing'})`);
  if (TIMING) expect(measured, label).toBeLessThan(limitMs);
}

/** Prints the problems found against a wall-clock bound; asserts there are none in the timing suite only. */
export function expectNoneOver(label: string, problems: readonly string[]): void {
  console.log(`${label}: ${problems.length ? problems.join('; ') : 'none'}${TIMING ? '' : ' (asserted by npm run test:timing)'}`);
  if (TIMING) expect(problems, label).toEqual([]);
}
