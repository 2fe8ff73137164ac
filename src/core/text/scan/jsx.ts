/**
 * JSX elements in expression position, parsed speculatively: on failure everything is rolled back.
 * Attribute strings and element text are not JS strings, so `<p>Don't</p>` is fine; `{…}` containers
 * are scanned as code.
 */
import * as chars from './chars';
import * as result from './result';
import type { ScanState } from './result';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { Tok } = result;
const {
  COLON, DOT, DQUOTE, EQUALS, GT, LBRACE, LF, LT, MINUS, QUOTE, RBRACE, SLASH, COMMA, countLF, isIdentPart,
  isIdentStart, isSpace,
} = chars;

/** Scans the code of a `{…}` container from `from`; returns the index of its closing `}` (or `end`). */
export type ExpressionScanner = (from: number, end: number) => number;

/** The element at `<` `i`: the index after it, or undefined (and nothing recorded) when it is none. */
export function jsxElement(s: ScanState, i: number, end: number, scanExpression: ExpressionScanner): number | undefined {
  const memo = s.jsx;
  if (memo.off || memo.failed.has(i)) return undefined;
  const save = { count: s.count, line: s.line, warnings: s.out.unterminated.length, tags: s.out.tagPairs.length };
  memo.hitEnd = false;
  const r = new JsxParse(s, end, scanExpression).element(i, 0);
  if (r !== undefined) return r;
  if (memo.hitEnd) memo.off = true;
  s.count = save.count;
  s.line = save.line;
  s.out.unterminated.length = save.warnings;
  s.out.tagPairs.length = save.tags;
  return undefined;
}

class JsxParse {
  private readonly text: string;
  constructor(private readonly s: ScanState, private readonly end: number, private readonly scanExpression: ExpressionScanner) {
    this.text = s.text;
  }

  private hitEnd(): undefined {
    this.s.jsx.hitEnd = true;
    return undefined;
  }

  private skipWs(j: number, count = true): number {
    for (; j < this.end; j++) {
      const c = this.text.charCodeAt(j);
      if (c === LF) {
        if (count) this.s.line++;
      } else if (!isSpace(c)) break;
    }
    return j;
  }

  private name(j: number): number {
    while (j < this.end) {
      const c = this.text.charCodeAt(j);
      if (isIdentPart(c) || c === DOT || c === COLON || c === MINUS) j++;
      else break;
    }
    return j;
  }

  private container(j: number): number | undefined {
    this.s.token(Tok.LBrace, j, j);
    const k = this.scanExpression(j + 1, this.end);
    if (k >= this.end || this.text.charCodeAt(k) !== RBRACE) return this.hitEnd();
    this.s.token(Tok.RBrace, k, -1);
    return k + 1;
  }

  element(i: number, depth: number): number | undefined {
    const failed = this.s.jsx.failed;
    if (depth > 200 || failed.has(i)) return undefined;
    const r = this.parse(i, depth);
    if (r === undefined) failed.add(i);
    return r;
  }

  private parse(i: number, depth: number): number | undefined {
    const { text, s, end } = this;
    let j: number | undefined = i + 1;
    const openLine = s.line;
    let tag = '';
    const pair = () => s.out.tagPairs.push({ tag, openLine, closeLine: s.line, openOffset: i, depth: depth + 1 });
    if (text.charCodeAt(j) !== GT) {
      const n0 = j;
      j = this.name(j);
      if (j === n0) return undefined;
      tag = text.slice(n0, j).toLowerCase();
      // TypeScript generics in .tsx: `<T,>` and `<T extends X>` are not elements
      const k = this.skipWs(j, false);
      if (text.charCodeAt(k) === COMMA || text.startsWith('extends', k)) return undefined;
      // attributes
      for (;;) {
        j = this.skipWs(j);
        if (j >= end) return this.hitEnd();
        const d = text.charCodeAt(j);
        if (d === SLASH && text.charCodeAt(j + 1) === GT) {
          if (s.line > openLine) pair();
          return j + 2; // self-closing (recorded as a range only when it spans lines)
        }
        if (d === GT) {
          j++;
          break;
        }
        if (d === LBRACE) {
          j = this.container(j);
          if (j === undefined) return undefined;
          continue;
        }
        if (!isIdentStart(d)) return undefined;
        j = this.name(j);
        const e = this.skipWs(j, false);
        if (text.charCodeAt(e) !== EQUALS) continue; // boolean attribute
        j = this.skipWs(j);
        j = this.skipWs(j + 1);
        const v = text.charCodeAt(j);
        if (v === DQUOTE || v === QUOTE) {
          const q = text.indexOf(String.fromCharCode(v), j + 1);
          if (q === -1 || q >= end) return this.hitEnd();
          s.line += countLF(text, j, q);
          j = q + 1;
        } else if (v === LBRACE) {
          j = this.container(j);
          if (j === undefined) return undefined;
        } else if (v === LT) {
          j = this.element(j, depth + 1);
          if (j === undefined) return undefined;
        } else return undefined;
      }
    } else j++;
    // children, up to the closing tag
    while (j < end) {
      const c = text.charCodeAt(j);
      if (c === LF) {
        s.line++;
        j++;
      } else if (c === LBRACE) {
        j = this.container(j);
        if (j === undefined) return undefined;
      } else if (c === LT) {
        if (text.charCodeAt(j + 1) === SLASH) {
          const gt = text.indexOf('>', j + 2);
          if (gt === -1 || gt >= end) return this.hitEnd();
          s.line += countLF(text, j, gt);
          pair();
          return gt + 1;
        }
        j = this.element(j, depth + 1);
        if (j === undefined) return undefined;
      } else j++;
    }
    return this.hitEnd();
  }
}
