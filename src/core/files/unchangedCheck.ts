/**
 * The last check of a write, made under the file's lock just before the rename: is the file on disk still the
 * one the edit was computed from? Compared byte for byte (an mtime can stay equal across two writes within one
 * tick of the file system's clock, and some tools restore it), and a mismatch says what changed.
 */
import type { Stats } from 'node:fs';
import { poolCalls, type FsCalls, type Handle } from './fsCalls';
import { ToolError } from '../errors';
import { fileKind, READ_FLAGS } from './regularFile';
import type { WriteOptions } from './fileStore';
import { lineAtByte } from '../text/lineCount';
import { giveScratch, takeScratch } from './scratch';

/** Above this the compare reads in parts of this size (the tools edit files up to 64 MiB: one read then). */
const MAX_ONE_READ = 65 * 1024 * 1024;

function conflict(absPath: string, what: string, details: Record<string, unknown>): ToolError {
  return new ToolError(
    'conflict',
    `${absPath} was changed by someone else since it was read (${what}); nothing was written. Re-read the file and retry.`,
    details,
  );
}

/** The descriptor a load under the same lock read the file through, and what it is (its fstat then). */
export interface KeptRead {
  fh: Handle;
  st: Stats;
}

/**
 * `entry` is the path to open (through the pinned folder), `absPath` the one to name in messages. `kept`: the
 * load's own descriptor; where the entry (lstat, never followed) is still that inode, its bytes are read through it
 * (one look-up and one read instead of a reopen); anything else takes the full check, which words the change.
 */
export async function assertUnchanged(entry: string, absPath: string, opts: WriteOptions, kept?: KeptRead, calls: FsCalls = poolCalls): Promise<void> {
  const expected = opts.expectedContent;
  if (expected === undefined && opts.expectedMtimeMs === undefined) return;
  if (expected && kept && (await sameBytesThroughKept(entry, kept, expected, calls))) return;
  if (expected) return assertSameBytes(entry, absPath, expected, calls);
  let st: Stats | undefined;
  try {
    st = await calls.lstat(entry);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (expected === null) {
    if (st) throw conflict(absPath, `it was created meanwhile, ${st.size} bytes`, { actualSize: st.size });
    return;
  }
  if (!st) throw conflict(absPath, 'it was deleted', {});
  if (!st.isFile()) throw conflict(absPath, `it is ${fileKind(st)} now`, { kind: fileKind(st) });
  if (st.mtimeMs !== opts.expectedMtimeMs) {
    throw conflict(absPath, `modified at ${new Date(st.mtimeMs).toISOString()}`, {
      expectedMtimeMs: opts.expectedMtimeMs,
      actualMtimeMs: st.mtimeMs,
    });
  }
}

/**
 * True when the entry is still the kept descriptor's regular file, of the expected size, holding exactly `expected`
 * (its lstat and the read made together); false sends the caller to the full check.
 */
async function sameBytesThroughKept(entry: string, kept: KeptRead, expected: Uint8Array, calls: FsCalls): Promise<boolean> {
  if (expected.length >= MAX_ONE_READ) return false;
  const scratch = takeScratch(expected.length + 1);
  try {
    const [st, bytesRead] = await Promise.all([
      calls.lstat(entry).catch(() => undefined),
      kept.fh.read(scratch, 0, scratch.length, 0).then((r) => r.bytesRead, () => -1),
    ]);
    if (!st?.isFile() || st.ino !== kept.st.ino || st.dev !== kept.st.dev || st.size !== expected.length) return false;
    return bytesRead === expected.length && scratch.subarray(0, bytesRead).equals(expected);
  } finally {
    giveScratch(scratch);
  }
}

/**
 * The file must hold exactly `expected`: opened without following a link (what stands there now, a link is a
 * change), then its bytes with one call into a buffer one byte larger than expected, so a short read is its end
 * and a file that grew meanwhile shows as a longer read without a second call. The descriptor's stat is asked only
 * to word a mismatch (its kind, its size): equal bytes say all the check needs.
 */
async function assertSameBytes(entry: string, absPath: string, expected: Uint8Array, calls: FsCalls): Promise<void> {
  let fh: Handle;
  try {
    fh = await calls.open(entry, READ_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw conflict(absPath, 'it was deleted', {});
    if (code === 'ELOOP') throw conflict(absPath, 'it is a symbolic link now', { kind: 'a symbolic link' });
    // a socket or the like (open refuses it): named from lstat
    const st = await calls.lstat(entry);
    throw conflict(absPath, `it is ${fileKind(st)} now`, { kind: fileKind(st) });
  }
  try {
    // the whole file in one read where it has the expected size (a short read is its end), into a reused buffer;
    // a read that fails (a folder, a FIFO with no writer) is a mismatch, worded from the stat below
    const scratch = takeScratch(Math.min(MAX_ONE_READ, expected.length + 1));
    let at: number | undefined;
    let failed: unknown;
    try {
      at = await firstDifference(fh, expected, scratch);
    } catch (e) {
      failed = e;
    } finally {
      giveScratch(scratch);
    }
    const same = at === undefined && failed === undefined;
    // an empty read also comes from a FIFO without a writer or a device: an empty file's kind is asked even then
    if (same && expected.length > 0) return;
    const st = await fh.stat();
    if (!st.isFile()) throw conflict(absPath, `it is ${fileKind(st)} now`, { kind: fileKind(st) });
    if (st.size !== expected.length) {
      throw conflict(absPath, `it is ${st.size} bytes now, it was ${expected.length} when read`, {
        expectedSize: expected.length,
        actualSize: st.size,
        actualMtimeMs: st.mtimeMs,
      });
    }
    if (same) return;
    if (at === undefined) throw failed;
    const line = lineAtByte(expected, at);
    throw conflict(absPath, `same size, but the content differs from line ${line} on`, {
      firstDifferentLine: line,
      firstDifferentByte: at,
      actualMtimeMs: st.mtimeMs,
    });
  } finally {
    // read-only: the rename need not wait for its close, but Windows may refuse to replace a file still open
    const closing = fh.close().catch(() => undefined);
    if (process.platform === 'win32') await closing;
  }
}

/** Offset of the first byte that differs, or undefined when the file holds exactly `expected`. */
async function firstDifference(fh: Handle, expected: Uint8Array, scratch: Buffer): Promise<number | undefined> {
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
    // a short read is the end of the file: all of it matched
    if (bytesRead < scratch.length && off === expected.length) return undefined;
  }
}
