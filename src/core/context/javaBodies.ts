/**
 * A large Java text with its method bodies blanked, for the outline's parse, as cBodies.ts does for C: every
 * character between a body's `{` and its `}` becomes a space but the line breaks, so every offset, line and column
 * is the text's own. A Java outline shows types, methods and constructors with their heads and ranges; it never
 * looks inside a method's body, an initializer or an enum constant's body, and those bodies were most of the parse
 * (a generated 4 MB file: ~1.1 s whole, first call of a fresh server).
 *
 * The text is read member by member inside each type's body (`class`, `interface`, `enum`, `record`,
 * `@interface`). A `{` there is blanked when its bounds are certain and it is
 * - a method's or constructor's body: it follows the `)` of a parameter list after a name (a `throws` clause
 *   between them aside) in a member without an `=`; an enum constant's body `A(1) {` reads the same way;
 * - an initializer: `static {` or a bare `{`.
 * Any other `{` (a field's initializer, an array, an anonymous class, a lambda, a compact constructor) is stepped
 * over whole and left as it is; a type's body is read in turn. A body's bounds are certain when every brace inside
 * it closes, no `}` starts a line (column 0) before the body's own, and every string, character, text block and
 * comment in it closes as the Java lexer closes it. At anything else (a brace that never closes, a `}` too many,
 * a string left open) the reading stops, and what it found before stays blanked. What is lost: the syntax errors
 * inside the bodies blanked.
 */
import { blankRanges } from './cBodies';

const NL = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const OPEN = 123;
const CLOSE = 125;
const PAREN_OPEN = 40;
const PAREN_CLOSE = 41;
const SEMICOLON = 59;
const EQUALS = 61;
const DOT = 46;

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === CR || c === 12;
}

/** Java letters and digits, `_` and `$`; any non-ASCII character counts (identifiers may hold them). */
function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 128;
}

/**
 * The end (exclusive) of the comment, string, character literal or text block opened at `i`, i when none opens
 * there, or -1 when it does not close (a string or character literal at its line's end, the others at the text's).
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH) {
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
  if (c === QUOTE && text.startsWith('""', i + 1)) {
    // a text block: to the next `"""` that no backslash escapes
    for (let k = i + 3; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === QUOTE && text.startsWith('""', k + 1)) return k + 3;
    }
    return -1;
  }
  if (c !== QUOTE && c !== APOSTROPHE) return i;
  for (let k = i + 1; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === c) return k + 1;
    if (d === NL || d === CR) return -1;
    if (d === BACKSLASH) k++;
  }
  return -1;
}

/** The `}` closing the `{` at `open`, or -1 when its bounds are not certain (see the module comment). */
function blockClose(text: string, open: number): number {
  let depth = 1;
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN) depth++;
    else if (c === CLOSE) {
      if (--depth === 0) return i;
      if (text.charCodeAt(i - 1) === NL) return -1;
    } else if (c === SLASH || c === QUOTE || c === APOSTROPHE) {
      const end = literalEnd(text, i);
      if (end < 0) return -1;
      if (end > i) i = end - 1;
    }
  }
  return -1;
}

/** What the member being read holds so far, from the last `;`, `{` or `}` of its type's body. */
interface Member {
  /** no token yet, or only `static` (then a `{` opens an initializer) */
  initializer: boolean;
  /** `class`, `interface`, `enum` or `record NAME`: the next `{` opens a type's body */
  declaresType: boolean;
  /** an `=` outside parentheses: a field's initializer, whose braces are values */
  assigns: boolean;
  /** the last tokens are a parameter list after a name, and maybe a `throws` clause */
  afterParams: boolean;
  inThrows: boolean;
  parens: number;
  /** whether the outermost open parenthesis followed a name */
  paramList: boolean;
  /** the last word, and whether a `.` came right before it */
  lastWord: string;
  lastWordAfterDot: boolean;
  /** whether the last token was that word */
  wordLast: boolean;
  dotLast: boolean;
}

