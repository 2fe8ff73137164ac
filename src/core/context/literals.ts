/**
 * Lexing pieces the body readers' dialects share (javaBodies.ts, csharpBodies.ts, cppBodies.ts, jsBodies.ts,
 * phpBodies.ts, rubyBodies.ts, pythonBodies.ts, bashBodies.ts, and the readers under them): a name's characters, a
 * line's blank end, C-style comments, strings closed on their line, the code in a string's interpolation (`${…}`,
 * `{…}`, `#{…}`), and a line's end past the literals on it.
 */

const NL = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const OPEN = 123;
const CLOSE = 125;

/** Letters, digits and `_`; any non-ASCII character counts (identifiers may hold them). `$` is the caller's to add. */
export function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c >= 128;
}

/** Whether only blanks follow `i` on its line. */
export function endsLine(text: string, i: number): boolean {
  for (let k = i; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === NL) return true;
    if (c !== 32 && c !== 9 && c !== CR) return false;
  }
  return true;
}

/** At a `/`: the end of the `//` comment (its line break) or the `/* … *\/` one opened there, i when neither, -1 when a block comment never closes. */
export function slashCommentEnd(text: string, i: number): number {
  const next = text.charCodeAt(i + 1);
  if (next === SLASH) {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl;
  }
  if (next === STAR) {
    const close = text.indexOf('*/', i + 2);
    return close < 0 ? -1 : close + 2;
  }
  return i;
}

/** After the opening `quote` (a code unit) of a string closed on its line, from `from`: the end after its closing quote, -1 at a line's end; a backslash escapes. */
export function quotedEnd(text: string, from: number, quote: number): number {
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === quote) return k + 1;
    if (d === NL || d === CR) return -1;
    if (d === BACKSLASH) k++;
  }
  return -1;
}

/**
 * Literals nest (a string's hole holds a string with a hole, and so on), and their readers recurse: past this depth a
 * literal counts as one that does not close, so a crafted text ends the reading instead of overflowing the stack.
 */
export const MAX_LITERAL_DEPTH = 100;
let literalDepth = 0;

/** `scan` run one literal deeper: its answer, or -1 (does not close) past MAX_LITERAL_DEPTH. */
export function nestedLiteral(scan: () => number): number {
  if (literalDepth >= MAX_LITERAL_DEPTH) return -1;
  literalDepth++;
  try {
    return scan();
  } finally {
    literalDepth--;
  }
}

/**
 * The `}` closing an interpolation's code that starts at `from` (its `{` before it), or -1: braces nest, and the
 * literals and comments in it end where the dialect's `literalEnd` says (i where none opens, -1 where one never
 * closes).
 */
export function holeEnd(text: string, from: number, literalEnd: (text: string, i: number) => number): number {
  return nestedLiteral(() => holeEndAt(text, from, literalEnd));
}

function holeEndAt(text: string, from: number, literalEnd: (text: string, i: number) => number): number {
  let depth = 1;
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === OPEN) depth++;
    else if (d === CLOSE) {
      if (--depth === 0) return k;
    } else {
      const end = literalEnd(text, k);
      if (end < 0) return -1;
      if (end > k) k = end - 1;
    }
  }
  return -1;
}

/** What a reader's `bodyAt` gives for a head: its body [start, end), none here, or `'spent'` (the reading ends). */
export type HeadBody = [number, number] | undefined | 'spent';

/**
 * The bodies of `text` that `bodyAt` finds at each line start `head` (a sticky RegExp) matches, sorted and disjoint:
 * after a body the reading goes on at its end, else at the next line, past the line's literals (`literalEnd`); a
 * literal that does not close, or `'spent'`, ends it with the bodies found so far.
 */
export function bodiesAtHeads(text: string, head: RegExp, bodyAt: (match: RegExpExecArray) => HeadBody, literalEnd: (text: string, i: number) => number): [number, number][] {
  const out: [number, number][] = [];
  for (let at = 0; at < text.length; ) {
    head.lastIndex = at;
    const match = head.exec(text);
    const body = match ? bodyAt(match) : undefined;
    if (body === 'spent') return out;
    if (body) {
      out.push(body);
      at = body[1];
      continue;
    }
    const nl = lineEndPastLiterals(text, at, literalEnd);
    if (nl < 0) return out;
    at = nl + 1;
  }
  return out;
}

/**
 * From `from`, the line break that ends the line with its literals stepped over (a literal may run over lines, and
 * its line breaks are not the line's end), the text's length at its end, or -1 when a literal does not close.
 * `onLiteral` sees each literal stepped over, [start, end).
 */
export function lineEndPastLiterals(
  text: string,
  from: number,
  literalEnd: (text: string, i: number) => number,
  onLiteral?: (start: number, end: number) => void,
): number {
  let i = from;
  for (; i < text.length && text.charCodeAt(i) !== 10; i++) {
    const end = literalEnd(text, i);
    if (end < 0) return -1;
    if (end > i) {
      onLiteral?.(i, end);
      i = end - 1;
    }
  }
  return i;
}
