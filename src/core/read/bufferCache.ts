/**
 * The line index of each big file's last loaded version, reused: a 10 MB file's index (one scan of its bytes and
 * a line-start table) cost 40 ms and its pages re-split the whole file into strings (another 90 ms). A
 * load still reads the bytes (the editor may hold unsaved text, a write may keep size and mtime); it reuses the
 * index when they are the same bytes (one compare, ~1 ms for 10 MB). Bytes an edit just wrote get the index that
 * edit derived (editedIndex.ts), also after one compare. A read that finds its bytes cached gives its own buffer
 * back to the store: paging through a big file reads it into the same buffer each time.
 */
import { TextBuffer, type LineIndex } from '../text/lines';

/** Files smaller than this are indexed afresh: the scan costs less than keeping them (reads and edits alike). */
export const KEPT_INDEX_MIN_BYTES = 256 * 1024;

export class TextBufferCache {
  private readonly entries = new Map<string, TextBuffer>();

  constructor(
    /** Bytes kept at most (the oldest entries go first). */
    private readonly maxBytes = 128 * 1024 * 1024,
    /** The index an edit derived for exactly these bytes, if any (editedIndex.ts): a miss then needs no scan. */
    private readonly known: (abs: string, bytes: Buffer) => LineIndex | undefined = () => undefined,
    /** Given the bytes of a read that found them cached: nothing holds them now (the store's spare for its next read). */
    private readonly release: (bytes: Buffer) => void = () => undefined,
  ) {}

  /** The index of `bytes` read from `abs`: the cached one when the bytes are the same, else a new one. */
  bufferOf(abs: string, bytes: Buffer): TextBuffer {
    if (bytes.length < KEPT_INDEX_MIN_BYTES || bytes.length > this.maxBytes) return new TextBuffer(bytes);
    const hit = this.entries.get(abs);
    if (hit && hit.bytes.length === bytes.length && hit.bytes.equals(bytes)) {
      // most recently used last
      this.entries.delete(abs);
      this.entries.set(abs, hit);
      // the caller keeps the cached buffer: the one just read goes back to the store, not to the collector
      if (hit.bytes.buffer !== bytes.buffer) this.release(bytes);
      return hit;
    }
    const doc = new TextBuffer(bytes, this.known(abs, bytes));
    this.entries.delete(abs);
    this.entries.set(abs, doc);
    let total = 0;
    for (const d of this.entries.values()) total += d.bytes.length;
    for (const [k, d] of this.entries) {
      if (total <= this.maxBytes) break;
      this.entries.delete(k);
      total -= d.bytes.length;
    }
    return doc;
  }

  /** `abs` changed or went away: its index is dropped. */
  forget(abs: string): void {
    this.entries.delete(abs);
  }
}
