/**
 * A large TypeScript or JavaScript text with its function and method bodies emptied to their line breaks, for the
 * outline's parse, as goBodies.ts does for Go (cBodies.ts emptyRanges: every line keeps its number). The outline
 * shows a function's or a method's head and range, never its body.
 *
 * A body is emptied only when its bounds are certain in the layout formatters (Prettier, tsc's emit) write
 * (layoutBodies.ts: a head at a line's start, its `{` last on its line and first outside its parentheses, brackets
 * and angle brackets, the body closed by a line that is the head's indent and `}`). Heads are a function's
 * (`export default async function* name`) or a method's (`public static async name<T>(`, `get name(`,
 * `constructor(`; never `if (`, `for (` and the other statements that take parentheses). Strings, template literals
 * (and the code in their `${…}`), regular expressions (told from a division by what comes before the `/`) and
 * comments are stepped over. What is lost: the syntax errors inside the bodies emptied.
 */
import { emptyRanges } from './cBodies';
import { layoutBodies, type LayoutDialect } from './layoutBodies';
import type { ScanBudget } from './scanBudget';
import { holeEnd, isNameChar, quotedEnd, slashCommentEnd } from './literals';

const NL = 10;
const CR = 13;
const SLASH = 47;
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
  return isNameChar(c) || c === DOLLAR;
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
    const comment = slashCommentEnd(text, i);
    if (comment !== i || !regexAt(text, i)) return comment;
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
  if (c === QUOTE || c === APOSTROPHE) return quotedEnd(text, i + 1, c);
  if (c !== BACKTICK) return i;
  for (let k = i + 1; k < text.length; k++) {
    const d = text.charCodeAt(k);
    if (d === BACKSLASH) k++;
    else if (d === BACKTICK) return k + 1;
    else if (d === DOLLAR && text.charCodeAt(k + 1) === OPEN) {
      const end = holeEnd(text, k + 2, literalEnd);
      if (end < 0) return -1;
      k = end;
    }
  }
  return -1;
}

const JS: LayoutDialect = { head: HEAD, accepts: (head) => !STATEMENTS.has(head[2] ?? ''), literalEnd, angles: true, directives: false };

/**
 * The function and method bodies of `text` whose bounds are certain, sorted and disjoint: [start, end) each,
 * between a `{` and its `}`. Heads are looked for at the start of lines outside literals and comments only.
 */
export function jsFunctionBodies(text: string, budget?: ScanBudget): [number, number][] {
  return layoutBodies(text, JS, budget);
}

/** `text` with the bodies of jsFunctionBodies emptied (their line breaks kept), or undefined when there is none. */
export function emptyJsFunctionBodies(text: string): string | undefined {
  const bodies = jsFunctionBodies(text);
  return bodies.length ? emptyRanges(text, bodies) : undefined;
}
