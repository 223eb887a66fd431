// The passage as a reader sees it. The model reads the chapter's token ids unchanged; for display,
// the byte tokens of one character are merged into one unit (a lone byte token decodes to U+FFFD),
// and what is markup in the chapter's Markdown source (HTML tags, admonition headers, the $…$ of
// formulas) is hidden or written as plain symbols. Nothing here changes an id or a position.

/** Consecutive tokens shown as one piece of text; its distribution is the one after its last token. */
export interface PassageUnit {
  first: number;
  count: number;
  text: string;
}

const REPLACEMENT = '\uFFFD';
// A character is at most 4 UTF-8 bytes; a group that still fails past that is shown as it decodes.
const MAX_MERGED = 8;

/**
 * Groups `ids` so that each group decodes to whole characters; a token that joins no character
 * (a stray byte) is shown by `partial`.
 */
export function passageUnits(decode: (ids: number[]) => string, ids: readonly number[], partial?: (id: number) => string): PassageUnit[] {
  const units: PassageUnit[] = [];
  for (let first = 0; first < ids.length;) {
    let count = 1;
    let text = decode([ids[first]]);
    while (text.includes(REPLACEMENT) && count < MAX_MERGED && first + count < ids.length) {
      const longer = decode(ids.slice(first, first + count + 1));
      count++;
      text = longer;
    }
    // Merging did not help (a genuine U+FFFD or bytes at the end of the passage): back to one token.
    if (text.includes(REPLACEMENT)) {
      count = 1;
      text = partial?.(ids[first]) ?? decode([ids[first]]).replaceAll(REPLACEMENT, '');
    }
    units.push({ first, count, text });
    first += count;
  }
  return units;
}

const ADMONITIONS = 'note|abstract|info|tip|success|question|warning|failure|danger|bug|example|quote';
// The chapter's source after its own stripping of #*`>|-[]()!: tags lost their '>', admonitions their '!!!'.
const TAG = /<\/?(?:p|div|span|a|br|hr|img|figure|figcaption|details|summary|table|tr|td|th|ul|ol|li|em|strong|code|pre|sub|sup)\b(?:[ \t]+[\w-]+(?:="[^"\n]*")?)*\/?/g;
const ADMONITION = new RegExp(`^([ \\t]*(?:\\?{3}\\+?[ \\t]*)?(?:${ADMONITIONS})[ \\t]+")([^"\\n]*)(")[ \\t]*$`, 'gm');
const INDENT = /^[ \t]+/gm;
const MATH = /\$([^$\n]+)\$/g;
const TEX: Record<string, string> = {
  dots: '…', ldots: '…', cdots: '⋯', prod: '∏', sum: '∑', mid: '∣', cdot: '·', times: '×', le: '≤', leq: '≤', ge: '≥', geq: '≥',
  to: '→', infty: '∞', approx: '≈', neq: '≠', log: 'log', exp: 'exp', sqrt: '√', alpha: 'α', beta: 'β', theta: 'θ', pi: 'π',
};
const SUBSCRIPT: Record<string, string> = { 0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉', t: 'ₜ', i: 'ᵢ', n: 'ₙ', k: 'ₖ' };

/** Each unit's text as displayed: markup hidden, formulas in plain symbols; '' when nothing is left. */
export function shownTexts(units: readonly PassageUnit[]): string[] {
  const full = units.map((u) => u.text).join('');
  // What each UTF-16 code unit of the passage shows as: itself, '' (hidden) or a replacement
  // (an astral character's two halves, both kept, join back into it).
  const shown = full.split('');
  const hide = (start: number, end: number) => { for (let i = start; i < end; i++) shown[i] = ''; };
  for (const m of full.matchAll(TAG)) hide(m.index!, m.index! + m[0].length);
  for (const m of full.matchAll(ADMONITION)) {
    hide(m.index!, m.index! + m[1].length);
    const close = m.index! + m[1].length + m[2].length;
    hide(close, close + m[3].length);
  }
  for (const m of full.matchAll(INDENT)) hide(m.index!, m.index! + m[0].length);
  for (const m of full.matchAll(MATH)) {
    const start = m.index!;
    const end = start + m[0].length;
    hide(start, start + 1);
    hide(end - 1, end);
    for (const command of m[1].matchAll(/\\([A-Za-z]+)|([_^])(\{[^}]*\}|.)?|[{}]/g)) {
      const at = start + 1 + command.index!;
      if (command[1]) {
        hide(at, at + command[0].length);
        shown[at] = TEX[command[1]] ?? command[1];
      } else if (command[2]) {
        // x_1 → x₁; other sub- and superscripts keep their characters, the braces and marks go.
        hide(at, at + 1);
        const script = command[3] ?? '';
        if (script.length === 1 && command[2] === '_' && SUBSCRIPT[script]) shown[at + 1] = SUBSCRIPT[script];
        else if (script.startsWith('{')) { hide(at + 1, at + 2); hide(at + script.length, at + script.length + 1); }
      } else {
        hide(at, at + 1);
      }
    }
  }
  // Back to units, by their lengths.
  let at = 0;
  return units.map((unit) => shown.slice(at, (at += unit.text.length)).join(''));
}

// Byte-level BPE writes each byte as one character (GPT-2's bytes_to_unicode): printable Latin-1
// bytes as themselves, the others from U+0100 on.
const BYTE_OF = (() => {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const map = new Map<string, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) map.set(String.fromCharCode(printable(b) ? b : 256 + extra++), b);
  return map;
})();

/**
 * A token that is only part of a character (it decodes to U+FFFD), as its bytes: the vocabulary's
 * byte-level piece "Ġä¸" becomes "␣‹e4›‹b8›"; whole characters stay themselves.
 */
export function partialTokenText(piece: string): string {
  const bytes = Array.from(piece, (c) => BYTE_OF.get(c) ?? -1);
  if (bytes.includes(-1)) return piece;
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes));
  if (!decoded.includes(REPLACEMENT)) return decoded;
  return bytes.map((b) => (b === 0x20 ? '␣' : b > 0x20 && b < 0x7f ? String.fromCharCode(b) : `‹${b.toString(16).padStart(2, '0')}›`)).join('');
}
