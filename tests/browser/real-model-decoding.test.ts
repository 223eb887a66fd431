// The real-model section's decoding panels in Chromium on the tiny speculative pair
// (?model=/models/tiny-qwen3-target&draft=/models/tiny-qwen3-draft, both fp32): speculative
// decoding step by step equals speculativeGenerate in Node, with the totals beside the chapter's
// formula; beam search, greedy and sampling equal beamSearch and generateTokens in Node, with the
// verdict on greedy; all with no main-thread task over 100 ms, at 360 px, in dark mode, in English.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { beamSearch, generateTokens, loadLocalModel, speculativeGenerate, type LoadedModel, type SpeculativeStep } from 'sampling-lab/transformers';
import { axeViolations } from '../support/axe';
import { ensureSpeculativePair } from '../support/tiny-model.js';
import {
  blockMainThread, longTasksDuring, openRealModelPage, outsideRequests, phase, readyToLoad, type Phase, type RealModelPage,
} from './real-model-page';
import { expectNoneOver } from '../support/timing';

const ARTIFACTS = join(__dirname, '../../test-results');
// topP 0.95 at T 1 with seed 2 and γ 3: a step rejecting its first proposal, one rejecting a later
// one, and steps accepting all three (a bonus token), in 16 tokens.
const SAMPLING = { temperature: 1, topK: 0, topP: 0.95, minP: 0, seed: 2 };
const GAMMA = 3;
const TOKENS = 16;
const BEAM_TOKENS = 8;
const phases: Phase[] = [];
let lab: Lab;
let target: LoadedModel;
let draft: LoadedModel;
let opened: RealModelPage;
let page: Page;

beforeAll(async () => {
  const { target: targetFolder, draft: draftFolder } = ensureSpeculativePair();
  [lab, target, draft] = await Promise.all([loadSamplingLab(), loadLocalModel(targetFolder, { dtype: 'fp32' }), loadLocalModel(draftFolder, { dtype: 'fp32' })]);
  opened = await openRealModelPage('?model=/models/tiny-qwen3-target&draft=/models/tiny-qwen3-draft', async (view) => {
    await view.emulateMedia({ colorScheme: 'dark' });
    await view.setViewportSize({ width: 360, height: 800 });
  });
  page = opened.page;
  // Loading the pair (transformers.js, onnxruntime and two models in the page's Worker) is the
  // fixture of every test below; its main-thread tasks are timed with the rest.
  await readyToLoad(page);
  phases.push(await phase(page, 'loading', async () => {
    await page.locator('button.rm-load').click();
    await page.locator('.rm-results > section').nth(4).waitFor({ state: 'attached', timeout: 60_000 });
  }));
});

afterAll(async () => {
  await opened?.close();
});

const decode = () => page.locator('.rm-decode');
const beam = () => page.locator('.rm-beam');

it('loaded the pair from ?model= and ?draft= into five sections, and says which model drafts', async () => {
  await expect(page.locator('.rm-results > section').count()).resolves.toBe(5);
  await expect(decode().locator('.rm-draft-which').textContent()).resolves.toBe('目标：/models/tiny-qwen3-target fp32；草稿：/models/tiny-qwen3-draft fp32（地址里 ?draft= 指定的模型）。');
  await expect(decode().locator('h3').textContent()).resolves.toMatch(/投机解码/);
});

// The steps as the page lists them: each chip's token id and role.
async function shownSteps(section: Locator): Promise<{ token: number; kind: string }[][]> {
  return section.locator('.rm-spec-step').evaluateAll((items) => items.map((item) => [...item.querySelectorAll<HTMLElement>('.rm-chip')]
    .map((chip) => ({ token: Number(chip.dataset.token), kind: chip.className.replace('rm-chip rm-chip-', '') }))));
}

