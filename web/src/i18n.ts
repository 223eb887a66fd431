// Chinese by default, English when <html lang="en…">; widgets re-render when lang changes.
const zh = {
  pageTitle: '概率与采样 · 交互实验',
  pageIntro: '每个实验都在你的浏览器里用 WebAssembly 运行，分布大小与真实模型的词表相同。',
  switchLanguage: 'English',
  shapeTitle: '先看形状：温度、top-k、top-p、min-p',
  shapeText: '温度改变分布的尖锐程度；top-k、top-p 和 min-p 在采样前砍掉尾巴。拖动滑块，看熵、候选数和保留的概率怎样变化。',
  loading: '正在加载 WebAssembly…',
  loadFailed: '加载失败：',
  unknownExperiment: '未知实验：',
  handbookTokens: '手册示例（12 个词）',
  syntheticTokens: '合成分布（151,936 个词）',
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
  tokenLabels: ['的', '是', '了', '在', '和', '有', '人', '我', '他', '这', '中', '大'],
};

type Strings = typeof zh;

const en: Strings = {
  pageTitle: 'Probability and sampling · live experiments',
  pageIntro: 'Every experiment runs in your browser in WebAssembly, on distributions as large as a real model\'s vocabulary.',
  switchLanguage: '中文',
  shapeTitle: 'The shape first: temperature, top-k, top-p, min-p',
  shapeText: 'Temperature sharpens or flattens the distribution; top-k, top-p and min-p cut the tail before sampling. Move the sliders and watch the entropy, the candidates and the kept mass.',
  loading: 'Loading WebAssembly…',
  loadFailed: 'Failed to load: ',
  unknownExperiment: 'Unknown experiment: ',
  handbookTokens: 'Handbook example (12 tokens)',
  syntheticTokens: 'Synthetic (151,936 tokens)',
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
  tokenLabels: ['the', 'a', 'of', 'to', 'and', 'in', 'is', 'it', 'he', 'this', 'on', 'big'],
};

export function strings(): Strings {
  return document.documentElement.lang.toLowerCase().startsWith('en') ? en : zh;
}

export function onLanguageChange(callback: () => void): () => void {
  const observer = new MutationObserver(callback);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  return () => observer.disconnect();
}
