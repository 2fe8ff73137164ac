/**
 * A file's query terms (bm25.ts) packed into one string: the map keeps one per file, 200,000 of them. As an array of
 * stems and counts they took ~300 bytes a file (8 bytes an entry, pointers to shared stems); as one string of
 * one-byte characters ~120, and the stems need no shared table.
 *
 * The layout is a sequence of numbers and stems, read in the order it was written (the reader knows which comes
 * next): a number below 255 is one character of that code, a larger one the character 255 and four characters of
 * 8 bits each (most significant first); a stem is its length as a number, then its characters. Stems are lower-case
 * letters and digits (words.ts), so the string stays one byte a character; any other character is kept as it is.
 */

const BIG = 0xff;

/** Builds one packed string. */
export class TermsWriter {
  private codes: number[] = [];

  num(n: number): void {
    if (n < BIG) this.codes.push(n);
    else this.codes.push(BIG, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  }

  stem(s: string): void {
    this.num(s.length);
    for (let i = 0; i < s.length; i++) this.codes.push(s.charCodeAt(i));
  }

  done(): string {
    const codes = this.codes;
    this.codes = [];
    let out = '';
    // in chunks: a call takes a limited number of arguments
    for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.slice(i, i + 8192));
    return out;
  }
}

/** Reads a packed string from its start; one reader serves many strings (reset). */
export class TermsReader {
  private t = '';
  at = 0;

  reset(t: string): this {
    this.t = t;
    this.at = 0;
    return this;
  }

  num(): number {
    const c = this.t.charCodeAt(this.at++);
    if (c !== BIG) return c;
    const t = this.t;
    const at = this.at;
    this.at += 4;
    return ((t.charCodeAt(at) << 24) | (t.charCodeAt(at + 1) << 16) | (t.charCodeAt(at + 2) << 8) | t.charCodeAt(at + 3)) >>> 0;
  }

  /** The next stem's length; then firstCode(), text(len) or skip(len) for its characters. */
  stemLength(): number {
    return this.num();
  }

  /** The code of the stem's first character (NaN for an empty stem), without taking the stem out. */
  firstCode(len: number): number {
    return len > 0 ? this.t.charCodeAt(this.at) : NaN;
  }

  text(len: number): string {
    const s = this.t.slice(this.at, this.at + len);
    this.at += len;
    return s;
  }

  skip(len: number): void {
    this.at += len;
  }

  stem(): string {
    return this.text(this.stemLength());
  }

  get done(): boolean {
    return this.at >= this.t.length;
  }
}
