// The lesson parts of the samplers, Monte-Carlo, sequence, speculative and importance widgets and
// the self-test, in Chromium: single draws stepped from the core's traces into a histogram, one
// token highlighted in every view, reduced motion, the fixed y-scale whose bands narrow by the
// printed ratio, predictions whose answers stay hidden until the guess, the log-space demo, and
// no overlapping labels or long main-thread tasks.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { loadSamplingLab, type ExperimentLab, type SamplerTraceResult } from 'sampling-lab/experiments';
import { openDevPage, type Harness } from '../support/chromium';
import { expectWithin } from '../support/timing';

let harness: Harness;
let page: Page;
let problems: string[];
let lab: ExperimentLab;

beforeAll(async () => {
  ({ harness, page, problems } = await openDevPage());
  lab = await loadSamplingLab();
  // Main-thread tasks over 50 ms, from the start.
  await page.evaluate(() => {
    (window as unknown as { longTasks: number[] }).longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) (window as unknown as { longTasks: number[] }).longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
});

afterAll(async () => { await harness?.close(); });

const widget = (name: string) => page.locator(`sampling-lab[experiment="${name}"]`);
const mechanisms = () => widget('samplers').locator('.sl-mechanisms');
const histogramCounts = async () => (await mechanisms().locator('.sl-histogram text.value').allTextContents()).map(Number);
const reveal = (host: Locator) => host.getByRole('button', { name: '我猜好了，揭晓答案' });
const P = [0.5, 0.25, 0.15, 0.07, 0.03];
const trace = (method: string, n: number): SamplerTraceResult => lab.runExperiment('sampler-trace', {
  p: P, method: method as never, seed: 0, stream: ['inverse-cdf', 'gumbel-max', 'exponential-race', 'alias'].indexOf(method), n,
});

it('samplers: each step shows the core\'s u, noises, clocks or alias coin for that draw, and the histogram grows by one', async () => {
  await widget('samplers').scrollIntoViewIfNeeded();
  await expect.poll(() => mechanisms().count(), { timeout: 60_000 }).toBe(1);
  expect(await histogramCounts()).toEqual([0, 0, 0, 0, 0]);
  const expected = {
    'inverse-cdf': (d: SamplerTraceResult['draws'][number]) => `u = ${d.u!.toFixed(4)}`,
    'gumbel-max': (d: SamplerTraceResult['draws'][number]) => `G = ${d.gumbel![d.token].toFixed(3)}`,
    'exponential-race': (d: SamplerTraceResult['draws'][number]) => `E/p = ${d.arrivals![d.token].toFixed(3)}`,
    alias: (d: SamplerTraceResult['draws'][number]) => `硬币 ${d.coin!.toFixed(3)}`,
  };
  const marks = { 'inverse-cdf': 'line.level-u', 'gumbel-max': 'circle.noisy', 'exponential-race': 'rect.clock', alias: 'line.coin' };
  for (const [method, shown] of Object.entries(expected)) {
    await mechanisms().locator(`.sl-segment[data-value="${method}"]`).click();
    const draws = trace(method, 3).draws;
    for (let k = 0; k < 3; k++) {
      const before = await histogramCounts();
      await mechanisms().getByRole('button', { name: '抽一次' }).click();
      const readout = await mechanisms().locator('.sl-draw-readout').innerText();
      expect(readout).toContain(`第 ${k + 1} 次`);
      expect(readout).toContain(shown(draws[k]));
      expect(readout).toMatch(new RegExp(`→ (取本列 |取别名 )?x${draws[k].token + 1}$`));
      const after = await histogramCounts();
      expect(after.reduce((a, b) => a + b, 0)).toBe(before.reduce((a, b) => a + b, 0) + 1);
      expect(after[draws[k].token]).toBe(before[draws[k].token] + 1);
      expect(await mechanisms().locator(`.sl-mechanism ${marks[method as keyof typeof marks]}`).count()).toBeGreaterThan(0);
    }
  }
  // Gumbel-max: one noisy logit per token, the argmax marked on the drawn token.
  await mechanisms().locator('.sl-segment[data-value="gumbel-max"]').click();
  await mechanisms().getByRole('button', { name: '抽一次' }).click();
  expect(await mechanisms().locator('.sl-mechanism circle.noisy').count()).toBe(5);
  expect(await mechanisms().locator('.sl-mechanism circle.noisy.chosen').getAttribute('data-token')).toBe(String(trace('gumbel-max', 1).draws[0].token));
});

it('samplers: play runs draws on a timer and pause stops them (main-thread tasks timed)', async () => {
  await mechanisms().getByRole('button', { name: '清空重来' }).click();
  await page.evaluate(() => { (window as unknown as { longTasks: number[] }).longTasks = []; });
  await mechanisms().getByLabel('播放速度').fill('20');
  await mechanisms().getByRole('button', { name: '播放' }).click();
  await expect.poll(async () => (await histogramCounts()).reduce((a, b) => a + b, 0), { timeout: 5_000 }).toBeGreaterThan(10);
  await mechanisms().getByRole('button', { name: '暂停' }).click();
  const stopped = (await histogramCounts()).reduce((a, b) => a + b, 0);
  await page.waitForTimeout(400);
  expect((await histogramCounts()).reduce((a, b) => a + b, 0)).toBe(stopped);
  const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
  expectWithin('samplers: longest main-thread task while playing', longest, 100);
});

it('samplers: hovering or focusing a token highlights it in the chips, the mechanism, the histogram and the deviation dots', async () => {
  const host = widget('samplers');
  await mechanisms().getByRole('button', { name: '抽一次' }).click();
  const lit = () => host.locator('.sl-highlight').evaluateAll((nodes) => nodes.map((n) => `${n.closest('svg')?.getAttribute('class') ?? n.className}:${(n as HTMLElement).dataset.token}`));
  await host.locator('.sl-token-chip').nth(1).hover();
  const hovered = await lit();
  expect(hovered.every((entry) => entry.endsWith(':1'))).toBe(true);
  for (const view of ['sl-token-chip', 'sl-mechanism', 'sl-histogram', 'sl-deviation']) expect(hovered.some((entry) => entry.includes(view)), view).toBe(true);
  const dimmed = await host.locator('.sl-deviation circle.dot[data-token="0"]').first().evaluate((el) => getComputedStyle(el).opacity);
  expect(Number(dimmed)).toBeLessThan(0.5);
  // A histogram bar lights the same token elsewhere; the keyboard does what the mouse does.
  await mechanisms().locator('.sl-histogram text.label[data-token="3"]').hover();
  expect((await lit()).every((entry) => entry.endsWith(':3'))).toBe(true);
  await page.mouse.move(0, 0);
  await host.locator('.sl-token-chip').nth(2).focus();
  const focused = await lit();
  expect(focused.length).toBeGreaterThan(4);
  expect(focused.every((entry) => entry.endsWith(':2'))).toBe(true);
  await host.locator('.sl-token-chip').nth(2).blur();
  expect(await lit()).toEqual([]);
});

it('samplers: the draw animations run, and prefers-reduced-motion turns them off', async () => {
  const animation = () => mechanisms().locator('.sl-mechanism .sl-enter').first().evaluate((el) => getComputedStyle(el).animationName);
  await mechanisms().getByRole('button', { name: '抽一次' }).click();
  expect(await animation()).not.toBe('none');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await mechanisms().getByRole('button', { name: '抽一次' }).click();
  expect(await animation()).toBe('none');
  expect(await mechanisms().locator('.sl-histogram .sl-enter').evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
});

it('samplers: with the fixed y-axis, a larger n keeps the axis and the ±2 SE bands narrow by the printed ratio', async () => {
  const host = widget('samplers');
  const tick = () => host.locator('.sl-deviation text.axis-left').first().textContent();
  const bandHeight = () => host.locator('.sl-deviation rect.band').first().evaluate((el) => Number(el.getAttribute('height')));
  expect(await host.getByLabel('固定纵轴（n 变大时纵轴不动）').isChecked()).toBe(true);
  await host.getByLabel('采样次数 n').fill('0');  // 1,000
  await expect.poll(() => host.locator('.sl-band-note').innerText(), { timeout: 60_000 }).toMatch(/到 1,000/);
  const [axis, wide] = [await tick(), await bandHeight()];
  await host.getByLabel('采样次数 n').fill('6');  // 100,000
  await expect.poll(() => host.locator('.sl-band-note').innerText(), { timeout: 60_000 }).toMatch(/从 1,000 到 100,000/);
  expect(await tick()).toBe(axis);
  const ratio = Number(/收窄 ([\d.]+) 倍/.exec(await host.locator('.sl-band-note').innerText())![1]);
  expect(ratio).toBeCloseTo(10, 1);
  expect(wide / await bandHeight()).toBeCloseTo(ratio, 1);
  // Without it the axis follows n, and the note says why the band then looks the same.
  await host.getByLabel('固定纵轴（n 变大时纵轴不动）').uncheck();
  await host.getByLabel('采样次数 n').fill('5');  // 50,000
  await expect.poll(() => host.locator('.sl-band-note').innerText(), { timeout: 60_000 }).toMatch(/看起来一样宽/);
  expect(await tick()).not.toBe(axis);
  await host.getByLabel('固定纵轴（n 变大时纵轴不动）').check();
});

it('samplers: no two labels of its charts overlap at 390 px', async () => {
  await page.setViewportSize({ width: 390, height: 900 });
  await widget('samplers').scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await mechanisms().getByRole('button', { name: '抽一次' }).click();
  for (const chart of ['.sl-deviation', '.sl-mechanism', '.sl-histogram']) {
    const overlaps = await widget('samplers').locator(chart).evaluate((svg) => {
      const boxes = [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect()).filter((b) => b.width > 0);
      let found = 0;
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i], boxes[j]];
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) found++;
        }
      }
      return found;
    });
    expect(overlaps, chart).toBe(0);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('shape: the sampled dots and their whiskers never cover a bar\'s value label', async () => {
  const host = page.locator('#shape');
  await host.scrollIntoViewIfNeeded();
  await host.getByRole('button', { name: /采样 1,000 次/ }).click();
  await expect.poll(() => host.locator('.sl-legend').first().innerText(), { timeout: 60_000 }).toMatch(/已抽 1,000 次/);
  const covered = await host.locator('svg.sl-bars').first().evaluate((root) => {
    const labels = [...root.querySelectorAll('text.value')].map((t) => t.getBoundingClientRect());
    const marks = [...root.querySelectorAll('circle.sampled, line.whisker')].map((m) => m.getBoundingClientRect());
    return labels.filter((a) => marks.some((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)).length;
  });
  expect(covered).toBe(0);
});

it('mc-error: no slope, std chart or table before the guess; the answer and the guess\'s distance after', async () => {
  const host = widget('mc-error');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => host.locator('.sl-body .sl-table tbody tr').count(), { timeout: 60_000 }).toBe(7);
  const visibleText = () => host.locator('.sl-body').innerText();
  expect(await visibleText()).not.toMatch(/−0\.4\d|-0\.4\d|拟合出的斜率/);
  expect(await host.locator('.sl-body .sl-table').isVisible()).toBe(false);
  await host.getByLabel('我猜缩小').fill('3');  // 5×
  await reveal(host).click();
  const answer = await host.locator('.sl-predict-answer').innerText();
  expect(answer).toMatch(/答案：10 倍/);
  expect(answer).toMatch(/拟合出的斜率是 -0\.4\d\d|拟合出的斜率是 -0\.5\d\d/);
  expect(answer).toContain('你猜 5 倍：少猜了，答案是你猜的 2.0 倍');
  expect(await host.locator('.sl-body .sl-table').isVisible()).toBe(true);
  expect(await host.locator('[data-readout="slope"]').isVisible()).toBe(true);
});

