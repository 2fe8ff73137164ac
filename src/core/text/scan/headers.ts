/**
 * Statement headers for funcRange: for every `{` the offset of the first code token of the statement it
 * belongs to (`export async function f(\n  a,\n): T {` → the `e` of `export`). Lines continue a statement
 * when they start or end with an operator, follow an annotation, or (C family) hold only type words.
 */
import * as chars from './chars';
import * as result from './result';
import type { Syntax } from './syntax';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { Tok } = result;
const { AMP, AT, COLON, HASH, LBRACKET, STAR, asciiSet, isSpace } = chars;

/** A line starting with one of these continues the previous line's statement. */
const CONT_START = asciiSet('{.?:=+-*/%&|^<>)]');
/** A line ending with one of these continues into the next line. */
const CONT_END = asciiSet(',([=+-*/%&|^!~?:<>.@\\');
/** After a `}` on the same line, these continue a type in a signature: `} {`, `}>`, `}[]`, `} | X`, `} & Y`. */
const TYPE_CONT = asciiSet('{>[|&');
const CONT_WORDS = new Set([
  'throws', 'where', 'extends', 'implements', 'const', 'noexcept', 'override', 'final', 'requires', 'with', 'and', 'or',
]);

export class HeaderTracker {
  /** offset of the first code token after the last statement boundary, -1 at a boundary */
  private hdr = -1;
  /** saved header of each enclosing bracket, and its kind */
  private readonly frames: number[] = [];
  private readonly frameKinds: number[] = [];
  // the current line
  lineHasToken = false;
  /** tokens or comments */
  private lineHasAny = false;
  private lineFirstIsAnnotation = false;
  /** only words (and `*`, `&`, `::`) so far: `static int` */
  lineOnlyWords = true;
  // the previous non-blank line, when the statement may go on
  private pendingNL = false;
  private prevLineAnnotation = false;
  private prevLineLast = 0;
  private prevLineOnlyWords = false;
  /** Rust/Swift/C# `where` clauses: their commas do not end the signature */
  whereClause = false;
  /** header of the block the last `}` closed, and where that `}` is */
  private closedHeader = -1;
  private closedAt = -1;

  constructor(private readonly text: string, private readonly syn: Syntax) {}

  get depth(): number {
    return this.frames.length;
  }

  private inBraceFrame(): boolean {
    return this.frameKinds.length === 0 || this.frameKinds[this.frameKinds.length - 1] === Tok.LBrace;
  }

  private onlySpaceBetween(a: number, b: number): boolean {
    for (let k = a; k < b; k++) if (!isSpace(this.text.charCodeAt(k))) return false;
    return true;
  }

  /** The first char `c` at `i` of a code token (not a comment or whitespace); `wordEnd` ends a word token. */
  tokenStart(i: number, c: number, wordEnd = -1): void {
    if (!this.lineHasToken) {
      this.lineHasToken = true;
      this.lineHasAny = true;
      this.lineFirstIsAnnotation = c === AT || (c === HASH && this.text.charCodeAt(i + 1) === LBRACKET) || (this.syn.bracketAttributes && c === LBRACKET);
      if (this.pendingNL && this.inBraceFrame() && !this.whereClause) {
        const continues =
          (c < 128 && CONT_START[c] === 1) ||
          this.prevLineAnnotation ||
          (this.prevLineLast < 128 && CONT_END[this.prevLineLast] === 1) ||
          (wordEnd > i && wordEnd - i <= 12 && CONT_WORDS.has(this.text.slice(i, wordEnd))) ||
          (this.syn.typePrefixLines && this.prevLineOnlyWords);
        if (!continues) this.hdr = i;
      }
      this.pendingNL = false;
    }
    if (this.hdr === -1) {
      // `): { a: T } {` and `<T extends { a: T }>(…) {`: a type literal inside a signature does not end it
      this.hdr = this.closedAt >= 0 && TYPE_CONT[c] === 1 && this.onlySpaceBetween(this.closedAt + 1, i) ? this.closedHeader : i;
    }
    this.closedAt = -1;
  }

  /** Punctuation `c` that is no bracket: `*`, `&`, `:` keep a line of type words (`static int *`). */
  punctuation(c: number): void {
    if (c !== STAR && c !== AMP && c !== COLON) this.lineOnlyWords = false;
  }

  /** A `\n`; `lastSig` is the last significant code char before it. */
  newline(lastSig: number): void {
    if (this.inBraceFrame()) {
      if (!this.lineHasAny) {
        this.hdr = -1; // blank line: a statement boundary
        this.pendingNL = false;
      } else if (this.lineHasToken) {
        this.pendingNL = true;
        this.prevLineAnnotation = this.lineFirstIsAnnotation;
        this.prevLineLast = lastSig;
        this.prevLineOnlyWords = this.lineOnlyWords;
      }
    }
    this.lineHasToken = false;
    this.lineHasAny = false;
    this.lineOnlyWords = true;
  }

  comment(): void {
    this.lineHasAny = true;
  }

  /** A preprocessor line: a statement boundary. */
  boundaryLine(): void {
    this.lineHasAny = true;
    this.hdr = -1;
    this.pendingNL = false;
  }

  semicolon(): void {
    this.whereClause = false;
    if (this.inBraceFrame()) this.hdr = -1;
  }

  comma(): void {
    if (!this.whereClause || !this.inBraceFrame()) this.hdr = -1;
  }

  /** An opener at `i`: returns the header to record with its token (`{` only, else -1). */
  open(kind: number, i: number): number {
    const start = this.hdr === -1 ? i : this.hdr;
    this.frames.push(start);
    this.frameKinds.push(kind);
    this.hdr = -1;
    return kind === Tok.LBrace ? start : -1;
  }

  /** A closer at `i`: `)` and `]` belong to the statement; `}` ends it, unless a type continues it (see tokenStart). */
  close(kind: number, i: number): void {
    if (!this.frames.length) {
      this.hdr = -1;
      return;
    }
    const saved = this.frames.pop()!;
    this.frameKinds.pop();
    this.hdr = kind === Tok.RBrace ? -1 : saved;
    if (kind === Tok.RBrace) {
      this.closedHeader = saved;
      this.closedAt = i;
    }
  }

  /** The `}` of a template literal's `${`: its frame ends, the statement goes on. */
  dropFrame(): void {
    if (!this.frames.length) return;
    this.frames.pop();
    this.frameKinds.pop();
  }

  boundary(): void {
    this.hdr = -1;
  }
}
