// Goodness-of-fit for the statistical tests: Pearson's χ² with its p-value, pooling categories
// that expect fewer than 5 draws (Cochran's rule), as the core's chi_square does.

/** log Γ(x) by Lanczos' approximation (g = 7, n = 9), for x > 0. */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Q(a, x) = Γ(a, x) / Γ(a): series below a + 1, Lentz's continued fraction above. */
function upperGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  const prefix = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > 1e-15 * Math.abs(sum); n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - sum * prefix;
  }
  let b = x + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = Math.abs(d) < 1e-300 ? 1e-300 : d;
    c = b + an / c;
    c = Math.abs(c) < 1e-300 ? 1e-300 : c;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return prefix * h;
}

export interface ChiSquare {
  statistic: number;
  dof: number;
  pValue: number;
}

/** Pearson's χ² of observed counts against probabilities (categories with n·p < 5 pooled). */
export function chiSquare(counts: ArrayLike<number>, probs: ArrayLike<number>): ChiSquare {
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i];
  let statistic = 0;
  let bins = 0;
  let pooledObserved = 0;
  let pooledExpected = 0;
  for (let i = 0; i < probs.length; i++) {
    const expected = n * probs[i];
    if (expected >= 5) {
      statistic += (counts[i] - expected) ** 2 / expected;
      bins++;
    } else {
      pooledObserved += counts[i];
      pooledExpected += expected;
    }
  }
  if (pooledExpected > 0) {
    statistic += (pooledObserved - pooledExpected) ** 2 / pooledExpected;
    bins++;
  }
  const dof = Math.max(bins - 1, 1);
  return { statistic, dof, pValue: upperGamma(dof / 2, statistic / 2) };
}

/** Draw counts per category. */
export function bincount(draws: ArrayLike<number>, categories: number): number[] {
  const counts = new Array<number>(categories).fill(0);
  for (let i = 0; i < draws.length; i++) counts[draws[i]]++;
  return counts;
}
