// γ chosen by the run (speculativeGenerate's gamma 'auto'). It lives beside the loop that times
// the passes, not in the core: an app that only samples tokens does not ship it.

/** The chapter's E[tokens per target pass] with γ drafts accepted i.i.d. with probability α: (1 − α^(γ+1))/(1 − α), γ + 1 at α = 1. */
export function expectedTokens(alpha: number, gamma: number): number {
  return alpha >= 1 ? gamma + 1 : (1 - alpha ** (gamma + 1)) / (1 - alpha);
}

/**
 * The γ in [1, maxGamma] with the most expected tokens per unit of time (Leviathan et al. 2023,
 * §3.4, with the verification's cost measured rather than taken as one step's): E(α, γ) tokens
 * for γ draft passes of `draftCost` and one target pass over γ + 1 positions, whose cost is the
 * least-squares line through `passes` ((positions, cost) pairs back to back; flat with fewer than
 * two distinct position counts, never falling with more positions). The smallest such γ on ties;
 * maxGamma when no pass was timed.
 */
export function bestGamma(acceptance: number, draftCost: number, passes: ArrayLike<number>, maxGamma: number): number {
  let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (let i = 0; i + 1 < passes.length; i += 2) {
    const [x, y] = [passes[i], passes[i + 1]];
    n++, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  if (n === 0) return maxGamma;
  const spread = n * sxx - sx * sx;
  const perPosition = spread > 0 ? Math.max(0, (n * sxy - sx * sy) / spread) : 0;
  const fixed = (sy - perPosition * sx) / n;
  let best = 1;
  let bestRate = -1;
  for (let gamma = 1; gamma <= maxGamma; gamma++) {
    const rate = expectedTokens(acceptance, gamma) / (gamma * draftCost + Math.max(fixed + perPosition * (gamma + 1), 1e-9));
    if (rate > bestRate) [best, bestRate] = [gamma, rate];
  }
  return best;
}
