/**
 * sha256 of a file's bytes for the edit history and viewed_code_id, a megabyte at a time with a yield in
 * between: a large file's hash runs in the gaps of the concurrent write's I/O instead of blocking the event loop.
 */
import { createHash } from 'node:crypto';

const INLINE_CHUNK = 1024 * 1024;

/** sha256 hex of the concatenation of `parts`. */
export async function sha256Parts(...parts: Uint8Array[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of parts) {
    for (let off = 0; off < p.length; off += INLINE_CHUNK) {
      h.update(p.subarray(off, Math.min(p.length, off + INLINE_CHUNK)));
      // yield between megabytes so a concurrent write's I/O callbacks run
      if (p.length > INLINE_CHUNK) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return h.digest('hex');
}
