/**
 * A large C text with its function bodies blanked, for the outline's parse: every character between a function's
 * `{` and its `}` becomes a space, but line breaks, which stay, so every offset, line and column is the text's own.
 * An outline shows a C function's head and range, never its body, and most of a C file's parse is its bodies
 * (a generated 4 MB file parsed in 0.32-0.43 s blanked against 0.67-0.70 s whole on a warm worker, Node 20).
 *
 * A body is blanked only when its bounds are certain: a `{` at the top level right after the `)` of a parameter
 * list (a name before its `(`, not `__attribute__` and the like; comments and line breaks between them aside),
 * closed by the `}` that brings the depth back to the top, and that `}` starts its line or is on the opening line
 * (the one-line function); every `#if` in it closes in it. Comments, strings, character constants and preprocessor
 * lines are skipped as the C lexer skips them. A `}` at the start of a line inside a body closes it (the convention
 * the part cuts of outlineChunks.ts rely on too): then the braces did not balance (an `#if` with a `{` in each
 * branch) and that body stays as it is. What is lost: the syntax errors inside the bodies blanked.
 */

/** From this size on a C text's outline is parsed with its bodies blanked (below it the parse takes milliseconds). */
export const BLANK_BODIES_MIN_CHARS = 256 * 1024;

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
const PAREN_OPEN = 40;
const PAREN_CLOSE = 41;

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === NL || c === CR || c === 11 || c === 12;
}

/** Names before a parenthesis that never open a parameter list: `struct __attribute__((packed)) {` is no function. */
const NOT_FUNCTIONS = new Set(['__attribute__', '__attribute', '__declspec', '_Alignas', 'alignas', '__asm__', '__asm', 'asm', 'sizeof', '_Pragma']);

/** Whether the parenthesis at `i` follows a plain name that can be a function's (blanks between them aside). */
function afterFunctionName(text: string, i: number): boolean {
  let end = i;
  while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
  return start < end && !isDigit(text.charCodeAt(start)) && !NOT_FUNCTIONS.has(text.slice(start, end));
}

function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95 || c === 36;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The [start, end) ranges strictly inside the function bodies whose bounds are certain; undefined if a comment never ends. */
export function functionBodies(text: string): [number, number][] | undefined {
  const n = text.length;
  const bodies: [number, number][] = [];
  let depth = 0;
  /** parentheses open at the top level, and whether the outermost of them followed a function's name */
  let parens = 0;
  let paramList = false;
  /** the last significant character outside comments, and whether it closed what may be a parameter list */
  let last = 0;
  let afterParams = false;
  /** where a line's first non-blank character may still come (a `#` there starts a preprocessor line) */
  let lineStart = true;
  let open = -1;
  /** #if nesting inside the body `open` starts; -1 once an #else, #elif or #endif there belongs to an #if before it */
  let conditional = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === NL) {
      lineStart = true;
      i++;
      continue;
    }
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return undefined;
      i = end + 2;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      i = lineEnd(text, i);
      continue;
    }
    if (c === HASH && lineStart) {
      const end = directiveEnd(text, i);
      if (end < 0) return undefined;
      // inside a body an #if must close there too: blanking half of one would change what the rest parses as
      if (open >= 0 && conditional >= 0) conditional = conditionalDepth(text, i + 1, conditional);
      i = end;
      continue;
    }
    lineStart = false;
    if (c === QUOTE || c === APOSTROPHE) {
      const end = quotedEnd(text, i, c);
      last = c;
      if (end >= 0) {
        i = end;
        continue;
      }
      // unclosed on its line (an apostrophe in the prose of an `#if 0` block): it ends there, as in a skipped group;
      // a body holding one is not certain
      if (open >= 0) conditional = -1;
      i = lineEnd(text, i);
      continue;
    }
    if (depth === 0 && c === PAREN_OPEN) {
      if (parens++ === 0) paramList = afterFunctionName(text, i);
    } else if (depth === 0 && c === PAREN_CLOSE && parens > 0) {
      if (--parens === 0) afterParams = paramList;
    } else if (c === OPEN) {
      if (depth === 0 && parens === 0 && last === PAREN_CLOSE && afterParams) {
        open = i;
        conditional = 0;
      }
      depth++;
    } else if (c === CLOSE) {
      const atLineStart = i === 0 || text.charCodeAt(i - 1) === NL;
      depth = Math.max(0, depth - 1);
      // a `}` at a line's start closes the top-level block, and any parenthesis left open before it (one in each
      // branch of an #if); when that leaves braces open, the braces inside it did not balance
      if (atLineStart) parens = 0;
      if (atLineStart && depth > 0) {
        depth = 0;
        open = -1;
      } else if (depth === 0 && open >= 0) {
        // closed where a function's body closes: at a line's start, or on the line it opened
        if ((atLineStart || text.lastIndexOf('\n', i) < open) && conditional === 0) bodies.push([open + 1, i]);
        open = -1;
      }
    }
    last = c;
    i++;
  }
  return bodies;
}