// The same steps from speculativeGenerate's: accepted, the rejected one, the ones never checked, then the target's token.
function expectedSteps(steps: SpeculativeStep[], greedy: boolean): { token: number; kind: string }[][] {
  return steps.map((step) => [
    ...step.proposed.map((token, i) => ({ token, kind: i < step.accepted ? 'accepted' : i === step.accepted ? 'rejected' : 'unchecked' })),
    ...(step.tokens.length > step.accepted ? [{ token: step.tokens[step.accepted], kind: step.fromResidual ? (greedy ? 'greedy' : 'residual') : 'bonus' }] : []),
  ]);
}

async function setSliders(section: Locator, values: Record<string, number>, prefix: string): Promise<void> {
  for (const [name, value] of Object.entries(values)) await section.locator(`#${prefix}${name}`).fill(String(value));
}

async function runDecoding(): Promise<void> {
  await decode().locator('button.rm-spec-go').click();
  await expect.poll(() => decode().locator('.rm-spec-stats tbody tr').count(), { timeout: 60_000 }).toBe(4);
  await expect.poll(() => decode().locator('button.rm-spec-go').isDisabled()).toBe(false);
}

it('shows each step\'s proposals, accepted, rejected and redrawn tokens exactly as speculativeGenerate draws them', async () => {
  const section = decode();
  // γ by keyboard: 4 → 3.
  await section.locator('#rm-spec-gamma').focus();
  await page.keyboard.press('ArrowLeft');
  await expect(section.locator('#rm-spec-gamma').inputValue()).resolves.toBe(String(GAMMA));
  await expect(section.getByLabel('γ（每步提议的 token 数）').inputValue()).resolves.toBe(String(GAMMA));
  await section.locator('#rm-spec-tokens').fill(String(TOKENS));
  const { seed, ...filters } = SAMPLING;
  await setSliders(section, filters, 'rm-spec-');
  await section.locator('#rm-spec-seed').fill(String(seed));
  phases.push(await phase(page, 'speculative decoding at T 1', runDecoding));

  const prompt = await section.locator('textarea').inputValue();
  const run = speculativeGenerate(target.model, draft.model, target.tokenizer, prompt, { lab, ...SAMPLING, gamma: GAMMA, maxNewTokens: TOKENS });
  const steps: SpeculativeStep[] = [];
  for await (const step of run) steps.push(step);
  const expected = expectedSteps(steps, false);
  expect(await shownSteps(section)).toEqual(expected);
  // The seed was chosen so that every kind of chip appears.
  expect(new Set(expected.flat().map((c) => c.kind))).toEqual(new Set(['accepted', 'rejected', 'unchecked', 'residual', 'bonus']));
  // The generated line joins each step's textDelta: the whole text, no character broken.
  const line = await section.locator('.rm-output .rm-generated').allTextContents();
  expect(line).toEqual(steps.map((s) => s.textDelta).filter((text) => text !== ''));
  expect(line.join('')).toBe(target.tokenizer.decode(steps.flatMap((s) => s.tokens), { skip_special_tokens: true }));
  expect(line.join('')).not.toContain('\uFFFD');
  await expect(section.locator('.rm-legend').textContent()).resolves.toMatch(/✓ 接受.*✗ 拒绝.*↻ 从残差重抽.*\+/);

  // Totals: α from the accept/reject counts, tokens per target pass, beside E = (1 − α^(γ+1))/(1 − α).
  const cells = await section.locator('.rm-spec-stats tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
  const checked = steps.reduce((sum, s) => sum + s.accepted + (s.fromResidual ? 1 : 0), 0);
  const alpha = run.stats.accepted / checked;
  expect(cells[0][1]).toBe(`${run.stats.accepted} / ${checked} = ${alpha.toFixed(3)}`);
  expect(cells[1][1]).toBe(`${run.stats.tokens} / ${run.stats.targetCalls} = ${(run.stats.tokens / run.stats.targetCalls).toFixed(2)}`);
  const a = alpha.toFixed(3);
  const expectedTokens = (1 - alpha ** (GAMMA + 1)) / (1 - alpha);
  expect(cells[1][2]).toBe(`E = (1 − α^(γ+1))/(1 − α) = (1 − ${a}^${GAMMA + 1})/(1 − ${a}) = ${expectedTokens.toFixed(2)}`);
  // c and the speed-up are timed: the shown quotients and the formula follow from the shown times.
  const [, draftMs, targetMs, c] = cells[2][1].match(/^([\d.]+) ms \/ ([\d.]+) ms = ([\d.]+)$/)!.map(Number);
  // Times are shown to 0.1 ms: the quotient of the shown times is c up to that rounding.
  expect(Math.abs(draftMs / targetMs - c)).toBeLessThanOrEqual(0.05 * (1 + c) / targetMs + 0.0005);
  expect(c).toBeGreaterThan(0);
  expect(c).toBeLessThan(1);
  const [, plainMs, speculativeMs, speedUp] = cells[3][1].match(/^(\d+) ms \/ (\d+) ms = ([\d.]+)$/)!.map(Number);
  expect(Math.abs(plainMs / speculativeMs - speedUp)).toBeLessThanOrEqual(0.5 * (1 + speedUp) / speculativeMs + 0.005);
  // The formula from the shown α and c (rounded there, so its value within rounding).
  const formula = `E/(γc + 1) = ${expectedTokens.toFixed(2)}/(${GAMMA}·${c.toFixed(3)} + 1) = `;
  expect(cells[3][2].startsWith(formula)).toBe(true);
  expect(Math.abs(Number(cells[3][2].slice(formula.length)) - expectedTokens / (GAMMA * c + 1))).toBeLessThan(0.011);
  await expect(section.locator('.rm-spec-stats .rm-note').textContent()).resolves.toMatch(
    new RegExp(`^目标前向传播 ${run.stats.targetCalls} 次，草稿 ${run.stats.draftCalls} 次，共产出 ${run.stats.tokens} 个 token。`));
});

it('at temperature 0 emits exactly the target\'s greedy tokens, the redrawn ones marked as its argmax', async () => {
  const section = decode();
  await section.locator('#rm-spec-temperature').fill('0');
  phases.push(await phase(page, 'speculative decoding at T 0', runDecoding));
  const prompt = await section.locator('textarea').inputValue();
  const greedy: number[] = [];
  for await (const step of generateTokens(target.model, target.tokenizer, prompt, { lab, temperature: 0, maxNewTokens: TOKENS })) greedy.push(step.token);
  const run = speculativeGenerate(target.model, draft.model, target.tokenizer, prompt, { lab, ...SAMPLING, temperature: 0, gamma: GAMMA, maxNewTokens: TOKENS });
  const steps: SpeculativeStep[] = [];
  for await (const step of run) steps.push(step);
  expect(steps.flatMap((s) => s.tokens)).toEqual(greedy);
  const shown = await shownSteps(section);
  expect(shown).toEqual(expectedSteps(steps, true));
  expect(shown.flat().some((c) => c.kind === 'greedy')).toBe(true);
  await expect(section.locator('.rm-legend').textContent()).resolves.toMatch(/目标的 argmax/);
});

it('stops on request, between steps, without timing plain decoding', async () => {
  const section = decode();
  await section.locator('#rm-spec-tokens').fill('64');
  await section.locator('button.rm-spec-go').click();
  await expect.poll(() => section.locator('.rm-spec-step').count(), { timeout: 60_000 }).toBeGreaterThan(0);
  await section.locator('button.rm-stop').click();
  await expect.poll(() => section.locator('.rm-status').textContent(), { timeout: 60_000 }).toBe('已停止：没有测速度。');
  expect(await section.locator('button.rm-spec-go').isDisabled()).toBe(false);
  const rows = await section.locator('.rm-spec-stats tbody tr').count();
  expect(rows).toBe(2);
  const steps = await section.locator('.rm-spec-step').count();
  // Each step emits at least one token: fewer steps than 64 tokens would take at most.
  expect(steps).toBeLessThan(64 / (GAMMA + 1) + 1);
  await section.locator('#rm-spec-tokens').fill(String(TOKENS));
});

it('prompt lookup with the one model: each step\'s matched n-gram and proposals as speculativeGenerate({ promptLookup }) gives them, and the speed-up', async () => {
  const section = decode();
  await section.getByLabel('提示查找（只用已加载的模型）').check();
  await expect(section.locator('.rm-draft-which').textContent()).resolves.toMatch(/^目标：已加载的 fp32 模型；提议从提示词和已生成的文本里复制/);
  await section.locator('#rm-spec-ngram').fill('2');
  // Greedy: the tiny model's repeating output is copied and accepted (at T 1 its flat rows accept little).
  await section.locator('#rm-spec-temperature').fill('0');
  const prompt = 'a b a b a b a b a b';
  const original = await section.locator('textarea').inputValue();
  await section.locator('textarea').fill(prompt);
  await section.locator('button.rm-spec-go').click();
  await expect.poll(() => section.locator('.rm-spec-stats tbody tr').count(), { timeout: 60_000 }).toBe(3);
  await expect.poll(() => section.locator('button.rm-spec-go').isDisabled()).toBe(false);
  const run = speculativeGenerate(target.model, { promptLookup: { ngramMax: 2 } }, target.tokenizer, prompt, { lab, ...SAMPLING, temperature: 0, gamma: GAMMA, maxNewTokens: TOKENS });
  const steps: SpeculativeStep[] = [];
  for await (const step of run) steps.push(step);
  expect(run.stats.accepted).toBeGreaterThan(0);
  // Each step: the n-gram matched, then the proposals and the target's token as for a draft model.
  const expected = steps.map((step, i) => [...(step.lookup?.ngram ?? []).map((token) => ({ token, kind: 'ngram' })), ...expectedSteps(steps, true)[i]]);
  expect(await shownSteps(section)).toEqual(expected);
  expect(await section.locator('.rm-spec-nomatch').count()).toBe(steps.filter((step) => !step.lookup).length);
  const cells = await section.locator('.rm-spec-stats tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
  expect(cells[1][1]).toBe(`${run.stats.tokens} / ${run.stats.targetCalls} = ${(run.stats.tokens / run.stats.targetCalls).toFixed(2)}`);
  expect(cells[2][2]).toMatch(/^E\/\(γ·0 \+ 1\) = [\d.]+$/);
  await expect(section.locator('.rm-spec-stats .rm-note').textContent()).resolves.toMatch(new RegExp(`^目标前向传播 ${run.stats.targetCalls} 次，共产出 ${run.stats.tokens} 个 token；没有草稿模型`));
  await expect(section.locator('.rm-legend').textContent()).resolves.toMatch(/匹配到的 n 元组.*目标的 argmax/);
  await section.locator('textarea').fill(original);
});

it('decodes one prompt greedily, by beam search at widths 2 and 4 and sampled, with log-probabilities and the verdict on greedy', async () => {
  const section = beam();
  await section.locator('#rm-beam-tokens').fill(String(BEAM_TOKENS));
  await section.locator('#rm-beam-seed').fill('5');
  phases.push(await phase(page, 'beam search', async () => {
    await section.locator('button.rm-beam-go').click();
    await expect.poll(() => section.locator('tbody tr').count(), { timeout: 60_000 }).toBe(4);
  }));
  const prompt = await section.locator('textarea').inputValue();
  const expected: string[][] = [];
  const logProbs: number[] = [];
  for (const [numBeams, name] of [[1, '贪心'], [2, '束搜索，束宽 2'], [4, '束搜索，束宽 4']] as const) {
    const [best] = await beamSearch(target.model, target.tokenizer, prompt, { lab, numBeams, maxNewTokens: BEAM_TOKENS, eosTokenIds: [] });
    expected.push([name, best.text, best.logProb.toFixed(2), (best.logProb / BEAM_TOKENS).toFixed(2)]);
    logProbs.push(best.logProb);
  }
  const sampled: number[] = [];
  let logProb = 0;
  for await (const step of generateTokens(target.model, target.tokenizer, prompt, {
    lab, temperature: 1, seed: 5, maxNewTokens: BEAM_TOKENS, stopAtEos: false, logprobs: 1, logprobsMode: 'raw',
  })) {
    sampled.push(step.token);
    logProb += step.logprobs!.logprob;
  }
  expected.push(['采样（T = 1，种子 5）', target.tokenizer.decode(sampled), logProb.toFixed(2), (logProb / BEAM_TOKENS).toFixed(2)]);
  logProbs.push(logProb);
  const shown = await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
  expect(shown.map((row) => [row[0], row[2], row[3]])).toEqual(expected.map((row) => [row[0], row[2], row[3]]));
  expect(shown.map((row) => row[1])).toEqual(expected.map((row) => row[1].replace(/\n/g, '↵')));
  // Greedy is the first row; the verdict follows from the four log-probabilities.
  const best = Math.max(...logProbs);
  const verdict = await section.locator('.rm-verdict').textContent();
  if (best - logProbs[0] <= 1e-6) expect(verdict).toMatch(/^贪心找到的序列是这几种解码里最可能的/);
  else expect(verdict).toContain(`log p 高 ${(best - logProbs[0]).toFixed(2)}`);
});

it('timed every main-thread task while loading and decoding (bound 100 ms), and sees a 150 ms one', async () => {
  expectNoneOver('main-thread tasks over 100 ms', await longTasksDuring(page, phases, 100));
  expect(await longTasksDuring(page, [await blockMainThread(page, 150)], 100)).toHaveLength(1);
});

it('fits 360 and 390 px in dark mode with no axe violation, and switches to English', async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  expect(await axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 800 });
  expect(await overflow()).toBeLessThanOrEqual(0);
  await decode().screenshot({ path: join(ARTIFACTS, 'real-model-decoding-390-dark.png') });
  await beam().screenshot({ path: join(ARTIFACTS, 'real-model-beam-390-dark.png') });
  await page.locator('.lang-switch').click();
  await expect.poll(() => decode().locator('h3').textContent()).toBe('Speculative decoding, step by step');
  const words = await decode().locator('.rm-spec-step .rm-chip .rm-visually-hidden').allTextContents();
  expect(words.length).toBeGreaterThan(0);
  expect(words.filter((w) => !['accepted: ', 'rejected: ', 'not checked: ', 'redrawn from the residual: ', 'the target\'s argmax: ', 'bonus token: ', 'matched n-gram: '].includes(w))).toEqual([]);
  await expect(decode().getByLabel('γ (tokens proposed per step)').inputValue()).resolves.toBe(String(GAMMA));
  await expect(beam().locator('tbody tr:first-child td:first-child').textContent()).resolves.toBe('greedy');
  await expect(beam().locator('.rm-verdict').textContent()).resolves.toMatch(/^Greedy /);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  await decode().screenshot({ path: join(ARTIFACTS, 'real-model-decoding-1280-en.png') });
  await beam().screenshot({ path: join(ARTIFACTS, 'real-model-beam-1280-en.png') });
  // Back to the draft model: the prompt-lookup run shown goes with its source, and the n-gram slider.
  await decode().getByLabel('a draft model (a second model file)').check();
  expect(await decode().locator('#rm-spec-ngram').isVisible()).toBe(false);
  expect(await decode().locator('.rm-spec-steps li').count()).toBe(0);
  expect(await decode().locator('.rm-spec-stats tbody tr').count()).toBe(0);
  expect(await decode().locator('.rm-legend').isHidden()).toBe(true);
});

it('logged no error and made no request beyond 127.0.0.1', () => {
  expect(opened.problems).toEqual([]);
  expect(outsideRequests(opened.requests)).toEqual([]);
});
