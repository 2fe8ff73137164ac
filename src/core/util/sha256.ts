import { createHash } from 'node:crypto';

/** sha256 of `bytes`, as lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const CHUNK = 1024 * 1024;

/**
 * sha256 hex of the concatenation of `parts`, a megabyte at a time with a yield in between: a large file's hash
 * (edit history, viewed_code_id, read-back proof) runs in the gaps of concurrent I/O instead of blocking the loop.
 */
export async function sha256Parts(...parts: Uint8Array[]): Promise<string> {
  const h = createHash('sha256');
  for (const p of parts) {
    for (let off = 0; off < p.length; off += CHUNK) {
      h.update(p.subarray(off, Math.min(p.length, off + CHUNK)));
      if (p.length > CHUNK) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return h.digest('hex');
}