const DIRECTIVE = /[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/y;

/** The #if nesting after the directive whose name starts at `at` (after its `#`), or -1 when it closes or continues an #if opened before. */
export function conditionalDepth(text: string, at: number, depth: number): number {
  DIRECTIVE.lastIndex = at;
  const name = DIRECTIVE.exec(text)?.[1];
  if (name === undefined) return depth;
  if (name === 'if' || name === 'ifdef' || name === 'ifndef') return depth + 1;
  if (depth === 0) return -1;
  return name === 'endif' ? depth - 1 : depth;
}

/** The index of the line break ending the line at `i` (or the text's end). */
function lineEnd(text: string, i: number): number {
  const end = text.indexOf('\n', i);
  return end < 0 ? text.length : end;
}

/** The end of the preprocessor line starting at `i` (its last line break, escaped ones continue it); -1 if a comment in it never ends. */
function directiveEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === NL) return i;
    if (c === BACKSLASH) {
      i += text.charCodeAt(i + 1) === CR ? 3 : 2;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return -1;
      i = end + 2;
      continue;
    }
    if (c === SLASH && text.charCodeAt(i + 1) === SLASH) return lineEnd(text, i);
    if (c === QUOTE || c === APOSTROPHE) {
      // `#error don't` or `#include <it's.h>`: an unclosed quote ends with the directive's line
      const end = quotedEnd(text, i, c);
      i = end < 0 ? lineEnd(text, i) : end;
      continue;
    }
    i++;
  }
  return n;
}

/** The index after the closing quote of the string or character constant opened at `i`; -1 if its line ends first. */
function quotedEnd(text: string, i: number, quote: number): number {
  const n = text.length;
  for (let k = i + 1; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c === quote) return k + 1;
    if (c === BACKSLASH) {
      k += text.charCodeAt(k + 1) === CR ? 2 : 1;
      continue;
    }
    if (c === NL) return -1;
  }
  return -1;
}

/**
 * `text` with the function bodies of functionBodies blanked (line breaks kept), or undefined when there is none
 * or a comment never ends.
 */
export function blankFunctionBodies(text: string): string | undefined {
  const bodies = functionBodies(text);
  return bodies?.length ? blankRanges(text, bodies) : undefined;
}

/** `text` with every character of the sorted, disjoint [start, end) `ranges` a space but the line breaks. */
export function blankRanges(text: string, ranges: readonly (readonly [number, number])[]): string {
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    out.push(text.slice(from, start), blanked(text.slice(start, end)));
    from = end;
  }
  out.push(text.slice(from));
  return out.join('');
}

const SPACES = ' '.repeat(256);

/** `text` with every character but line breaks a space. */
function blanked(text: string): string {
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    const cr = line.endsWith('\r');
    const width = cr ? line.length - 1 : line.length;
    const spaces = width <= SPACES.length ? SPACES.slice(0, width) : ' '.repeat(width);
    lines[k] = cr ? `${spaces}\r` : spaces;
  }
  return lines.join('\n');
}

/**
 * `text` with every character of the sorted, disjoint [start, end) `ranges` taken out but the line breaks (a `\r`
 * before a `\n` stays too), so every line keeps its number (cppBodies.ts, goBodies.ts, rustBodies.ts, javaBodies.ts,
 * csharpBodies.ts, jsBodies.ts, phpBodies.ts, rubyBodies.ts). The lexer steps over every blank left in, and a C# file's indented bodies parsed in half the
 * time emptied (~230 against ~440 ms for a generated 4 MB file). C keeps its blanks (blankRanges): in 4 of 259 real
 * C files, which have syntax errors outside their bodies, error recovery differs without them.
 */
export function emptyRanges(text: string, ranges: readonly (readonly [number, number])[]): string {
  const out: string[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    out.push(text.slice(from, start));
    for (let nl = text.indexOf('\n', start); nl >= 0 && nl < end; nl = text.indexOf('\n', nl + 1)) {
      out.push(nl > start && text.charCodeAt(nl - 1) === 13 ? '\r\n' : '\n');
    }
    from = end;
  }
  out.push(text.slice(from));
  return out.join('');
}
