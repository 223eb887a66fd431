// sampling-lab/transformers: Sampling Lab as the sampler of a transformers.js model.
// transformers.js's generate() applies only repetition penalty, temperature and top-k (50 by
// default) and ignores top-p and min-p; here every token is chosen by lab.sampleToken instead.
export type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
export {
  createGenerateKwargs, createLogitsProcessor, type GenerateKwargs, type LogitsProcessorFunction, type ProcessorOptions,
} from './processor.js';
export {
  generateTokens, type Candidate, type FinishReason, type GeneratedToken, type Generation, type GenerateOptions, type StepLogprobs, type Usage,
} from './generate.js';
export { speculativeGenerate, type PromptLookupDraft, type SpeculativeGeneration, type SpeculativeOptions, type SpeculativeStats, type SpeculativeStep } from './speculative.js';
export { TextDeltas } from './text-deltas.js';
export { Conversation, createConversation, type ConversationOptions } from './conversation.js';
export {
  createEngine, OPENAI_FIELDS, type ChatCompletion, type ChatCompletionChunk, type ChatCompletionRequest, type CompletionUsage, type Engine, type EngineOptions,
  type FinishReasonOpenAI, type TokenLogprob,
} from './engine.js';
export type { ChatMessage, ChatPrompt, Prompt } from './prompt.js';
export { beamSearch, type BeamSearchOptions, type BeamSearchRun, type BeamSequence, type BeamStep } from './beam.js';
export type { ForwardPass } from './forward.js';
export { logitsRows, passageIds, positionLogits } from './logits.js';
export { loadHubModel, loadLocalModel, type LoadedModel, type LoadModelOptions } from './load.js';
export type { ModelDtype } from './model-dtypes.js';
