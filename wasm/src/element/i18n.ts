// Chinese by default, English when <html lang="en…">; widgets re-render when lang changes.
const zh = {
  loading: '正在加载 WebAssembly…',
  reset: '重置',
  copyEmbed: '复制嵌入代码',
  embedCopied: '已复制：带当前设置、语言和配色的 iframe 代码。',
  embedSelected: '代码已选中，按 Ctrl+C（或 ⌘C）复制。',
  embedCode: '嵌入代码',
  loadFailed: '加载失败：',
  unknownExperiment: '未知实验：',
  handbookTokens: (v: number) => `手册示例（${v} 个词）`,
  syntheticTokens: (v: number) => `合成分布（${v.toLocaleString('en')} 个词）`,
  distribution: '分布',
  play: '▶ 扫描温度',
  pause: '⏸ 暂停',
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
  chartSummary: (kept: number, total: number) => `${total} 个 token 中保留 ${kept} 个的概率分布`,
  running: '正在运行',
  seed: '种子',
  reseed: '换一个种子重跑',
  sampleCount: '采样次数 n',
  method: '方法',
  maxDeviation: '与 p 的最大偏差',
  chiSquareP: 'χ² p 值',
  nanosPerSample: '每次采样（纳秒）',
  methodNames: { 'inverse-cdf': '逆 CDF', 'gumbel-max': 'Gumbel-max', 'exponential-race': '指数竞赛', alias: '别名法' } as Record<string, string>,
  samplersSummary: (n: number) => `四种采样方法各采样 ${n.toLocaleString()} 次的频率与 p 的对比`,
  largestN: '最大的 n',
  repeats: '重复次数',
  drawsPerRun: '每次实验的采样数 n',
  stdOfEstimate: '估计值的标准差',
  theoryLine: '理论 √(p(1−p)/n)',
  measured: '实测',
  ratio: '实测 / 理论',
  mcErrorSummary: (p: number, repeats: number) => `p = ${p}，每个 n 重复 ${repeats} 次，估计值标准差随 n 的变化（对数坐标）`,
  model: '模型',
  handbookTree: '手册示例树',
  randomModels: '随机模型',
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
  overlapSummary: (a: number) => `目标分布 p 与草稿分布 q，重叠部分 min(p, q) 之和 ${a.toFixed(3)} 就是接受率`,
  topKBoth: (k: number) => `两者都先做 top-${k} 截断（练习 1）`,
  pitfall: '错误做法：验证时用未截断的 q',
  draftTokens: '草稿长度 γ',
  acceptanceTheory: '接受率 Σmin(p,q) = 1−TV',
  acceptanceSimulated: '模拟接受率',
  tokensFormula: '每次验证的 token 数（公式）',
  tokensSimulated: '每次验证的 token 数（模拟）',
  targetReference: '目标 p',
  outputFrequencies: '投机采样输出',
  outputSummary: '投机采样输出的频率与目标分布 p 的对比',
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
  compare: '比较',
  twoMeans: '两个均值',
  twoProportions: '两个比例',
  difference: '要分辨的差距 δ',
  stdPerRun: '单次的标准差 σ',
  zStandardErrors: '差距要超过几倍标准误 z',
  perConfiguration: '每个配置至少需要',
  standardErrorAtN: '此时差值的标准误',
  position: '位置（第几行）',
  npyFile: '.npy 文件',
  dropNpy: '选择或拖入 .npy logits 文件（1 维或 2 维）',
  chooseFile: '还没有加载文件。',
  sampleN: (n: number) => `采样 ${n.toLocaleString()} 次`,
  sampledFrequency: '横线：采样频率',
  token: '词',
  beforeTruncation: '截断前',
  afterTruncation: '截断后（重新归一化）',
  temperatureCaption: (v: number) => `三个温度下的分布（${v.toLocaleString()} 个 token）`,
  questions: '题目数',
  accuracy: '准确率',
  standardErrorLabel: '标准误',
  interval95: '95% 区间（Wilson）',
  tokenLabels: ['的', '是', '了', '在', '和', '有', '人', '我', '他', '这', '中', '大'],
  // Errors a reader can cause, by the argument the core names; others fall back to invalidArgument.
  handbookTitle: '手册 / handbook：印出的数字与这里的值',
  handbookFigure: '数字',
  handbookPrinted: '手册',
  handbookLive: '这里',
  handbookAgreement: '一致吗',
  handbookSame: '相同',
  handbookDiffers: '不同',
  handbookWithin: (z: number) => (z <= 3 ? `差 ${z.toFixed(1)} 个标准误，在随机误差内` : `差 ${z.toFixed(1)} 个标准误`),
  handbookChanceNote: '带 ± 的是蒙特卡洛结果（± 一个标准误）：手册用 PyTorch 的随机数生成器，这里用 Philox，所以抽到的样本不同、数字也略有不同；差距在两三个标准误以内就是一致的。没有 ± 的数字是确定的，应当逐位相同。',
  handbookExactNote: '这些数字是确定的计算，应当与手册逐位相同。',
  figureLabel: (id: string) => figureLabel(id, 'zh'),
  errors: {
    p2: 'p₂ 必须与 p₁ 不同：两个比例相同，差距为 0，多少样本都分辨不出。',
    logits: '这组 logits 无法使用：',
    position: '位置超出范围：',
  } as Record<string, string>,
  invalidArgument: (argument: string, message: string) => `参数 ${argument} 无效（${message}）`,
};

