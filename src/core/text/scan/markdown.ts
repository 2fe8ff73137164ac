/**
 * The Markdown scanner: brackets in prose, fenced code scanned with the fence's language, inline code and
 * comments skipped. And the plain-text scanner: every bracket counts.
 */
import * as chars from './chars';
import { scanCode } from './codeScanner';
import type { ScanState } from './result';
import { skipBlockComment } from './strings';
import { knownSyntax } from '../languages';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { BACKSLASH, BACKTICK, LF, LT, countLF, isBracket, lineEnd } = chars;

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*/my;

export function scanMarkdown(s: ScanState, from: number, end: number): void {
  const text = s.text;
  let i = from;
  let atLineStart = true;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      s.line++;
      i++;
      atLineStart = true;
      continue;
    }
    if (atLineStart) {
      atLineStart = false;
      const j = fencedBlock(s, i, end);
      if (j !== undefined) {
        i = j;
        continue;
      }
    }
    if (c === BACKSLASH && text.charCodeAt(i + 1) === BACKTICK) {
      i += 2; // an escaped backtick does not start inline code (an escaped bracket is still a bracket)
      continue;
    }
    if (c === LT && text.startsWith('<!--', i)) {
      i = skipBlockComment(s, i, end, '<!--', '-->', false);
      continue;
    }
    if (c === BACKTICK) {
      let n = 1;
      while (text.charCodeAt(i + n) === BACKTICK) n++;
      const le = lineEnd(text, i, end);
      const j = text.indexOf('`'.repeat(n), i + n);
      i = j !== -1 && j < le ? j + n : i + n;
      continue;
    }
    if (isBracket(c)) s.bracket(c, i);
    i++;
  }
}

/** A fenced code block starting at line start `i`: the index after its closing fence, or undefined. */
function fencedBlock(s: ScanState, i: number, end: number): number | undefined {
  const text = s.text;
  FENCE.lastIndex = i;
  const m = FENCE.exec(text);
  if (!m) return undefined;
  const bodyStart = Math.min(end, i + m[0].length + 1);
  const closeRe = new RegExp(`^ {0,3}${m[1][0] === '`' ? '`' : '~'}{${m[1].length},}[ \\t\\r]*$`, 'mg');
  closeRe.lastIndex = bodyStart;
  let bodyEnd = end;
  let after = end;
  for (let r = closeRe.exec(text); r; r = closeRe.exec(text)) {
    if (r.index >= bodyStart) {
      bodyEnd = r.index;
      after = r.index + r[0].length;
      break;
    }
  }
  s.line++; // the fence line
  // only fences in a known language are checked (output, logs and diagrams are not code)
  const info = m[2].toLowerCase();
  const known = info ? knownSyntax(info) : undefined;
  if (known?.kind === 'code') scanCode(s, bodyStart, Math.min(bodyEnd, end), known);
  else s.line += countLF(text, bodyStart, Math.min(bodyEnd, end));
  return bodyStart > end ? end : Math.min(after, end);
}

export function scanPlain(s: ScanState, from: number, end: number): void {
  const text = s.text;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) s.line++;
    else if (isBracket(c)) s.bracket(c, i);
  }
}