it('mc-error: each run\'s estimate falls onto the chart as a dot, a few per frame, inside the dashed p ± 2 SE band; the table counts those outside', async () => {
  const host = widget('mc-error');
  const dots = host.locator('svg.sl-lines').first().locator('circle');
  await host.locator(':scope > .sl-footer .sl-reset').click();
  // Drawn frame by frame: a count between none and all is seen on the way.
  const seen = new Set<number>();
  await expect.poll(async () => { seen.add(await dots.count()); return dots.count(); }, { timeout: 20_000, intervals: [30] }).toBe(700);
  expect([...seen].some((count) => count > 0 && count < 700)).toBe(true);
  const legend = await host.locator('.sl-legend').first().innerText();
  expect(legend).toMatch(/每个点：一次实验（抽 n 次）得到的估计[\s\S]*p ± 2 个标准误，约 95% 的点落在里面[\s\S]*真值 p = 0\.3/);
  // About 5 % of all runs fall outside p ± 2 SE at large n (n = 10 is too coarse for the normal approximation).
  const outside = (await host.locator('.sl-body .sl-table tbody tr td:last-child').allTextContents()).map((cell) => parseFloat(cell));
  expect(outside.at(-1)).toBeGreaterThan(2);
  expect(outside.at(-1)).toBeLessThan(8);
});

