/**
 * Function bodies found by the layout formatters write (rustfmt, Prettier, clang-format), for rustBodies.ts,
 * jsBodies.ts and cppBodies.ts, which give each language's heads and literals: a line that starts, after its indent,
 * with a function's head; the head ending in a `{` that is the last character of its line and the first `{` outside
 * its parentheses and brackets (and angle brackets, where the dialect says so; a `;` first: a function without a
 * body); and a body closed by a line that is exactly the head's indent and `}`, with every brace inside it closed.
 * Literals and comments are stepped over as the dialect lexes them, so a head or a `}` line inside one is none;
 * where the dialect has directives (`#` lines), every `#if` in a body closes in it. Anything else (a brace open at
 * such a line, a literal that does not close, the text's end) leaves that function as it is; the reading ends once its
 * budget of steps is spent (scanBudget.ts). Each language's module then empties the bodies to their line breaks, or
 * blanks them (cBodies.ts).
 */
import { conditionalDepth } from './cBodies';
import { endsLine } from './literals';
import { ScanBudget } from './scanBudget';

/** A scan's answer when the reading's budget of steps is spent: the reading ends. */
const SPENT = -2;

const NL = 10;
const CR = 13;
const HASH = 35;
const OPEN = 123;
const CLOSE = 125;

export interface LayoutDialect {
  /** A head at a line's start (sticky), group 1 its indent; the `{` is looked for from the match's end. */
  head: RegExp;
  /** Whether a match of `head` is a function's (else that line is no head). */
  accepts?(match: RegExpExecArray): boolean;
  /** The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not close. */
  literalEnd(text: string, i: number): number;
  /** Angle brackets in a head nest as parentheses do (`=>` aside). */
  angles: boolean;
  /** A `#` first on a line starts a directive line. */
  directives: boolean;
}

/**
 * The offset of the body's `{` for the head whose rest starts at `at`, -1 when it has none or its bounds are not
 * certain, SPENT when the budget is.
 */
function bodyOpen(text: string, at: number, d: LayoutDialect, budget: ScanBudget): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (!budget.take()) return SPENT;
    const c = text.charCodeAt(i);
    const end = d.literalEnd(text, i);
    if (end < 0) return -1;
    if (end > i) {
      budget.take(end - i);
      i = end - 1;
      continue;
    }
    if (c === 40 || c === 91 || (c === 60 && d.angles)) depth++;
    else if (c === 41 || c === 93 || (c === 62 && d.angles && text.charCodeAt(i - 1) !== 61)) {
      if (--depth < 0) return -1;
    } else if (c === OPEN) return depth === 0 && endsLine(text, i + 1) ? i : -1;
    else if (c === CLOSE || (c === 59 && depth === 0) || (c === HASH && d.directives)) return -1;
  }
  return -1;
}

/** The first non-blank character's offset on the line starting at `i`. */
function firstNonBlank(text: string, i: number): number {
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  return i;
}

/**
 * The body from the `{` at `open`: [open + 1, close) where `close` is the `}` of the line `indent}`, undefined when
 * there is none, SPENT when the budget is.
 */
function bodyRange(text: string, open: number, indent: string, d: LayoutDialect, budget: ScanBudget): [number, number] | undefined | typeof SPENT {
  let depth = 1;
  let conditional = 0;
  for (let i = open + 1; i < text.length; i++) {
    if (!budget.take()) return SPENT;
    const c = text.charCodeAt(i);
    if (c === NL) {
      const close = i + 1 + indent.length;
      if (text.charCodeAt(close) === CLOSE && text.startsWith(indent, i + 1) && endsLine(text, close + 1)) {
        return depth === 1 && conditional === 0 ? [open + 1, close] : undefined;
      }
      if (d.directives) {
        const first = firstNonBlank(text, i + 1);
        if (text.charCodeAt(first) === HASH) {
          conditional = conditionalDepth(text, first + 1, conditional);
          if (conditional < 0) return undefined;
          const nl = text.indexOf('\n', first);
          if (nl < 0) return undefined;
          i = nl - 1;
        }
      }
      continue;
    }
    const end = d.literalEnd(text, i);
    if (end < 0) return undefined;
    if (end > i) {
      budget.take(end - i);
      i = end - 1;
    } else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return undefined; // closed before its `}` line: not the formatter's layout
  }
  return undefined;
}

/**
 * The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and
 * its `}`. Heads are looked for at the start of lines outside literals, comments and directives only.
 */
export function layoutBodies(text: string, d: LayoutDialect, budget = new ScanBudget(text.length)): [number, number][] {
  const out: [number, number][] = [];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    if (lineStart) {
      lineStart = false;
      if (d.directives && text.charCodeAt(firstNonBlank(text, i)) === HASH) {
        // a directive line, continued by a backslash at its end
        let nl = text.indexOf('\n', i);
        while (nl > 0 && text.charCodeAt(nl - (text.charCodeAt(nl - 1) === CR ? 2 : 1)) === 92) nl = text.indexOf('\n', nl + 1);
        if (nl < 0) break;
        i = nl - 1;
        continue;
      }
      d.head.lastIndex = i;
      const head = d.head.exec(text);
      const open = head && (!d.accepts || d.accepts(head)) ? bodyOpen(text, i + head[0].length, d, budget) : -1;
      const body = open < 0 ? undefined : bodyRange(text, open, head![1]!, d, budget);
      if (open === SPENT || body === SPENT) break;
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
    const end = d.literalEnd(text, i);
    // a literal that never closes: nothing after it is certain
    if (end < 0) break;
    if (end > i) i = end - 1;
  }
  return out;
}
