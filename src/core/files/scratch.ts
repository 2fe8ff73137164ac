/**
 * One reusable read buffer for the checks of a write (the byte-compare before the rename, the read-back after it),
 * which read a whole file only to compare it and drop it. A fresh file-sized buffer per check is memory the kernel
 * must fault in page by page and the collector must free; the last one given back is taken again instead. Taken
 * whole (two checks at once get two buffers); one is kept, at most the size of the largest file the tools edit.
 */
const MIN_KEPT = 64 * 1024;
const MAX_KEPT = 65 * 1024 * 1024;
let kept: Buffer | undefined;

/** A buffer of `size` bytes (holding whatever was there: read into it before use). */
export function takeScratch(size: number): Buffer {
  if (size < MIN_KEPT) return Buffer.allocUnsafe(size);
  if (kept && kept.length >= size) {
    const buf = kept;
    kept = undefined;
    return buf.subarray(0, size);
  }
  // a little headroom, so a file that grows by a few lines fits the same buffer next time
  return Buffer.allocUnsafeSlow(size + (size >> 6)).subarray(0, size);
}

/** Hands a buffer of takeScratch back once nothing refers to it any more. */
export function giveScratch(buf: Buffer): void {
  if (buf.byteOffset !== 0 || buf.buffer.byteLength < MIN_KEPT || buf.buffer.byteLength > MAX_KEPT) return;
  if (!kept || kept.length < buf.buffer.byteLength) kept = Buffer.from(buf.buffer, 0, buf.buffer.byteLength);
}
