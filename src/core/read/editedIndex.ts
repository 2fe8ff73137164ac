/**
 * The line index of each big file an edit just wrote, derived from the old index and the splice
 * (TextBuffer.splicedIndex) instead of a scan of the new bytes: the next edit of that file loads it with this index
 * when the bytes it reads are exactly the ones the edit wrote (compared, ~1 ms for 10 MB, where the scan costs
 * 5–9 ms). Agents edit one file many times in a row, and read it between edits (a read uses the index too, but
 * leaves it for the next edit: indexFor). The entry keeps the edit's three parts, slices of the buffer
 * the file was read into; that buffer goes back to the store (`release`) when the entry is used or dropped, and
 * every entry is dropped a minute after the last edit that made one (the extension host keeps no file-sized
 * buffers for edits that are over).
 */
import type { LineIndex } from '../text/lines';
import { TextBuffer } from '../text/lines';
import type { ByteSplice } from '../text/splice';
import { equalsParts } from '../util/bytes';
import { KEPT_INDEX_MIN_BYTES } from './bufferCache';

interface Entry {
  parts: readonly Uint8Array[];
  index: LineIndex;
  /** the buffer the parts are slices of, handed back when the entry goes */
  buffer: Buffer;
}

export class EditedIndexCache {
  private readonly entries = new Map<string, Entry>();
  private idle: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** given a buffer nothing else holds any longer (the store's spare for its next read) */
    private readonly release: (bytes: Buffer) => void = () => undefined,
    /** bytes of the files kept at most (the oldest entries go first) */
    private readonly maxBytes = 32 * 1024 * 1024,
    /** every entry goes this long after the last one was made */
    private readonly idleMs = 60_000,
  ) {}

  /** Entries kept now (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** The line model of `bytes` read from `abs`: with the index the last edit left when they are its bytes. */
  bufferOf(abs: string, bytes: Buffer): TextBuffer {
    const entry = this.entries.get(abs);
    if (!entry) return new TextBuffer(bytes);
    // compared while the entry still owns the buffer its parts are slices of; given back after
    const doc = new TextBuffer(bytes, this.indexFor(abs, bytes));
    this.drop(abs, entry);
    return doc;
  }

  /**
   * For a read of `abs` (the read module's own cache, bufferCache.ts): the last edit's index when `bytes` are the
   * bytes it wrote, else undefined. The entry stays for the next edit, and still owns its buffer: the reader builds
   * its line model over its own bytes, so nothing it keeps points into a buffer the store may reuse.
   */
  indexFor(abs: string, bytes: Buffer): LineIndex | undefined {
    const entry = this.entries.get(abs);
    return entry && entry.index.size === bytes.length && equalsParts(bytes, entry.parts) ? entry.index : undefined;
  }

  /**
   * `doc` with `splice` applied is now on disk at `abs`: its index is kept for the next load. True when kept, and
   * then `doc.bytes` must not be given back to the store (the entry gives it back when it goes).
   */
  remember(abs: string, doc: TextBuffer, splice: ByteSplice): boolean {
    const old = this.entries.get(abs);
    if (old) this.drop(abs, old);
    const index = doc.bytes.length >= KEPT_INDEX_MIN_BYTES ? doc.splicedIndex(splice.offset, splice.removeEnd, splice.insert) : undefined;
    if (!index || index.size > this.maxBytes) return false;
    const parts = [doc.bytes.subarray(0, splice.offset), splice.insert, doc.bytes.subarray(splice.removeEnd)];
    this.entries.set(abs, { parts, index, buffer: doc.bytes });
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.clear(), this.idleMs);
    this.idle.unref?.();
    let total = 0;
    for (const e of this.entries.values()) total += e.index.size;
    for (const [k, e] of this.entries) {
      if (total <= this.maxBytes) break;
      this.drop(k, e);
      total -= e.index.size;
    }
    return true;
  }

  /** Every entry dropped, its buffer given back. */
  clear(): void {
    clearTimeout(this.idle);
    for (const [k, e] of this.entries) this.drop(k, e);
  }

  private drop(abs: string, entry: Entry): void {
    this.entries.delete(abs);
    this.release(entry.buffer);
  }
}
