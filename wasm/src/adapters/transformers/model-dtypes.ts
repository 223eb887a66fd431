// transformers.js's model dtypes (file onnx/model<suffix>.onnx), apart from transformers.ts so that
// the CLI can check --dtype without loading the optional peer.
export const MODEL_DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
/** A transformers.js model dtype: 'fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16' or 'bnb4'. */
export type ModelDtype = (typeof MODEL_DTYPES)[number];

export const isModelDtype = (value: string): value is ModelDtype => (MODEL_DTYPES as readonly string[]).includes(value);
