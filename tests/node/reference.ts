// A straightforward, sort-based implementation of the filter chain, written independently of
// the core to check it: penalties -> temperature -> top-k -> top-p -> min-p -> renormalise.
export interface ReferenceOptions {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
}

export function referenceFilter(logits: Float32Array, o: ReferenceOptions) {
  const v = logits.length;
  const order = Array.from({ length: v }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const max = logits[order[0]];
  const weight = Array.from(logits, (z) => Math.exp((z - max) / o.temperature));
  const total = weight.reduce((a, b) => a + b, 0);
  let keep = o.topK > 0 ? Math.min(o.topK, v) : v;
  const candidates = order.slice(0, keep).reduce((a, i) => a + weight[i], 0);
  if (o.topP < 1) {
    let before = 0;
    let r = 0;
    while (r < keep && before < o.topP * candidates) before += weight[order[r++]];
    keep = r;
  }
  if (o.minP > 0) {
    const threshold = Math.fround(max + o.temperature * Math.log(o.minP));
    let r = 0;
    while (r < keep && logits[order[r]] >= threshold) r++;
    keep = r;
  }
  const keptWeight = order.slice(0, keep).reduce((a, i) => a + weight[i], 0);
  const probs = new Float64Array(v);
  for (const i of order.slice(0, keep)) probs[i] = weight[i] / keptWeight;
  return { probs, kept: keep, keptMass: keptWeight / total };
}

/** Seeded standard normals (mulberry32 + Box-Muller), independent of the core's RNG. */
export function randomLogits(v: number, seed: number, scale: number): Float32Array {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return Float32Array.from({ length: v }, () =>
    scale * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()));
}
