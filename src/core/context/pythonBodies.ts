/**
 * A large Python text with its function bodies emptied, for the outline's parse: every line keeps its number, a
 * docstring stays (the outline shows it), and the last line of the body becomes a `pass` at the body's indent, so
 * the function still has a body and still ends on its own last line. A Python outline shows classes and functions
 * with their heads, docstrings and ranges, never the rest of a function's body.
 *
 * The text is read by logical lines, as Python's tokenizer joins them: inside brackets, after a backslash, and
 * through strings (triple-quoted ones over lines, f-strings with the code in their `{…}`); comments are stepped
 * over. A `def` (or `async def`) whose logical line ends with its `:` (not `def f(): return 1`) has as its body the
 * logical lines after it indented deeper than it, up to the first code line that is not; comment lines do not end it,
 * and the comments after its last code line are not part of it (they may be the next symbol's). A string that does
 * not close, or a bracket left open before a line that starts a `def`, a `class` or a decorator (a syntax error that
 * would take the rest of the file into one line), ends the reading. What is lost: the syntax errors inside the bodies emptied.
 */
import { holeEnd, isNameChar } from './literals';

const NL = 10;
const CR = 13;
const HASH = 35;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const OPEN = 123;
const CLOSE = 125;

/** A function's head at a logical line's first character. */
const HEAD = /(?:async[ \t]+)?def[ \t]/y;
/** A line that starts a definition, which no bracket can hold. */
const STATEMENT_START = /[ \t]*(?:(?:async[ \t]+)?def[ \t]|class[ \t]|@)/y;

/** The prefix letters (`rb`, `f`, …) right before the quote at `i`, lower-cased; '' when a name's other letters come before them. */
function prefixOf(text: string, i: number): string {
  let k = i;
  while (k > i - 2 && k > 0 && /[rRbBfFuU]/.test(text[k - 1]!)) k--;
  if (k > 0 && isNameChar(text.charCodeAt(k - 1))) return '';
  return text.slice(k, i).toLowerCase();
}

/** The end (exclusive) of the string whose quote is at `i`, or -1 when it does not close. */
function stringEnd(text: string, i: number): number {
  const q = text.charCodeAt(i);
  const prefix = prefixOf(text, i);
  const formatted = prefix.includes('f');
  const triple = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  for (let k = i + (triple ? 3 : 1); k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (d === q && (!triple || (text.charCodeAt(k + 1) === q && text.charCodeAt(k + 2) === q))) return k + (triple ? 3 : 1);
    else if (!triple && (d === NL || d === CR)) return -1;
    else if (formatted && d === OPEN) {
      if (text.charCodeAt(k + 1) === OPEN) k++;
      else {
        const end = holeEnd(text, k + 1, codeLiteralEnd);
        if (end < 0) return -1;
        k = end;
      }
    }
  }
  return -1;
}

/** In an f-string's code: the end of the string whose quote is at `k`, else k. */
function codeLiteralEnd(text: string, k: number): number {
  const d = text.charCodeAt(k);
  return d === QUOTE || d === APOSTROPHE ? stringEnd(text, k) : k;
}

/** One logical line: where it starts, its first non-blank character, its line break (or the text's end), its last code character. */
interface Line {
  start: number;
  first: number;
  end: number;
  kind: 'blank' | 'comment' | 'code';
  /** the last character outside comments and blanks (code lines) */
  last: number;
}