it('speculative: the stepper shows each verification\'s drafts, checks and redraw, and the two rules\' frequencies beside p', async () => {
  const host = widget('speculative');
  await host.scrollIntoViewIfNeeded();
  const stepper = host.locator('.sl-stepper');
  await expect.poll(() => stepper.locator('.sl-draw-readout').textContent(), { timeout: 60_000 }).toBe('还没有验证：点“验证一次”或“播放”。');
  for (let i = 0; i < 3; i++) await stepper.getByRole('button', { name: '验证一次' }).click();
  expect(await stepper.locator('.sl-draw-readout').textContent()).toMatch(/^第 3 步：x\d [✓✗]（u = 0\.\d\d [<≥] p\/q = \d\.\d\d）/);
  expect(await stepper.locator('.sl-legend').innerText()).toMatch(/目标 p[\s\S]*章节的规则：从残差重抽[\s\S]*错误规则：从 p 重抽/);
  // A new draft starts a new run from its first step.
  await host.locator('.sl-toolbar .sl-segment[data-value="far"]').click();
  await expect.poll(() => stepper.locator('.sl-draw-readout').textContent()).toBe('还没有验证：点“验证一次”或“播放”。');
  await host.locator('.sl-toolbar .sl-segment[data-value="uniform"]').click();
});

