import { createHash } from 'node:crypto';

/** sha256 of `bytes`, as lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
