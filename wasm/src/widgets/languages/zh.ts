// The widgets' text in Chinese, the default; en.ts must have the same keys and kinds (Strings).
import type { SamplerTraceResult } from '../../lab/experiments.js';

type TraceView = Pick<SamplerTraceResult, 'cdf' | 'aliasTable'>;
type DrawView = SamplerTraceResult['draws'][number];

// Where in its chapter a handbook figure is printed (wasm/src/handbook.ts), in Chinese.
const WHERE_ZH: Record<string, string> = {
  'worked example': '示例', exercise: '练习', 'Monte-Carlo error, text': '蒙特卡洛误差一节的正文',
  'Monte-Carlo check of speculative sampling': '投机采样的蒙特卡洛验证',
  'section “Sampling algorithms”': '“采样算法”一节', 'section “Sequence probability”': '“序列的概率”一节',
  'section “Importance sampling”': '“重要性采样”一节',
};
const whereZh = (where: string) => WHERE_ZH[where] ?? where.replace(/^exercise (\d+)$/, '练习 $1');

// A handbook figure's name (its id is in widgets/handbook.ts).
const FIGURES: Record<string, string> = {
  'decoding.probs': '解码一章的示例：8 个 logits 的概率',
  'decoding.topK3': 'top-k = 3 保留的个数',
  'decoding.topP0.8': 'top-p = 0.8 保留的个数',
  'decoding.minP0.1': 'min-p = 0.1 保留的个数',
  'decoding.T0.5.topP0.8': 'T = 0.5 后 top-p = 0.8 保留的个数',
  'decoding.exercise.topP0.75': '练习：[0.5, 0.2, 0.15, 0.1, 0.05] 上 top-p = 0.75 保留',
  'decoding.exercise.topP0.5': '练习：同一分布上 top-p = 0.5 保留',
  'decoding.penalties': '存在惩罚 0.5、频率惩罚 0.2，已生成 [1, 1, 3]：logit 的变化',
  'eval-error.standardError': '200 道题、70% 正确率的标准误',
  'sequence.best': '概率最大的序列 (B, b1)',
  'sequence.greedy': '贪心得到的序列 (A, a1)',
  'speculative.acceptance': '接受率 Σ min(p, q)',
  'speculative.acceptance.simulated': '接受率，200,000 次模拟',
  'speculative.output': '输出的频率',
  'speculative.tokens': '每次验证的期望 token 数（α = 0.7, γ = 4）',
  'importance.trueMean': '真实均值 E_p[x]',
  'sample-size.means': '练习 2：每个配置需要的样本数',
};
const METHODS: Record<string, string> = { inverseCdf: '逆 CDF', gumbelMax: 'Gumbel-max', exponentialRace: '指数竞赛' };

function figureLabel(id: string): string {
  if (FIGURES[id]) return FIGURES[id];
  const sampler = /^samplers\.(\w+)\.(frequencies|maxDeviation)$/.exec(id);
  if (sampler) return sampler[2] === 'frequencies' ? `${METHODS[sampler[1]]}的频率（n = 200,000）` : `${METHODS[sampler[1]]}与 p 的最大偏差`;
  const importance = /^importance\.shift(\d+)\.(estimate|ess|clipped)$/.exec(id);
  if (importance) {
    const what = { estimate: '普通 IS 估计', ess: 'ESS', clipped: '截断（c = 2）估计' }[importance[2] as 'estimate'];
    return `q 偏移 ${importance[1]}：${what}`;
  }
  return id;
}

