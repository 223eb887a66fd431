// The argument a call's SamplingLabError names ('(no error)' when it returns); any other error
// is rethrown, so a TypeError or an abort fails the test.
import { expect } from 'vitest';
import { SamplingLabError } from 'sampling-lab';

export function argumentOf(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (!(error instanceof SamplingLabError)) throw error;
    expect(error.message.length).toBeGreaterThan(0);
    return error.argument;
  }
  return '(no error)';
}

/** The SamplingLabError a call throws; a call that returns, or throws anything else, fails. */
export function errorOf(call: () => unknown): SamplingLabError {
  try {
    call();
  } catch (error) {
    if (!(error instanceof SamplingLabError)) throw error;
    return error;
  }
  throw new Error('no error');
}
