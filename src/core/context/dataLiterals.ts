/**
 * A large JavaScript, TypeScript or Python text with the tails of its data literals taken out, for the outline's
 * parse: a top-level `const data = [ … ]` (Python: `DATA = [ … ]`) of megabytes (generated tables, fixtures, JSON
 * kept as code) is one declaration that no part cut (outlineChunks.ts) can split, so one worker parsed all of it (a
 * 3.7 MB data file: 0.8-0.9 s in JavaScript, 1.5 s in Python)
 * for an outline that shows its head, its first characters and its line range. The elements after the first
 * ones are taken out but their line breaks (0.06-0.13 s; turned into spaces, as cBodies.ts blanks C bodies, they
 * still cost 0.3-0.4 s: the grammar's lexer steps over each blank): every line keeps its number and every line
 * outside the literals its text, and the signature's first characters are still there. Tree-sitter's error recovery
 * weighs the characters it skips, so a compacted text that parses with errors is parsed again whole
 * (treeOutline.ts outlineInputs).
 *
 * A literal's tail is taken out only when the literal is certainly data: a `[` or `{` right after the `=` of a
 * `const`, `let` or `var` declaration (Python: an assignment to a name, its type annotation allowed) that starts its
 * line (not after a line ending in `\`, which continues it), holding only brackets that balance, strings that close
 * on their line, numbers, names, and `, : . - +`. Anything else (a parenthesis, an operator, a slash, a backtick, a
 * `#`, a backslash outside a string, a character past ASCII outside a string, the word `class`, a Python `lambda`
 * or f-string) leaves it as it is, so no call, function, comment, template, regular expression or interpolation is
 * ever taken out. A Python triple-quoted string reads as strings that do not close on their line when it spans
 * lines, so it leaves the literal as it is too. What stays: every character up to the first comma directly inside
 * the literal after KEPT_CHARS non-blank characters; what goes: the rest up to its closing bracket, which stays (a
 * trailing comma is valid in all three languages). What is lost: the syntax errors inside the part taken out.
 */
import { MAX_SIGNATURE } from './extract';

/** From this size on a JavaScript, TypeScript or Python text's outline is parsed without its data literals' tails. */
export const COMPACT_LITERALS_MIN_CHARS = 256 * 1024;
/** Literals shorter than this are left as they are: their parse is quick. */
export const MIN_LITERAL_CHARS = 16 * 1024;
/**
 * Non-blank characters kept at a literal's start: a signature shows at most MAX_SIGNATURE characters of the
 * declaration (a JavaScript one 24 of its value, a Python one its lines joined), so it is the same compacted.
 */
export const KEPT_CHARS = MAX_SIGNATURE + 1;

/** How a language declares a data literal at its top level, and the words inside one that make it not data. */
interface Dialect {
  /** At a line's start, up to the literal's bracket; a type annotation may not hold `=` (an arrow type is no match). */
  declaration: RegExp;
  /** The characters a declaration can start with. */
  starts: (c: number) => boolean;
  /** Whether the word from `i` to `k` leaves the literal as it is. */
  refuses(text: string, i: number, k: number): boolean;
}

