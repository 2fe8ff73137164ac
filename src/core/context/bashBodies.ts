/**
 * A large shell (Bash) text with its function bodies emptied to their line breaks, for the outline's parse (as
 * cBodies.ts emptyRanges: every line keeps its number). A shell outline shows the functions with their heads and
 * ranges, never a body.
 *
 * A body is emptied only when its bounds are certain in the layout shfmt writes: a head first on its line
 * (`name() {`, `function name {`, `function name() {`) whose `{` ends the line, closed by the first line that is
 * exactly the head's indent and `}`, every line between them blank or indented deeper where it starts outside a
 * literal. Comments, quotes (`'…'`, `"…"`, `$'…'`), backquotes, `$(…)`, `$((…))`, `${…}` and here-documents are
 * stepped over, so a `}` inside one is none. A body in which a literal holds a line at the head's indent or less (a
 * here-document's text, a string over lines) is left whole: lexed wrong, that literal could have hidden the real
 * end. What is not certain (a `case` inside `$(…)`, two here-documents on a line, a literal that does not close)
 * ends the reading, as a spent budget of steps does (scanBudget.ts). What is lost: the syntax errors inside the
 * bodies emptied.
 */
import { emptyRanges } from './cBodies';
import { bodiesAtHeads, lineEndPastLiterals, nestedLiteral } from './literals';
import { ScanBudget } from './scanBudget';

const NL = 10;
const HASH = 35;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKTICK = 96;
const DOLLAR = 36;
const OPEN = 123;
const CLOSE = 125;
const LPAREN = 40;
const RPAREN = 41;

/** A function's head, alone on its line after the indent it captures, its `{` last. */
const HEAD = /([ \t]*)(?:function[ \t]+[A-Za-z_][\w.:-]*(?:[ \t]*\(\))?|[A-Za-z_][\w.:-]*[ \t]*\(\))[ \t]*\{[ \t]*\r?\n/y;
/** A here-document's operator and word (`<<EOF`, `<<-'EOF'`, `<< "EOF"`, `<<\EOF`), not a here-string's `<<<`. */
const HEREDOC = /<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w-]*))/y;

/** Whether `i` starts a word: where a `#` begins a comment. */
function wordStart(text: string, i: number): boolean {
  if (i === 0) return true;
  const c = text.charCodeAt(i - 1);
  return c === 32 || c === 9 || c === NL || c === 13 || c === 59 || c === 38 || c === 124 || c === LPAREN || c === RPAREN;
}

/**
 * The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not
 * close or is not certain. A here-document's end is its terminator's line end: the rest of the line that opened it
 * is stepped over too, so it may hold nothing that opens another literal.
 */
export function bashLiteralEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === BACKSLASH) return Math.min(i + 2, text.length);
  if (c === HASH) {
    if (!wordStart(text, i)) return i;
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl;
  }
  if (c === APOSTROPHE) {
    const close = text.indexOf("'", i + 1);
    return close < 0 ? -1 : close + 1;
  }
  // the literals that hold others recurse: nestedLiteral bounds how deep
  if (c === QUOTE) return nestedLiteral(() => quotedEnd(text, i + 1, QUOTE));
  if (c === BACKTICK) return quotedEnd(text, i + 1, BACKTICK);
  if (c === DOLLAR) {
    const d = text.charCodeAt(i + 1);
    if (d === APOSTROPHE) return quotedEnd(text, i + 2, APOSTROPHE);
    if (d === QUOTE) return nestedLiteral(() => quotedEnd(text, i + 2, QUOTE));
    if (d === OPEN) return nestedLiteral(() => nestedEnd(text, i + 2, OPEN, CLOSE));
    if (d === LPAREN) {
      const end = nestedLiteral(() => nestedEnd(text, i + 2, LPAREN, RPAREN));
      // a `case` pattern's `)` would close it early
      return end > 0 && /\bcase\b/.test(text.slice(i, end)) ? -1 : end;
    }
    return i;
  }
  if (c === 60 && text.charCodeAt(i + 1) === 60 && text.charCodeAt(i + 2) !== 60 && (i === 0 || text.charCodeAt(i - 1) !== 60)) return heredocEnd(text, i);
  return i;
}

/** After an opening quote (`"`, `` ` ``, or the `'` of `$'`): the end after its closing one, with `$(…)`, `${…}` and backquotes inside a `"…"`; -1 if it never closes. */
function quotedEnd(text: string, from: number, quote: number): number {
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (d === quote) return k + 1;
    else if (quote === QUOTE && (d === DOLLAR || d === BACKTICK)) {
      const end = bashLiteralEnd(text, k);
      if (end < 0) return -1;
      if (end > k) k = end - 1;
    }
  }
  return -1;
}