it('sequence: leaves show "?" and no path before the guess; the best, greedy and the guess\'s shortfall after', async () => {
  const host = widget('sequence');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => host.locator('.sl-tree-svg text.leaf').count(), { timeout: 60_000 }).toBe(4);
  expect(await host.locator('.sl-tree-svg text.leaf').allTextContents()).toEqual(['A a1  ?', 'A a2  ?', 'B b1  ?', 'B b2  ?']);
  expect(await host.locator('.sl-tree-svg .edge.best, .sl-tree-svg .edge.greedy').count()).toBe(0);
  expect(await host.locator('.sl-body').innerText()).not.toMatch(/0\.36|贪心第二步/);
  expect(await host.locator('.sl-handbook').isVisible()).toBe(false);
  expect(await reveal(host).isDisabled()).toBe(true);
  await host.locator('[data-predict="best-sequence"]').getByRole('button', { name: 'A a1' }).click();
  await reveal(host).click();
  expect(await host.locator('.sl-predict-answer').first().innerText()).toMatch(/概率最大的是 \(B, b1\) 0\.36，贪心得到的是 \(A, a1\) 0\.30。你选的 \(A, a1\) 0\.30，比最大的少 0\.06/);
  expect(await host.locator('.sl-tree-svg .edge.best').count()).toBeGreaterThan(0);
  expect(await host.locator('.sl-tree-svg text.leaf').first().textContent()).toBe('A a1  0.300');
  expect(await host.locator('.sl-handbook').isVisible()).toBe(true);
});

it('sequence: the three-step tree asks about width 2 first, and its note describes that tree only then', async () => {
  const host = widget('sequence');
  await host.getByRole('button', { name: '束宽有用的三步树' }).click();
  await expect.poll(() => host.locator('.sl-tree-svg text.leaf').count(), { timeout: 60_000 }).toBe(8);
  expect(await host.locator('.sl-body').innerText()).not.toMatch(/贪心第二步|0\.24/);
  await host.locator('[data-predict="beam-finds-best"]').getByRole('button', { name: '能', exact: true }).click();
  await host.locator('[data-predict="beam-finds-best"]').getByRole('button', { name: '我猜好了，揭晓答案' }).click();
  expect(await host.locator('[data-predict="beam-finds-best"] .sl-predict-answer').innerText()).toMatch(/^猜错了：束宽 2 没有找到/);
  expect(await host.locator('.sl-body > .sl-note').first().innerText()).toMatch(/三步树里，贪心第二步/);
  await host.getByRole('button', { name: '手册示例树' }).click();
});