/** The logical line starting at `start`, or undefined when a string in it does not close. */
function logicalLine(text: string, start: number): Line | undefined {
  let first = start;
  while (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9 || text.charCodeAt(first) === 12) first++;
  const lineEnd = (k: number) => {
    const nl = text.indexOf('\n', k);
    return nl < 0 ? text.length : nl;
  };
  const c = text.charCodeAt(first);
  if (first >= text.length || c === NL || (c === CR && text.charCodeAt(first + 1) === NL)) return { start, first, end: lineEnd(first), kind: 'blank', last: first };
  if (c === HASH) return { start, first, end: lineEnd(first), kind: 'comment', last: first };
  let depth = 0;
  let last = first;
  for (let i = first; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === NL) {
      if (depth === 0) return { start, first, end: i, kind: 'code', last };
      // a bracket left open before a `def`, `class` or decorator line: a syntax error, whose bounds are not certain
      STATEMENT_START.lastIndex = i + 1;
      if (STATEMENT_START.test(text)) return undefined;
    } else if (d === HASH) i = lineEnd(i) - 1;
    else if (d === QUOTE || d === APOSTROPHE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      i = end - 1;
      last = i;
    } else if (d === BACKSLASH) i++;
    else if (d !== 32 && d !== 9 && d !== CR && d !== 12) {
      if (d === 40 || d === 91 || d === OPEN) depth++;
      else if ((d === 41 || d === 93 || d === CLOSE) && depth > 0) depth--;
      last = i;
    }
  }
  return { start, first, end: text.length, kind: 'code', last };
}

/** Whether the code line `line` is one string and nothing else (a docstring). */
function onlyString(text: string, line: Line): boolean {
  let k = line.first;
  while (/[rRbBfFuU]/.test(text[k] ?? '') && k < line.first + 2) k++;
  const q = text.charCodeAt(k);
  return (q === QUOTE || q === APOSTROPHE) && stringEnd(text, k) === line.last + 1;
}

/** A function's body to empty: from the line break `from` to `to` (its last code line's end), `pass` at `indent` there. */
interface Body {
  from: number;
  to: number;
  indent: string;
}

/** The bodies of `text` to empty, sorted and disjoint. */
export function pythonFunctionBodies(text: string): Body[] {
  const out: Body[] = [];
  let at = 0;
  while (at < text.length) {
    const head = logicalLine(text, at);
    if (!head) return out;
    HEAD.lastIndex = head.first;
    const next = head.end + 1;
    if (head.kind === 'code' && HEAD.test(text) && text.charCodeAt(head.last) === 58) {
      const body = bodyOf(text, head);
      if (body === undefined) return out;
      if (body.empty) out.push(body.empty);
      at = body.resume;
      continue;
    }
    at = next;
  }
  return out;
}

/** The body after `head`: what to empty (none when it is only a docstring), and where the reading goes on; undefined when a string does not close. */
function bodyOf(text: string, head: Line): { empty?: Body; resume: number } | undefined {
  const headIndent = head.first - head.start;
  let indent: string | undefined;
  let firstCode: Line | undefined;
  let lastCode: Line | undefined;
  let at = head.end + 1;
  while (at < text.length) {
    const line = logicalLine(text, at);
    if (!line) return undefined;
    if (line.kind === 'code') {
      if (line.first - line.start <= headIndent) break;
      indent ??= text.slice(line.start, line.first);
      firstCode ??= line;
      lastCode = line;
    }
    at = line.end + 1;
  }
  if (!firstCode || !lastCode || indent === undefined) return { resume: head.end + 1 };
  const resume = lastCode.end + 1;
  const docstring = onlyString(text, firstCode);
  if (docstring && firstCode === lastCode) return { resume };
  const from = docstring ? firstCode.end : head.end;
  let to = lastCode.end;
  if (text.charCodeAt(to - 1) === CR) to--;
  return { empty: { from, to, indent }, resume };
}

/**
 * `text` with the bodies of pythonFunctionBodies emptied (their line breaks kept, a `pass` on each one's last line),
 * or undefined when there is none.
 */
export function emptyPythonFunctionBodies(text: string): string | undefined {
  const bodies = pythonFunctionBodies(text);
  if (!bodies.length) return undefined;
  const out: string[] = [];
  let from = 0;
  for (const body of bodies) {
    out.push(text.slice(from, body.from), text.slice(body.from, body.to).replace(/\r(?!\n)|[^\r\n]/g, ''), `${body.indent}pass`);
    from = body.to;
  }
  out.push(text.slice(from));
  return out.join('');
}
