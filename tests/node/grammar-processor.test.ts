// generate() with createLogitsProcessor(lab, { grammar: matcher }) on the tiny model with the
// real Qwen3 tokenizer: 30 seeds (three tests of ten), every output parses and validates (ajv)
// and leaves its matcher terminated.
import { expect, it } from 'vitest';
import type { Tensor } from '@huggingface/transformers';
import { createLogitsProcessor } from 'sampling-lab/transformers';
import { loadPersonFixture, validatePerson } from '../support/grammar-schema.js';

const { lab, tiny, json } = await loadPersonFixture();

for (const first of [0, 10, 20]) {
  it(`seeds ${first}–${first + 9}: every output of generate() validates`, async () => {
    const encoded = tiny.tokenizer('A person as JSON:');
    const promptLength = encoded.input_ids.dims[1];
    for (let seed = first; seed < first + 10; seed++) {
      const matcher = await json.matcher();
      const generated = await tiny.model.generate({
        ...encoded, max_new_tokens: 200, do_sample: false, logits_processor: [createLogitsProcessor(lab, { seed, grammar: matcher })],
      }) as Tensor;
      const text = tiny.tokenizer.decode(Array.from(generated.data as BigInt64Array).slice(promptLength).map(Number), { skip_special_tokens: true });
      expect(validatePerson(JSON.parse(text)), text).toBe(true);
      expect(matcher.isTerminated()).toBe(true);
    }
    console.log(`processor: seeds ${first}–${first + 9}, 10/10 outputs valid`);
  });
}
