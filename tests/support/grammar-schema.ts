// The JSON schema the grammar tests generate against: nested objects, enums, integer ranges and
// an array; kept small so that a tiny model's outputs end within a few dozen tokens.
import Ajv from 'ajv';

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
