/** Char codes the scanners test, by name, and the small predicates over them. */

export const TAB = 9;
export const LF = 10;
export const VT = 11;
export const FF = 12;
export const CR = 13;
export const SPACE = 32;
export const BANG = 33; // !
export const DQUOTE = 34; // "
export const HASH = 35; // #
export const DOLLAR = 36; // $
export const PERCENT = 37; // %
export const AMP = 38; // &
export const QUOTE = 39; // '
export const LPAREN = 40; // (
export const RPAREN = 41; // )
export const STAR = 42; // *
export const COMMA = 44; // ,
export const MINUS = 45; // -
export const DOT = 46; // .
export const SLASH = 47; // /
export const COLON = 58; // :
export const SEMI = 59; // ;
export const LT = 60; // <
export const EQUALS = 61; // =
export const GT = 62; // >
export const QUESTION = 63; // ?
export const AT = 64; // @
export const LBRACKET = 91; // [
export const BACKSLASH = 92; // \
export const RBRACKET = 93; // ]
export const UNDERSCORE = 95; // _
export const BACKTICK = 96; // `
export const LOWER_A = 97; // a
export const LOWER_W = 119; // w
export const LBRACE = 123; // {
export const PIPE = 124; // |
export const RBRACE = 125; // }

export const isSpace = (c: number) => c === SPACE || c === TAB || c === CR || c === VT || c === FF;
export const isAsciiLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
export const isDigit = (c: number) => c >= 48 && c <= 57;
export const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
/** Identifier chars as the scanners see them: ASCII letters, `_`, `$` and every non-ASCII char. */
export const isIdentStart = (c: number) => isAsciiLetter(c) || c === UNDERSCORE || c === DOLLAR || c > 127;
export const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
export const isBracket = (c: number) =>
  c === LBRACE || c === RBRACE || c === LBRACKET || c === RBRACKET || c === LPAREN || c === RPAREN;

/** A lookup table over ASCII: `set[c] === 1` for every char of `chars`. */
export function asciiSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const ch of chars) set[ch.charCodeAt(0)] = 1;
  return set;
}

/** Number of `\n` in text[from, to). */
export function countLF(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Index of the `\n` ending the line at `from`, or `to` when the line runs past it. */
export function lineEnd(text: string, from: number, to: number): number {
  const j = text.indexOf('\n', from);
  return j === -1 || j > to ? to : j;
}