it('sequence: the log-space demo multiplies to 0 in float32 and float64 while the log sum stays -921.03', async () => {
  const host = widget('sequence');
  const value = (name: string) => host.locator(`[data-readout="${name}"] dd`).innerText();
  await expect.poll(() => value('log-sum')).toBe('-921.03 (= 1.0 × 10⁻⁴⁰⁰)');
  expect(await value('float64')).toBe('0');
  expect(await value('float32')).toBe('0');
  expect(await host.locator('.sl-log-space .sl-note').innerText()).toMatch(/float32 的乘积在第 46 个 token 变成 0，float64 的乘积在第 324 个 token 变成 0/);
  await host.getByLabel('序列长度（token 数）').fill('300');
  await expect.poll(() => value('float64')).toBe('1.000 × 10⁻³⁰⁰');
  expect(await value('float32')).toBe('0');
});

it('speculative: the acceptance numbers wait for the guess; the pitfall and exercise 1 are put into words', async () => {
  const host = widget('speculative');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => host.locator('.sl-overlap rect.target').count(), { timeout: 60_000 }).toBe(4);
  expect(await host.locator('.sl-body').innerText()).not.toMatch(/0\.700/);
  expect(await host.locator('[data-readout="acceptance"]').isVisible()).toBe(false);
  await host.getByLabel('我猜接受率是').fill('0.5');
  await reveal(host).click();
  expect(await host.locator('.sl-predict-answer').innerText()).toMatch(/= 0\.700（模拟 0\.70\d）.*你猜 0\.50，差 0\.20/);
  await host.getByRole('checkbox', { name: /top-2/ }).check();
  await expect.poll(() => host.locator('.sl-verdict').innerText(), { timeout: 60_000 }).toMatch(/练习 1 的答案.*0\.875.*0\.700：这里升高了/);
  await host.getByRole('checkbox', { name: /未截断/ }).check();
  await expect.poll(() => host.locator('.sl-verdict').innerText(), { timeout: 60_000 }).toMatch(/为什么模拟的接受率 1\.000 与公式的 0\.875 不同.*每一个都被接受/);
  expect(await host.locator('.sl-body > .sl-note').innerText()).toMatch(/错误做法的输出不服从目标分布/);
  await host.getByRole('checkbox', { name: /未截断/ }).uncheck();
  await host.getByRole('checkbox', { name: /top-2/ }).uncheck();
});

it('importance: the ESS waits for the guess; the true mean is a dashed line and the third shift a slider', async () => {
  const host = widget('importance');
  await host.scrollIntoViewIfNeeded();
  await expect.poll(() => host.locator('.sl-body .sl-table tbody tr').count(), { timeout: 60_000 }).toBe(12);
  expect(await host.locator('[data-readout="ess"] dd').innerText()).toBe('?');
  expect(await host.locator('.sl-panel figcaption').allInnerTexts()).toEqual(['q 偏移 0；虚线是真值 6.20', 'q 偏移 1；虚线是真值 6.20', 'q 偏移 3；虚线是真值 6.20']);
  await host.getByLabel('我猜 ESS 是').fill('600');
  await reveal(host).click();
  expect(await host.locator('.sl-predict-answer').innerText()).toMatch(/偏移 3 时 ESS ≈ 4\d\d \/ 1,000（300 次重复的平均）。你猜 600，差 1\d\d/);
  expect(await host.locator('[data-readout="ess"] dd').innerText()).toMatch(/^1000 \/ 9\d\d \/ 4\d\d/);
  await host.getByLabel('第三组 q 相对 p 的偏移（章节用 3）').fill('2');
  await expect.poll(() => host.locator('.sl-panel figcaption').last().innerText(), { timeout: 60_000 }).toMatch(/^q 偏移 2：ESS ≈ \d+；/);
  expect(await host.locator(".sl-note").last().innerText()).toMatch(/PPO、GRPO 的比值（新策略的概率除以旧策略的概率）/);
});