export type Strings = typeof zh;

const en: Strings = {
  loading: 'Loading WebAssembly…',
  reset: 'Reset',
  copyEmbed: 'Copy embed code',
  embedCopied: 'Copied: the iframe code with the current settings, language and theme.',
  embedSelected: 'The code is selected: press Ctrl+C (or ⌘C) to copy it.',
  embedCode: 'Embed code',
  loadFailed: 'Failed to load: ',
  unknownExperiment: 'Unknown experiment: ',
  handbookTokens: (v: number) => `Handbook example (${v} tokens)`,
  syntheticTokens: (v: number) => `Synthetic (${v.toLocaleString('en')} tokens)`,
  distribution: 'Distribution',
  play: '▶ Sweep temperature',
  pause: '⏸ Pause',
  temperature: 'Temperature T',
  topK: 'top-k (0 = no limit)',
  topP: 'top-p',
  minP: 'min-p (0 = off)',
  entropy: 'Entropy',
  bits: 'bits',
  kept: 'Candidates',
  keptUnit: '',
  keptMass: 'Kept mass',
  topProb: 'Top probability',
  tokensFor90: 'Tokens for 90%',
  tokensUnit: '',
  greedy: 'greedy',
  rank: 'rank (log)',
  probability: 'probability (log)',
  keptSeries: 'kept',
  cutSeries: 'cut',
  chartSummary: (kept: number, total: number) => `Probability distribution keeping ${kept} of ${total} tokens`,
  running: 'Running',
  seed: 'Seed',
  reseed: 'Re-run with a new seed',
  sampleCount: 'Samples n',
  method: 'Method',
  maxDeviation: 'Max deviation from p',
  chiSquareP: 'χ² p-value',
  nanosPerSample: 'Time per sample (ns)',
  methodNames: { 'inverse-cdf': 'Inverse CDF', 'gumbel-max': 'Gumbel-max', 'exponential-race': 'Exponential race', alias: 'Alias' },
  samplersSummary: (n: number) => `Frequencies of four samplers, ${n.toLocaleString()} draws each, against p`,
  largestN: 'Largest n',
  repeats: 'Repeats',
  drawsPerRun: 'draws per run n',
  stdOfEstimate: 'std of the estimate',
  theoryLine: 'theory √(p(1−p)/n)',
  measured: 'measured',
  ratio: 'measured / theory',
  mcErrorSummary: (p: number, repeats: number) => `Standard deviation of the estimate of p = ${p} over ${repeats} repeats, against n (log-log)`,
  model: 'Model',
  handbookTree: 'Handbook tree',
  randomModels: 'Random models',
  treeSummary: 'Two-step sequence tree: conditional probabilities on the edges, sequence probabilities at the leaves',
  greedyPath: 'greedy',
  bestPath: 'most probable',
  beamPath: 'beam width 2',
  vocabSize: 'Vocabulary V',
  sequenceLength: 'Sequence length',
  sharpness: 'Sharpness',
  greedyMissRate: 'Greedy misses the best',
  closingWidth: 'Beam width that finds it',
  beamWidth: 'Beam width',
  missRate: 'Misses the best',
  meanProbRatio: 'Mean probability / best',
  presetUniform: 'uniform q',
  presetClose: 'q close to p',
  presetFar: 'q far from p',
  draftModel: 'draft',
  targetModel: 'target',
  overlap: 'min(p, q): acceptance',
  overlapSummary: (a: number) => `Target p and draft q; their overlap min(p, q) sums to ${a.toFixed(3)}, the acceptance rate`,
  topKBoth: (k: number) => `Truncate both to top-${k} (exercise 1)`,
  pitfall: 'Pitfall: verify with the untruncated q',
  draftTokens: 'Draft length γ',
  acceptanceTheory: 'Acceptance Σmin(p,q) = 1−TV',
  acceptanceSimulated: 'Simulated acceptance',
  tokensFormula: 'Tokens per verification (formula)',
  tokensSimulated: 'Tokens per verification (simulated)',
  targetReference: 'target p',
  outputFrequencies: 'speculative output',
  outputSummary: 'Frequencies of the speculative output against the target p',
  shift: 'Shift of q away from p',
  clip: 'Clip c',
  trueMean: 'true mean',
  oneEstimate: 'One estimate (plain / clipped)',
  ess: 'Effective sample size',
  estimateAxis: 'estimate',
  trials: 'trials',
  estimator: 'Estimator',
  bias: 'Bias',
  std: 'Std',
  estimatorNames: { none: 'Plain IS', tis: 'TIS (clipped)', mis: 'MIS (masked)', selfNormalised: 'Self-normalised IS' },
  importanceSummary: (r: number) => `Spread of plain and clipped importance-sampling estimates over ${r} repeated trials`,
  compare: 'Compare',
  twoMeans: 'two means',
  twoProportions: 'two proportions',
  difference: 'Difference to detect δ',
  stdPerRun: 'Standard deviation σ',
  zStandardErrors: 'Standard errors z',
  perConfiguration: 'Samples per configuration',
  standardErrorAtN: 'Standard error of the difference there',
  position: 'Position (row)',
  npyFile: '.npy file',
  dropNpy: 'Choose or drop a .npy logits file (1-D or 2-D)',
  chooseFile: 'No file loaded yet.',
  sampleN: (n: number) => `Sample ${n.toLocaleString()}`,
  sampledFrequency: 'lines: sampled frequencies',
  token: 'token',
  beforeTruncation: 'before truncation',
  afterTruncation: 'after truncation (renormalised)',
  temperatureCaption: (v: number) => `The distribution at three temperatures (${v.toLocaleString()} tokens)`,
  questions: 'Questions',
  accuracy: 'Accuracy',
  standardErrorLabel: 'Standard error',
  interval95: '95% interval (Wilson)',
  tokenLabels: ['the', 'a', 'of', 'to', 'and', 'in', 'is', 'it', 'he', 'this', 'on', 'big'],
  handbookTitle: 'Handbook / 手册: the printed figures and the values here',
  handbookFigure: 'figure',
  handbookPrinted: 'handbook',
  handbookLive: 'here',
  handbookAgreement: 'agree?',
  handbookSame: 'same',
  handbookDiffers: 'differs',
  handbookWithin: (z: number) => (z <= 3 ? `${z.toFixed(1)} standard errors apart: within chance` : `${z.toFixed(1)} standard errors apart`),
  handbookChanceNote: 'Figures with ± are Monte-Carlo results (± one standard error): the handbook drew with PyTorch\'s random generator and this page with Philox, so the samples differ and so do the numbers, slightly; within two or three standard errors they agree. Figures without ± are exact computations and should match digit for digit.',
  handbookExactNote: 'These figures are exact computations and should match the handbook digit for digit.',
  figureLabel: (id: string) => figureLabel(id, 'en'),
  errors: {
    p2: 'p₂ must differ from p₁: with equal proportions the difference is 0, and no sample size can detect it.',
    logits: 'These logits cannot be used: ',
    position: 'Position out of range: ',
  },
  invalidArgument: (argument: string, message: string) => `Invalid ${argument} (${message})`,
};

