/**
 * A large Ruby text with its method bodies emptied to their line breaks and a `nil`, for the outline's parse (as
 * cBodies.ts emptyRanges: every line keeps its number). A Ruby outline shows modules, classes and methods with
 * their heads and ranges, never a method's body.
 *
 * A body is emptied only when its bounds are certain in the layout RuboCop keeps: a `def` first on its line (after
 * the indent, and maybe `private` and the like) whose head is not a one-line method (no `;` and no `=` after it: an
 * endless method), and a body closed by the first line that is exactly the head's indent and `end`; every line
 * between them that starts outside a literal is indented deeper than the head, or is a `rescue`, `else` or `ensure`
 * of the method at its indent. The body is what lies between the head's last line (its parameters closed) and that
 * `end`. Comments, `=begin` blocks, strings (over lines, with the code in their `#{…}`), `%` literals, regular
 * expressions (told from a division as Ruby tells them) and heredocs are stepped over, so a `def` or an `end` inside one is none; a literal that does not close ends the reading, as a spent budget of steps does (scanBudget.ts). What
 * is lost: the syntax errors inside the bodies emptied.
 */
import { bodiesAtHeads, holeEnd, isNameChar, lineEndPastLiterals } from './literals';
import { ScanBudget } from './scanBudget';

const NL = 10;
const HASH = 35;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKTICK = 96;
const PERCENT = 37;
const SLASH = 47;
const OPEN = 123;
const CLOSE = 125;

/** A method's head at a line's start, after the indent it captures. */
const HEAD = /([ \t]*)(?:(?:private|protected|public|module_function)[ \t]+)?def[ \t]+/y;
/** What may start a line of the method's own at its indent before its `end`. */
const CLAUSE = /(?:rescue|else|ensure)\b/y;
const HEREDOC = /<<[~-]?(["'`]?)([A-Za-z_]\w*)\1/y;
const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/**
 * The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not
 * close. A heredoc's end is its terminator's line end: the rest of the line that opened it is stepped over too.
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === HASH) {
    const nl = text.indexOf('\n', i);
    return nl < 0 ? text.length : nl;
  }
  if (c === 61 && text.startsWith('=begin', i) && (i === 0 || text.charCodeAt(i - 1) === NL)) {
    const close = text.indexOf('\n=end', i);
    return close < 0 ? -1 : close + 5;
  }
  if (c === APOSTROPHE) return quotedEnd(text, i + 1, "'", false);
  if (c === QUOTE || c === BACKTICK) return quotedEnd(text, i + 1, text[i]!, true);
  if (c === PERCENT) {
    // %w[…], %q(…), %Q{…}, %(…): after an operand, `%` is the remainder
    let k = i + 1;
    const letter = /[qQwWiIrsx]/.test(text[k] ?? '') ? text[k++]! : '';
    // the delimiter: a bracket closed by its pair, or any other punctuation (`%r!…!`) by itself
    const open = text[k] ?? '';
    if (!/[^\w\s=]/.test(open) || afterOperand(text, i)) return i;
    return delimitedEnd(text, k + 1, open, CLOSERS[open] ?? open, letter !== 'q' && letter !== 'w' && letter !== 'i' && letter !== 's');
  }
  if (c === SLASH) {
    // a regular expression, unless an operand is before it or a blank after it (`a / b`); one that does not close
    // on its line was a division
    if (afterOperand(text, i) || text.charCodeAt(i + 1) === 32) return i;
    for (let k = i + 1; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === SLASH) return k + 1;
      else if (d === NL) return i;
    }
    return i;
  }
  if (c === 60 && text.charCodeAt(i + 1) === 60) {
    HEREDOC.lastIndex = i;
    const m = HEREDOC.exec(text);
    if (!m || afterOperand(text, i)) return i;
    const squiggly = text[i + 2] === '~' || text[i + 2] === '-';
    const id = m[2]!;
    for (let at = text.indexOf('\n', i) + 1; at > 0 && at < text.length; ) {
      let k = at;
      if (squiggly) while (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
      const nl = text.indexOf('\n', k);
      const line = text.slice(k, nl < 0 ? text.length : nl).replace(/\r$/, '');
      if (line === id) return nl < 0 ? text.length : nl;
      if (nl < 0) return -1;
      at = nl + 1;
    }
    return -1;
  }
  return i;
}

/**
 * Whether what is before `i` ends an operand, so that a `%`, `<<` or `/` there is an operator: a closing bracket or
 * quote, or a name right before it (`x%y`, `a<<b`); after a name and a blank (`puts %w[a]`, `split /,/`) it is a
 * literal, as Ruby reads it.
 */
function afterOperand(text: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k--;
  if (k < 0) return false;
  const c = text.charCodeAt(k);
  if (c === 41 || c === 93 || c === CLOSE || c === QUOTE || c === APOSTROPHE) return true;
  return isNameChar(c) && k === i - 1;
}

/** After an opening quote: the end of the string, with `#{…}` read as code when it interpolates; -1 if it never closes. */
function quotedEnd(text: string, from: number, quote: string, interpolates: boolean): number {
  const q = quote.charCodeAt(0);
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (d === q) return k + 1;
    else if (interpolates && d === HASH && text.charCodeAt(k + 1) === OPEN) {
      const end = holeEnd(text, k + 2, literalEnd);
      if (end < 0) return -1;
      k = end;
    }
  }
  return -1;
}

/** After a `%` literal's opening delimiter: the end after its (nesting) closing one; -1 if it never closes. */
function delimitedEnd(text: string, from: number, open: string, close: string, interpolates: boolean): number {
  let depth = 1;
  for (let k = from; k < text.length; k++) {
    const d = text[k];
    if (d === '\\') k++;
    else if (d === open && open !== close) depth++;
    else if (d === close && --depth === 0) return k + 1;
    else if (interpolates && d === '#' && text[k + 1] === '{') {
      const end = holeEnd(text, k + 2, literalEnd);
      if (end < 0) return -1;
      k = end;
    }
  }
  return -1;
}

/** A scan's answer when the reading's budget of steps is spent: the reading ends. */
const SPENT = -2;

/**
 * The end of the head whose `def` keyword ends at `at`: its last line's line break, -1 for a one-line or endless
 * method, SPENT when the budget is.
 */
function headEnd(text: string, at: number, budget: ScanBudget): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (!budget.take()) return SPENT;
    const c = text.charCodeAt(i);
    if (c === NL) {
      if (depth === 0) return i;
      continue;
    }
    const end = literalEnd(text, i);
    if (end < 0) return -1;
    if (end > i) {
      budget.take(end - i);
      i = end - 1;
      continue;
    }
    if (c === 40 || c === 91 || c === OPEN) depth++;
    else if (c === 41 || c === 93 || c === CLOSE) {
      if (--depth < 0) return -1;
    } else if (depth === 0 && (c === 59 || c === 61)) return -1; // `def a; end`, `def a = 1`
  }
  return -1;
}

