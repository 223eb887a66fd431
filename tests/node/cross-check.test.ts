// The fast selection paths against a sort-based reference on vocabulary-sized logits.
import { beforeAll, expect, it } from 'vitest';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { randomLogits, referenceFilter } from '../support/reference-sampler';

const V = 151936;
let lab: Lab;
beforeAll(async () => { lab = await loadSamplingLab(); });

const settings = [
  { temperature: 1, topK: 0, topP: 1, minP: 0 },
  { temperature: 0.7, topK: 50, topP: 1, minP: 0 },
  { temperature: 1, topK: 0, topP: 0.9, minP: 0 },
  { temperature: 1.3, topK: 0, topP: 0.5, minP: 0 },
  { temperature: 1, topK: 0, topP: 1, minP: 0.05 },
  { temperature: 0.7, topK: 50, topP: 0.95, minP: 0.05 },
  { temperature: 2, topK: 1000, topP: 0.99, minP: 0.001 },
  { temperature: 0.2, topK: 1, topP: 1, minP: 0 },
  { temperature: 0.8, topK: 40, topP: 0.9, minP: 0, repetitionPenalty: 1.3, presencePenalty: 0.4, frequencyPenalty: 0.1, generatedIds: [5, 17, 17, 151935, 42] },
];

for (const [seed, scale] of [[1, 1], [2, 3], [3, 6]]) {
  it(`matches the reference: seed ${seed}, logit scale ${scale}`, () => {
    const logits = randomLogits(V, seed, scale);
    // Quantised models produce exact ties; put some in.
    for (let i = 0; i < V; i += 101) logits[i] = Math.round(logits[i] * 2) / 2;
    for (const options of settings) {
      const fast = lab.distribution(logits, options);
      const slow = referenceFilter(logits, options);
      expect(fast.kept, JSON.stringify(options)).toBe(slow.kept);
      expect(fast.keptMass).toBeCloseTo(slow.keptMass, 5);
      for (let i = 0; i < V; i++) {
        // Cut tokens are exactly 0; kept ones may underflow float32 only below 1e-37.
        const cutDifferently = slow.probs[i] === 0 ? fast.probs[i] !== 0 : slow.probs[i] > 1e-30 && fast.probs[i] === 0;
        if (cutDifferently) throw new Error(`token ${i} kept differently with ${JSON.stringify(options)}`);
        if (Math.abs(fast.probs[i] - slow.probs[i]) > 2e-5 * slow.probs[i] + 1e-9) {
          throw new Error(`token ${i}: ${fast.probs[i]} vs ${slow.probs[i]} with ${JSON.stringify(options)}`);
        }
      }
    }
  });
}
