// The text each step adds to a sequence, safe to join. Decoding one token alone breaks a
// character spread over byte tokens into U+FFFD; decoding the whole sequence every step costs
// O(n) a step. vLLM's incremental detokenizer (detokenize_incrementally) decodes a short window
// instead: the tokens since a settled point, minus the same decode without the new ones, and
// holds the text while it ends in an incomplete character.
import type { PreTrainedTokenizer } from '@huggingface/transformers';

/**
 * A sequence's text as it grows, token by token, in pieces safe to join (what generateTokens and
 * speculativeGenerate give as `textDelta`): for a loop of one's own, e.g. over createLogitsProcessor.
 */
export class TextDeltas {
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #options: { skip_special_tokens: boolean };
  readonly #ids: number[] = [];
  // ids[prefix, read): shown, decoded again as context so that a decoder's word-start rules see
  // the new tokens in place; ids[read, …): not shown yet.
  #prefix = 0;
  #read = 0;

  constructor(tokenizer: PreTrainedTokenizer, skipSpecialTokens = true) {
    this.#tokenizer = tokenizer;
    this.#options = { skip_special_tokens: skipSpecialTokens };
  }

  /** The text that `tokens` complete: '' while the text so far ends in a partial character. */
  push(...tokens: number[]): string {
    this.#ids.push(...tokens);
    return this.#delta(false);
  }

  /** The text still held, at the sequence's end (a byte sequence that never completed reads U+FFFD). */
  flush(): string {
    return this.#delta(true);
  }

  #delta(final: boolean): string {
    const shown = this.#decode(this.#prefix, this.#read);
    const text = this.#decode(this.#prefix, this.#ids.length);
    if (text.length <= shown.length || (!final && text.endsWith('\uFFFD'))) return '';
    // The next window starts at the tokens shown last, as context for the ones after them.
    this.#prefix = this.#read;
    this.#read = this.#ids.length;
    return text.slice(shown.length);
  }

  #decode(from: number, to: number): string {
    return from === to ? '' : this.#tokenizer.decode(this.#ids.slice(from, to), this.#options);
  }
}
