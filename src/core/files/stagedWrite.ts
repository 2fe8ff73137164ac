/**
 * The two halves of an atomic write in a pinned folder: `stageIn` writes the new bytes whole to a temp file beside
 * the target (named after its owner, tempFiles.ts), with the old file's mode and owner, and syncs it; `commit`
 * checks the target still holds what the edit was computed from, renames the temp over it, syncs the folder and
 * reads the file back, refusing loudly if the bytes on disk are not the ones intended (a byte compare with the
 * staged parts; the staged bytes are hashed once, while their fsync is in flight). A single write runs both at
 * once; a batch (be-apply) stages every file before it commits any.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { ToolError } from '../errors';
import type { FileStat, WriteOptions } from './fileStore';
import { READ_FLAGS } from './regularFile';
import { notRegularError, PinnedDir, STAGE_FLAGS, swappedError } from './safeOpen';
import { giveScratch, takeScratch } from './scratch';
import { tempBaseName } from './tempFiles';
import { umaskNow } from './umask';
import { assertUnchanged, type KeptRead } from './unchangedCheck';
import { equalsParts } from '../util/bytes';
import { sha256Parts } from '../util/sha256';
import { poolCalls, type FsCalls, type Handle } from './fsCalls';

/**
 * The read-back after the rename. Through the staged temp's own descriptor (`kept`, open read-write) the name is
 * looked at (lstat, never followed) while the bytes are read: one look-up and one positional read prove that the
 * entry holds the staged inode and that this inode holds the staged bytes. Without it the entry is reopened
 * (O_NOFOLLOW) and its descriptor's stat names the inode. The read goes into a buffer one byte larger than
 * intended: a file that grew is seen without a second read. The staged bytes were hashed once already; the digest
 * of the read-back is that same hash when the bytes are equal, and is computed only to word a mismatch.
 */
export async function readBack(
  entry: string,
  kept: Handle | undefined,
  parts: readonly Uint8Array[],
  size: number,
  calls: FsCalls = poolCalls,
): Promise<{ equal: true; ino: number; st: fs.Stats } | { equal: false; ino: number; hex: string; size: number }> {
  const own = kept ? undefined : await calls.open(entry, READ_FLAGS);
  const fh = (kept ?? own)!;
  const buf = takeScratch(size + 1);
  try {
    const [st, got] = await Promise.all([kept ? calls.lstat(entry).catch(() => undefined) : fh.stat(), readInto(fh, buf)]);
    const ino = st?.isFile() ? st.ino : -1;
    if (st && got === size && equalsParts(buf.subarray(0, got), parts)) return { equal: true, ino, st };
    // unequal: hash what is really there, for the message (read on to the end if it is longer)
    const h = createHash('sha256').update(buf.subarray(0, got));
    let total = got;
    if (got === buf.length) {
      const more = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const { bytesRead } = await fh.read(more, 0, more.length, total);
        if (bytesRead === 0) break;
        h.update(more.subarray(0, bytesRead));
        total += bytesRead;
      }
    }
    return { equal: false, ino, hex: h.digest('hex'), size: total };
  } finally {
    giveScratch(buf);
    await own?.close().catch(() => undefined);
  }
}

/** Reads from offset 0 until `buf` is full or the file ends (a short read is its end); returns the bytes read. */
async function readInto(fh: Handle, buf: Buffer): Promise<number> {
  let got = 0;
  for (;;) {
    const want = buf.length - got;
    const { bytesRead } = await fh.read(buf, got, want, got);
    got += bytesRead;
    if (bytesRead < want || got === buf.length) return got;
  }
}