it('importance: p, q and each token\'s weight w = p/q; after the guess, one batch\'s weights sorted with the share its top samples carry, its ESS and what the clip cuts; each estimator in one line', async () => {
  const host = widget('importance');
  await host.getByLabel('第三组 q 相对 p 的偏移（章节用 3）').fill('3');
  await expect.poll(() => host.locator('.sl-panel figcaption').last().innerText(), { timeout: 60_000 }).toMatch(/^q 偏移 3：/);
  expect(await host.locator('[data-readout="batch-ess"] dd').innerText()).toMatch(/^\d+ \/ 1,000$/);
  // Ten tokens' weights, rising with the shift's ramp: the tokens q draws least weigh most.
  expect(await host.locator('svg.sl-lines').first().locator('circle').count()).toBe(10);
  const share = async (name: string) => parseFloat(await host.locator(`[data-readout="${name}"] dd`).innerText());
  // At shift 3 the top 10 % of samples carry about a third of the weight, against 10 % at shift 0.
  expect(await share('top10')).toBeGreaterThan(25);
  expect(await share('top1')).toBeGreaterThan(1);
  expect(await host.locator('[data-readout="clipped"] dd').innerText()).toMatch(/^\d+ 个样本被截，去掉总权重的 \d+\.\d%$/);
  expect(await host.locator('.sl-estimators li').allInnerTexts()).toEqual([
    expect.stringMatching(/^普通 IS：/), expect.stringMatching(/^TIS（截断）：/), expect.stringMatching(/^MIS（丢弃）：/), expect.stringMatching(/^自归一化 IS：/),
  ]);
});

it('sample size: the two sampling distributions narrow with n and separate past the marked ≈ 1,152, where the band leaves 0', async () => {
  const host = widget('sample-size');
  await host.scrollIntoViewIfNeeded();
  const value = (name: string) => host.locator(`[data-readout="${name}"] dd`).innerText();
  const verdict = host.locator('.sl-body > .sl-verdict');
  await expect.poll(() => value('n'), { timeout: 60_000 }).toBe('1,152');
  expect(await host.locator('.sl-lines text.marker-label').allTextContents()).toContain('≈ 1,152');
  // Just below and just above the sample size (the slider moves in steps of log₁₀ n).
  const peaks: number[] = [];
  for (const [exponent, n, separated] of [['3.05', 1122, false], ['3.1', 1259, true]] as const) {
    await host.getByRole('slider', { name: '每个配置的样本数 n' }).fill(exponent);
    const expected = lab.runExperiment('sample-size', { n }).at!;
    await expect.poll(() => value('z-at-n')).toBe(expected.z.toFixed(2));
    expect(await verdict.innerText()).toMatch(separated ? /两条曲线分开了/ : /两条曲线大面积重叠/);
    peaks.push(Math.max(...expected.distributions.first));
  }
  // The core's curve, drawn here, is √(1259/1122) times taller (to the grid's spacing).
  expect(peaks[1] / peaks[0]).toBeCloseTo(Math.sqrt(1259 / 1122), 3);
  await host.locator(':scope > .sl-footer .sl-reset').click();
});

it('eval-error: each "simulate one eval" adds both models\' measured accuracies as dots, and the tally counts how often B came out ahead', async () => {
  const host = widget('eval-error');
  await host.scrollIntoViewIfNeeded();
  const tally = host.locator('.sl-draw-readout');
  await expect.poll(() => tally.innerText(), { timeout: 60_000 }).toMatch(/^每次模拟让两个模型各答 200 道题/);
  for (let i = 0; i < 3; i++) await host.getByRole('button', { name: '模拟一次 200 道题的评测' }).click();
  await host.getByRole('button', { name: '再模拟 10 次' }).click();
  const run = lab.runExperiment('eval-error', { evals: 13, seed: 11 }).simulated!;
  await expect.poll(() => tally.innerText()).toBe(
    `13 次 200 道题的评测：B 领先 ${run.secondAhead} 次，打平 ${run.tied} 次，落后 ${run.secondBehind} 次——B 真的更好，但 ${run.tied + run.secondBehind} 次评测没看出来。`);
  expect(await host.locator('svg.sl-lines circle').count()).toBe(26);
  // The eval set's size follows its slider, and the dots follow the settings.
  await host.getByRole('slider', { name: '题目数' }).fill('1000');
  await expect.poll(() => tally.innerText()).toMatch(/^13 次 1,000 道题的评测/);
  await host.getByRole('button', { name: '清空' }).click();
  await expect.poll(() => host.locator('svg.sl-lines').isVisible()).toBe(false);
  await host.locator(':scope > .sl-footer .sl-reset').click();
});

