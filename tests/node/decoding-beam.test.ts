// beamSearch on the tiny model against a reference beam search written plainly here: every beam
// recomputed by a fresh prefill, every (beam, token) candidate sorted, transformers'
// BeamSearchScorer rules for end-of-sequence tokens, length penalty and stopping.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSamplingLab, SamplingLabError, type Lab } from 'sampling-lab';
import { compileGrammar } from 'sampling-lab/grammar';
import { beamSearch, generateTokens, loadLocalModel, positionLogits, type BeamSearchOptions, type BeamSequence, type LoadedModel } from 'sampling-lab/transformers';
import { ensureTinyModel } from '../support/tiny-model.js';

const PROMPT = 'Beam search keeps several paths';
const V = 151936;
let lab: Lab;
let tiny: LoadedModel;
let promptIds: number[];

beforeAll(async () => {
  lab = await loadSamplingLab();
  tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32' });
  promptIds = Array.from(tiny.tokenizer(PROMPT).input_ids.data as BigInt64Array, Number);
});

// With `masked` ids at −∞ first (minNewTokens' end-of-sequence tokens).
async function logSoftmaxAfter(ids: number[], masked: number[] = []): Promise<Float64Array> {
  const logits = await positionLogits(tiny.model, ids, ids.length - 1);
  for (const id of masked) logits[id] = -Infinity;
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  const log = max + Math.log(sum);
  return Float64Array.from(logits, (x) => x - log);
}

interface Reference {
  numBeams: number; maxNewTokens: number; lengthPenalty?: number; eos?: number[]; numReturnSequences?: number; earlyStopping?: boolean; minNewTokens?: number;
  /** Each beam's next-token log-probabilities (default: the model's log-softmax). */
  logProbsAfter?: (ids: number[]) => Promise<Float64Array>;
}

// transformers' beam search, read plainly.
async function referenceBeamSearch({ numBeams, maxNewTokens, lengthPenalty = 1, eos = [], numReturnSequences = 1, earlyStopping = false, minNewTokens = 0, logProbsAfter }: Reference) {
  let beams = [{ ids: [] as number[], logProb: 0 }];
  const finished: { ids: number[]; logProb: number; score: number; order: number }[] = [];
  const worst = () => Math.min(...finished.map((h) => h.score));
  const add = (ids: number[], logProb: number) => {
    const score = logProb / ids.length ** lengthPenalty;
    if (finished.length < numBeams || score > worst()) {
      finished.push({ ids, logProb, score, order: finished.length });
      if (finished.length > numBeams) finished.splice(finished.findIndex((h) => h.score === worst()), 1);
    }
  };
  let done = false;
  let steps = 0;
  for (let step = 0; step < maxNewTokens && !done; step++, steps++) {
    const sums = new Float64Array(beams.length * V);
    for (const [b, beam] of beams.entries()) {
      const logp = logProbsAfter ? await logProbsAfter([...promptIds, ...beam.ids]) : await logSoftmaxAfter([...promptIds, ...beam.ids], step < minNewTokens ? eos : []);
      for (let v = 0; v < V; v++) sums[b * V + v] = beam.logProb + logp[v];
    }
    // Every candidate sorted, best first; ties to the lower beam, then the lower token.
    const sorted = Float64Array.from(sums).sort();
    const threshold = sorted[sorted.length - 2 * numBeams];
    const order: number[] = [];
    for (let i = 0; i < sums.length; i++) if (sums[i] >= threshold) order.push(i);
    order.sort((a, b) => sums[b] - sums[a] || a - b);
    const next: typeof beams = [];
    for (const [rank, index] of order.entries()) {
      const [beam, token] = [Math.floor(index / V), index % V];
      const ids = [...beams[beam].ids, token];
      if (eos.includes(token)) {
        if (rank < numBeams) add(ids, sums[index]);
      } else {
        next.push({ ids, logProb: sums[index] });
      }
      if (next.length === numBeams) break;
    }
    beams = next;
    done = finished.length === numBeams && (earlyStopping || worst() >= sums[order[0]] / (step + 1) ** lengthPenalty);
  }
  if (!done) for (const beam of beams) add(beam.ids, beam.logProb);
  // Best first; of equal scores the later added first.
  return { steps, sequences: finished.sort((a, b) => b.score - a.score || b.order - a.order).slice(0, numReturnSequences) };
}

