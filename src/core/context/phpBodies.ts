/**
 * A large PHP text with its function and method bodies emptied to their line breaks, for the outline's parse
 * (cBodies.ts emptyRanges: every line keeps its number). A PHP outline shows namespaces, classes, interfaces, traits,
 * enums, functions and methods with their heads and ranges, never a body.
 *
 * A body is emptied only when its bounds are certain in the layout PSR-12 describes (layoutBodies.ts: a head at a
 * line's start, its `{` last on its line, on the head's last line or the next, the body closed by a line that is the
 * head's indent and `}`). A head is `function name(` after any of `abstract final public protected private static`.
 * Comments (`//`, `#` but an attribute's `#[`, `/* … *\/`), strings in single quotes, double quotes (over lines, with
 * the code in their `{$…}`) and backticks, heredocs and nowdocs are stepped over; a `?>` (the end of the PHP code)
 * ends the reading. What is lost: the syntax errors inside the bodies emptied.
 */
import { emptyRanges } from './cBodies';
import { layoutBodies, type LayoutDialect } from './layoutBodies';
import type { ScanBudget } from './scanBudget';
import { holeEnd, isNameChar, slashCommentEnd } from './literals';

const SLASH = 47;
const BACKSLASH = 92;
const QUOTE = 34;
const APOSTROPHE = 39;
const BACKTICK = 96;
const HASH = 35;
const DOLLAR = 36;
const OPEN = 123;

/** A function's or a method's head up to its `(`, at a line's start after the indent it captures. */
const HEAD = /([ \t]*)(?:(?:abstract|final|public|protected|private|static|readonly)[ \t]+)*function[ \t]+&?[ \t]*[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*[ \t]*(?=\()/y;

const HEREDOC = /<<<[ \t]*(["']?)([A-Za-z_][\w]*)\1\r?\n/y;

/**
 * The end (exclusive) of the comment or literal opened at `i`, i when none opens there, or -1 when it does not close
 * (or at a `?>`).
 */
function literalEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === SLASH || c === HASH) {
    const next = text.charCodeAt(i + 1);
    if ((c === SLASH && next === SLASH) || (c === HASH && next !== 91)) {
      const nl = text.indexOf('\n', i);
      return nl < 0 ? text.length : nl;
    }
    return c === SLASH ? slashCommentEnd(text, i) : i;
  }
  if (c === 63 && text.charCodeAt(i + 1) === 62) return -1; // ?>
  if (c === APOSTROPHE) {
    for (let k = i + 1; k < text.length; k++) {
      const d = text.charCodeAt(k);
      if (d === BACKSLASH) k++;
      else if (d === APOSTROPHE) return k + 1;
    }
    return -1;
  }
  if (c === QUOTE || c === BACKTICK) return interpolatedEnd(text, i + 1, (k) => text.charCodeAt(k) === c);
  if (c === 60 && text.startsWith('<<<', i)) {
    HEREDOC.lastIndex = i;
    const m = HEREDOC.exec(text);
    if (!m) return i;
    const id = m[2]!;
    // the closing identifier: first on its line after blanks, not followed by a name's character
    for (let at = HEREDOC.lastIndex; at < text.length; ) {
      let k = at;
      while (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9) k++;
      if (text.startsWith(id, k) && !isNameChar(text.charCodeAt(k + id.length))) return k + id.length;
      if (m[1] !== "'") {
        // a heredoc's holes may hold anything: read to the line's end as a string would
        const nl = interpolatedEnd(text, k, (j) => text.charCodeAt(j) === 10);
        if (nl < 0) return -1;
        at = nl;
      } else {
        const nl = text.indexOf('\n', k);
        if (nl < 0) return -1;
        at = nl + 1;
      }
    }
    return -1;
  }
  return i;
}

/** From `from` inside a double-quoted string (or a heredoc's line): the end after the character `ends` accepts, the code in `{$…}` and `${…}` read as code; -1 if it never comes. */
function interpolatedEnd(text: string, from: number, ends: (k: number) => boolean): number {
  for (let k = from; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (ends(k)) return k + 1;
    else if ((d === OPEN && text.charCodeAt(k + 1) === DOLLAR) || (d === DOLLAR && text.charCodeAt(k + 1) === OPEN)) {
      const end = holeEnd(text, k + 2, literalEnd);
      if (end < 0) return -1;
      k = end;
    }
  }
  return -1;
}

const PHP: LayoutDialect = { head: HEAD, literalEnd, angles: false, directives: false };

/** The function and method bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each, between a `{` and its `}`. */
export function phpFunctionBodies(text: string, budget?: ScanBudget): [number, number][] {
  return layoutBodies(text, PHP, budget);
}

/** `text` with the bodies of phpFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyPhpFunctionBodies(text: string): string | undefined {
  const bodies = phpFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
