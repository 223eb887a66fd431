// The JSON schema the grammar tests generate against: nested objects, enums, integer ranges and
// an array; kept small so that a tiny model's outputs end within a few dozen tokens.
import Ajv from 'ajv';
import { loadSamplingLab, type Lab } from 'sampling-lab';
import { compileGrammar, type CompiledGrammar } from 'sampling-lab/grammar';
import { loadLocalModel, type LoadedModel } from 'sampling-lab/transformers';
import { ensureTinyModel } from './tiny-model.js';

export const PERSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { enum: ['ada', 'grace', 'alan'] },
    age: { type: 'integer', minimum: 18, maximum: 99 },
    address: {
      type: 'object',
      properties: { zip: { type: 'integer', minimum: 0, maximum: 9999 }, city: { enum: ['Paris', 'Oslo'] } },
      required: ['zip', 'city'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { enum: ['x', 'y'] }, minItems: 1, maxItems: 3 },
  },
  required: ['name', 'age', 'address', 'tags'],
  additionalProperties: false,
};

/** ajv's validator of the schema. */
export const validatePerson = new Ajv().compile(PERSON_SCHEMA);

/** Sampling Lab, the tiny model on one onnxruntime thread, and the schema compiled for its tokenizer. */
export async function loadPersonFixture(): Promise<{ lab: Lab; tiny: LoadedModel; json: CompiledGrammar }> {
  const lab = await loadSamplingLab();
  const tiny = await loadLocalModel(ensureTinyModel(), { dtype: 'fp32', sessionOptions: { intraOpNumThreads: 1 } });
  const json = await compileGrammar(tiny.tokenizer, { jsonSchema: PERSON_SCHEMA }, { vocabSize: 151936 });
  return { lab, tiny, json };
}
