/**
 * The last check of a write, made under the file's lock just before the rename: is the file on disk still the
 * one the edit was computed from? Compared byte for byte (an mtime can stay equal across two writes within one
 * tick of the file system's clock, and some tools restore it), and a mismatch says what changed.
 */
import { promises as fsp, type Stats } from 'node:fs';
import { ToolError } from '../errors';
import { fileKind, READ_FLAGS } from './regularFile';
import type { WriteOptions } from './fileStore';
import { lineAtByte } from '../text/lineCount';

const CHUNK = 1024 * 1024;

function conflict(absPath: string, what: string, details: Record<string, unknown>): ToolError {
  return new ToolError(
    'conflict',
    `${absPath} was changed by someone else since it was read (${what}); nothing was written. Re-read the file and retry.`,
    details,
  );
}

/** `entry` is the path to open (through the pinned folder), `absPath` the one to name in messages. */
export async function assertUnchanged(entry: string, absPath: string, opts: WriteOptions): Promise<void> {
  const expected = opts.expectedContent;
  if (expected === undefined && opts.expectedMtimeMs === undefined) return;
  let st: Stats | undefined;
  try {
    st = await fsp.lstat(entry);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (expected === null) {
    if (st) throw conflict(absPath, `it was created meanwhile, ${st.size} bytes`, { actualSize: st.size });
    return;
  }
  if (!st) throw conflict(absPath, 'it was deleted', {});
  if (!st.isFile()) throw conflict(absPath, `it is ${fileKind(st)} now`, { kind: fileKind(st) });
  if (expected === undefined) {
    if (st.mtimeMs !== opts.expectedMtimeMs) {
      throw conflict(absPath, `modified at ${new Date(st.mtimeMs).toISOString()}`, {
        expectedMtimeMs: opts.expectedMtimeMs,
        actualMtimeMs: st.mtimeMs,
      });
    }
    return;
  }
  if (st.size !== expected.length) {
    throw conflict(absPath, `it is ${st.size} bytes now, it was ${expected.length} when read`, {
      expectedSize: expected.length,
      actualSize: st.size,
      actualMtimeMs: st.mtimeMs,
    });
  }
  const at = await firstDifference(entry, expected, Buffer.allocUnsafe(Math.min(CHUNK, expected.length + 1)));
  if (at !== undefined) {
    const line = lineAtByte(expected, at);
    throw conflict(absPath, `same size, but the content differs from line ${line} on`, {
      firstDifferentLine: line,
      firstDifferentByte: at,
      actualMtimeMs: st.mtimeMs,
    });
  }
}

/** Offset of the first byte that differs, or undefined when the file holds exactly `expected`. */
async function firstDifference(entry: string, expected: Uint8Array, scratch: Buffer): Promise<number | undefined> {
  const fh = await fsp.open(entry, READ_FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) return 0;
    let off = 0;
    for (;;) {
      const { bytesRead } = await fh.read(scratch, 0, scratch.length, off);
      if (bytesRead === 0) return off === expected.length ? undefined : off;
      if (off + bytesRead > expected.length) return expected.length;
      const want = expected.subarray(off, off + bytesRead);
      if (!scratch.subarray(0, bytesRead).equals(want)) {
        let i = 0;
        while (scratch[i] === want[i]) i++;
        return off + i;
      }
      off += bytesRead;
    }
  } finally {
    await fh.close().catch(() => undefined);
  }
}
