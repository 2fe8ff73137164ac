/**
 * Reused buffers for whole-file reads. A fresh file-sized buffer per read is memory the kernel must fault in page
 * by page and the collector must free (V8 frees external memory only when its ~64 MB threshold triggers a GC: repeated
 * edits of a 10 MB file peaked at ~7× its size); the last one given back is taken again instead.
 *
 * KeptBuffer keeps one buffer; the scratch one (takeScratch) serves the checks of a write (the byte-compare before
 * the rename, the read-back after it), which read a whole file only to compare it and drop it. Taken whole (two
 * checks at once get two buffers); one is kept, at most the size of the largest file the tools edit.
 */

/** One kept buffer: a whole buffer given back (min..max bytes) is kept unless a larger one already is. */
export class KeptBuffer {
  private kept: Buffer | undefined;

  constructor(
    private readonly min: number,
    private readonly max: number,
  ) {}

  /** The kept buffer (whole, holding whatever was there) when it has `size` bytes and at most `maxLength`. */
  take(size: number, maxLength = Infinity): Buffer | undefined {
    const kept = this.kept;
    if (!kept || kept.length < size || kept.length > maxLength) return undefined;
    this.kept = undefined;
    return kept;
  }

  /** Hands a buffer back once nothing refers to it any more (only one we allocated whole, not a slice of a pool). */
  give(bytes: Uint8Array): void {
    const whole = bytes.buffer.byteLength;
    if (bytes.byteOffset !== 0 || whole < this.min || whole > this.max) return;
    if (this.kept && this.kept.length >= whole) return;
    this.kept = Buffer.from(bytes.buffer, 0, whole);
  }
}

const MIN_KEPT = 64 * 1024;
const scratch = new KeptBuffer(MIN_KEPT, 65 * 1024 * 1024);

/** A buffer of `size` bytes (holding whatever was there: read into it before use). */
export function takeScratch(size: number): Buffer {
  if (size < MIN_KEPT) return Buffer.allocUnsafe(size);
  const kept = scratch.take(size);
  if (kept) return kept.subarray(0, size);
  // a little headroom, so a file that grows by a few lines fits the same buffer next time
  return Buffer.allocUnsafeSlow(size + (size >> 6)).subarray(0, size);
}

/** Hands a buffer of takeScratch back once nothing refers to it any more. */
export function giveScratch(buf: Buffer): void {
  scratch.give(buf);
}
