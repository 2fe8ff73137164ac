/**
 * The code scanner: turns code into bracket tokens, skipping comments, strings and the other constructs
 * of the language (special.ts), parsing JSX elements (jsx.ts), recording statement headers (headers.ts)
 * and the keyword hits funcRange asks for.
 */
import * as chars from './chars';
import { HeaderTracker } from './headers';
import { jsxElement } from './jsx';
import { skipPerlQuote } from './perl';
import * as result from './result';
import type { ScanState } from './result';
import { skipHeredocBodies } from './shell';
import { operandPosition, scanConstruct, specialChars, type CodeContext } from './special';
import { skipCppRaw, skipRustRaw, skipTemplate } from './strings';
import type { Syntax } from './syntax';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { Tok } = result;
const {
  AMP, BACKTICK, DQUOTE, LBRACE, LBRACKET, LF, LOWER_A, LOWER_W, LPAREN, LT, GT, QUOTE, RBRACE, RBRACKET, RPAREN,
  SEMI, COMMA, SLASH, isDigit, isHex, isIdentPart, isIdentStart, isSpace, lineEnd,
} = chars;

export interface CodeScanOptions {
  /** stop at this close tag (`</script`) when met in code: script and style elements inside markup */
  stopAtCloseTag?: string;
  /** stop at a `}` that closes nothing: the end of a JSX `{expression}` */
  stopAtBrace?: boolean;
}

/** Scans code in [from, end) into `s`; returns where it stopped (`end`, or the stop of `options`). */
export function scanCode(s: ScanState, from: number, end: number, syn: Syntax, options: CodeScanOptions = {}): number {
  return new CodeScanner(s, end, syn, options).run(from);
}

const RAW_CPP_PREFIX = /^(?:u8|[uUL])?R$/;

/** Shell `case … in pattern) … ;; esac`: the `)` ending a pattern is no bracket. */
class ShellCase {
  private waitIn = 0;
  private depth = 0;
  /** a pattern is being read: its `)` (and an optional leading `(`) are not brackets */
  pattern = false;

  word(w: string): void {
    if (w === 'case') this.waitIn++;
    else if (w === 'in' && this.waitIn > 0) {
      this.waitIn--;
      this.depth++;
      this.pattern = true;
    } else if (w === 'esac' && this.depth > 0) {
      this.depth--;
      this.pattern = false;
    }
  }

  /** At `;` `i`: `;;`, `;;&` and `;&` end a branch, a pattern follows. Returns the index of the last char used. */
  semicolon(text: string, i: number): number {
    if (this.depth === 0) return i;
    if (text.charCodeAt(i + 1) === SEMI) {
      this.pattern = true;
      i++;
      if (text.charCodeAt(i + 1) === AMP) i++; // ;;&
    } else if (text.charCodeAt(i + 1) === AMP) {
      this.pattern = true; // ;&
      i++;
    }
    return i;
  }
}

class CodeScanner implements CodeContext {
  private readonly text: string;
  private readonly special: Uint8Array;
  private readonly headers: HeaderTracker;
  private readonly shellCase = new ShellCase();
  // template literal nesting: brace depth inside each active ${…}, and the opening line of the literal
  private readonly tmplDepth: number[] = [];
  private readonly tmplLine: number[] = [];
  lastSig = 0;
  lastWordStart = -1;
  lastWordEnd = -1;

  constructor(private readonly s: ScanState, private readonly end: number, private readonly syn: Syntax, private readonly options: CodeScanOptions) {
    this.text = s.text;
    this.special = specialChars(syn, !!options.stopAtCloseTag);
    this.headers = new HeaderTracker(s.text, syn);
  }

  get lineHasToken(): boolean {
    return this.headers.lineHasToken;
  }