/** All of `parts` with one writev where the kernel takes them whole (the usual case), on from a short write else. */
async function writeParts(fh: Handle, parts: readonly Uint8Array[], size: number): Promise<void> {
  let { bytesWritten: off } = await fh.writev(parts as Uint8Array[]);
  if (off === size) return;
  let start = 0;
  for (const part of parts) {
    const end = start + part.length;
    while (off < end) {
      const { bytesWritten } = await fh.write(part, off - start, end - off);
      if (bytesWritten <= 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
      off += bytesWritten;
    }
    start = end;
  }
}

/** The replaced file's owner (when we are root and it is another's) and exact mode, on the temp. */
async function copyOwnerAndMode(fh: Handle, existing: fs.Stats): Promise<void> {
  // owner first: chown clears set-id bits, chmod then restores the exact mode
  if (needsChown(existing)) await fh.chown(existing.uid, existing.gid).catch(() => undefined);
  await fh.chmod(existing.mode & 0o7777);
}

function needsChown(existing: fs.Stats): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0 && (existing.uid !== 0 || existing.gid !== (process.getgid?.() ?? 0));
}

/** Set-id bits (a write clears them) or an owner to give: the mode is set after the last write, else beside it. */
function needsOwnerAfterWrite(existing: fs.Stats): boolean {
  return (existing.mode & 0o6000) !== 0 || needsChown(existing);
}

export interface Staged {
  tempName: string;
  /** sha256 hex of the staged bytes: hashed while they are written, synced, compared and renamed (nothing of those waits for it) */
  sha256: Promise<string>;
  size: number;
  /** the temp's inode: the read-back tells "replaced by another writer" from "the disk returned other bytes" */
  ino: number;
  /** the temp, open read-write until the commit's read-back (or the discard) closes it; absent: closed after staging */
  fh?: Handle;
}

/**
 * Writes `parts` to a new temp file in `pinned` (the target's existing mode and owner, synced). `alone`: a single
 * write, no other temp's fsync in flight beside it (its create and writes may then be direct calls, fsCalls.ts).
 */
