// The straightforward sampler, written independently of the core: penalties, temperature, a full
// sort, cumulative sums. The Node tests check the core against it and `npm run bench` times it
// as the plain-JavaScript baseline.

/**
 * @typedef {{ temperature?: number, topK?: number, topP?: number, minP?: number,
 *   repetitionPenalty?: number, presencePenalty?: number, frequencyPenalty?: number,
 *   generatedIds?: ArrayLike<number> }} ReferenceOptions
 */

/**
 * penalties -> temperature -> top-k -> top-p -> min-p -> renormalise.
 * @param {ArrayLike<number>} logits
 * @param {ReferenceOptions} o
 * @returns {{ probs: Float64Array, kept: number, keptMass: number, order: number[] }}
 */
export function referenceFilter(logits, o = {}) {
  const v = logits.length;
  const z = Float64Array.from(logits);
  const counts = new Map();
  for (const id of Array.from(o.generatedIds ?? [])) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, count] of counts) {
    const r = o.repetitionPenalty ?? 1;
    const scaled = z[id] > 0 ? z[id] / r : z[id] * r;
    z[id] = Math.fround(scaled - ((o.presencePenalty ?? 0) + (o.frequencyPenalty ?? 0) * count));
  }
  const t = o.temperature ?? 1;
  const order = Array.from({ length: v }, (_, i) => i).sort((a, b) => z[b] - z[a] || a - b);
  const max = z[order[0]];
  const weight = Array.from(z, (x) => Math.exp((x - max) / t));
  const total = weight.reduce((a, b) => a + b, 0);
  let keep = o.topK > 0 ? Math.min(o.topK, v) : v;
  const candidates = order.slice(0, keep).reduce((a, i) => a + weight[i], 0);
  if ((o.topP ?? 1) < 1) {
    let before = 0;
    let r = 0;
    while (r < keep && before < o.topP * candidates) before += weight[order[r++]];
    keep = r;
  }
  if ((o.minP ?? 0) > 0) {
    const threshold = Math.fround(max + t * Math.log(o.minP));
    let r = 0;
    while (r < keep && z[order[r]] >= threshold) r++;
    keep = r;
  }
  const keptWeight = order.slice(0, keep).reduce((a, i) => a + weight[i], 0);
  const probs = new Float64Array(v);
  for (const i of order.slice(0, keep)) probs[i] = weight[i] / keptWeight;
  return { probs, kept: keep, keptMass: keptWeight / total, order };
}

/**
 * One token: the filtered distribution, then the inverse CDF on u over the ranked survivors.
 * @param {ArrayLike<number>} logits
 * @param {ReferenceOptions} o
 * @param {number} u uniform in [0, 1)
 */
export function referenceSampleToken(logits, o, u) {
  const { probs, kept, order } = referenceFilter(logits, o);
  let cumulative = 0;
  for (let r = 0; r < kept; r++) {
    cumulative += probs[order[r]];
    if (cumulative > u) return order[r];
  }
  return order[kept - 1];
}

/**
 * Seeded standard normals times `scale` (mulberry32 + Box-Muller), independent of the core's RNG.
 * @returns {Float32Array}
 */
export function randomLogits(v, seed, scale) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return Float32Array.from({ length: v }, () => scale * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()));
}
