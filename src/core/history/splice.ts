/**
 * Inverse byte splices: the smallest record that undoes an edit. Helpers for the code that records
 * edits (compute the splice from old and new bytes) and for rollback (apply it backwards).
 */
import { Buffer } from 'node:buffer';

export interface Splice {
  /** byte offset of the change in the old bytes */
  offset: number;
  /** the old bytes at offset that were replaced */
  removed: Buffer;
  /** how many new bytes stand at offset in the new bytes */
  insertedLength: number;
}

const CHUNK = 64 * 1024;

/** Length of the common prefix of a and b (memcmp per chunk, then bytes inside the differing chunk). */
function commonPrefix(a: Buffer, b: Buffer, limit: number): number {
  let i = 0;
  while (i + CHUNK <= limit && a.compare(b, i, i + CHUNK, i, i + CHUNK) === 0) i += CHUNK;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let n = 0;
  while (n + CHUNK <= limit && a.compare(b, b.length - n - CHUNK, b.length - n, a.length - n - CHUNK, a.length - n) === 0) n += CHUNK;
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/** The splice that turns `before` into `after`: strip the common prefix and suffix. */
export function spliceBetween(before: Uint8Array, after: Uint8Array): Splice {
  const a = Buffer.from(before.buffer, before.byteOffset, before.byteLength);
  const b = Buffer.from(after.buffer, after.byteOffset, after.byteLength);
  const prefix = commonPrefix(a, b, Math.min(a.length, b.length));
  const suffix = commonSuffix(a, b, Math.min(a.length, b.length) - prefix);
  return {
    offset: prefix,
    removed: Buffer.from(a.subarray(prefix, a.length - suffix)), // a copy: the caller may reuse `before`
    insertedLength: b.length - suffix - prefix,
  };
}

/** Undo a splice: put `removed` back at `offset` in place of `insertedLength` bytes of `current`. */
export function applyInverse(current: Uint8Array, splice: Splice): Buffer {
  const cur = Buffer.from(current.buffer, current.byteOffset, current.byteLength);
  if (splice.offset < 0 || splice.insertedLength < 0 || splice.offset + splice.insertedLength > cur.length) {
    throw new RangeError(
      `the change at bytes ${splice.offset}..${splice.offset + splice.insertedLength} is outside the file (${cur.length} bytes)`,
    );
  }
  return Buffer.concat([cur.subarray(0, splice.offset), splice.removed, cur.subarray(splice.offset + splice.insertedLength)]);
}