  run(from: number): number {
    const { text, end, syn, special, headers } = this;
    let i = from;
    if (i === 0 && text.startsWith('#!')) i = lineEnd(text, 0, end); // shebang
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === LF) {
        headers.newline(this.lastSig);
        this.s.line++;
        i = this.s.pendingHeredocs.length ? skipHeredocBodies(this.s, i + 1, end) : i + 1;
        continue;
      }
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (c < 128 && special[c] === 1) {
        if (c === LT && this.atStopTag(i)) return i;
        const j = this.construct(i, c);
        if (j !== undefined) {
          i = j;
          continue;
        }
      }
      if (isIdentPart(c)) {
        i = this.word(i, c);
        continue;
      }
      if (c === LT && syn.jsx) {
        const n1 = text.charCodeAt(i + 1);
        if ((isIdentStart(n1) || n1 === GT) && operandPosition(text, this)) {
          const j = jsxElement(this.s, i, end, (from2, end2) => scanCode(this.s, from2, end2, syn, { stopAtBrace: true }));
          if (j !== undefined) {
            headers.tokenStart(i, c);
            headers.lineOnlyWords = false;
            this.lastSig = RPAREN;
            i = j;
            continue;
          }
        }
      }
      headers.tokenStart(i, c);
      headers.punctuation(c);
      const j = this.punctuation(i, c);
      if (j === undefined) return i;
      i = j;
    }
    return end;
  }

  private atStopTag(i: number): boolean {
    const tag = this.options.stopAtCloseTag;
    return !!tag && this.text.charCodeAt(i + 1) === SLASH && this.text.substr(i, tag.length).toLowerCase() === tag;
  }

  /** A comment, string or other construct at `i`: the index after it, or undefined when `c` is plain code here. */
  private construct(i: number, c: number): number | undefined {
    const lineBefore = this.s.line;
    const r = scanConstruct(this.s, i, this.end, c, this.syn, this);
    if (!r) return undefined;
    const headers = this.headers;
    if (r.kind === 'comment') headers.comment();
    else if (r.kind === 'preprocessor') headers.boundaryLine();
    else {
      headers.tokenStart(i, c);
      headers.lineOnlyWords = false;
      this.lastSig = r.kind === 'regex' ? RPAREN /* a division may follow */ : r.kind === 'template' ? BACKTICK : DQUOTE;
      // the literal's text ended at a `${`: scan its expression as code
      if (r.opensExpr) this.openTemplateExpr(r.end, lineBefore);
    }
    return r.end;
  }

  private openTemplateExpr(after: number, line0: number): void {
    this.s.token(Tok.LBrace, after - 1, this.headers.open(Tok.LBrace, after - 1));
    this.tmplDepth.push(0);
    this.tmplLine.push(line0);
  }

  /** An identifier, keyword or number from `start`: returns the index after it (and any string it prefixes). */
  private word(start: number, c: number): number {
    const { text, end, syn, headers, s } = this;
    let i = start + 1;
    while (i < end) {
      const d = text.charCodeAt(i);
      if (isIdentPart(d)) i++;
      else if (syn.charTick && d === QUOTE) i++; // Haskell primes: foldl'
      else if (syn.digitSeparator && d === QUOTE && isDigit(text.charCodeAt(start)) && isHex(text.charCodeAt(i + 1))) i++;
      else break;
    }
    if (s.keywords && i - start <= 8) {
      const w = text.slice(start, i);
      if (s.keywords.has(w)) {
        s.out.keywords.push({ word: w, offset: start, line: s.line, first: !headers.lineHasToken, before: start > 0 ? text.charCodeAt(start - 1) : 0, lastSig: this.lastSig });
      }
    }
    headers.tokenStart(start, c, i);
    if (i - start === 5 && c === LOWER_W && text.startsWith('where', start)) headers.whereClause = true;
    this.lastSig = text.charCodeAt(i - 1);
    if (this.lastSig === QUOTE) this.lastSig = LOWER_A;
    this.lastWordStart = start;
    this.lastWordEnd = i;
    const next = text.charCodeAt(i);
    if (syn.perl && i - start <= 2) {
      const j = skipPerlQuote(s, start, i, end);
      if (j !== undefined) return this.stringAfterWord(j);
    }
    const rustRaw = syn.rust && (next === DQUOTE || next === 35);
    const cppRaw = syn.cppRaw && next === DQUOTE;
    if ((syn.shellCase || rustRaw || cppRaw) && i - start <= 12) {
      const word = text.slice(start, i);
      // raw strings introduced by a word prefix
      if (rustRaw && (word === 'r' || word === 'br' || word === 'cr')) {
        const j = skipRustRaw(s, i, end);
        if (j !== undefined) return this.stringAfterWord(j);
      }
      if (cppRaw && RAW_CPP_PREFIX.test(word)) return this.stringAfterWord(skipCppRaw(s, i, end));
      if (syn.shellCase) this.shellCase.word(word);
    }
    return i;
  }

  private stringAfterWord(j: number): number {
    this.headers.lineOnlyWords = false;
    this.lastSig = DQUOTE;
    return j;
  }

  /** Punctuation `c` at `i`: brackets become tokens. Returns the index after it, or undefined at a JSX expression's `}`. */
  private punctuation(i: number, c: number): number | undefined {
    const { headers, shellCase, tmplDepth } = this;
    const shellPattern = shellCase.pattern && this.syn.shellCase;
    switch (c) {
      case LBRACE:
        headers.whereClause = false;
        this.open(Tok.LBrace, i);
        break;
      case RBRACE:
        if (this.options.stopAtBrace && headers.depth === 0 && tmplDepth.length === 0) return undefined; // end of a JSX {expression}
        if (tmplDepth.length && tmplDepth[tmplDepth.length - 1] === 0) return this.closeTemplateExpr(i);
        if (tmplDepth.length) tmplDepth[tmplDepth.length - 1]--;
        this.close(Tok.RBrace, i);
        break;
      case LBRACKET:
        this.open(Tok.LBracket, i);
        break;
      case RBRACKET:
        this.close(Tok.RBracket, i);
        break;
      case LPAREN:
        if (!shellPattern) this.open(Tok.LParen, i); // else the optional `(` before a case pattern
        break;
      case RPAREN:
        if (shellPattern) shellCase.pattern = false; // the `)` ending a case pattern
        else this.close(Tok.RParen, i);
        break;
      case SEMI:
        headers.semicolon();
        if (this.syn.shellCase) i = shellCase.semicolon(this.text, i);
        break;
      case COMMA:
        headers.comma();
        break;
    }
    this.lastSig = c;
    return i + 1;
  }

  private open(kind: number, i: number): void {
    this.s.token(kind, i, this.headers.open(kind, i));
    if (kind === Tok.LBrace && this.tmplDepth.length) this.tmplDepth[this.tmplDepth.length - 1]++;
  }

  private close(kind: number, i: number): void {
    this.s.token(kind, i, -1);
    this.headers.close(kind, i);
  }

  /** The `}` closing a template literal's `${`: the literal's text goes on after it. */
  private closeTemplateExpr(i: number): number {
    this.s.token(Tok.RBrace, i, -1);
    this.headers.dropFrame();
    this.tmplDepth.pop();
    const line0 = this.tmplLine.pop()!;
    const t = skipTemplate(this.s, i + 1, this.end, line0);
    if (t.opensExpr) this.openTemplateExpr(t.end, line0);
    this.headers.boundary();
    this.lastSig = BACKTICK;
    return t.end;
  }
}