/** `export const name: Type = [`; a class expression has a body and no parenthesis: `[class A { m }]`. */
const JS: Dialect = {
  declaration: /(?:export[ \t]+)?(?:const|let|var)[ \t]+[A-Za-z_$][\w$]*[ \t]*(?::[^=\n]*)?=[ \t]*(?=[[{])/y,
  // e(xport), c(onst), l(et), v(ar)
  starts: (c) => c === 101 || c === 99 || c === 108 || c === 118,
  refuses: (text, i, k) => k - i === 5 && text.startsWith('class', i),
};

/** `NAME: Type = [`; a `lambda`, and an f-string's prefix (its braces hold code, and quotes since Python 3.12). */
const PYTHON: Dialect = {
  declaration: /[A-Za-z_]\w*[ \t]*(?::[^=\n]*)?=[ \t]*(?=[[{])/y,
  starts: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95,
  refuses: (text, i, k) =>
    (k - i === 6 && text.startsWith('lambda', i)) || (k - i <= 2 && /f/i.test(text.slice(i, k)) && (text.charCodeAt(k) === QUOTE || text.charCodeAt(k) === APOSTROPHE)),
};

const DIALECTS: Readonly<Record<string, Dialect>> = { javascript: JS, typescript: JS, javascriptreact: JS, typescriptreact: JS, python: PYTHON };

export const DATA_LITERAL_LANGUAGES: ReadonlySet<string> = new Set(Object.keys(DIALECTS));

const NL = 10;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKSLASH = 92;

/** Characters allowed between a data literal's strings and names: blanks, `, : . - +` and digits. */
const PLAIN = new Uint8Array(128);
for (const c of ' \t\r\n\v\f,:.-+') PLAIN[c.charCodeAt(0)] = 1;
for (let c = 48; c <= 57; c++) PLAIN[c] = 1;

function isWordStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || (c >= 48 && c <= 57);
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === 13 || c === 11 || c === 12;
}

/**
 * The part of the literal opened at `open` to take out: from after its first comma at depth 1 past KEPT_CHARS non-blank
 * characters to its closing bracket (excluded); undefined when it is not certainly data, never closes, or there is
 * nothing of `minChars` to take out. `end`: the closing bracket's offset.
 */
function literalTail(text: string, open: number, minChars: number, dialect: Dialect): { from: number; to: number } | { end: number } | undefined {
  const stack: number[] = [];
  let nonBlank = 0;
  let from = -1;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      stack.push(c === 91 ? 93 : 125);
      nonBlank++;
    } else if (c === 93 || c === 125) {
      if (stack.pop() !== c) return undefined;
      if (stack.length === 0) return from >= 0 && i > from && i - from >= minChars ? { from, to: i } : { end: i };
      nonBlank++;
    } else if (c === QUOTE || c === APOSTROPHE) {
      const close = stringEnd(text, i, c);
      if (close < 0) return undefined;
      nonBlank += close - i + 1;
      i = close;
    } else if (isWordStart(c)) {
      let k = i + 1;
      while (k < text.length && isWordPart(text.charCodeAt(k))) k++;
      if (dialect.refuses(text, i, k)) return undefined;
      nonBlank += k - i;
      i = k - 1;
    } else if (c < 128 && PLAIN[c]) {
      if (c === 44 && from < 0 && stack.length === 1 && nonBlank >= KEPT_CHARS) from = i + 1;
      if (!isBlank(c)) nonBlank++;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** The offset of the quote closing the string opened at `i`, or -1 when the line ends first. */
function stringEnd(text: string, i: number, quote: number): number {
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === quote) return k;
    if (c === NL || c === 13 || c === 0x2028 || c === 0x2029) return -1;
    if (c === BACKSLASH) {
      const next = text.charCodeAt(k + 1);
      if (next === NL || next === 13 || next === 0x2028 || next === 0x2029) return -1; // a continued line: leave it
      k++;
    }
  }
  return -1;
}

/**
 * The parts of `text` (in `languageId`, one of DATA_LITERAL_LANGUAGES) to take out, sorted and disjoint: [from, to)
 * each, inside one data literal, of `minChars` or more and never empty.
 */
export function dataLiteralTails(text: string, languageId: string, minChars = MIN_LITERAL_CHARS): [number, number][] {
  const dialect = DIALECTS[languageId];
  const out: [number, number][] = [];
  if (!dialect) return out;
  for (let at = 0; at < text.length; ) {
    const lineEnd = text.indexOf('\n', at);
    const next = lineEnd < 0 ? text.length : lineEnd + 1;
    const first = text.charCodeAt(at);
    // not after a line continued by a backslash
    if (dialect.starts(first) && !(at > 0 && continued(text, at))) {
      dialect.declaration.lastIndex = at;
      const m = dialect.declaration.exec(text);
      if (m) {
        const tail = literalTail(text, at + m[0].length, minChars, dialect);
        if (tail && 'from' in tail) {
          out.push([tail.from, tail.to]);
          at = lineStartAfter(text, tail.to);
          continue;
        }
        if (tail) {
          at = lineStartAfter(text, tail.end);
          continue;
        }
      }
    }
    at = next;
  }
  return out;
}

/** Whether the line before the one starting at `at` ends with a backslash (it goes on in this line). */
function continued(text: string, at: number): boolean {
  let k = at - 2;
  if (text.charCodeAt(k) === 13) k--;
  return text.charCodeAt(k) === BACKSLASH;
}

function lineStartAfter(text: string, i: number): number {
  const nl = text.indexOf('\n', i);
  return nl < 0 ? text.length : nl + 1;
}

/** `text` with the tails of dataLiteralTails taken out but their line breaks, or undefined when there is none. */
export function compactDataLiterals(text: string, languageId: string, minChars = MIN_LITERAL_CHARS): string | undefined {
  const tails = dataLiteralTails(text, languageId, minChars);
  return tails.length ? compactRanges(text, tails) : undefined;
}

/** `text` without the characters of the sorted, disjoint [start, end) `ranges` but their line breaks (`\n`). */
function compactRanges(text: string, ranges: readonly (readonly [number, number])[]): string {
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    out.push(text.slice(from, start), '\n'.repeat(lineBreaks(text, start, end)));
    from = end;
  }
  out.push(text.slice(from));
  return out.join('');
}

function lineBreaks(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', start); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
