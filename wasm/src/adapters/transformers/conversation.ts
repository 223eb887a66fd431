// A multi-turn chat that keeps the model's KV cache between turns: each turn prefills only the
// tokens the conversation added since the cache (the reply's last token, the template's turn
// markers, the new message), as llama.cpp's server and vLLM's prefix caching reuse a prompt.
import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers';
import { SamplingLabError } from '../../lab/errors.js';
import { checkModel, checkObject, checkTokenizer, isObject } from './checks.js';
import { generateOnCache, type CachedPrefix, type GeneratedToken, type GenerateOptions, type Generation } from './generate.js';
import { templateOptions, type ChatMessage, type ChatPrompt } from './prompt.js';

/** The conversation's own settings, and the generation options every turn starts from. */
export interface ConversationOptions extends Omit<GenerateOptions, 'n'> {
  /** The first message, with role 'system'. */
  system?: string;
  /** As a chat prompt's (Qwen3's enable_thinking, JSON-schema tools). */
  enableThinking?: boolean;
  tools?: ChatPrompt['tools'];
}

/**
 * A multi-turn chat with one model that keeps its KV cache between turns: each `send` prefills
 * only the tokens added since the cache. Made by {@link createConversation}.
 */
export class Conversation {
  readonly #model: PreTrainedModel;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #options: Omit<GenerateOptions, 'n'>;
  readonly #chat: Pick<ChatPrompt, 'enableThinking' | 'tools'>;
  readonly #messages: ChatMessage[] = [];
  // The ids the model has seen, and the cache of them.
  #cached?: CachedPrefix;
  // The last turn's prompt and then its reply's tokens: what the next turn's prompt starts with.
  #history: number[] = [];
  #lastPrompt: readonly number[] = [];
  // The last turn: a turn never iterated is dropped by the next send; one running blocks it.
  #turn?: { started: boolean; ended: boolean; dropped: boolean };

  constructor(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, options: ConversationOptions) {
    checkModel(model);
    checkTokenizer(tokenizer);
    checkObject(options, 'options');
    if ('n' in options) throw new SamplingLabError('n', 'a conversation has one reply per turn: n is not an option');
    const { system, enableThinking, tools, ...generation } = options;
    if (system !== undefined && typeof system !== 'string') throw new SamplingLabError('system', 'system must be a string');
    this.#model = model;
    this.#tokenizer = tokenizer;
    this.#options = generation;
    this.#chat = { ...(enableThinking !== undefined && { enableThinking }), ...(tools !== undefined && { tools }) };
    if (system !== undefined) this.#messages.push({ role: 'system', content: system });
  }

  /** The messages so far: the system message, then each turn's and each finished reply. */
  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  /** Positions of the conversation the KV cache holds. */
  get cachedTokens(): number {
    return this.#cached?.ids.length ?? 0;
  }

  /** The last turn's prompt as token ids: what a fresh run of that turn would take. */
  get lastPromptIds(): readonly number[] {
    return this.#lastPrompt;
  }

  /**
   * Adds `message` (a user's text, or a message of any role) and streams the reply, with the
   * conversation's options overridden by `options`. The reply joins `messages` when the run ends
   * (its text as textDelta gave it). One turn at a time: a turn never iterated is dropped by the
   * next send, one running refuses it.
   */
  send(message: string | ChatMessage, options: Partial<Omit<GenerateOptions, 'n'>> = {}): Generation {
    if (this.#turn?.started && !this.#turn.ended) throw new SamplingLabError('message', 'the last reply is still running: finish or break out of it first');
    const turn = typeof message === 'string' ? { role: 'user', content: message } : message;
    if (!isObject(turn) || typeof turn.role !== 'string' || typeof turn.content !== 'string') {
      throw new SamplingLabError('message', 'message must be a string or { role, content }');
    }
    checkObject(options, 'options');
    if ('n' in options) throw new SamplingLabError('n', 'a conversation has one reply per turn: n is not an option');
    const messages = [...this.#messages, turn];
    const prompt = this.#promptIds(messages);
    if (this.#turn) this.#turn.dropped = !this.#turn.started;
    const state = { started: false, ended: false, dropped: false };
    this.#turn = state;
    let reply = '';
    const run = generateOnCache(this.#model, this.#tokenizer, prompt, { ...this.#options, ...options }, this.#cached, (cached) => {
      this.#cached = cached;
    });
    const conversation = this;
    // The run as given, with the reply kept as it streams and added to the messages at its end.
    async function* turnOf(): AsyncGenerator<GeneratedToken, void> {
      if (state.dropped) return;
      state.started = true;
      conversation.#lastPrompt = prompt;
      conversation.#history = [...prompt];
      try {
        for await (const step of run) {
          reply += step.textDelta;
          conversation.#history.push(step.token);
          yield step;
        }
      } finally {
        conversation.#messages.push(turn, { role: 'assistant', content: reply });
        state.ended = true;
      }
    }
    return Object.assign(turnOf(), { usage: run.usage, finishReasons: run.finishReasons });
  }

  // The messages through the chat template; the conversation's own ids kept where the template
  // rendered them the same, so that a reply's tokens stay as the model drew them.
  #promptIds(messages: readonly ChatMessage[]): number[] {
    const text = this.#tokenizer.apply_chat_template(messages as never, { ...templateOptions(this.#chat), tokenize: false } as never) as unknown as string;
    const seen = this.#history;
    const seenText = seen.length > 0 ? this.#tokenizer.decode(seen) : '';
    if (seen.length > 0 && text.startsWith(seenText)) {
      return [...seen, ...this.#tokenizer.encode(text.slice(seenText.length), { add_special_tokens: false })];
    }
    // The template rewrote the history (Qwen3 drops earlier turns' thinking): the cache serves
    // the prefix the two share.
    return this.#tokenizer.encode(text, { add_special_tokens: false });
  }
}

/** A conversation with `model`: each `send` streams a reply, reusing the KV cache of the turns before. */
export function createConversation(model: PreTrainedModel, tokenizer: PreTrainedTokenizer, options: ConversationOptions): Conversation {
  return new Conversation(model, tokenizer, options);
}
