/**
 * A large Go text with its function bodies emptied, for the outline's parse, as cBodies.ts blanks C's: every
 * character between a function's `{` and its `}` is taken out but the line breaks (cBodies.ts emptyRanges), so every
 * line keeps its number. An outline shows a Go function's head and range, never its body, and the bodies were
 * most of the parse (a generated 4 MB file: ~530 ms a half on a warm worker).
 *
 * A body is emptied only when its bounds are certain, in the layout gofmt writes: a `func` at a line's start whose
 * head (over more lines only inside its parentheses) ends in a `{` that is the last character of its line and the
 * first `{` outside the head's parentheses and brackets (a `struct{}` or `interface{}` in the head leaves the
 * function whole; a head whose line ends without one is a function without a body), and a body
 * closed by a line that is exactly `}` with every brace inside it closed. Strings, runes, raw strings and comments
 * are lexed as Go's scanner lexes them; a `}` line inside a raw string or a comment is no end. Anything else (a
 * brace left open at such a line, a string that does not close on its line, the text's end) leaves that function as
 * it is; a spent budget of steps ends the reading (scanBudget.ts). What is lost: the syntax errors inside the bodies
 * emptied.
 */
import { ScanBudget } from './scanBudget';
import { emptyRanges } from './cBodies';
import { endsLine } from './literals';

const NL = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKTICK = 96;

/** After a string, rune, raw string or comment opened at `i`: its end (exclusive), or -1 when it does not close. */
function skipLiteral(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === BACKTICK) {
    const close = text.indexOf('`', i + 1);
    return close < 0 ? -1 : close + 1;
  }
  if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl;
  }
  if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
    const close = text.indexOf('*/', i + 2);
    return close < 0 ? -1 : close + 2;
  }
  // "..." or '...': on one line, with escapes
  for (let k = i + 1; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === c) return k + 1;
    if (d === NL || d === CR) return -1;
    if (d === BACKSLASH) k++;
  }
  return -1;
}

function opensLiteral(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c === QUOTE || c === APOSTROPHE || c === BACKTICK || (c === SLASH && (text.charCodeAt(i + 1) === SLASH || text.charCodeAt(i + 1) === STAR));
}

/** A scan's answer when the reading's budget of steps is spent: the reading ends. */
const SPENT = -2;

/** The offset of the body's `{` for the `func` at `at`, -1 when the head is not one whose bounds are certain, SPENT when the budget is. */
function bodyOpen(text: string, at: number, budget: ScanBudget): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (!budget.take()) return SPENT;
    const c = text.charCodeAt(i);
    if (opensLiteral(text, i)) {
      const end = skipLiteral(text, i);
      if (end < 0) return -1;
      budget.take(end - i);
      i = end - 1;
    } else if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) {
      if (--depth < 0) return -1;
    } else if (c === 123) return depth === 0 && endsLine(text, i + 1) ? i : -1;
    else if (c === 125) return -1;
    // a line break outside the parentheses ends the head (Go puts a semicolon there): a function without a body
    else if (c === NL && depth === 0) return -1;
  }
  return -1;
}

/**
 * The body from the `{` at `open`: [open + 1, close) where `close` is the `}` of the line that is exactly `}`,
 * undefined when a brace is open at that line, a literal does not close, or the text ends first, SPENT when the
 * budget is.
 */
function bodyRange(text: string, open: number, budget: ScanBudget): [number, number] | undefined | typeof SPENT {
  let depth = 1;
  for (let i = open + 1; i < text.length; i++) {
    if (!budget.take()) return SPENT;
    const c = text.charCodeAt(i);
    if (c === NL) {
      if (text.charCodeAt(i + 1) === 125 && endsLine(text, i + 2)) {
        return depth === 1 ? [open + 1, i + 1] : undefined;
      }
    } else if (opensLiteral(text, i)) {
      const end = skipLiteral(text, i);
      if (end < 0) return undefined;
      budget.take(end - i);
      i = end - 1;
    } else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return undefined; // closed before a `}` line: a one-line body or no gofmt layout
  }
  return undefined;
}

/** The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and its `}`. */
export function goFunctionBodies(text: string, budget = new ScanBudget(text.length)): [number, number][] {
  const out: [number, number][] = [];
  for (let at = 0; at < text.length; ) {
    if (text.startsWith('func ', at) || text.startsWith('func(', at)) {
      const open = bodyOpen(text, at, budget);
      const body = open < 0 ? undefined : bodyRange(text, open, budget);
      if (open === SPENT || body === SPENT) break;
      if (body) {
        out.push(body);
        at = body[1];
        continue;
      }
    }
    const nl = text.indexOf('\n', at);
    if (nl < 0) break;
    at = nl + 1;
  }
  return out;
}

/** `text` with the function bodies of goFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyGoFunctionBodies(text: string): string | undefined {
  const bodies = goFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
