/**
 * A large Rust text with its function bodies emptied, for the outline's parse, as goBodies.ts does for Go: every
 * character between a function's `{` and its `}` is taken out but the line breaks (cBodies.ts emptyRanges), so
 * every line keeps its number. A Rust outline shows a function's head and range (at the top level, in an `impl`, a
 * `trait` or a `mod`), never its body, and the bodies were most of the parse.
 *
 * A body is blanked only when its bounds are certain, in the layout rustfmt writes: a line that starts, after its
 * indent, with a function's head (`pub(crate) const unsafe extern "C" fn name` and the like), the head ending in
 * a `{` that is the last character of its line and the first `{` outside its parentheses and brackets (a `;`
 * first: a function without a body), and a body closed by a line that is exactly the head's indent and `}`, with
 * every brace inside it closed. Strings (over lines too), raw strings, byte strings, characters, lifetimes and
 * nested block comments are lexed as rustc lexes them; a head or a `}` line inside a string or a comment is none. Anything
 * else (a brace left open at such a line, a literal that does not close, the text's end) leaves that function as it
 * is. What is lost: the syntax errors inside the bodies blanked.
 */
import { emptyRanges } from './cBodies';

const NL = 10;
const CR = 13;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const HASH = 35;
const OPEN = 123;
const CLOSE = 125;

/** A function's head at a line's start, after the indent it captures. */
const FN_HEAD = /([ \t]*)(?:pub(?:\([^)\n]*\))?[ \t]+)?(?:(?:const|async|unsafe|default)[ \t]+)*(?:extern[ \t]+(?:"[^"\n]*"[ \t]+)?)?fn[ \t]+[A-Za-z_]/y;

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c >= 128;
}

/**
 * The end (exclusive) of the comment, string, raw string, character or lifetime opened at `i`, i when none opens
 * there, or -1 when it does not close.
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH) {
    const next = text.charCodeAt(i + 1);
    if (next === SLASH) {
      const nl = text.indexOf('\n', i);
      return nl < 0 ? text.length : nl;
    }
    if (next !== STAR) return i;
    // block comments nest
    let depth = 1;
    for (let k = i + 2; k < text.length - 1; k++) {
      if (text.charCodeAt(k) === SLASH && text.charCodeAt(k + 1) === STAR) {
        depth++;
        k++;
      } else if (text.charCodeAt(k) === STAR && text.charCodeAt(k + 1) === SLASH) {
        if (--depth === 0) return k + 2;
        k++;
      }
    }
    return -1;
  }
  if (c === QUOTE) {
    for (let k = i + 1; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === QUOTE) return k + 1;
    }
    return -1;
  }
  if (c === APOSTROPHE) {
    // a character `'x'`, `'\n'`, `'\u{1F600}'`, `'😀'`; else a lifetime or a label (`'a`), which ends with its name
    if (text.charCodeAt(i + 1) === BACKSLASH) {
      const close = text.indexOf("'", i + 3);
      return close < 0 || close > i + 12 ? -1 : close + 1;
    }
    if (text.charCodeAt(i + 2) === APOSTROPHE) return i + 3;
    if (text.codePointAt(i + 1)! > 0xffff && text.charCodeAt(i + 3) === APOSTROPHE) return i + 4;
    let k = i + 1;
    while (k < text.length && isIdentChar(text.charCodeAt(k))) k++;
    return k > i + 1 ? k : -1;
  }
  // r"…", r#"…"#, br"…", cr"…": no escapes, closed by a quote and as many #
  if ((c === 114 || c === 98 || c === 99) && !isIdentChar(text.charCodeAt(i - 1))) {
    let k = i + 1;
    if (c !== 114 && text.charCodeAt(k) === 114) k++;
    else if (c !== 114) return i;
    let hashes = 0;
    while (text.charCodeAt(k + hashes) === HASH) hashes++;
    k += hashes;
    if (text.charCodeAt(k) !== QUOTE) return i;
    const close = text.indexOf('"' + '#'.repeat(hashes), k + 1);
    return close < 0 ? -1 : close + 1 + hashes;
  }
  return i;
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
    if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) {
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
    else if (c === CLOSE && --depth === 0) return undefined; // closed before its `}` line: not rustfmt's layout
  }
  return undefined;
}

/**
 * The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and
 * its `}`. Heads are looked for at the start of lines outside strings and comments only.
 */
export function rustFunctionBodies(text: string): [number, number][] {
  const out: [number, number][] = [];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    if (lineStart) {
      lineStart = false;
      FN_HEAD.lastIndex = i;
      const head = FN_HEAD.exec(text);
      const open = head ? bodyOpen(text, i + head[0].length) : -1;
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

/** `text` with the function bodies of rustFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function blankRustFunctionBodies(text: string): string | undefined {
  const bodies = rustFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