function expectSame(found: BeamSequence[], { sequences: expected }: Awaited<ReturnType<typeof referenceBeamSearch>>, what: string) {
  expect(found.map((s) => s.ids), what).toEqual(expected.map((s) => s.ids));
  found.forEach((s, i) => {
    expect(s.logProb, `${what} #${i} logProb`).toBeCloseTo(expected[i].logProb, 4);
    expect(s.score, `${what} #${i} score`).toBeCloseTo(expected[i].score, 4);
    expect(s.text).toBe(tiny.tokenizer.decode(s.ids));
  });
}

describe('beamSearch', () => {
  it.each([1, 2, 4])('equals the reference beam search at width %i over 6 steps, every sequence returned', async (numBeams) => {
    const options = { numBeams, maxNewTokens: 6, numReturnSequences: numBeams };
    const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options, eosTokenIds: [] });
    expectSame(found, await referenceBeamSearch(options), `width ${numBeams}`);
    expect(found).toHaveLength(numBeams);
  });

  // Runs beamSearch and the reference with `eos` ending sequences; checks they agree, pass for pass.
  async function withEos(options: Reference & { eos: number[] }) {
    let passes = 0;
    const { eos, ...rest } = options;
    const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, ...rest, eosTokenIds: eos, onForward: () => passes++ });
    const expected = await referenceBeamSearch(options);
    expectSame(found, expected, JSON.stringify({ ...options, eos: eos.length }));
    expect(passes).toBe(expected.steps);
    return { passes, ended: found.filter((s) => eos.includes(s.ids.at(-1)!)).length };
  }

  it.each([[4, 0.5], [3, -1]])('finishes beams at an end-of-sequence token as the reference: width %i, length penalty %s', async (numBeams, lengthPenalty) => {
    // The token the greedy path takes third ends a sequence: a short, likely one.
    const greedy: number[] = [];
    for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, temperature: 0, maxNewTokens: 3, stopAtEos: false })) greedy.push(step.token);
    const { ended } = await withEos({ numBeams, lengthPenalty, maxNewTokens: 6, numReturnSequences: numBeams, eos: [greedy[2]] });
    expect(ended).toBeGreaterThan(0);
  });

  it('stops when numBeams sequences have ended (earlyStopping) or none running can beat them, as the reference', async () => {
    // The 64 likeliest tokens after the first greedy one end sequences: beams finish at once.
    const [first] = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 1, maxNewTokens: 1, eosTokenIds: [] });
    const after = await logSoftmaxAfter([...promptIds, ...first.ids]);
    const likeliest = [...after.keys()].sort((a, b) => after[b] - after[a]).slice(0, 64);
    const early = await withEos({ numBeams: 2, maxNewTokens: 6, earlyStopping: true, numReturnSequences: 2, eos: likeliest });
    expect(early.ended).toBe(2);
    expect(early.passes).toBeLessThan(6);
    const patient = await withEos({ numBeams: 2, maxNewTokens: 6, numReturnSequences: 2, eos: likeliest });
    expect(patient.passes).toBeGreaterThanOrEqual(early.passes);
    // minNewTokens: those tokens are −∞ for the first 3 steps (the log-probabilities renormalised
    // without them, as transformers' MinNewTokensLengthLogitsProcessor leaves them), so every
    // sequence is 4 tokens or more, as the reference's.
    const held = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 2, maxNewTokens: 6, numReturnSequences: 2, eosTokenIds: likeliest, minNewTokens: 3 });
    expectSame(held, await referenceBeamSearch({ numBeams: 2, maxNewTokens: 6, numReturnSequences: 2, eos: likeliest, minNewTokens: 3 }), 'minNewTokens 3');
    for (const sequence of held) expect(sequence.ids.length).toBeGreaterThanOrEqual(4);
    // stopTokenIds finish beams as end-of-sequence ids do.
    const stopped = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 2, maxNewTokens: 6, numReturnSequences: 2, eosTokenIds: [], stopTokenIds: likeliest });
    expectSame(stopped, await referenceBeamSearch({ numBeams: 2, maxNewTokens: 6, numReturnSequences: 2, eos: likeliest }), 'stopTokenIds');
  });

  it('scores every beam from the reordered KV cache as a fresh prefill of that beam does (1e-4)', async () => {
    let passes = 0;
    let reordered = false;
    let previous: readonly (readonly number[])[] = [];
    const checks: Promise<void>[] = [];
    await beamSearch(tiny.model, tiny.tokenizer, PROMPT, {
      lab, numBeams: 4, maxNewTokens: 5, eosTokenIds: [],
      onForward: ({ role, sequences, rows, keep, vocab }) => {
        expect(role).toBe('beams');
        expect(keep).toBe(1);
        passes++;
        // A beam that does not extend the beam of its batch row: the cache was reordered.
        if (passes > 2 && sequences.some((ids, j) => ids.slice(0, -1).join() !== previous[j].join())) reordered = true;
        previous = sequences;
        sequences.forEach((ids, j) => {
          const found = rows.slice(j * vocab, (j + 1) * vocab);
          checks.push(positionLogits(tiny.model, ids, ids.length - 1).then((fresh) => {
            let worst = 0;
            for (let v = 0; v < vocab; v++) worst = Math.max(worst, Math.abs(found[v] - fresh[v]));
            expect(worst, `pass ${passes}, beam ${j}`).toBeLessThan(1e-4);
          }));
        });
      },
    });
    await Promise.all(checks);
    expect(passes).toBe(5);
    expect(reordered).toBe(true);
  });

  it('width 1 is greedy decoding, and every logProb is the sum of the tokens\' log-probabilities', async () => {
    const greedy: number[] = [];
    for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, temperature: 0, maxNewTokens: 8, stopAtEos: false })) greedy.push(step.token);
    const [found] = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 1, maxNewTokens: 8 });
    expect(found.ids).toEqual(greedy);
    let logProb = 0;
    for (let i = 0; i < greedy.length; i++) logProb += (await logSoftmaxAfter([...promptIds, ...greedy.slice(0, i)]))[greedy[i]];
    expect(found.logProb).toBeCloseTo(logProb, 4);
    expect(found.score).toBeCloseTo(logProb / 8, 4);
  });

  it('stochastic beam search: the same seed gives the same beams, another seed others, each logProb that of its tokens', async () => {
    const options = { lab, numBeams: 3, maxNewTokens: 5, stochastic: true, numReturnSequences: 3, eosTokenIds: [] };
    const first = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { ...options, seed: 7 });
    expect(await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { ...options, seed: 7 })).toEqual(first);
    const other = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { ...options, seed: 8 });
    expect(other.map((s) => s.ids)).not.toEqual(first.map((s) => s.ids));
    for (const sequence of first) {
      let logProb = 0;
      for (let i = 0; i < sequence.ids.length; i++) logProb += (await logSoftmaxAfter([...promptIds, ...sequence.ids.slice(0, i)]))[sequence.ids[i]];
      expect(sequence.logProb).toBeCloseTo(logProb, 4);
    }
  });

  it('streams each step\'s beams, then gives the same sequences as awaiting it; usage and finishReason', async () => {
    const options = { lab, numBeams: 3, maxNewTokens: 4, eosTokenIds: [], numReturnSequences: 3 };
    const run = beamSearch(tiny.model, tiny.tokenizer, PROMPT, options);
    const seen: { step: number; beams: { ids: number[] }[] }[] = [];
    for await (const step of run) seen.push(step);
    expect(seen.map((s) => s.step)).toEqual([1, 2, 3, 4]);
    for (const { step, beams } of seen) for (const beam of beams) expect(beam.ids).toHaveLength(step);
    const sequences = await run;
    expect(sequences).toEqual(await beamSearch(tiny.model, tiny.tokenizer, PROMPT, options));
    // The last step's beams are the sequences the search returns (no EOS: none finished before).
    expect(new Set(seen.at(-1)!.beams.map((b) => b.ids.join()))).toEqual(new Set(sequences.map((s) => s.ids.join())));
    expect(run.finishReason).toBe('length');
    expect(run.usage).toMatchObject({ promptTokens: tiny.tokenizer.encode(PROMPT).length, completionTokens: 4 });
    expect(run.usage.prefillMs).toBeGreaterThan(0);
  });

  it('a signal aborted before the first step, or no step asked for, gives the prompt alone and no forward pass', async () => {
    const forwardPasses: string[] = [];
    const onForward = () => forwardPasses.push('pass');
    const aborted = AbortSignal.abort();
    const empty = { ids: [], text: '', logProb: 0, score: 0 };
    expect(await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 3, signal: aborted, onForward })).toEqual([{ ...empty, finishReason: 'abort' }]);
    expect(await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 3, maxNewTokens: 0, onForward })).toEqual([{ ...empty, finishReason: 'length' }]);
    expect(forwardPasses).toEqual([]);
    // Aborted after its first step: the sequences so far.
    const controller = new AbortController();
    const partial = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 3, onForward: () => controller.abort(), signal: controller.signal });
    expect(partial[0]).toMatchObject({ finishReason: 'abort' });
    expect(partial[0].ids).toHaveLength(1);
  });

  it('the sampling options shape each beam\'s distribution: equal to the reference scored by lab.distribution\'s log', async () => {
    const sampling = { temperature: 0.7, topK: 20, repetitionPenalty: 1.3, logitBias: { 11: 2 } };
    const logProbsAfter = async (ids: number[]) => {
      const { probs } = lab.distribution(await positionLogits(tiny.model, ids, ids.length - 1), { ...sampling, generatedIds: ids });
      return Float64Array.from(probs, Math.log);
    };
    const options = { numBeams: 3, maxNewTokens: 4, numReturnSequences: 3 };
    const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options, ...sampling, eosTokenIds: [] });
    expectSame(found, await referenceBeamSearch({ ...options, logProbsAfter }), 'shaped');
    // Negative control: the unshaped search differs.
    const plain = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, ...options, eosTokenIds: [] });
    expect(plain.map((s) => s.logProb)).not.toEqual(found.map((s) => s.logProb));
  });

  it('logprobs: each token\'s, summing to the sequence\'s logProb; finishReason and stopReason per sequence', async () => {
    const greedy: number[] = [];
    for await (const step of generateTokens(tiny.model, tiny.tokenizer, PROMPT, { lab, temperature: 0, maxNewTokens: 3, stopAtEos: false })) greedy.push(step.token);
    for (const [options, mode] of [[{}, 'raw'], [{ topK: 30, temperature: 0.8 }, 'processed']] as const) {
      const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, {
        // Length penalty 0 ranks by logProb: the short sequences that ended rank high.
        lab, numBeams: 4, maxNewTokens: 5, numReturnSequences: 4, eosTokenIds: [greedy[2]], lengthPenalty: 0, logprobs: 2, logprobsMode: mode, ...options,
      });
      expect(found.some((s) => s.finishReason === 'stop')).toBe(true);
      for (const sequence of found) {
        expect(sequence.logprobs).toHaveLength(sequence.ids.length);
        expect(sequence.logprobs!.reduce((sum, entry) => sum + entry.logprob, 0)).toBeCloseTo(sequence.logProb, 4);
        for (const entry of sequence.logprobs!) expect(entry.top).toHaveLength(2);
        expect(sequence.finishReason).toBe(sequence.ids.at(-1) === greedy[2] ? 'stop' : 'length');
        if (sequence.finishReason === 'stop') expect(sequence.stopReason).toBe(greedy[2]);
      }
    }
  });

  it('stop strings finish a beam at the token that completes one, and later candidates take its place', async () => {
    const options = { lab, numBeams: 3, maxNewTokens: 6, numReturnSequences: 3, eosTokenIds: [] };
    const free = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, options);
    const stop = free[0].text.slice(2, 4);
    expect(stop).toHaveLength(2);
    // Length penalty 0 ranks by logProb: the short sequences that ended rank high.
    const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { ...options, stop: [stop], lengthPenalty: 0 });
    expect(found.map((s) => s.ids)).not.toEqual(free.map((s) => s.ids));
    expect(found.some((s) => s.stopReason === stop)).toBe(true);
    for (const sequence of found) {
      const before = tiny.tokenizer.decode(sequence.ids.slice(0, -1));
      expect(before, 'no earlier token completed it').not.toContain(stop);
      if (sequence.finishReason === 'stop') {
        expect(sequence.text).toContain(stop);
        expect(sequence.stopReason).toBe(stop);
      } else {
        expect(sequence.text).not.toContain(stop);
        expect(sequence.ids).toHaveLength(6);
      }
    }
  });

  it('a grammar: every beam follows it, each with its own matcher', async () => {
    const grammar = await compileGrammar(tiny.tokenizer, { regex: '[a-c]{2,5}-[0-9]{2}' }, { vocabSize: V });
    const found = await beamSearch(tiny.model, tiny.tokenizer, PROMPT, { lab, numBeams: 3, maxNewTokens: 12, numReturnSequences: 3, grammar });
    expect(found).toHaveLength(3);
    for (const sequence of found) {
      const text = tiny.tokenizer.decode(sequence.ids, { skip_special_tokens: true });
      expect(text, JSON.stringify(sequence)).toMatch(sequence.finishReason === 'stop' ? /^[a-c]{2,5}-[0-9]{2}$/ : /^[a-c]{0,5}(-[0-9]{0,2})?$/);
    }
    expect(found.some((s) => s.finishReason === 'stop')).toBe(true);
    grammar.dispose();
  });

  it('bad options are SamplingLabErrors naming the option, before any forward pass', async () => {
    const cases: [Partial<BeamSearchOptions> & Record<string, unknown>, string][] = [
      [{ numBeams: 0 }, 'numBeams'], [{ numBeams: 65 }, 'numBeams'], [{ numBeams: 1.5 }, 'numBeams'],
      [{ numBeams: 2, numReturnSequences: 3 }, 'numReturnSequences'], [{ maxNewTokens: -1 }, 'maxNewTokens'],
      [{ lengthPenalty: Number.NaN }, 'lengthPenalty'], [{ eosTokenIds: [151936] }, 'eosTokenIds'], [{ eosTokenIds: 3 as never }, 'eosTokenIds'],
      [{ stochastic: 'yes' as never }, 'stochastic'], [{ seed: -1 }, 'seed'], [{ signal: {} as never }, 'signal'],
      [{ onForward: 3 as never }, 'onForward'], [{ topP: 2 }, 'topP'], [{ topp: 0.9 }, 'topp'], [{ mirostat: { version: 2 } } as never, 'mirostat'],
      [{ stop: 'a' as never }, 'stop'], [{ grammar: {} as never }, 'grammar'], [{ logprobs: 21 }, 'logprobs'], [{ logprobsMode: 'raw' }, 'logprobsMode'],
      [{ generatedIds: [1] } as never, 'generatedIds'], [{ lab: {} as never }, 'lab'],
      // The core's limits, read from the lab: the adapter checks no other.
      [{ maxNewTokens: lab.maxNewTokens + 1 }, 'maxNewTokens'],
      [{ eosTokenIds: Array.from({ length: lab.maxEosTokens + 1 }, (_, i) => i) }, 'eosTokenIds'],
      [{ minNewTokens: -1 }, 'minNewTokens'], [{ maxNewTokens: 4, minNewTokens: 5 }, 'minNewTokens'], [{ stopTokenIds: [151936] }, 'stopTokenIds'],
      [{ eosTokenIds: Array.from({ length: lab.maxEosTokens }, (_, i) => i), stopTokenIds: [V - 1] }, 'stopTokenIds'],
    ];
    const forwardPasses: string[] = [];
    const watched = new Proxy(tiny.model, { apply: (target, self, args) => { forwardPasses.push('pass'); return Reflect.apply(target, self, args); } });
    for (const [options, argument] of cases) {
      const error = await beamSearch(watched, tiny.tokenizer, PROMPT, { lab, ...options } as BeamSearchOptions).then(() => undefined, (e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(SamplingLabError);
      expect((error as SamplingLabError).argument, `${JSON.stringify(options)}: ${(error as Error).message}`).toBe(argument);
    }
    expect(forwardPasses).toEqual([]);
    for (const [call, argument] of [
      [() => beamSearch({} as never, tiny.tokenizer, PROMPT, { lab }), 'model'],
      [() => beamSearch(tiny.model, {} as never, PROMPT, { lab }), 'tokenizer'],
      [() => beamSearch(tiny.model, tiny.tokenizer, 5 as never, { lab }), 'prompt'],
      [() => beamSearch(tiny.model, tiny.tokenizer, PROMPT, undefined as never), 'lab'],
    ] as const) {
      await expect(call()).rejects.toMatchObject({ argument });
    }
  });
});