/**
 * A SamplingLabError in the reader's language: the core names the argument; a known argument
 * gets its own sentence (ending in ':' when the core's detail should follow).
 */
export function localiseError(error: { argument: string; message: string }): string {
  const s = strings();
  const sentence = s.errors[error.argument];
  if (sentence === undefined) return s.invalidArgument(error.argument, error.message);
  return /[:：]\s*$/.test(sentence) ? sentence + error.message : sentence;
}

export function strings(): Strings {
  return document.documentElement.lang.toLowerCase().startsWith('en') ? en : zh;
}
/** Whether the widget shows its dark colours: the host's scheme, else the system's. */
export function isDark(widget: Element): boolean {
  return getComputedStyle(widget).colorScheme.includes('dark');
}

/** Calls back when <html lang> or the host's colour scheme changes. */
export function onHostChange(callback: () => void): () => void {
  const observer = new MutationObserver(callback);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang', 'class', 'data-md-color-scheme'] });
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  scheme.addEventListener('change', callback);
  return () => {
    observer.disconnect();
    scheme.removeEventListener('change', callback);
  };
}

const METHODS = { inverseCdf: ['逆 CDF', 'inverse CDF'], gumbelMax: ['Gumbel-max', 'Gumbel-max'], exponentialRace: ['指数竞赛', 'exponential race'] };

