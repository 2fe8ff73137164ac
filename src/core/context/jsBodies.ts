/**
 * A large TypeScript or JavaScript text with its function and method bodies emptied to their line breaks, for the
 * outline's parse, as goBodies.ts does for Go (cBodies.ts emptyRanges: every line keeps its number). The outline
 * shows a function's or a method's head and range, never its body.
 *
 * A body is emptied only when its bounds are certain, in the layout formatters (Prettier, tsc's emit) write: a line
 * that starts, after its indent, with a function's head (`export default async function* name`) or a method's
 * (`public static async name<T>(`, `get name(`, `constructor(`; never `if (`, `for (` and the other statements that
 * take parentheses), the head ending in a `{` that is the last character of its line and the first `{` outside its
 * parentheses, brackets and angle brackets, and a body closed by a line that is exactly the head's indent and `}`,
 * with every brace inside it closed. Strings, template literals (and the code in their `${…}`), regular expressions
 * (told from a division by what comes before the `/`) and comments are stepped over; a head or a `}` line inside
 * one is none. Anything else (a brace open at such a line, a literal that does not close on its line, the text's
 * end) leaves that function as it is. What is lost: the syntax errors inside the bodies emptied.
 */
import { emptyRanges } from './cBodies';

const NL = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKTICK = 96;
const DOLLAR = 36;
const OPEN = 123;
const CLOSE = 125;

/** A function's head, or a class member's up to its `(`, at a line's start after the indent it captures; group 2: a member's name. */
const HEAD =
  /([ \t]*)(?:(?:export[ \t]+(?:default[ \t]+)?)?(?:declare[ \t]+)?(?:async[ \t]+)?function\b|(?:(?:public|private|protected|static|async|override|readonly|abstract)[ \t]+)*(?:(?:get|set)[ \t]+)?\*?[ \t]*(#?[A-Za-z_$][\w$]*)[ \t]*(?:<[^\n]*>)?[ \t]*(?=\())/y;
/** Names that take a parenthesis at a statement's start without being a method. */
const STATEMENTS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'await', 'yield', 'typeof', 'void', 'delete', 'new', 'throw', 'super', 'import', 'function']);

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === DOLLAR || c >= 128;
}

/** Keywords after which a `/` starts a regular expression (after other names: a division). */
const BEFORE_REGEX = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof']);

/** Whether a `/` at `i` starts a regular expression, by the last significant character or word before it. */
function regexAt(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k--;
  if (k < 0) return true;
  const c = text.charCodeAt(k);
  if (c === NL || c === CR) return true;
  if (c === 41 || c === 93 || c === CLOSE || c === QUOTE || c === APOSTROPHE || c === BACKTICK) return false;
  if (!isIdentChar(c)) return true;
  let start = k;
  while (start > 0 && isIdentChar(text.charCodeAt(start - 1))) start--;
  return BEFORE_REGEX.has(text.slice(start, k + 1));
}

/**
 * The end (exclusive) of the comment, string, template literal or regular expression opened at `i`, i when none
 * opens there, or -1 when it does not close (strings and regular expressions close on their line).
 */
export function literalEnd(text: string, i: number): number {
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
    if (!regexAt(text, i)) return i;
    let inClass = false;
    for (let k = i + 1; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === NL || d === CR) return -1;
      else if (d === 91) inClass = true;
      else if (d === 93) inClass = false;
      else if (d === SLASH && !inClass) return k + 1;
    }
    return -1;
  }
  if (c === QUOTE || c === APOSTROPHE) {
    for (let k = i + 1; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === c) return k + 1;
      if (d === NL || d === CR) return -1;
      if (d === BACKSLASH) k++;
    }
    return -1;
  }
  if (c !== BACKTICK) return i;
  for (let k = i + 1; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (d === BACKTICK) return k + 1;
    else if (d === DOLLAR && text.charCodeAt(k + 1) === OPEN) {
      const end = holeEnd(text, k + 2);
      if (end < 0) return -1;
      k = end;
    }
  }
  return -1;
}

/** The `}` closing a template's `${` whose code starts at `from`, or -1. */
function holeEnd(text: string, from: number): number {
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

/** Whether only blanks follow `i` on its line. */
function endsLine(text: string, i: number): boolean {
  for (let k = i; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === NL) return true;
    if (c !== 32 && c !== 9 && c !== CR) return false;
  }
  return true;
}

/** The offset of the body's `{` for the head at `at`, or -1 when it has none or its bounds are not certain. */
function bodyOpen(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const end = literalEnd(text, i);
    if (end < 0) return -1;
    if (end > i) {
      i = end - 1;
      continue;
    }
    if (c === 40 || c === 91 || c === 60) depth++;
    else if (c === 41 || c === 93 || (c === 62 && text.charCodeAt(i - 1) !== 61)) {
      if (--depth < 0) return -1;
    } else if (c === OPEN) return depth === 0 && endsLine(text, i + 1) ? i : -1;
    else if (c === CLOSE || (c === 59 && depth === 0)) return -1;
  }
  return -1;
}

/** The body from the `{` at `open`: [open + 1, close) where `close` is the `}` of the line `indent}`, or undefined. */
function bodyRange(text: string, open: number, indent: string): [number, number] | undefined {
  let depth = 1;
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === NL) {
      const close = i + 1 + indent.length;
      if (text.charCodeAt(close) === CLOSE && text.startsWith(indent, i + 1) && endsLine(text, close + 1)) {
        return depth === 1 ? [open + 1, close] : undefined;
      }
      continue;
    }
    const end = literalEnd(text, i);
    if (end < 0) return undefined;
    if (end > i) i = end - 1;
    else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return undefined; // closed before its `}` line: not the formatters' layout
  }
  return undefined;
}

/**
 * The function and method bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each,
 * between a `{` and its `}`. Heads are looked for at the start of lines outside literals and comments only.
 */
export function jsFunctionBodies(text: string): [number, number][] {
  const out: [number, number][] = [];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    if (lineStart) {
      lineStart = false;
      HEAD.lastIndex = i;
      const head = HEAD.exec(text);
      const open = head && !STATEMENTS.has(head[2] ?? '') ? bodyOpen(text, i + head[0].length) : -1;
      const body = open < 0 ? undefined : bodyRange(text, open, head![1]!);
      if (body) {
        out.push(body);
        i = body[1];
        continue;
      }
    }
    const c = text.charCodeAt(i);
    if (c === NL) {
      lineStart = true;
      continue;
    }
    const end = literalEnd(text, i);
    // a literal that never closes: nothing after it is certain
    if (end < 0) break;
    if (end > i) i = end - 1;
  }
  return out;
}

/** `text` with the bodies of jsFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyJsFunctionBodies(text: string): string | undefined {
  const bodies = jsFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