export async function stageIn(
  pinned: PinnedDir,
  parts: readonly Uint8Array[],
  name: string,
  existing: fs.Stats | undefined,
  opts: WriteOptions,
  tempName = tempBaseName(name),
  keepOpen = true,
  alone = false,
): Promise<Staged> {
  const tmp = pinned.at(tempName);
  // one of a batch: created and written with the calls for temps staged while other temps' fsyncs are in flight
  const calls = alone ? pinned.calls : (pinned.calls.staging ?? pinned.calls);
  let fh: Handle | undefined;
  try {
    // a plain file's temp is created with its mode (the umask may take bits away; the stat below sees that);
    // set-id bits or an owner to give: private until they are set after the last write
    const plain = existing !== undefined && !needsOwnerAfterWrite(existing);
    fh = await calls.open(tmp, STAGE_FLAGS, plain ? existing.mode & 0o777 : existing ? 0o600 : (opts.mode ?? 0o666));
    const file = fh;
    const size = parts.reduce((n, p) => n + p.length, 0);
    // the mode after the last write: a write by a process without CAP_FSETID clears set-user/group-id bits a chmod
    // made before it. Hashed meanwhile: neither the sync nor the commit waits for the hash, only what needs the
    // digest does; the inode is the same before and after the sync.
    const synced = (async () => {
      // a mode the umask narrows is set beside the write (the usual umask leaves it whole: no call)
      const narrowed = plain && (umaskNow() ?? 0o777) & existing.mode;
      if (narrowed) await Promise.all([writeParts(file, parts, size), file.chmod(existing.mode & 0o7777)]);
      else await writeParts(file, parts, size);
      if (existing && !plain) await copyOwnerAndMode(file, existing);
      let [, st] = await Promise.all([file.sync(), file.stat()]);
      // the umask changed since it was read: the exact mode, synced again
      if (plain && (st.mode & 0o7777) !== (existing.mode & 0o7777)) {
        await file.chmod(existing.mode & 0o7777);
        [, st] = await Promise.all([file.sync(), file.stat()]);
      }
      return st.ino;
    })();
    const sha256 = sha256Parts(...parts);
    sha256.catch(() => undefined); // awaited by the commit; a discarded stage never reads it
    const ino = await synced;
    // kept open, the read-back reads the staged inode through it
    if (keepOpen) return { tempName, sha256, size, ino, fh };
    await fh.close();
    fh = undefined;
    return { tempName, sha256, size, ino };
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await calls.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** Looks at the entry to be replaced: a symlink or a non-file there is refused. */
export async function existingEntry(pinned: PinnedDir, name: string, absPath: string): Promise<fs.Stats | undefined> {
  let existing: fs.Stats | undefined;
  try {
    existing = await pinned.calls.lstat(pinned.at(name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (existing?.isSymbolicLink()) throw swappedError('write', absPath);
  if (existing && !existing.isFile()) throw notRegularError('write', absPath, existing);
  return existing;
}

/**
 * The last check under the lock, the rename, then the folder sync beside the read-back (and `opts.onRenamed`):
 * the file must hold what was staged, else a loud error (the write landed but the disk holds other bytes). `kept`:
 * the descriptor this lock's load read the file through (the byte-compare reads through it when the name still
 * holds that inode), handed back by `beforeRename` once the checks pass: an old file still open when the rename
 * unlinks it would be freed only at that close, through the journal's orphan list, which every later fsync on the
 * file system then pays for. The staged temp's descriptor is closed here, whatever the outcome.
 */
export async function commitStaged(
  pinned: PinnedDir,
  staged: Staged,
  parts: readonly Uint8Array[],
  name: string,
  absPath: string,
  opts: WriteOptions,
  how: { syncFolder: boolean; concurrent: boolean },
  kept?: KeptRead,
  beforeRename?: () => Promise<void>,
): Promise<FileStat> {
  const entry = pinned.at(name);
  const tmp = pinned.at(staged.tempName);
  const calls = pinned.calls;
  try {
    try {
      // the two last checks (the bytes, the folder) read and change nothing: they run together, the bytes' refusal first
      const [same, folder] = await Promise.allSettled([assertUnchanged(entry, absPath, opts, kept, calls), pinned.verify('write')]);
      if (same.status === 'rejected') throw same.reason;
      if (folder.status === 'rejected') throw folder.reason;
      await beforeRename?.();
      // one of a batch's commits: renamed with the batch's calls (fsCalls.ts: the replaced files' release overlaps)
      await (how.concurrent ? (calls.staging ?? calls) : calls).rename(tmp, entry);
    } catch (e) {
      await calls.unlink(tmp).catch(() => undefined);
      throw e;
    }
    // the folder's sync, the read-back and the caller's own follow-up all follow the rename and none needs the
    // others: they overlap
    const [, back] = await Promise.all([
      how.syncFolder ? pinned.sync() : undefined,
      readBack(entry, staged.fh, parts, staged.size, calls),
      opts.onRenamed ? staged.sha256.then((sha256) => opts.onRenamed?.({ sha256, ofGiven: true })).catch(() => undefined) : undefined,
    ]);
    if (back.ino !== staged.ino) {
      throw new ToolError(
        'conflict',
        `${absPath} was written, but another process replaced it before it could be read back; check the file now (be-trx rollback has the previous content).`,
      );
    }
    const sha256 = await staged.sha256;
    if (!back.equal) {
      throw new ToolError(
        'io',
        `${absPath} was written, but reading it back gave different bytes (${back.size} bytes, sha256 ${back.hex.slice(0, 16)}; ` +
          `intended ${staged.size} bytes, sha256 ${sha256.slice(0, 16)}). The disk or another writer changed it: ` +
          'check the file now; be-trx rollback has the previous content.',
        { expected_sha256: sha256, actual_sha256: back.hex },
      );
    }
    // equal bytes: the staged digest is the read-back's (one hash per write); the stat is the entry's, checked to be
    // the staged inode
    const { st } = back;
    return { size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777, sha256, sha256OfGiven: true };
  } finally {
    await staged.fh?.close().catch(() => undefined);
  }
}