/** A handbook figure's name (its id is in wasm/src/handbook.ts), in the page's language. */
function figureLabel(id: string, language: 'zh' | 'en'): string {
  const zh = language === 'zh';
  const fixed: Record<string, [string, string]> = {
    'decoding.probs': ['解码一章的示例：8 个 logits 的概率', 'decoding chapter example: probabilities of 8 logits'],
    'decoding.topK3': ['top-k = 3 保留的个数', 'kept by top-k = 3'],
    'decoding.topP0.8': ['top-p = 0.8 保留的个数', 'kept by top-p = 0.8'],
    'decoding.minP0.1': ['min-p = 0.1 保留的个数', 'kept by min-p = 0.1'],
    'decoding.T0.5.topP0.8': ['T = 0.5 后 top-p = 0.8 保留的个数', 'kept by T = 0.5, then top-p = 0.8'],
    'decoding.exercise.topP0.75': ['练习：[0.5, 0.2, 0.15, 0.1, 0.05] 上 top-p = 0.75 保留', 'exercise: top-p = 0.75 on [0.5, 0.2, 0.15, 0.1, 0.05] keeps'],
    'decoding.exercise.topP0.5': ['练习：同一分布上 top-p = 0.5 保留', 'exercise: top-p = 0.5 on the same keeps'],
    'decoding.penalties': ['存在惩罚 0.5、频率惩罚 0.2，已生成 [1, 1, 3]：logit 的变化', 'presence 0.5, frequency 0.2 on generated [1, 1, 3]: logit shifts'],
    'eval-error.standardError': ['200 道题、70% 正确率的标准误', 'standard error at 200 questions, 70 % correct'],
    'sequence.best': ['概率最大的序列 (B, b1)', 'most probable sequence (B, b1)'],
    'sequence.greedy': ['贪心得到的序列 (A, a1)', 'greedy sequence (A, a1)'],
    'speculative.acceptance': ['接受率 Σ min(p, q)', 'acceptance Σ min(p, q)'],
    'speculative.acceptance.simulated': ['接受率，200,000 次模拟', 'acceptance, 200,000 simulated'],
    'speculative.output': ['输出的频率', 'output frequencies'],
    'speculative.tokens': ['每次验证的期望 token 数（α = 0.7, γ = 4）', 'expected tokens per verification (α = 0.7, γ = 4)'],
    'importance.trueMean': ['真实均值 E_p[x]', 'true mean E_p[x]'],
    'sample-size.means': ['练习 2：每个配置需要的样本数', 'exercise 2: samples per configuration'],
  };
  if (fixed[id]) return fixed[id][zh ? 0 : 1];
  const sampler = /^samplers\.(\w+)\.(frequencies|maxDeviation)$/.exec(id);
  if (sampler) {
    const name = METHODS[sampler[1] as keyof typeof METHODS][zh ? 0 : 1];
    return sampler[2] === 'frequencies' ? (zh ? `${name}的频率（n = 200,000）` : `${name} frequencies (n = 200,000)`)
      : (zh ? `${name}与 p 的最大偏差` : `${name} largest deviation from p`);
  }
  const mc = /^mc-error\.n(\d+)\.(theory|std)$/.exec(id);
  if (mc) {
    const n = Number(mc[1]).toLocaleString('en');
    return mc[2] === 'theory' ? (zh ? `n = ${n}：理论标准差 √(p(1−p)/n)` : `n = ${n}: theoretical std √(p(1−p)/n)`)
      : (zh ? `n = ${n}：2,000 次重复的实测标准差` : `n = ${n}: measured std over 2,000 repeats`);
  }
  const importance = /^importance\.shift(\d+)\.(estimate|ess|clipped)$/.exec(id);
  if (importance) {
    const shift = importance[1];
    const what = { estimate: ['普通 IS 估计', 'plain IS estimate'], ess: ['ESS', 'ESS'], clipped: ['截断（c = 2）估计', 'clipped (c = 2) estimate'] }[importance[2] as 'estimate'];
    return zh ? `q 偏移 ${shift}：${what[0]}` : `q shifted by ${shift}: ${what[1]}`;
  }
  return id;
}
