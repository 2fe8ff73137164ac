/**
 * Shell and heredoc string rules: POSIX double quotes and backticks, in which `$(…)` and backticks nest,
 * and heredoc bodies (`<<EOF` in shell, Ruby and Perl, `<<<EOF` in PHP), skipped at the next newline.
 */
import * as chars from './chars';
import type { ScanState } from './result';
import { skipEscape } from './strings';
import type { Syntax } from './syntax';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { BACKSLASH, BACKTICK, DOLLAR, DQUOTE, LF, LPAREN, QUOTE, RPAREN, countLF, lineEnd } = chars;

/** Skips a shell double-quoted string body (after `"`). Undefined when unterminated. */
export function skipShellDouble(s: ScanState, i: number, end: number): number | undefined {
  const text = s.text;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i = skipEscape(s, i);
    else if (c === DQUOTE) return i + 1;
    else if (c === BACKTICK || (c === DOLLAR && text.charCodeAt(i + 1) === LPAREN)) {
      const j = c === BACKTICK ? skipShellBacktick(s, i + 1, end) : skipShellParen(s, i + 2, end);
      if (j === undefined) return undefined;
      i = j;
    } else {
      if (c === LF) s.line++;
      i++;
    }
  }
  return undefined;
}

/** Skips a backtick command substitution body (after the opening backtick). Undefined when unterminated. */
export function skipShellBacktick(s: ScanState, i: number, end: number): number | undefined {
  return skipSubstitution(s, i, end, BACKTICK);
}

/** Skips a `$(…)` body inside double quotes (after `$(`), quote-aware. Undefined when unterminated. */
function skipShellParen(s: ScanState, i: number, end: number): number | undefined {
  return skipSubstitution(s, i, end, RPAREN);
}

/** A command substitution body up to `closer` (a backtick, or the `)` of `$(`, where parentheses nest). */
function skipSubstitution(s: ScanState, i: number, end: number, closer: number): number | undefined {
  const text = s.text;
  let depth = 1;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      i = skipEscape(s, i);
      continue;
    }
    if (closer === RPAREN && c === LPAREN) depth++;
    else if (c === closer && --depth === 0) return i + 1;
    else if (c === DQUOTE || (closer === RPAREN && c === BACKTICK)) {
      const j = c === DQUOTE ? skipShellDouble(s, i + 1, end) : skipShellBacktick(s, i + 1, end);
      if (j === undefined) return undefined;
      i = j;
      continue;
    } else if (c === QUOTE) {
      const q = text.indexOf("'", i + 1);
      if (q === -1 || q >= end) return undefined;
      s.line += countLF(text, i, q);
      i = q + 1;
      continue;
    } else if (c === LF) s.line++;
    i++;
  }
  return undefined;
}

const HEREDOC_START = {
  php: /<<<[ \t]*(["']?)([A-Za-z_][A-Za-z_0-9]*)\1/y,
  sh: /<<(-?)[ \t]*(["']?)\\?([A-Za-z_][A-Za-z_0-9]*)\2/y,
  ruby: /<<([-~]?)(["']?)([A-Za-z_][A-Za-z_0-9]*)\2/y,
};

/**
 * `<<WORD`, `<<-WORD`, `<<~WORD`, `<<'WORD'` (shell, Ruby, Perl) and `<<<WORD` (PHP) at `i`: queues the
 * body and returns the index after the opener, or undefined when `<<` opens no heredoc here.
 */
export function heredocStart(s: ScanState, i: number, syn: Syntax): number | undefined {
  if (syn.heredoc === 'none') return undefined;
  const re = HEREDOC_START[syn.heredoc];
  re.lastIndex = i;
  const m = re.exec(s.text);
  if (!m) return undefined;
  const word = syn.heredoc === 'php' ? m[2] : m[3];
  s.pendingHeredocs.push({ word, strip: syn.heredoc === 'php' || m[1] !== '', line: s.line });
  return i + m[0].length;
}

/** At a line start `i`: skips the bodies of the heredocs opened on the line before. */
export function skipHeredocBodies(s: ScanState, i: number, end: number): number {
  const text = s.text;
  while (s.pendingHeredocs.length) {
    const h = s.pendingHeredocs.shift()!;
    let j = i;
    for (;;) {
      if (j >= end) {
        s.warn('<<' + h.word, h.line);
        return end;
      }
      const le = lineEnd(text, j, end);
      let body = text.slice(j, le);
      if (body.endsWith('\r')) body = body.slice(0, -1);
      if (h.strip) body = body.trimStart();
      const done = body === h.word || (h.strip && (body === h.word + ';' || body.startsWith(h.word + ';') || body.startsWith(h.word + ')') || body.startsWith(h.word + ',')));
      if (done) {
        i = le; // the terminator line's newline is scanned normally
        break;
      }
      if (le >= end) {
        s.warn('<<' + h.word, h.line);
        return end;
      }
      s.line++;
      j = le + 1;
    }
  }
  return i;
}
