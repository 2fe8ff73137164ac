/**
 * A large Rust text with its function bodies emptied, for the outline's parse, as goBodies.ts does for Go: every
 * character between a function's `{` and its `}` is taken out but the line breaks (cBodies.ts emptyRanges), so
 * every line keeps its number. A Rust outline shows a function's head and range (at the top level, in an `impl`, a
 * `trait` or a `mod`), never its body, and the bodies were most of the parse.
 *
 * A body is emptied only when its bounds are certain in the layout rustfmt writes (layoutBodies.ts: a head at a
 * line's start, its `{` last on its line, the body closed by a line that is the head's indent and `}`). Heads are
 * `pub(crate) const unsafe extern "C" fn name` and the like. Strings (over lines too), raw strings, byte strings,
 * characters, lifetimes and nested block comments are lexed as rustc lexes them. What is lost: the syntax errors
 * inside the bodies emptied.
 */
import { emptyRanges } from './cBodies';
import { layoutBodies, type LayoutDialect } from './layoutBodies';
import type { ScanBudget } from './scanBudget';
import { isNameChar } from './literals';

const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const HASH = 35;

/** A function's head at a line's start, after the indent it captures. */
const FN_HEAD = /([ \t]*)(?:pub(?:\([^)\n]*\))?[ \t]+)?(?:(?:const|async|unsafe|default)[ \t]+)*(?:extern[ \t]+(?:"[^"\n]*"[ \t]+)?)?fn[ \t]+[A-Za-z_]/y;

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
    while (k < text.length && isNameChar(text.charCodeAt(k))) k++;
    return k > i + 1 ? k : -1;
  }
  // r"…", r#"…"#, br"…", cr"…": no escapes, closed by a quote and as many #
  if ((c === 114 || c === 98 || c === 99) && !isNameChar(text.charCodeAt(i - 1))) {
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

const RUST: LayoutDialect = { head: FN_HEAD, literalEnd, angles: false, directives: false };

/**
 * The function bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and
 * its `}`. Heads are looked for at the start of lines outside strings and comments only.
 */
export function rustFunctionBodies(text: string, budget?: ScanBudget): [number, number][] {
  return layoutBodies(text, RUST, budget);
}

/** `text` with the function bodies of rustFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyRustFunctionBodies(text: string): string | undefined {
  const bodies = rustFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
