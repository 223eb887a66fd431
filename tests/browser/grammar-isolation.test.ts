// sampling-lab/grammar in Chromium: a jump-forward string that never ends stalls a Worker, which
// is ended with a typed error, never the page's thread; the next grammar works.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDevPage } from '../support/chromium';

const { harness, page, problems } = await openDevPage();
const dist = join(__dirname, '../../wasm/dist');
afterAll(() => harness.close());

it('ends an endless jump-forward in its Worker with a SamplingLabError, the page answering throughout, then the next grammar jumps forward', async () => {
  const outcome: { endless: unknown; ticks: number; again: unknown; forced: string; disposed: unknown } = await page.evaluate(`(async () => {
    const { compileGrammar } = await import('/@fs${dist}/entries/grammar.js');
    const tokenizer = { get_vocab: () => ({ a: 0, b: 1, '{': 2, '}': 3, '</s>': 4 }), eos_token_id: 4 };
    const failure = async (call) => { try { await call(); return 'no error'; } catch (error) { return { name: error.name, argument: error.argument, message: error.message }; } };
    const endless = await compileGrammar(tokenizer, { ebnf: 'root ::= "a" root' });
    const matcher = await endless.matcher();
    // The page's thread stays free while the Worker spins: a timer keeps firing.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const result = await failure(() => matcher.jumpForward());
    clearInterval(timer);
    const again = await failure(() => matcher.jumpForward());
    const plain = await compileGrammar(tokenizer, { ebnf: 'root ::= "{ab" [ab]* "}"' });
    const next = await plain.matcher();
    const forced = await next.jumpForward();
    next.accept(2);
    plain.dispose();
    const disposed = await failure(() => next.jumpForward());
    return { endless: result, ticks, again, forced, disposed };
  })()`);
  expect(outcome.endless).toMatchObject({ name: 'SamplingLabError', argument: 'grammar', message: expect.stringMatching(/never ends/) });
  expect(outcome.ticks).toBeGreaterThan(5);
  expect(outcome.again).toMatchObject({ name: 'SamplingLabError', argument: 'grammar' });
  expect(outcome.forced).toBe('{ab');
  expect(outcome.disposed).toMatchObject({ name: 'SamplingLabError', argument: 'grammar' });
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
