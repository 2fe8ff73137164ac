/**
 * What a scan produces (bracket tokens, markup tag pairs, unterminated strings, keyword hits) and the
 * state every scanner writes into: the text, the current line and growable token buffers.
 */
import * as chars from './chars';

// Local copies, read once: under the CommonJS transform that tests and tsx use, every use of an imported
// binding is a getter call, and the scans ran 5x slower (npm run bench:analyzers).
const { LBRACE, LBRACKET, LPAREN, RBRACE, RBRACKET, RPAREN } = chars;

/** Bracket token kinds: openers are even, their closer is opener + 1. */
export enum Tok {
  LBrace = 0,
  RBrace = 1,
  LBracket = 2,
  RBracket = 3,
  LParen = 4,
  RParen = 5,
}
export const TOKEN_CHARS = ['{', '}', '[', ']', '(', ')'] as const;

export interface TagPair {
  tag: string; // lowercased
  openLine: number;
  closeLine: number; // line of the closing tag's `>`
  openOffset: number;
  depth: number;
}

export interface UnbalancedItem {
  symbol: string;
  line: number;
  col?: number;
  expected: string;
}

export interface KeywordHit {
  word: string;
  offset: number;
  line: number;
  /** first code token of its line */
  first: boolean;
  /** char code just before the word (`.` in `x.end`, `:` in `:end`) */
  before: number;
  /** last significant code char before the word (0 at the start) */
  lastSig: number;
}

/** The raw result of one scan: parallel arrays of bracket tokens, plus tags and unterminated strings. */
export interface ScanResult {
  kinds: Uint8Array;
  offsets: Int32Array;
  lines: Int32Array;
  /** for `{` tokens: offset of the first code token of the statement header before it (see funcRange) */
  headers: Int32Array;
  unterminated: Array<{ symbol: string; line: number }>;
  tagPairs: TagPair[];
  tagUnbalanced: UnbalancedItem[];
  lineCount: number;
  /** code-level occurrences of the words asked for (scanText's `keywords`), for keyword-delimited blocks */
  keywords: KeywordHit[];
}

/** A heredoc whose body starts at the next newline (`<<EOF` seen, body not yet skipped). */
export interface PendingHeredoc {
  word: string;
  /** the terminator may be indented (`<<-`, `<<~`, PHP) */
  strip: boolean;
  line: number;
}

export interface JsxMemo {
  /** a failed parse ran to the end: this is not JSX-shaped code, stop trying (stays linear) */
  off: boolean;
  /** the parse under way met the end of the text */
  hitEnd: boolean;
  /** start offsets of elements that failed to parse (a failure does not depend on the context) */
  failed: Set<number>;
}

export class ScanState {
  readonly out: ScanResult;
  /** 1-based line of the scan position */
  line = 1;
  /** tokens written (a speculative parse rolls back by resetting it) */
  count = 0;
  /** words to report as KeywordHits (Ruby/Lua block keywords) */
  keywords?: Set<string>;
  /** heredocs opened on the current line (shared by nested code scans) */
  readonly pendingHeredocs: PendingHeredoc[] = [];
  /** speculative JSX parses, shared by every code scan of the text (see jsx.ts) */
  readonly jsx: JsxMemo = { off: false, hitEnd: false, failed: new Set() };
  // growable token buffers (typed arrays: millions of tokens stay cheap)
  private cap = 1024;
  private kinds = new Uint8Array(1024);
  private offs = new Int32Array(1024);
  private lns = new Int32Array(1024);
  private hdrs = new Int32Array(1024);

  constructor(readonly text: string) {
    this.out = {
      kinds: this.kinds, offsets: this.offs, lines: this.lns, headers: this.hdrs,
      unterminated: [], tagPairs: [], tagUnbalanced: [], lineCount: 0, keywords: [],
    };
  }

  token(kind: number, offset: number, header: number): void {
    const n = this.count;
    if (n === this.cap) this.grow();
    this.kinds[n] = kind;
    this.offs[n] = offset;
    this.lns[n] = this.line;
    this.hdrs[n] = header;
    this.count = n + 1;
  }

  /** A bracket outside code (markup text, prose): its own header. */
  bracket(c: number, i: number): void {
    switch (c) {
      case LBRACE: this.token(Tok.LBrace, i, i); break;
      case RBRACE: this.token(Tok.RBrace, i, -1); break;
      case LBRACKET: this.token(Tok.LBracket, i, -1); break;
      case RBRACKET: this.token(Tok.RBracket, i, -1); break;
      case LPAREN: this.token(Tok.LParen, i, -1); break;
      case RPAREN: this.token(Tok.RParen, i, -1); break;
    }
  }

  warn(symbol: string, line: number): void {
    this.out.unterminated.push({ symbol, line });
  }

  /** Completes the result: token arrays trimmed to the tokens written. */
  finish(): ScanResult {
    const n = this.count;
    Object.assign(this.out, {
      kinds: this.kinds.subarray(0, n), offsets: this.offs.subarray(0, n),
      lines: this.lns.subarray(0, n), headers: this.hdrs.subarray(0, n), lineCount: this.line,
    });
    return this.out;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const k = new Uint8Array(cap); k.set(this.kinds); this.kinds = k;
    const o = new Int32Array(cap); o.set(this.offs); this.offs = o;
    const l = new Int32Array(cap); l.set(this.lns); this.lns = l;
    const h = new Int32Array(cap); h.set(this.hdrs); this.hdrs = h;
    this.cap = cap;
  }
}
