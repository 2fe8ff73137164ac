/**
 * The line model over bytes. A file is [BOM] + body; the body is a sequence of lines, each with its own
 * terminator ('\n', '\r\n', or '' for a last line without a final newline). Nothing here splits the whole
 * file into strings: line starts come from a `indexOf(10)` scan, and only the lines asked for are decoded.
 *
 * Line numbers are 1-based. `lineCount` is 0 for an empty body; "a\nb" and "a\nb\n" both have 2 lines.
 */
import { bomLength as detectBom } from './validate';

export type Eol = '\n' | '\r\n';
export type Terminator = Eol | '';
export type EolKind = 'lf' | 'crlf' | 'mixed' | 'none';

export class TextBuffer {
  readonly bomLength: number;
  readonly lineCount: number;
  /** Lines terminated by CRLF / by a bare LF. */
  readonly crlfCount: number;
  readonly lfCount: number;
  /** Byte offset where each line begins (index 0 = line 1); a typed array: no per-line JS objects. */
  private readonly starts: Uint32Array;

  constructor(readonly bytes: Buffer) {
    if (bytes.length >= 0xffffffff) throw new RangeError('TextBuffer: files of 4 GiB or more are not supported');
    this.bomLength = detectBom(bytes);
    const n = bytes.length;
    // a guess at the line count (40 bytes a line) keeps regrowth rare
    let starts = new Uint32Array(Math.max(16, (n / 40) | 0));
    let count = 0;
    let crlf = 0;
    let lf = 0;
    let pos = this.bomLength;
    if (n > pos) starts[count++] = pos;
    for (;;) {
      const nl = bytes.indexOf(10, pos);
      if (nl === -1) break;
      if (nl > this.bomLength && bytes[nl - 1] === 13) crlf++;
      else lf++;
      pos = nl + 1;
      if (pos < n) {
        if (count === starts.length) {
          const grown = new Uint32Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[count++] = pos;
      }
    }
    this.starts = starts;
    this.lineCount = count;
    this.crlfCount = crlf;
    this.lfCount = lf;
  }

  get bodyStart(): number {
    return this.bomLength;
  }
  get hasBom(): boolean {
    return this.bomLength > 0;
  }
  /** True when the body is empty or its last line ends with a terminator. */
  get finalNewline(): boolean {
    return this.lineCount === 0 || this.bytes[this.bytes.length - 1] === 10;
  }
  /** CRLF when more than half of the terminators are CRLF (upstream's rule), else LF. */
  get dominantEol(): Eol {
    const total = this.crlfCount + this.lfCount;
    return total > 0 && this.crlfCount * 2 > total ? '\r\n' : '\n';
  }
  get eolKind(): EolKind {
    if (this.crlfCount === 0 && this.lfCount === 0) return 'none';
    if (this.crlfCount === 0) return 'lf';
    if (this.lfCount === 0) return 'crlf';
    return 'mixed';
  }

  private check(line: number): void {
    if (!Number.isInteger(line) || line < 1 || line > this.lineCount) {
      throw new RangeError(`line ${line} outside 1..${this.lineCount}`);
    }
  }
  /** Byte offset of the first byte of `line`. */
  lineStart(line: number): number {
    this.check(line);
    return this.starts[line - 1];
  }
  /** Byte offset just after `line`'s terminator (= start of the next line, or end of file). */
  lineEnd(line: number): number {
    this.check(line);
    return line < this.lineCount ? this.starts[line] : this.bytes.length;
  }
  terminator(line: number): Terminator {
    const end = this.lineEnd(line);
    if (end === 0 || this.bytes[end - 1] !== 10) return '';
    return end - 2 >= this.starts[line - 1] && this.bytes[end - 2] === 13 ? '\r\n' : '\n';
  }
  /** The 1-based line containing byte `offset` (binary search over line starts). */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.lineCount - 1;
    if (hi < 0) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  /** Byte offset just before `line`'s terminator. */
  contentEnd(line: number): number {
    return this.lineEnd(line) - this.terminator(line).length;
  }
  /** The decoded text of `line`, without its terminator. */
  lineText(line: number): string {
    return this.bytes.toString('utf8', this.lineStart(line), this.contentEnd(line));
  }
  /** Decoded texts of lines start..end (inclusive, clamped to the file). */
  lines(start: number, end: number): string[] {
    const out: string[] = [];
    const s = Math.max(1, start);
    const e = Math.min(this.lineCount, end);
    for (let i = s; i <= e; i++) out.push(this.lineText(i));
    return out;
  }
  /** Byte span [from, to) covering lines start..end with their terminators; empty span for an empty file. */
  span(start: number, end: number): { from: number; to: number } {
    if (this.lineCount === 0 || end < start) {
      const at = start <= this.lineCount && start >= 1 ? this.lineStart(start) : this.bytes.length;
      return { from: at, to: at };
    }
    return { from: this.lineStart(start), to: this.lineEnd(end) };
  }
  /** The whole body decoded (BOM excluded). Only for analyzers that need the full text. */
  text(): string {
    return this.bytes.toString('utf8', this.bomLength);
  }
}