it('sequence: on the random models, beam search steps through its frontier (kept and pruned, by log P) beside greedy', async () => {
  const host = widget('sequence');
  await host.scrollIntoViewIfNeeded();
  await host.getByRole('button', { name: '随机模型' }).click();
  const panel = host.locator('.sl-beam-steps');
  await expect.poll(() => panel.locator('.sl-draw-readout').innerText(), { timeout: 60_000 }).toMatch(/^第 \d+ 个随机模型（3 个 token、长度 4），束宽 2/);
  const steps = lab.runExperiment('beam-steps', { vocab: 3, depth: 4, width: 2, sharpness: 1 });
  for (let t = 0; t < 4; t++) {
    await panel.getByRole('button', { name: '走一步' }).click();
    const rows = panel.locator('table.sl-frontier tbody tr');
    const candidates = steps.steps[t].candidates;
    await expect.poll(() => rows.count()).toBe(candidates.length);
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(candidates.map((c) => c.logProb!.toFixed(2)));
    expect(await panel.locator('tr.sl-kept').count()).toBe(Math.min(2, candidates.length));
    expect(await panel.locator('.sl-draw-readout').innerText()).toMatch(new RegExp(`^第 ${t + 1}/4 步：${candidates.length} 个候选，保留 2 个。贪心此时是`));
  }
  // The model is one where greedy misses the most probable sequence; the verdict says so.
  expect(steps.greedy.prob).toBeLessThan(steps.best.prob);
  expect(await panel.locator('.sl-note').last().innerText()).toMatch(/贪心没有/);
  await host.getByRole('button', { name: '手册示例树' }).click();
});

it('self-test: each answer stays behind its button until a choice, then says whether the choice was right', async () => {
  await page.locator('.self-test').scrollIntoViewIfNeeded();
  const questions = page.locator('.self-test-question');
  expect(await questions.count()).toBe(5);
  expect(await page.locator('.self-test-answer').evaluateAll((answers) => answers.every((a) => (a as HTMLElement).hidden))).toBe(true);
  const second = questions.nth(1);
  expect(await second.getByRole('button', { name: '揭晓答案' }).isDisabled()).toBe(true);
  await second.getByLabel(/^p \/ n，/).check();
  await second.getByRole('button', { name: '揭晓答案' }).click();
  expect(await second.locator('.self-test-verdict').innerText()).toBe('没答对，正确的是：√(p(1 − p) / n)，随 1/√n 下降：误差缩小到十分之一要 100 倍的采样');
  expect(await second.locator('.self-test-answer').innerText()).toMatch(/标准误约 √\(p\(1−p\)\/n\)/);
  await second.getByLabel(/^√\(p\(1 − p\) \/ n\)/).check();
  expect(await second.locator('.self-test-verdict').innerText()).toBe('答对了。');
  expect(await questions.nth(0).locator('.self-test-answer').isVisible()).toBe(false);
});

it('self-test: the right choice is never told apart by its length (every choice within 30 % of the question\'s mean), in both languages', async () => {
  for (const lang of ['zh-CN', 'en']) {
    await page.evaluate((l) => { document.documentElement.lang = l; }, lang);
    const lengths = await page.locator('.self-test-question').evaluateAll((questions) => questions.map((q) =>
      [...q.querySelectorAll('input[type="radio"] + *')].map((label) => label.textContent!.length)));
    for (const [i, choices] of lengths.entries()) {
      const mean = choices.reduce((a, b) => a + b, 0) / choices.length;
      for (const length of choices) expect(Math.abs(length - mean) / mean, `${lang} question ${i + 1}: ${choices}`).toBeLessThan(0.3);
    }
  }
  await page.evaluate(() => { document.documentElement.lang = 'zh-CN'; });
});

it('in English: the mechanism, the predictions and the self-test speak English', async () => {
  await page.evaluate(() => { document.documentElement.lang = 'en'; });
  await mechanisms().getByRole('button', { name: 'Draw once' }).click();
  expect(await mechanisms().locator('.sl-draw-readout').innerText()).toMatch(/^Draw \d+: /);
  expect(await widget('mc-error').locator('.sl-predict-answer').innerText()).toMatch(/^Answer: ten times/);
  expect(await page.locator('.self-test-question').nth(1).locator('.self-test-verdict').innerText()).toBe('Right.');
  const cjk = await page.locator('.self-test, sampling-lab[experiment="samplers"] .sl-mechanisms').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).innerText).join('').match(/[\u3400-\u9fff]/g) ?? []);
  expect(cjk).toEqual([]);
  await page.evaluate(() => { document.documentElement.lang = 'zh-CN'; });
});

it('logged no console error and no failed request', () => {
  expect(problems).toEqual([]);
});