/** The body after the head ending at `from` (a line break): [from, the `end`'s offset), undefined, or SPENT when the budget is. */
function bodyRange(text: string, from: number, indent: string, budget: ScanBudget): [number, number] | undefined | typeof SPENT {
  for (let at = from + 1; at <= text.length; ) {
    // at a line's start outside literals
    let k = at;
    while (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
    const nl = text.indexOf('\n', k);
    const lineEnd = nl < 0 ? text.length : nl;
    const blank = k === lineEnd || (k === lineEnd - 1 && text.charCodeAt(k) === 13);
    if (!blank) {
      const width = k - at;
      if (width <= indent.length) {
        if (width !== indent.length || !text.startsWith(indent, at)) return undefined;
        if (text.startsWith('end', k) && !isNameChar(text.charCodeAt(k + 3))) return hidesLine(text, from, k, indent) ? undefined : [from, k];
        CLAUSE.lastIndex = k;
        if (!CLAUSE.test(text)) return undefined;
      }
    }
    const next = lineEndPastLiterals(text, k, literalEnd);
    if (next < 0 || next >= text.length) return undefined;
    if (!budget.take(next + 1 - at)) return SPENT;
    at = next + 1;
  }
  return undefined;
}

/**
 * Whether a line inside [from, to) that starts a literal's inner line is one the reading would have stopped at (the
 * head's indent and `end`, or a `def` there): a heredoc may hold one, and so may a literal lexed wrong (an unknown
 * `%` delimiter, a `?"` character), which would have hidden the method's own `end`. Either way that body is not
 * certain.
 */
function hidesLine(text: string, from: number, to: number, indent: string): boolean {
  const line = new RegExp(`\\n${indent}(?:end|def)\\b`, 'g');
  line.lastIndex = from;
  const m = line.exec(text);
  return m !== null && m.index + 1 < to - indent.length;
}

/** The method bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, from a head's line break to its `end`. */
export function rubyMethodBodies(text: string, budget = new ScanBudget(text.length)): [number, number][] {
  return bodiesAtHeads(
    text,
    HEAD,
    (head) => {
      const from = headEnd(text, HEAD.lastIndex, budget);
      const body = from < 0 ? undefined : bodyRange(text, from, head[1]!, budget);
      return from === SPENT || body === SPENT ? 'spent' : body;
    },
    literalEnd,
  );
}

/**
 * `text` with the bodies of rubyMethodBodies emptied (their line breaks kept), or undefined when there is none. A
 * body that held code keeps a `nil` on its first line, so the method still has a body: the outline's signature is
 * the head before it (without one, a method's whole text with its `end`).
 */
export function emptyRubyMethodBodies(text: string): string | undefined {
  const bodies = rubyMethodBodies(text);
  if (!bodies.length) return undefined;
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of bodies) {
    const body = text.slice(start, end);
    const breaks = body.replace(/\r(?!\n)|[^\r\n]/g, '');
    const first = breaks.indexOf('\n') + 1;
    // a body of comments only is none: the method has no body to keep
    const code = first < breaks.length && /^[ \t]*[^\s#]/m.test(body);
    out.push(text.slice(from, start), code ? `${breaks.slice(0, first)}nil${breaks.slice(first)}` : breaks);
    from = end;
  }
  out.push(text.slice(from));
  return out.join('');
}