export const zh = {
  language: 'zh' as 'zh' | 'en',
  loading: '正在加载 WebAssembly…',
  reset: '重置',
  copyEmbed: '复制嵌入代码',
  embedCopied: '已复制：带当前设置、语言和配色的 iframe 代码。',
  embedSelected: '代码已选中，按 Ctrl+C（或 ⌘C）复制。',
  embedCode: '嵌入代码',
  loadFailed: '加载失败：',
  unknownExperiment: '未知实验：',
  handbookTokens: (v: number) => `手册 softmax 组件的 ${v} 个词`,
  syntheticTokens: (v: number) => `合成分布（${v.toLocaleString('en')} 个词）`,
  distribution: '分布',
  play: '扫描温度',
  pause: '暂停',
  temperature: '温度 T',
  topK: 'top-k（0 = 不限）',
  topP: 'top-p',
  minP: 'min-p（0 = 关闭）',
  entropy: '熵',
  bits: '比特',
  kept: '候选',
  keptUnit: '个',
  keptMass: '占总概率',
  topProb: '最大概率',
  tokensFor90: '凑够 90% 需要',
  tokensUnit: '个 token',
  greedy: '贪心',
  rank: '排名（对数）',
  probability: '概率（对数）',
  keptSeries: '保留',
  cutSeries: '被截掉',
  advancedSamplers: '更多采样器：typical、top-nσ、XTC、mirostat 与顺序',
  advancedNote: '在 151,936 个词的分布上：每条曲线的颜色说明哪一步截掉了这些 token。',
  typicalP: 'typical-p（1 = 关闭）',
  topNSigma: 'top-nσ（0 = 关闭）',
  xtcProbability: 'XTC 触发概率（0 = 关闭）',
  xtcThreshold: 'XTC 阈值',
  mirostat: 'mirostat',
  mirostatVersions: { off: 'mirostat 关闭', v1: 'mirostat 1', v2: 'mirostat 2' },
  mirostatTau: 'mirostat 目标惊讶度 τ（比特）',
  order: '顺序',
  orders: { handbook: '手册：先温度再截断', 'llama.cpp': 'llama.cpp：先截断再温度' },
  chartSummary: (kept: number, total: number) => `${total} 个 token 中保留 ${kept} 个的概率分布`,
  running: '正在运行',
  seed: '种子',
  reseed: '换一个种子重跑',
  sampleCount: '采样次数 n',
  method: '方法',
  maxDeviation: '与 p 的最大偏差',
  chiSquareP: 'χ² p 值',
  methodNames: { 'inverse-cdf': '逆 CDF', 'gumbel-max': 'Gumbel-max', 'exponential-race': '指数竞赛', alias: '别名法' } as Record<string, string>,
  samplersSummary: (n: number) => `四种采样方法各采样 ${n.toLocaleString()} 次的频率与 p 的对比`,
  twoStandardErrors: '±2 标准误：偶然误差的范围',
  pValueNote: '每个点是频率减去 p。方法正确时，点大多落在 ±2 标准误的灰带里，n 增大 100 倍，灰带收窄 10 倍。χ² 的 p 值在方法正确时是 0 到 1 之间均匀分布的：每 20 次就有约 1 次低于 0.05，这不是错误；只有极小的 p（例如小于 10⁻⁶）、反复出现，才说明采样方法有问题。换几个种子试试。',
  fixedScale: '固定纵轴（n 变大时纵轴不动）',
  bandHint: '拖动 n：纵轴固定时，n 变大，灰带会按 1/√n 收窄。',
  bandRatio: (from: number, to: number, before: number, after: number, fixed: boolean) => {
    const grew = to > from;
    const times = grew ? before / after : after / before;
    return `n 从 ${from.toLocaleString()} 到 ${to.toLocaleString()}（${grew ? '×' : '÷'}${(grew ? to / from : from / to).toLocaleString()}）：x1 的 ±2 标准误从 ±${before.toPrecision(2)} 变为 ±${after.toPrecision(2)}，${grew ? '收窄' : '放宽'} ${times.toFixed(1)} 倍${fixed ? '' : '（纵轴随 n 缩放，所以灰带看起来一样宽；勾上“固定纵轴”看它变窄）'}。`;
  },
  mechanismsTitle: '一次一次地看：每次抽样是怎么来的',
  mechanismsIntro: '同一个分布 p，一次只抽一个。数字都来自核心：同样的种子和 Philox 流，第 k 次抽样就是上面 n 次里的第 k 次。把鼠标移到（或用 Tab 移到）某个 token 上，它在每个图里都会高亮。',
  tokenChips: 'token（悬停或聚焦以高亮）',
  stepDraw: '抽一次',
  playDraws: '播放',
  pauseDraws: '暂停',
  clearDraws: '清空重来',
  drawSpeed: '播放速度',
  drawsPerSecond: (v: number) => `每秒 ${v} 次`,
  noDrawYet: '还没有抽样：点“抽一次”或“播放”。',
  drawReadout: (method: string, k: number, draw: DrawView, labels: readonly string[], trace: TraceView) => {
    const t = labels[draw.token];
    switch (method) {
      case 'inverse-cdf': {
        const low = draw.token === 0 ? 0 : trace.cdf![draw.token - 1];
        return `第 ${k} 次：u = ${draw.u!.toFixed(4)}，落在 F 的 [${low.toFixed(3)}, ${trace.cdf![draw.token].toFixed(3)}) 这一段 → ${t}`;
      }
      case 'gumbel-max':
        return `第 ${k} 次：${t} 的 log p + G 最大（G = ${draw.gumbel![draw.token].toFixed(3)}，log p + G = ${draw.noisyLogits![draw.token].toFixed(3)}）→ ${t}`;
      case 'exponential-race':
        return `第 ${k} 次：${t} 的闹钟最先响（E = ${draw.clocks![draw.token].toFixed(3)}，响铃时间 E/p = ${draw.arrivals![draw.token].toFixed(3)}）→ ${t}`;
      default: {
        const keep = trace.aliasTable!.threshold[draw.column!];
        return draw.coin! < keep
          ? `第 ${k} 次：选中第 ${draw.column! + 1} 列，硬币 ${draw.coin!.toFixed(3)} < 本列阈值 ${keep.toFixed(3)} → 取本列 ${t}`
          : `第 ${k} 次：选中第 ${draw.column! + 1} 列，硬币 ${draw.coin!.toFixed(3)} ≥ 本列阈值 ${keep.toFixed(3)} → 取别名 ${t}`;
      }
    }
  },
  methodWhy: {
    'inverse-cdf': '逆 CDF：取 u ~ U(0, 1)，返回第一个累计概率 F(x) 超过 u 的 token。每个 token 的台阶高度正好是 p(x)，u 落进这一段的概率就是 p(x)。它需要前缀和与一次查找。',
    'gumbel-max': 'Gumbel-max：给每个 log p 加上独立的 Gumbel 噪声 G = −log(−log u)，取最大者。为什么成立：G = −log E，E ~ Exp(1)，所以 argmax(log p + G) = argmax(p / E)，就是指数竞赛；而最先响的闹钟是 x 的概率恰好是 p(x)。GPU 上：只有逐元素运算和一次 argmax，没有前缀和、没有 CPU-GPU 同步，适合批量执行。',
    'exponential-race': '指数竞赛：每个 token 一只闹钟，E/p(x) 是速率 p(x) 的指数分布的响铃时间，最先响的赢；若干独立指数分布中最小的是 x 的概率为 p(x)/Σp。vLLM 的采样器用的就是它：逐元素运算加一次 argmax，没有前缀和、没有同步，适合 GPU。',
    alias: '别名法（Vose 1991）：V 列，每列高 1，下面是本列的 token（高度是阈值），上面是它的别名。均匀地选一列，再抛一枚硬币：低于阈值取本列，否则取别名。建表 O(V)，之后每次抽样 O(1)。',
  } as Record<string, string>,
  mechanismSummary: (method: string, k: number) => `第 ${k} 次抽样的过程（${method}）`,
  ringTime: '时间',
  aliasColumn: '列',
  coin: '硬币',
  firstToRing: '最先响',
  aliasKeep: '本列阈值',
  aliasOf: '别名',
  histogramSummary: (k: number) => `已抽 ${k} 次：每个 token 的次数与期望次数 k·p`,
  drawCount: '次数',
  expectedCount: '期望次数 k·p（虚线框）',
  revealAnswer: '我猜好了，揭晓答案',
  guessAgain: '再猜一次',
  largestN: '最大的 n',
  repeats: '重复次数',
  drawsPerRun: '每次实验的采样数 n',
  stdOfEstimate: '估计值的标准差',
  theoryLine: '理论 √(p(1−p)/n)',
  measured: '实测',
  ratio: '实测 / 理论',
  mcErrorSummary: (p: number, repeats: number) => `p = ${p}，每个 n 重复 ${repeats} 次，估计值标准差随 n 的变化（对数坐标）`,
  slopeQuestion: '先猜：每次实验的采样数 n 翻 100 倍，估计值的标准差缩小几倍？',
  slopeGuess: '我猜缩小',
  slopeAnswer: (slope: string, guess: number, measured?: { from: number; to: number; before: number; after: number }) =>
    `答案：10 倍。标准差 ∝ n^−½，在对数坐标上是斜率 −½ 的直线，这里拟合出的斜率是 ${slope}${measured ? `；实测 n = ${measured.from.toLocaleString()} 时 ${measured.before.toFixed(4)}，n = ${measured.to.toLocaleString()} 时 ${measured.after.toFixed(4)}，缩小 ${(measured.before / measured.after).toFixed(1)} 倍` : ''}。你猜 ${guess} 倍：${guess === 10 ? '猜对了' : guess < 10 ? `少猜了，答案是你猜的 ${(10 / guess).toFixed(1)} 倍` : `多猜了，是答案的 ${(guess / 10).toFixed(1)} 倍`}。要把误差缩小到十分之一，样本要多一百倍。`,
  estimateOfP: 'p 的估计值',
  oneRunEstimate: '每个点：一次实验（抽 n 次）得到的估计',
  envelope: '虚线之间：p ± 2 个标准误，约 95% 的点落在里面',
  envelopeHigh: 'p + 2 个标准误',
  envelopeLow: 'p − 2 个标准误',
  trueP: (p: number) => `真值 p = ${p}`,
  dotsSummary: (p: number, shown: number, repeats: number) => `每个 n 画出前 ${shown} 次实验（共 ${repeats} 次）对 p = ${p} 的估计：n 越大，点越贴近真值，带宽按 1/√n 收窄`,
  outsideEnvelope: '落在 ±2 标准误之外',
  fittedSlope: '拟合出的斜率 log std / log n',
  theory: '理论',
  gap: '第二个模型高出',
  percentagePoints: '个百分点',
  modelA: '模型 A',
  modelB: '模型 B',
  intervalsSummary: (n: number) => `${n} 道题上两个模型正确率的 95% 区间`,
  gapInSe: '差距 / 差值的标准误',
  questionsForGap: '差距达到 2 个标准误需要的题数',
  gapVerdict: (clear: boolean, n: number, gap: number, needed: number) => (clear
    ? `在 ${n.toLocaleString('en')} 道题上，${(100 * gap).toFixed(1)} 个百分点的差距超过了 2 个标准误：可以说 B 更好。`
    : `在 ${n.toLocaleString('en')} 道题上，${(100 * gap).toFixed(1)} 个百分点的差距不到 2 个标准误，两个区间大面积重叠：这个评测集分辨不出谁更好，大约要 ${needed.toLocaleString('en')} 道题。`),
  model: '模型',
  handbookTree: '手册示例树',
  randomModels: '随机模型',
  beamTree: '束宽有用的三步树',
  treeSequence: '序列',
  treeProbability: '序列概率',
  beamWidthPath: (w: number) => `束宽 ${w}`,
  dullNote: '“概率最大”不等于“好文本”：对真实语言模型，整句概率最大的往往是短的、重复的、泛泛的句子——每一步都选最保险的常见词，概率连乘起来最大。这就是束搜索在开放式生成里显得无聊、爱重复的原因，也是采样保留多样性的理由。',
  bestSequenceQuestion: '先猜：四条序列里，哪一条的概率最大？（边上是条件概率）',
  beamQuestion: '先猜：束宽 2 能找到这棵三步树里概率最大的序列吗？',
  yes: '能',
  no: '不能',
  bestSequenceAnswer: (best: string, greedy: string, chosen: string | undefined, gap: number) =>
    `概率最大的是 ${best}，贪心得到的是 ${greedy}。${chosen === undefined ? '' : gap <= 1e-12 ? `你选的 ${chosen} 就是概率最大的。` : `你选的 ${chosen}，比最大的少 ${gap.toFixed(2)}。`}序列概率是条件概率的乘积：先选概率略低的一步，后面可能接上概率高得多的延续。`,
  beamAnswer: (found: boolean, right: boolean, widthTwo: string, best: string) =>
    `${right ? '猜对了' : '猜错了'}：束宽 2 ${found ? '找到了' : '没有找到'}概率最大的序列（束宽 2 得到 ${widthTwo}，最大的是 ${best}）。`,
  handbookTreeNote: '贪心第一步选条件概率更大的那一支，但那一支之后的条件概率可能都不高；整条序列的概率要把每一步乘起来比。',
  beamTreeNote: '三步树里，贪心第二步选了看起来更好的 b（0.55），错过了 A a 2；束宽 2 在第二步只留下 B a 和 A b，也错过了它；束宽 4 才找到：前面看起来差一点的前缀，后面可能接上好得多的延续。',
  beamTreeSummary: '三步序列树：每条边上是条件概率，叶子上是整条序列的概率',
  logSpaceTitle: '为什么在对数空间里算：几百个概率相乘会下溢为 0',
  logSpaceTokenProb: '每个 token 的概率',
  logSpaceLength: '序列长度（token 数）',
  productIn: (kind: string) => `逐个相乘（${kind}）`,
  logSumLabel: '对数相加 Σ log p',
  logSpaceVerdict: (length: number, p: number, float32: number | null, float64: number | null) =>
    `${length} 个概率为 ${p} 的 token：${float32 === null ? 'float32 的乘积没有下溢' : `float32 的乘积在第 ${float32} 个 token 变成 0`}，${float64 === null ? 'float64 的乘积没有下溢' : `float64 的乘积在第 ${float64} 个 token 变成 0`}；对数的和只是一个普通的负数，比较两条序列照样可靠。所以序列概率都在对数空间里算。`,
  treeSummary: '两步序列树：每条边上是条件概率，叶子上是整条序列的概率',
  greedyPath: '贪心',
  bestPath: '概率最大',
  beamPath: '束宽 2',
  vocabSize: '词表大小 V',
  sequenceLength: '序列长度',
  sharpness: '分布尖锐程度',
  greedyMissRate: '贪心错过最优的比例',
  closingWidth: '找回最优所需束宽',
  beamWidth: '束宽',
  missRate: '错过最优',
  meanProbRatio: '平均概率 / 最优',
  presetUniform: '均匀 q',
  presetClose: '接近 p 的 q',
  presetFar: '远离 p 的 q',
  draftModel: '草稿',
  targetModel: '目标',
  overlap: 'min(p, q)：接受率',
  residual: '残差 max(0, p − q)：拒绝后从这里重采样',
  closeness: '草稿向目标靠近 λ：q ← (1 − λ) q + λ p',
  acceptanceRate: '接受率',
  theoryDiagonal: '理论：接受率 = 1 − TV',
  simulatedAcceptance: '模拟的接受率',
  sweepSummary: '草稿逐步靠近目标时，模拟的接受率落在对角线 接受率 = 1 − TV 上',
  overlapSummary: (a: number) => `目标分布 p 与草稿分布 q，重叠部分 min(p, q) 之和 ${a.toFixed(3)} 就是接受率`,
  topKBoth: (k: number) => `两者都先做 top-${k} 截断（练习 1）`,
  pitfall: '错误做法：验证时用未截断的 q',
  draftTokens: '草稿长度 γ',
  acceptanceTheory: '接受率 Σmin(p,q) = 1−TV',
  acceptanceSimulated: '模拟接受率（± 1 个标准误）',
  stepperTitle: '一次一次地看：起草、检查、重采样',
  stepperIntro: '不需要模型：每一步从草稿分布 q 起草最多 γ 个 token，逐个检查 u < p/q（u 是均匀随机数），第一次不通过就从残差 norm(max(0, p − q)) 重新抽一个，全部通过就从 p 多抽一个。红色柱是错误规则：被拒绝时直接从 p 重抽。多走几步，看哪一个收敛到 p。',
  stepVerify: '验证一次',
  stepperNone: '还没有验证：点“验证一次”或“播放”。',
  stepperReadout: (k: number, drafts: readonly { token: string; u: number; ratio: number; accepted: boolean }[], token: string, fromResidual: boolean, emitted: number) =>
    `第 ${k} 步：${drafts.map((d) => `${d.token} ${d.accepted ? '✓' : '✗'}（u = ${d.u.toFixed(2)} ${d.accepted ? '<' : '≥'} p/q = ${d.ratio.toFixed(2)}）`).join('，')} → ${fromResidual ? `从残差重抽得到 ${token}` : `全部通过，从 p 多抽一个 ${token}`}；这一步产出 ${emitted} 个 token。`,
  stepperRight: '章节的规则：从残差重抽',
  stepperWrong: '错误规则：从 p 重抽',
  stepperSummary: (emitted: number, steps: number) => `${steps} 步验证产出的 ${emitted.toLocaleString('en')} 个 token 的频率，对照目标分布 p`,
  stepperVerdict: (right: number, wrong: number) => `走完了：章节规则的 χ² p 值是 ${right.toPrecision(3)}（与 p 一致），错误规则的是 ${wrong.toPrecision(3)}${wrong < 1e-3 ? '：它产出的 token 不服从 p' : ''}。`,
  tokensFormula: '每次验证的 token 数（公式）',
  tokensSimulated: '每次验证的 token 数（模拟）',
  targetReference: '目标 p',
  outputFrequencies: '投机采样输出',
  outputSummary: '投机采样输出的频率与目标分布 p 的对比',
  acceptanceQuestion: '先猜：按这个草稿 q，每个草稿 token 被接受的概率（接受率）是多少？',
  acceptanceGuess: '我猜接受率是',
  acceptanceAnswer: (theory: number, simulated: number, guess: number) =>
    `接受率 = Σ min(p, q) = 1 − TV(p, q) = ${theory.toFixed(3)}（模拟 ${simulated.toFixed(3)}），就是两条分布重叠部分的面积。你猜 ${guess.toFixed(2)}，${Math.abs(guess - theory) < 0.005 ? '几乎正好' : `差 ${Math.abs(guess - theory).toFixed(2)}`}。`,
  overlapSummaryBeforeGuess: '目标分布 p 与草稿分布 q；重叠部分 min(p, q) 描了边',
  pitfallWhy: (simulated: number, theory: number, pValue: number) =>
    `为什么模拟的接受率 ${simulated.toFixed(3)} 与公式的 ${theory.toFixed(3)} 不同：草稿从截断后的 q′ 采样，验证却除以未截断的 q。截断把 q 的尾部概率挪到了头部，q′(x) > q(x)，于是 p′(x)/q(x) 偏大，草稿被接受得太多（这里${simulated > 0.9995 ? '每一个都被接受' : '多于公式'}）。输出因此不再服从 p′（χ² p = ${pValue.toPrecision(2)}）：公式只在验证用的 q 与草稿实际采样的分布相同时成立。`,
  exerciseOneAnswer: (k: number, truncated: number, untruncated: number) =>
    `练习 1 的答案：两者都做 top-${k} 后，接受率是截断后两个分布的 Σ min(p′, q′) = ${truncated.toFixed(3)}，不截断时是 ${untruncated.toFixed(3)}：${truncated > untruncated + 5e-4 ? '这里升高了——两者的 top-k 集合重合，截断把尾部的概率挪到共同的头部，两个分布更接近了' : truncated < untruncated - 5e-4 ? '这里降低了——两者的 top-k 集合差别大，重合的部分变少' : '这里几乎不变'}。正确性要求验证用的 p、q 都是实际采样用的（截断后的）分布。`,
  speculativeChiSquareNote: (pValue: number, pitfall: boolean) => (pitfall
    ? `χ² p = ${pValue.toPrecision(2)}：错误做法的输出不服从目标分布，换任何种子都是如此。`
    : pValue < 0.05
      ? `χ² p = ${pValue.toPrecision(2)}：规则正确时 p 值在 0 到 1 之间均匀分布，低于 ${pValue < 0.01 ? '0.01 的每 100 次约有 1 次' : '0.05 的每 20 次约有 1 次'}，这不说明有错；换一个种子重跑看看。真正的错误（例如“错误做法”）在每个种子上都给出极小的 p。`
      : `χ² p = ${pValue.toPrecision(2)}：输出频率与 p 的差别在偶然误差之内。`),
  shift: 'q 相对 p 的偏移',
  clip: '截断上限 c',
  trueMean: '真值',
  oneEstimate: '一次估计（普通 / 截断）',
  ess: '有效样本数',
  estimateAxis: '估计值',
  trials: '试验次数',
  estimator: '估计量',
  bias: '偏差',
  std: '标准差',
  estimatorNames: { none: '普通 IS', tis: 'TIS（截断）', mis: 'MIS（丢弃）', selfNormalised: '自归一化 IS' } as Record<string, string>,
  importanceSummary: (r: number) => `${r} 次重复试验中普通重要性采样与截断估计的分布`,
  shiftSlider: '第三组 q 相对 p 的偏移（章节用 3）',
  essQuestion: '先猜：最右边那一组（偏移由滑块决定，起初是章节的 3），1,000 个来自 q 的样本相当于多少个有效样本（ESS）？',
  essGuess: '我猜 ESS 是',
  essAnswer: (shift: number, ess: number, n: number, repeats: number, guess: number) =>
    `偏移 ${shift} 时 ESS ≈ ${Math.round(ess).toLocaleString('en')} / ${n.toLocaleString('en')}（${repeats} 次重复的平均）。你猜 ${guess.toLocaleString('en')}，差 ${Math.abs(guess - Math.round(ess)).toLocaleString('en')}。ESS = (Σw)²/Σw²：少数样本的权重很大时，它们主导了估计，相当于只有很少的样本在起作用。`,
  essPerShiftOf: (shifts: readonly number[]) => `ESS（偏移 ${shifts.join(' / ')}，平均）`,
  importanceRl: 'RL 里的重要性权重：PPO、GRPO 的比值（新策略的概率除以旧策略的概率）就是这里的 p/q（样本来自旧策略，要估计新策略下的期望）；PPO 把比值截在 [1 − ε, 1 + ε]（clip），TIS 把修正“推理引擎与训练框架概率不一致”的比值截在上限 c。截断做的正是上面 TIS 做的事：方差变小，代价是偏差。',
  targetP: '目标分布 p',
  proposalQ: (shift: number) => `采样分布 q（偏移 ${shift}）`,
  pqSummary: (shift: number) => `p 与偏移 ${shift} 的 q，逐个 token 对比`,
  tokenWeight: '每个 token 的权重 w = p/q',
  clipLevel: (clip: number) => `截断上限 ${clip}`,
  tokenWeightSummary: (shift: number) => `偏移 ${shift} 时每个 token 的权重 w = p/q（对数纵轴）：q 抽得少的 token，权重大`,
  sampleRank: '样本按权重从大到小的名次',
  sortedWeights: (n: number) => `一批 ${n.toLocaleString('en')} 个样本的权重，从大到小`,
  batchSummary: (shift: number, n: number) => `偏移 ${shift} 时一批 ${n.toLocaleString('en')} 个样本的权重，从大到小（对数坐标）；虚线以上的被截断`,
  topShare: (percent: number) => `权重最大的 ${percent}% 样本占总权重`,
  batchEss: '这一批的 ESS = (Σw)² / Σw²',
  clippedAt: (clip: number) => `截断在 ${clip}`,
  clippedWhat: (samples: number, share: string) => `${samples} 个样本被截，去掉总权重的 ${share}`,
  estimatorLine: (name: string, meaning: string) => `${name}：${meaning}`,
  estimatorMeaning: {
    none: '每个样本乘以 w = p/q 后求平均；无偏，但少数大权重让方差变大',
    tis: 'w 超过上限就按上限算；方差变小，代价是偏差（偏向 q）',
    mis: 'w 超过上限的样本直接记 0（RL 里的掩码做法）；偏差比截断更大',
    selfNormalised: '用 Σ w·f / Σ w 代替除以 n；略有偏差，但权重乘任意常数都不变',
  } as Record<string, string>,
  shiftCaption: (shift: number, ess: number | undefined, truth: number) => `q 偏移 ${shift}${ess === undefined ? '' : `：ESS ≈ ${Math.round(ess)}`}；虚线是真值 ${truth.toFixed(2)}`,
  importanceNote: '同一个横轴、同一个真值（每张图里的竖直虚线）：q 离 p 越远（偏移越大），普通 IS 的估计越散、ESS 越小；截断（TIS）把散布收窄，代价是整体偏到真值的一侧（偏差）。表里的自归一化 IS 在这个例子里 MSE 最低：权重除以它们的和，抵消了权重整体偏大或偏小。',
  compare: '比较',
  twoMeans: '两个均值',
  twoProportions: '两个比例',
  evalTieBack: '“两个比例”就是评测集的问题：把 p₁ 设为 0.70、p₂ 设为 0.72（差 2 个点），z = 2，得到的是每个模型需要的题数——与评测集一节里“差距达到 2 个标准误需要的题数”相同。',
  evalTieBackLink: '回到评测集的误差条',
  difference: '要分辨的差距 δ',
  stdPerRun: '单次的标准差 σ',
  zStandardErrors: '差距要超过几倍标准误 z',
  perConfiguration: '每个配置至少需要',
  standardErrorAtN: '此时差值的标准误',
  position: '位置（第几行）',
  npyFile: '.npy 文件',
  modelPosition: '模型的位置',
  topTokensSummary: (n: number) => `最可能的 ${n} 个 token：截断前（虚线）与截断后（实心）的概率`,
  topTokensCaption: (n: number) => `最可能的 ${n} 个 token`,
  rankColumn: '排名',
  probabilityBefore: '截断前 p',
  probabilityAfter: '截断后 p',
  dropNpy: '选择或拖入 .npy logits 文件（1 维或 2 维）',
  chooseFile: '还没有加载文件。',
  sampleN: (n: number) => `采样 ${n.toLocaleString()} 次`,
  sampledFrequency: '横线：采样频率',
  entropyAfter: '熵 H = E[−log₂ p]（截断后）',
  keptMassBefore: '保留部分在截断前的概率',
  topProbAfter: '最大概率（截断后）',
  tokensFor90Before: '截断前凑够 90% 需要',
  cutsTitle: '各过滤器截在哪里',
  cutAfter: (filter: string, kept: number) => `${filter} 后剩 ${kept.toLocaleString('en')}`,
  noCut: '没有过滤器在截断',
  cutBy: { penalties: '惩罚', dry: 'DRY', temperature: '温度', topK: 'top-k', topP: 'top-p', minP: 'min-p', typicalP: 'typical', topNSigma: 'top-nσ', epsilonCutoff: 'ε', etaCutoff: 'η', xtc: 'XTC', mirostat: 'mirostat', pLess: 'p-less', adaptiveP: 'adaptive-p', masks: '屏蔽' },
  cumulativeMass: '截断前的累计概率（右轴）',
  sampledCount: (n: number) => `已抽 ${n.toLocaleString('en')} 次的频率 ±2 标准误`,
  momentsTitle: '期望与方差：抽到的 token 有多意外',
  momentsText: '对任意函数 f，期望 E[f] = Σ p(x) f(x)，方差 Var[f] = E[f²] − E[f]²。取 f(x) = −log₂ p(x)，即抽到 x 时的“惊讶度”（比特）：它的期望就是熵 H，它的方差（varentropy）说明一次抽样的惊讶度离 H 有多远。截断砍掉最意外的长尾，两者一起变小；typical-p 留下的正是惊讶度接近 H 的 token。',
  momentsCaption: '惊讶度 f = −log₂ p 在当前分布上的期望与方差',
  momentsColumns: ['量', '截断前', '截断后'],
  momentsRows: { mean: 'E[f] = 熵 H（比特）', meanSquare: 'E[f²]（比特²）', variance: 'Var[f] = E[f²] − E[f]²（比特²）', standardDeviation: '标准差 √Var（比特）' },
  momentsSummary: (mean: string, sd: string) => `按当前设置抽一个 token：平均惊讶 ${mean} 比特，一次抽样通常偏离它约 ${sd} 比特（一个标准差）。`,
  standIn: (realModel: boolean) => `。这是替身：章节用 Qwen3-0.6B 在样本文本第 50 个位置的分布（0.302 / 4、0.146 / 110、0.044 / 6,708）${realModel ? '，在页首的真实模型部分可以复现' : ''}`,
  token: '词',
  beforeTruncation: '截断前',
  afterTruncation: '截断后（重新归一化）',
  temperatureCaption: (v: number) => `三个温度下的分布（${v.toLocaleString()} 个 token）`,
  questions: '题目数',
  accuracy: '准确率',
  standardErrorLabel: '标准误',
  interval95: '95% 区间（Wilson）',
  interval95OfA: '模型 A 的 95% 区间（Wilson）',
  tokenLabels: ['的', '是', '了', '在', '和', '有', '人', '我', '他', '这', '中', '大'],
  // Errors a reader can cause, by the argument the core names; others fall back to invalidArgument.
  handbookTitle: '手册：印出的数字与这里的值',
  handbookFigure: '数字',
  handbookSource: '出处',
  handbookSourceOf: (chapter: string, where: string) => `${chapter}，${whereZh(where)}`,
  handbookSameRounded: (tens: number) => `相同（约到${['', '十', '百', '千'][tens] ?? `10^${tens} `}位）`,
  handbookRounding: (id: string) => ({
    'sample-size.means': '这里的 1,152 是精确值 (2 × √2 × 1.2 / 0.1)² = 1,152；章节把 √2 × 1.2 ≈ 1.697 写成 1.7，算出 (2 × 1.7 / 0.1)² = 1,156，印成“≈ 1150”——两者约到十位都是 1,150。',
  } as Record<string, string>)[id] ?? '',
  handbookPrinted: '手册',
  handbookLive: '这里',
  handbookAgreement: '一致吗',
  handbookSame: '相同',
  handbookDiffers: '不同',
  handbookWithin: (z: number) => (z <= 3 ? `差 ${z.toFixed(1)} 个标准误，在随机误差内` : `差 ${z.toFixed(1)} 个标准误`),
  handbookChanceNote: '带 ± 的是蒙特卡洛结果（± 一个标准误）：手册用 PyTorch 的随机数生成器，这里用 Philox，所以抽到的样本不同、数字也略有不同；差距在两三个标准误以内就是一致的。没有 ± 的数字是确定的，约到手册印出的位数后应当相同。',
  handbookExactNote: '这些数字是确定的计算，约到手册印出的位数后应当相同。',
  figureLabel,
  tiedProportions: '两个比例相同，差距为 0：多少样本都分辨不出。把 p₂ 移开一点试试。',
  errors: {
    logits: '这组 logits 无法使用：',
    position: '位置超出范围：',
  } as Record<string, string>,
  invalidArgument: (argument: string, message: string) => `参数 ${argument} 无效（${message}）`,
};

// A mapped type rather than `typeof zh`, which TypeScript does not keep as a name: the API
// reference then names it where strings() returns it instead of listing every entry.
/**
 * The widgets' text in one language: labels, sentences, and functions that format a sentence
 * around numbers. en.ts has the same keys and kinds.
 */
export type Strings = { [K in keyof typeof zh]: (typeof zh)[K] };