/** After `$(` or `${`: the end after the bracket that closes it, brackets of its kind nesting and literals stepped over; -1 if none. */
function nestedEnd(text: string, from: number, open: number, close: number): number {
  let depth = 1;
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === open) depth++;
    else if (d === close) {
      if (--depth === 0) return k + 1;
    } else if (d !== HASH || open === LPAREN) {
      // inside `${…}` a `#` is an operator (`${#a}`, `${a#b}`), never a comment
      const end = bashLiteralEnd(text, k);
      if (end < 0) return -1;
      if (end > k) k = end - 1;
    }
  }
  return -1;
}

/** At a `<<`: the end of the here-document's terminator line, i when it is not one, -1 when it never ends or the line holds more. */
function heredocEnd(text: string, i: number): number {
  HEREDOC.lastIndex = i;
  const m = HEREDOC.exec(text);
  if (!m) return i;
  const word = m[2] ?? m[3] ?? m[4]!;
  const stripTabs = m[1] === '-';
  const nl = text.indexOf('\n', HEREDOC.lastIndex);
  if (nl < 0) return -1;
  // the rest of the line is not lexed: nothing there may open a literal (another here-document, a quote)
  if (/<<|['"`\\]|\$[({]/.test(text.slice(HEREDOC.lastIndex, nl))) return -1;
  for (let at = nl + 1; at < text.length; ) {
    let k = at;
    if (stripTabs) while (text.charCodeAt(k) === 9) k++;
    const end = text.indexOf('\n', k);
    const line = text.slice(k, end < 0 ? text.length : end);
    if (line === word || line === `${word}\r`) return end < 0 ? text.length : end;
    if (end < 0) return -1;
    at = end + 1;
  }
  return -1;
}

/** Blanks at `at`: their count (the line's indent). */
function indentAt(text: string, at: number): number {
  let k = at;
  while (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
  return k - at;
}

/**
 * The body after a head whose line break is at `from`: [from, the `}`'s offset), undefined when not certain, or -1
 * when a literal ends the reading, or the budget of steps is spent.
 */
function bodyRange(text: string, from: number, indent: string, budget: ScanBudget): [number, number] | undefined | -1 {
  let uncertain = false;
  for (let at = from + 1; at < text.length; ) {
    const width = indentAt(text, at);
    const k = at + width;
    const nl = text.indexOf('\n', k);
    const lineEnd = nl < 0 ? text.length : nl;
    const blank = k === lineEnd || (k === lineEnd - 1 && text.charCodeAt(k) === 13);
    if (!blank && width <= indent.length) {
      if (width !== indent.length || !text.startsWith(indent, at) || text.charCodeAt(k) !== CLOSE || !/^\r?$/.test(text.slice(k + 1, lineEnd))) return undefined;
      return uncertain ? undefined : [from, k];
    }
    // a literal over lines must not hold a line this shallow
    const next = lineEndPastLiterals(text, k, bashLiteralEnd, (start, end) => {
      if (!uncertain && shallowLineIn(text, start, end, indent.length)) uncertain = true;
    });
    if (next < 0 || !budget.take(next + 1 - at)) return -1;
    at = next + 1;
  }
  return undefined;
}

/** Whether a line that starts inside [from, to) is non-blank and indented `depth` blanks or less. */
function shallowLineIn(text: string, from: number, to: number, depth: number): boolean {
  for (let nl = text.indexOf('\n', from); nl >= 0 && nl < to - 1; nl = text.indexOf('\n', nl + 1)) {
    const width = indentAt(text, nl + 1);
    const c = text.charCodeAt(nl + 1 + width);
    if (width <= depth && c !== NL && c !== 13 && nl + 1 + width < to) return true;
  }
  return false;
}

/** The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, from a head's line break to its `}`. */
export function bashFunctionBodies(text: string, budget = new ScanBudget(text.length)): [number, number][] {
  return bodiesAtHeads(
    text,
    HEAD,
    (head) => {
      const body = bodyRange(text, HEAD.lastIndex - 1, head[1]!, budget);
      return body === -1 ? 'spent' : body;
    },
    bashLiteralEnd,
  );
}

/** `text` with the bodies of bashFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyBashFunctionBodies(text: string): string | undefined {
  const bodies = bashFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
