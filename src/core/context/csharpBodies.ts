/**
 * A large C# text with its method and constructor bodies emptied, for the outline's parse (memberBodies.ts reads the
 * members; here are C#'s literals and keywords). A C# outline shows namespaces, types, methods, constructors and
 * delegates with their heads and ranges, never a body, and the bodies were most of the parse (a generated 4 MB file:
 * ~1.45 s whole, first call of a fresh server). Types and namespaces are `namespace`, `class`, `struct`,
 * `interface`, `enum` and `record NAME`; a `where T : class` clause declares none. Literals are comments, characters,
 * strings, verbatim strings (`@"…"`, over lines, `""` inside), interpolated ones (`$"…{x}…"`, whose holes may
 * hold strings), raw strings (`"""…"""`, `$$"""…"""`); a `#` at a line's start is a directive line.
 */
import { emptyRanges } from './cBodies';
import { memberBodies, type MemberDialect } from './memberBodies';
import { holeEnd, quotedEnd, slashCommentEnd } from './literals';

const NL = 10;
const CR = 13;
const SLASH = 47;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const AT = 64;
const DOLLAR = 36;
const OPEN = 123;
const CLOSE = 125;

/**
 * The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not close
 * (a string, character or interpolated string at its line's end, the others at the text's).
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH) return slashCommentEnd(text, i);
  if (c === APOSTROPHE) return quotedEnd(text, i + 1, APOSTROPHE);
  // the prefix: `$`s (interpolated), `@` (verbatim), in either order
  let k = i;
  let dollars = 0;
  while (text.charCodeAt(k + dollars) === DOLLAR) dollars++;
  k += dollars;
  const verbatim = text.charCodeAt(k) === AT;
  if (verbatim) k++;
  if (!dollars) {
    while (text.charCodeAt(k + dollars) === DOLLAR) dollars++;
    k += dollars;
  }
  if (text.charCodeAt(k) !== QUOTE) return i;
  if (!verbatim && text.startsWith('""', k + 1)) {
    // a raw string: closed by as many quotes as opened it
    let quotes = 3;
    while (text.charCodeAt(k + quotes) === QUOTE) quotes++;
    const close = text.indexOf('"'.repeat(quotes), k + quotes);
    return close < 0 ? -1 : close + quotes;
  }
  if (!dollars) return verbatim ? verbatimEnd(text, k + 1) : quotedEnd(text, k + 1, QUOTE);
  return interpolatedEnd(text, k + 1, verbatim);
}

/** After `@"` : the end of the verbatim string (`""` is a quote in it), or -1. */
function verbatimEnd(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    if (text.charCodeAt(k) !== QUOTE) continue;
    if (text.charCodeAt(k + 1) !== QUOTE) return k + 1;
    k++;
  }
  return -1;
}

/** After `$"` or `$@"`: the end of the interpolated string, its holes (`{…}`, `{{` is a brace) read as code. */
function interpolatedEnd(text: string, from: number, verbatim: boolean): number {
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === QUOTE) {
      if (verbatim && text.charCodeAt(k + 1) === QUOTE) k++;
      else return k + 1;
    } else if (d === OPEN || d === CLOSE) {
      if (text.charCodeAt(k + 1) === d) k++;
      else if (d === OPEN) {
        const end = holeEnd(text, k + 1, literalEnd);
        if (end < 0) return -1;
        k = end;
      } else return -1;
    } else if (!verbatim && (d === NL || d === CR)) return -1;
    else if (!verbatim && d === BACKSLASH) k++;
  }
  return -1;
}

function opensLiteral(c: number): boolean {
  return c === SLASH || c === QUOTE || c === APOSTROPHE || c === AT || c === DOLLAR;
}

/** C#'s literals and keywords for memberBodies.ts. */
const CSHARP: MemberDialect = {
  literalEnd,
  opensLiteral,
  typeKeywords: new Set(['namespace', 'class', 'struct', 'interface', 'enum']),
  clause: 'where',
  clausePunctuation: new Set([40, 41, 44, 46, 58, 60, 62, 63]),
  verbatimNames: true,
  directives: true,
};

/** The method and constructor bodies of `text` whose bounds are certain: sorted, disjoint [start, end) each, between a `{` and its `}`. */
export function csharpMethodBodies(text: string): [number, number][] {
  return memberBodies(text, CSHARP);
}

/** `text` with the bodies of csharpMethodBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyCsharpMethodBodies(text: string): string | undefined {
  const bodies = csharpMethodBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
