// What the decoders take as a prompt: text, token ids, or chat messages through the tokenizer's
// chat template (transformers.js's apply_chat_template, as its text-generation pipeline uses it).
import type { PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import type { IntegerArray } from '../../lab/schema.js';
import { isObject, shown } from './checks.js';

/** One message of a conversation, as chat templates read them. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  content: string;
  /** Anything else the template reads (tool_calls, name, …). */
  [field: string]: unknown;
}

/** A conversation, rendered by the tokenizer's chat template. */
export interface ChatPrompt {
  messages: readonly ChatMessage[];
  /** End with the tokens that open the assistant's turn (default true). */
  addGenerationPrompt?: boolean;
  /** JSON-schema tool definitions, for templates that offer function calling. */
  tools?: readonly Record<string, unknown>[];
  /** Qwen3's enable_thinking (false: the template closes an empty think block); passed to templates that read it. */
  enableThinking?: boolean;
}

/** Text (tokenized with the model's special tokens), token ids as they are, or a chat. */
export type Prompt = string | IntegerArray | ChatPrompt;

const CHAT_FIELDS = ['messages', 'addGenerationPrompt', 'tools', 'enableThinking'];

/** A chat prompt's settings as transformers.js's apply_chat_template takes them (not tokenized). */
export function templateOptions({ addGenerationPrompt = true, tools, enableThinking }: Omit<ChatPrompt, 'messages'>) {
  return {
    add_generation_prompt: addGenerationPrompt,
    ...(tools !== undefined && { tools: tools as object[] }), ...(enableThinking !== undefined && { enable_thinking: enableThinking }),
  };
}

function chatIds(tokenizer: PreTrainedTokenizer, chat: Record<string, unknown>): number[] {
  for (const key of Object.keys(chat)) {
    if (!CHAT_FIELDS.includes(key)) throw new SamplingLabError(key, `unknown prompt field '${key}'; accepted: ${CHAT_FIELDS.join(', ')}`);
  }
  const { messages, addGenerationPrompt = true, tools, enableThinking } = chat;
  if (!Array.isArray(messages) || messages.length === 0) throw new SamplingLabError('messages', 'messages must be a non-empty array of { role, content }');
  messages.forEach((message, i) => {
    if (!isObject(message) || typeof message.role !== 'string' || typeof message.content !== 'string') {
      throw new SamplingLabError('messages', `messages[${i}] is ${shown(message)}, not { role: string, content: string }`);
    }
  });
  if (typeof addGenerationPrompt !== 'boolean') throw new SamplingLabError('addGenerationPrompt', 'addGenerationPrompt must be true or false');
  if (tools !== undefined && (!Array.isArray(tools) || !tools.every(isObject))) throw new SamplingLabError('tools', 'tools must be an array of JSON-schema objects');
  if (enableThinking !== undefined && typeof enableThinking !== 'boolean') throw new SamplingLabError('enableThinking', 'enableThinking must be true or false');
  const template = tokenizer as unknown as { chat_template?: unknown };
  if (!template.chat_template) throw new SamplingLabError('messages', 'the tokenizer has no chat template: give the prompt as text or token ids');
  try {
    return tokenizer.apply_chat_template(messages as never, {
      ...templateOptions({ addGenerationPrompt, tools: tools as ChatPrompt['tools'], enableThinking }), tokenize: true, return_tensor: false, return_dict: false,
    }) as unknown as number[];
  } catch (error) {
    throw new SamplingLabError('messages', `the chat template could not render the messages: ${(error as Error).message}`);
  }
}

/** The prompt's ids, unchecked against a model: see promptIds. */
function idsOfPrompt(tokenizer: PreTrainedTokenizer, prompt: unknown, limit: number): bigint[] {
  if (typeof prompt === 'string') return Array.from((tokenizer(prompt).input_ids as Tensor).data as BigInt64Array);
  if (Array.isArray(prompt) || prompt instanceof Int32Array) {
    if (prompt.length > limit) throw new SamplingLabError('prompt', `the prompt is ${prompt.length} tokens, more than ${limit} (the model's max_position_embeddings, or maxPromptTokens)`);
    return Array.from(prompt as ArrayLike<unknown>, (id, i) => {
      if (!Number.isInteger(id) || (id as number) < 0) throw new SamplingLabError('prompt', `prompt[${i}] is ${shown(id)}, not a token id`);
      return BigInt(id as number);
    });
  }
  if (isObject(prompt) && 'messages' in prompt) return chatIds(tokenizer, prompt).map(BigInt);
  throw new SamplingLabError('prompt', 'prompt must be a string, an array of token ids, or { messages } for the chat template');
}

/**
 * The prompt's token ids, checked before any forward pass: at least one, at most `limit`, and
 * each below the model's vocab_size (a tokenizer of another model gives ids the model lacks).
 */
export function promptIds(tokenizer: PreTrainedTokenizer, prompt: unknown, vocab: number | undefined, limit: number): bigint[] {
  const ids = idsOfPrompt(tokenizer, prompt, limit);
  if (ids.length === 0) throw new SamplingLabError('prompt', 'the prompt must encode to at least one token');
  if (ids.length > limit) {
    throw new SamplingLabError('prompt', `the prompt is ${ids.length} tokens, more than ${limit} (the model's max_position_embeddings, or maxPromptTokens)`);
  }
  const outside = vocab === undefined ? -1 : ids.findIndex((id) => id >= BigInt(vocab));
  if (outside >= 0) {
    throw new SamplingLabError('prompt', `the prompt's token ${outside} is id ${ids[outside]}, outside the model's vocab_size ${vocab}: the tokenizer is not the model's`);
  }
  return ids;
}