function newMember(): Member {
  return { initializer: true, declaresType: false, assigns: false, afterParams: false, inThrows: false, parens: 0, paramList: false, lastWord: '', lastWordAfterDot: false, wordLast: false, dotLast: false };
}

const TYPE_KEYWORDS = new Set(['class', 'interface', 'enum']);

/** The method, constructor, initializer and enum constant bodies of `text` whose bounds are certain: sorted, disjoint [start, end) each, between a `{` and its `}`. */
export function javaMethodBodies(text: string): [number, number][] {
  const bodies: [number, number][] = [];
  /** how many type bodies are open around the reading */
  let types = 0;
  let m = newMember();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) continue;
    if (c === SLASH || c === QUOTE || c === APOSTROPHE) {
      const end = literalEnd(text, i);
      if (end < 0) return bodies;
      if (end > i) {
        if (c !== SLASH) m = token(m, 0);
        i = end - 1;
        continue;
      }
    }
    if (isWordChar(c)) {
      let end = i + 1;
      while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
      m = word(m, text.slice(i, end));
      i = end - 1;
      continue;
    }
    if (c === PAREN_OPEN) {
      if (m.parens++ === 0) m.paramList = m.wordLast && !m.lastWordAfterDot;
      m = token(m, c);
    } else if (c === PAREN_CLOSE) {
      if (m.parens === 0) return bodies;
      const closesList = --m.parens === 0 && m.paramList;
      m = token(m, c);
      m.afterParams = closesList;
    } else if (c === SEMICOLON && m.parens === 0) {
      m = newMember();
    } else if (c === OPEN && m.parens === 0 && (m.declaresType || types === 0)) {
      // a type's body (at the top level only types have one): its members are read in turn
      if (!m.declaresType) return bodies;
      types++;
      m = newMember();
    } else if (c === OPEN) {
      const close = blockClose(text, i);
      if (close < 0) return bodies;
      const isBody = m.parens === 0 && (m.initializer || (m.afterParams && !m.assigns));
      if (isBody) {
        if (close > i + 1) bodies.push([i + 1, close]);
        m = newMember();
      } else m = token(m, c);
      i = close;
    } else if (c === CLOSE) {
      if (m.parens > 0 || types === 0) return bodies;
      types--;
      m = newMember();
    } else {
      if (c === EQUALS && m.parens === 0) m.assigns = true;
      m = token(m, c);
    }
  }
  return bodies;
}

/** The characters between the names of a throws clause: `throws A, b.C<D>`. */
const THROWS_PUNCTUATION = new Set([44, DOT, 60, 62, 63]);

/** `m` after a token that is not a word: the character `c`, or 0 for a literal. */
function token(m: Member, c: number): Member {
  m.initializer = false;
  const inThrows = m.inThrows && THROWS_PUNCTUATION.has(c);
  m.afterParams = m.afterParams && inThrows;
  m.inThrows = inThrows;
  m.wordLast = false;
  m.dotLast = c === DOT;
  return m;
}

/** `m` after the word `w`. */
function word(m: Member, w: string): Member {
  const afterDot = m.dotLast;
  if (m.parens === 0 && !afterDot && (TYPE_KEYWORDS.has(w) || (m.wordLast && m.lastWord === 'record' && !m.lastWordAfterDot))) m.declaresType = true;
  m.initializer = m.initializer && w === 'static';
  // `) throws A, b.C<D>`: the words of a throws clause keep the parameter list last
  const throwsNow = m.afterParams && w === 'throws';
  m.inThrows = throwsNow || (m.inThrows && m.parens === 0);
  m.afterParams = m.afterParams && m.inThrows;
  m.lastWord = w;
  m.lastWordAfterDot = afterDot;
  m.wordLast = true;
  m.dotLast = false;
  return m;
}

/** `text` with the bodies of javaMethodBodies blanked (line breaks kept), or undefined when there is none. */
export function blankJavaMethodBodies(text: string): string | undefined {
  const bodies = javaMethodBodies(text);
  return bodies.length ? blankRanges(text, bodies) : undefined;
}
