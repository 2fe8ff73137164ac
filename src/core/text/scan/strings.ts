/**
 * String and comment bodies shared by most language families: quoted strings with an escape char or
 * doubled quotes, block comments (nested or not), Lua long brackets, JS template text, Rust and C++ raw
 * strings. Each skips from just after the opener, counts the lines it crosses and records a warning
 * when the construct never ends.
 */
import * as chars from './chars';
import type { ScanState } from './result';
import type { StringRule } from './syntax';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { BACKSLASH, BACKTICK, DOLLAR, DQUOTE, HASH, LBRACE, LF, countLF, lineEnd } = chars;

/** Past the char escaped by the escape char at `i` (an escaped newline is a line). */
export function skipEscape(s: ScanState, i: number): number {
  if (s.text.charCodeAt(i + 1) === LF) s.line++;
  return i + 2;
}

/** Skips a string body starting at `i` (after the opener); the index after it, or undefined when unterminated. */
export function skipString(s: ScanState, i: number, end: number, rule: StringRule): number | undefined {
  const text = s.text;
  const close = rule.close;
  const c0 = close.charCodeAt(0);
  const single = close.length === 1;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === rule.escape) {
      if (i + 1 < end && text.charCodeAt(i + 1) === LF) s.line++;
      i += 2;
      continue;
    }
    if (c === LF) {
      if (!rule.multiline) return undefined;
      s.line++;
      i++;
      continue;
    }
    if (c === c0 && (single || text.startsWith(close, i))) {
      if (rule.doubled && single && text.charCodeAt(i + 1) === c0) {
        i += 2;
        continue;
      }
      return i + close.length;
    }
    i++;
  }
  return undefined;
}

/** Skips a string body; an unterminated one is recorded and the scan resumes at the line end (or EOF). */
export function stringOrWarn(s: ScanState, i: number, end: number, rule: StringRule, symbol: string): number {
  const startLine = s.line;
  const j = skipString(s, i, end, rule);
  if (j !== undefined) return j;
  s.warn(symbol, startLine);
  if (rule.multiline) return end;
  // single-line kinds stop at the end of the line (the newline itself is scanned as code)
  return lineEnd(s.text, i, end);
}

/** Skips a block comment starting at `i` (its opener); returns the index after it (`end` if unterminated). */
export function skipBlockComment(s: ScanState, i: number, end: number, open: string, close: string, nested: boolean): number {
  const text = s.text;
  const startLine = s.line;
  if (!nested) {
    const j = text.indexOf(close, i + open.length);
    const stop = j === -1 || j + close.length > end ? end : j + close.length;
    s.line += countLF(text, i, stop);
    if (stop === end && (j === -1 || j + close.length > end)) s.warn(open, startLine);
    return stop;
  }
  let depth = 0;
  while (i < end) {
    if (text.startsWith(open, i)) {
      depth++;
      i += open.length;
    } else if (text.startsWith(close, i)) {
      depth--;
      i += close.length;
      if (depth === 0) return i;
    } else {
      if (text.charCodeAt(i) === LF) s.line++;
      i++;
    }
  }
  s.warn(open, startLine);
  return end;
}

/** Skips to after `close` (`]]`, `]==]`): Lua long strings and comments. */
export function skipLong(s: ScanState, i: number, end: number, close: string, symbol: string): number {
  const j = s.text.indexOf(close, i);
  const startLine = s.line;
  const stop = j === -1 || j + close.length > end ? end : j + close.length;
  s.line += countLF(s.text, i, stop);
  if (j === -1) s.warn(symbol, startLine);
  return stop;
}

/** Where template literal text ends: after the closing backtick, or after a `${` (`opensExpr`). */
export interface TemplateText {
  end: number;
  opensExpr: boolean;
}

/** Skips template literal text from `i` (after the backtick or the `}` of a `${}`); `line0` is the literal's line. */
export function skipTemplate(s: ScanState, i: number, end: number, line0: number): TemplateText {
  const text = s.text;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      i = skipEscape(s, i);
      continue;
    }
    if (c === BACKTICK) return { end: i + 1, opensExpr: false };
    if (c === DOLLAR && text.charCodeAt(i + 1) === LBRACE) return { end: i + 2, opensExpr: true };
    if (c === LF) s.line++;
    i++;
  }
  s.warn('`', line0);
  return { end, opensExpr: false };
}

/** Rust `r#"…"#` from just after the `r`: the index after it, or undefined when `i` starts no raw string. */
export function skipRustRaw(s: ScanState, i: number, end: number): number | undefined {
  const text = s.text;
  let j = i;
  while (text.charCodeAt(j) === HASH) j++;
  if (text.charCodeAt(j) !== DQUOTE) return undefined;
  const close = '"' + '#'.repeat(j - i);
  const k = text.indexOf(close, j + 1);
  const stop = k === -1 || k + close.length > end ? end : k + close.length;
  if (k === -1) s.warn('r"', s.line);
  s.line += countLF(text, i, stop);
  return stop;
}

/** C++ `R"delim(…)delim"` from the `"`; a `"` without a valid delimiter is skipped alone. */
export function skipCppRaw(s: ScanState, i: number, end: number): number {
  const text = s.text;
  const open = text.indexOf('(', i + 1);
  const le = lineEnd(text, i, end);
  if (open === -1 || open > le || open - i - 1 > 16) return i + 1;
  const close = ')' + text.slice(i + 1, open) + '"';
  const k = text.indexOf(close, open + 1);
  const stop = k === -1 || k + close.length > end ? end : k + close.length;
  if (k === -1) s.warn('R"', s.line);
  s.line += countLF(text, i, stop);
  return stop;
}
