// sampling-lab/grammar in Chromium: a grammar compiles and matches in a Worker of its own, so a
// long compile, a stopped one or a jump-forward string that never ends holds a Worker, never the
// page's thread, and ends with a typed error; the next grammar works. A synchronous grammar
// (compiled in the page's thread, for transformers.js's processors) has its jump-forward strings
// answered by a Worker mirror.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDevPage } from '../support/chromium';

const { harness, page, problems } = await openDevPage();
const dist = join(__dirname, '../../wasm/dist');
afterAll(() => harness.close());

// Runs `body` in the page with compileGrammar, a five-token tokenizer, `failure` (a call's typed
// error, or 'no error') and `ticking` (how often a 50 ms timer fired during a call).
const inPage = <T>(body: string): Promise<T> => page.evaluate(`(async () => {
  const { compileGrammar } = await import('/@fs${dist}/entries/grammar.js');
  const tokenizer = { get_vocab: () => ({ a: 0, b: 1, '{': 2, '}': 3, '</s>': 4 }), eos_token_id: 4 };
  const failure = async (call) => { try { await call(); return 'no error'; } catch (error) { return { name: error.name, argument: error.argument, message: error.message }; } };
  const ticking = async (call) => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const result = await call();
    clearInterval(timer);
    return { result, ticks };
  };
  ${body}
})()`);

it('ends an endless jump-forward in its Worker with a SamplingLabError, the page answering throughout, then the next grammar jumps forward', async () => {
  const outcome = await inPage<Record<string, any>>(`
    const endless = await compileGrammar(tokenizer, { ebnf: 'root ::= "a" root' });
    const matcher = await endless.matcher();
    const { result: endlessError, ticks } = await ticking(() => failure(() => matcher.jumpForward()));
    const again = await failure(() => matcher.jumpForward());
    const plain = await compileGrammar(tokenizer, { ebnf: 'root ::= "{ab" [ab]* "}"' });
    const next = await plain.matcher();
    const forced = await next.jumpForward();
    const accepted = [next.accept(0), next.accept(2)];
    await next.settled();
    const allowed = next.allowedCount;
    plain.dispose();
    const disposed = await failure(() => next.jumpForward());
    // The disposed grammar's Worker compiles the next one for this tokenizer, its vocabulary read.
    const stages = [];
    const reused = await compileGrammar(tokenizer, { ebnf: 'root ::= "b"+' }, { onProgress: (stage) => stages.push(stage) });
    const forcedAgain = await (await reused.matcher()).jumpForward();
    const stale = await failure(() => next.jumpForward());
    return { endlessError, ticks, again, forced, accepted, allowed, disposed, stages, forcedAgain, stale };
  `);
  expect(outcome.endlessError).toMatchObject({ name: 'SamplingLabError', argument: 'grammar', message: expect.stringMatching(/never ends/) });
  expect(outcome.ticks).toBeGreaterThan(5);
  expect(outcome.again).toMatchObject({ name: 'SamplingLabError', argument: 'grammar' });
  expect(outcome.forced).toBe('{ab');
  // 'a' is refused at the start (its mask says so at once); '{' is taken, after which 'a' or 'b'.
  expect(outcome.accepted).toEqual([false, true]);
  expect(outcome.allowed).toBe(1);
  expect(outcome.disposed).toMatchObject({ name: 'SamplingLabError', argument: 'grammar' });
  expect(outcome.stages).toEqual(['loading', 'compiling']);
  expect(outcome.forcedAgain).toBe('b');
  expect(outcome.stale).toMatchObject({ name: 'SamplingLabError', argument: 'grammar', message: expect.stringMatching(/disposed/) });
});

it('compiles in its Worker, reporting its stages, stops a compile on its signal, and names a bad grammar by its key', async () => {
  const outcome = await inPage<Record<string, any>>(`
    const stages = [];
    const long = await compileGrammar(tokenizer, { regex: '(a|b){0,200}(ab){0,200}' }, { onProgress: (stage) => stages.push(stage) })
      .then((g) => g.matcher()).then((m) => m.allowedCount);
    const controller = new AbortController();
    const stopping = failure(() => compileGrammar(tokenizer, { regex: '(a|b){0,250}(ab){0,16}' }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    const stopped = await stopping;
    const bad = await failure(() => compileGrammar(tokenizer, { ebnf: 'root ::= (' }));
    const clamped = await failure(() => compileGrammar(tokenizer, { regex: '[^\\\\s\\\\S]' }));
    return { long, stages, stopped, bad, clamped };
  `);
  expect(outcome.long).toBe(3);  // a, b, and the stop token: the empty string matches
  expect(outcome.stages).toEqual(['loading', 'vocabulary', 'compiling']);
  expect(outcome.stopped).toMatchObject({ name: 'SamplingLabError', argument: 'signal' });
  expect(outcome.bad).toMatchObject({ name: 'SamplingLabError', argument: 'ebnf' });
  expect(outcome.clamped).toMatchObject({ name: 'SamplingLabError', argument: 'regex' });
});

it('a synchronous grammar answers within the call, and its endless jump-forward ends in a Worker mirror', async () => {
  const outcome = await inPage<Record<string, any>>(`
    const endless = await compileGrammar(tokenizer, { ebnf: 'root ::= "a" root' }, { synchronous: true });
    const matcher = await endless.matcher();
    const { result: endlessError, ticks } = await ticking(() => failure(() => matcher.jumpForward()));
    const plain = await compileGrammar(tokenizer, { ebnf: 'root ::= "{ab" [ab]* "}"' }, { synchronous: true });
    const next = await plain.matcher();
    const accepted = [next.accept(2), next.accept(0), next.accept(1), next.synchronous];
    const forced = await next.jumpForward();
    return { endlessError, ticks, accepted, forced };
  `);
  expect(outcome.endlessError).toMatchObject({ name: 'SamplingLabError', argument: 'grammar', message: expect.stringMatching(/never ends/) });
  expect(outcome.ticks).toBeGreaterThan(5);
  expect(outcome.accepted).toEqual([true, true, true, true]);
  expect(outcome.forced).toBe('');
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
