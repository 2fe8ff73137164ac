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

/** A buffer's line index without the buffer: what a scan of `size` bytes found (TextBuffer.splicedIndex). */
export interface LineIndex {
  readonly size: number;
  readonly lineCount: number;
  readonly crlfCount: number;
  readonly lfCount: number;
  readonly starts: Uint32Array;
}

export class TextBuffer {
  readonly bomLength: number;
  readonly lineCount: number;
  /** Lines terminated by CRLF / by a bare LF. */
  readonly crlfCount: number;
  readonly lfCount: number;
  /** Byte offset where each line begins (index 0 = line 1); a typed array: no per-line JS objects. */
  private readonly starts: Uint32Array;

  /** `known`: the index of exactly these bytes, derived without scanning them (the caller compared the bytes). */
  constructor(
    readonly bytes: Buffer,
    known?: LineIndex,
  ) {
    if (bytes.length >= 0xffffffff) throw new RangeError('TextBuffer: files of 4 GiB or more are not supported');
    this.bomLength = detectBom(bytes);
    if (known && known.size === bytes.length) {
      ({ starts: this.starts, lineCount: this.lineCount, crlfCount: this.crlfCount, lfCount: this.lfCount } = known);
      return;
    }
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
  /**
   * The index of these bytes with [offset, removeEnd) replaced by `insert`, from this one: the old lines before
   * and after the splice keep their starts (those after it shifted), and only the removed and inserted bytes are
   * looked at, not the whole new file. Undefined for a splice into the BOM, or one that makes or unmakes one.
   */
  splicedIndex(offset: number, removeEnd: number, insert: Uint8Array): LineIndex | undefined {
    const old = this.bytes;
    const n = old.length;
    const b = this.bomLength;
    if (offset < b || removeEnd < offset || removeEnd > n) return undefined;
    const delta = insert.length - (removeEnd - offset);
    const size = n + delta;
    if (size >= 0xffffffff) return undefined;
    // the byte at a new position: the old prefix, the insert, the old suffix
    const at = (p: number) => (p < offset ? old[p] : p < offset + insert.length ? insert[p - offset] : old[p - delta]);
    // a splice near the start can make or unmake a BOM (bomLength's rule): the new file is scanned then
    if ((size >= 3 && at(0) === 0xef && at(1) === 0xbb && at(2) === 0xbf ? 3 : 0) !== b) return undefined;
    let crlf = this.crlfCount;
    let lf = this.lfCount;
    const classify = (isCr: boolean, sign: 1 | -1) => (isCr ? (crlf += sign) : (lf += sign));
    // the terminators removed, and the one right after the splice (its preceding byte may change)
    const lastOld = removeEnd < n && old[removeEnd] === 10 ? removeEnd : removeEnd - 1;
    for (let p = old.indexOf(10, offset); p !== -1 && p <= lastOld; p = old.indexOf(10, p + 1)) classify(p > b && old[p - 1] === 13, -1);
    const lastNew = removeEnd < n && old[removeEnd] === 10 ? offset + insert.length : offset + insert.length - 1;
    for (let p = offset; p <= lastNew; p++) if (at(p) === 10) classify(p > b && at(p - 1) === 13, 1);
    // starts: the old ones up to the splice, those of the inserted terminators, the old ones after it shifted
    const starts = new Uint32Array(Math.max(16, this.lineCount + insert.length + 1));
    let count = 0;
    if (size > b) starts[count++] = b;
    let k = 1;
    for (; k < this.lineCount && this.starts[k] <= offset; k++) if (this.starts[k] < size) starts[count++] = this.starts[k];
    // a terminator that ended the old file had no start: it does when the splice adds bytes after it
    if (offset === n && n > b && old[n - 1] === 10 && n < size) starts[count++] = n;
    for (let i = 0; i < insert.length; i++) if (insert[i] === 10 && offset + i + 1 < size) starts[count++] = offset + i + 1;
    for (; k < this.lineCount && this.starts[k] <= removeEnd; k++);
    for (; k < this.lineCount; k++) starts[count++] = this.starts[k] + delta;
    return { size, lineCount: count, crlfCount: crlf, lfCount: lf, starts: starts.subarray(0, count) };
  }

  /** The whole body decoded (BOM excluded). Only for analyzers that need the full text. */
  text(): string {
    return this.bytes.toString('utf8', this.bomLength);
  }
}
