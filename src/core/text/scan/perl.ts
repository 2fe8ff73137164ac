/** Perl string rules: quote-like operators (m//, s{}{}, qw(), tr///…) and punctuation variables. */
import * as chars from './chars';
import type { ScanState } from './result';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { AMP, AT, COLON, DOLLAR, GT, PERCENT, SPACE, TAB, asciiSet, isIdentPart } = chars;

// `$(` `$)` `$[` are left out: prototypes like `($$)` and `($;$)` are far more common than those variables
const PUNCT_VARS = asciiSet('$];,./\\\'"&`+!@<>|?^~=-%:0123456789');
const QUOTE_WORDS = new Set(['m', 'q', 'qq', 'qw', 'qr', 'qx', 's', 'tr', 'y']);
const CLOSER_OF: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** At a `$`: the index after the variable sigil, past a punctuation name (`$)`, `$"`) so it is no bracket or quote. */
export function skipPerlSigil(text: string, i: number): number {
  const next = text.charCodeAt(i + 1);
  return next < 128 && PUNCT_VARS[next] === 1 ? i + 2 : i + 1;
}

/**
 * Perl quote-like operators: `m/…/`, `qw(…)`, `s{…}{…}`, `tr/a/b/` with any delimiter (bracket pairs nest).
 * `start..wordEnd` is the word; returns the index after the construct and its modifiers, or undefined.
 */
export function skipPerlQuote(s: ScanState, start: number, wordEnd: number, end: number): number | undefined {
  const text = s.text;
  const word = text.slice(start, wordEnd);
  if (!QUOTE_WORDS.has(word)) return undefined;
  const before = start > 0 ? text.charCodeAt(start - 1) : 0;
  // `$s`, `%q`, `->s(`, `Foo::y` are names, not operators
  if (before === DOLLAR || before === AT || before === PERCENT || before === AMP || before === GT || before === COLON) return undefined;
  let j = wordEnd;
  while (j < end && (text.charCodeAt(j) === SPACE || text.charCodeAt(j) === TAB)) j++;
  const d = text[j];
  if (!d || /[\w\s;)=]/.test(d) || (j > wordEnd && (d === '#' || d === ',')) || text.startsWith('=>', j)) return undefined;
  const startLine = s.line;
  const part = (from: number): number | undefined => {
    const open = text[from];
    const close = CLOSER_OF[open] ?? open;
    let depth = 0;
    for (let k = from + 1; k < end; k++) {
      const c = text[k];
      if (c === '\\') k++;
      else if (c === '\n') s.line++;
      else if (c === close && open !== close && depth > 0) depth--;
      else if (c === close) return k + 1;
      else if (c === open && open !== close) depth++;
    }
    return undefined;
  };
  let k = part(j);
  if (k !== undefined && (word === 's' || word === 'tr' || word === 'y')) {
    if (CLOSER_OF[text[j]]) {
      while (k < end && /\s/.test(text[k])) {
        if (text[k] === '\n') s.line++;
        k++;
      }
      k = part(k);
    } else k = part(k - 1);
  }
  if (k === undefined) {
    s.warn(word + text[j], startLine);
    return end;
  }
  while (k < end && isIdentPart(text.charCodeAt(k))) k++; // modifiers
  return k;
}
