// Numbers as the chapter prints them: decimals where they are readable, else m × 10ᵏ with a
// superscript exponent (never 6.0e-4 or 10^-400).
const SUPERSCRIPT: Record<string, string> = {
  '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '-': '⁻',
};

/** 10ᵏ for an integer k, e.g. 10⁻⁴⁰⁰. */
export function powerOfTen(exponent: number): string {
  return `10${[...String(Math.round(exponent))].map((c) => SUPERSCRIPT[c]).join('')}`;
}

/** The number 10^log10 as m × 10ᵏ with m in [1, 10), `digits` after m's point. */
export function fromLog10(log10: number, digits = 1): string {
  let exponent = Math.floor(log10);
  let mantissa = (10 ** (log10 - exponent)).toFixed(digits);
  // Rounding may reach 10.0: one more power of ten instead.
  if (Number(mantissa) >= 10) [exponent, mantissa] = [exponent + 1, (1).toFixed(digits)];
  return `${mantissa} × ${powerOfTen(exponent)}`;
}

/** A small number to `significant` digits: a decimal down to 10⁻⁶ (0.0006), m × 10ᵏ below. */
export function small(x: number, significant = 2): string {
  if (x === 0 || Math.abs(x) >= 1e-6) return String(Number(x.toPrecision(significant)));
  return `${x < 0 ? '−' : ''}${fromLog10(Math.log10(Math.abs(x)), significant - 1)}`;
}
