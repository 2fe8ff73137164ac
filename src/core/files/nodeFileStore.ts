/**
 * FileStore on the local disk. A write is atomic: a temp file in the same directory with a per-process unique
 * name, written, fsynced, given the old file's mode (and owner, when we can), renamed over the target, then the
 * directory is fsynced. A crash leaves the old file or the new one, never a torn one; on any failure the temp
 * file is removed and the original is untouched. A symlink is written through to its target and stays a link.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolError } from '../errors';
import { FileLocks } from './fileLock';
import type { FileContent, FileStat, FileStore, WriteOptions } from './fileStore';

function toStat(st: fs.Stats): FileStat {
  return { size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 };
}

function ioError(op: string, p: string, e: unknown): ToolError {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOENT':
      return new ToolError('not_found', `${op} ${p}: no such file or directory`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError('io', `${op} ${p}: permission denied`);
    case 'EISDIR':
      return new ToolError('invalid_argument', `${op} ${p}: is a directory, expected a file`);
    case 'ENOTDIR':
      return new ToolError('not_found', `${op} ${p}: a parent of this path is not a directory`);
    default:
      return new ToolError('io', `${op} ${p}: ${err.message}`);
  }
}

export function tempNameFor(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.be-${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
}

async function fsyncDir(dir: string): Promise<void> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(dir, 'r');
    await fh.sync();
  } catch {
    // some platforms/file systems cannot fsync a directory; the file itself is already synced
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Reads the whole file with one positional read into a buffer of its size (one thread-pool job, where
 * readFile takes one per 512 KiB). Falls back to readFile when the file shrank while being read.
 */
async function readWhole(fh: fs.promises.FileHandle, size: number, spare?: Buffer): Promise<Buffer> {
  if (size === 0) return fh.readFile();
  // headroom, so a file that grows by a few lines still fits the buffer released by the previous edit
  const capacity = size >= SPARE_MIN ? size + Math.max(64 * 1024, size >> 6) : size;
  const bytes = (spare ?? Buffer.allocUnsafe(capacity)).subarray(0, size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await fh.read(bytes, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  // shrank meanwhile: take what is there now (growth is caught by the mtime check of the write that follows)
  if (off < size) return fh.readFile();
  return bytes;
}

async function writeAll(fh: fs.promises.FileHandle, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, off, bytes.length - off);
    if (bytesWritten <= 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
    off += bytesWritten;
  }
}

export interface NodeFileStoreOptions {
  /**
   * fsync the directory after the rename (default true), so the new version survives a crash. Without it a crash
   * still leaves the old or the new file whole (the data is synced before the rename), possibly the old one.
   */
  syncDirectory?: boolean;
}

const SPARE_MIN = 256 * 1024;
const SPARE_MAX = 256 * 1024 * 1024;
const SPARE_SLACK = 1024 * 1024;

export class NodeFileStore implements FileStore {
  /** Writes to one target are serialised in this process, so the mtime check and the rename cannot interleave. */
  private readonly locks = new FileLocks();
  private readonly syncDirectory: boolean;

  constructor(opts: NodeFileStoreOptions = {}) {
    this.syncDirectory = opts.syncDirectory ?? true;
  }

  async read(absPath: string): Promise<FileContent> {
    let fh: fs.promises.FileHandle | undefined;
    try {
      fh = await fs.promises.open(absPath, 'r');
      const st = await fh.stat();
      if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      const bytes = await readWhole(fh, st.size, this.takeSpare(st.size));
      return { bytes, stat: toStat(st) };
    } catch (e) {
      if (e instanceof ToolError) throw e;
      throw ioError('read', absPath, e);
    } finally {
      await fh?.close().catch(() => undefined);
    }
  }

  /**
   * One spare read buffer. A fresh multi-MB buffer per edit is external memory that V8 frees only when
   * its external-allocation threshold (~64 MB) triggers a GC, so repeated edits of a 10 MB file peaked
   * at ~7× the file size; reusing the last released buffer keeps the peak near one copy.
   */
  private spare: Buffer | undefined;

  private takeSpare(size: number): Buffer | undefined {
    const spare = this.spare;
    if (!spare || spare.length < size || spare.length > size * 2 + SPARE_SLACK) return undefined;
    this.spare = undefined;
    return spare;
  }

  release(bytes: Uint8Array): void {
    // only a whole buffer we allocated (not a slice of Node's shared pool) and not absurdly large
    const whole = bytes.buffer.byteLength;
    if (bytes.byteOffset !== 0 || whole < SPARE_MIN || whole > SPARE_MAX) return;
    if (this.spare && this.spare.length >= whole) return;
    this.spare = Buffer.from(bytes.buffer, 0, whole);
  }

  async stat(absPath: string): Promise<FileStat | undefined> {
    try {
      const st = await fs.promises.stat(absPath);
      if (st.isDirectory()) throw new ToolError('invalid_argument', `${absPath} is a directory, expected a file`);
      return toStat(st);
    } catch (e) {
      if (e instanceof ToolError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw ioError('stat', absPath, e);
    }
  }

  write(absPath: string, bytes: Uint8Array, opts: WriteOptions = {}): Promise<FileStat> {
    return this.writeParts(absPath, [bytes], opts);
  }

  async writeParts(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<FileStat> {
    // write through a symlink: the target is what changes, the link stays
    let target = absPath;
    try {
      target = await fs.promises.realpath(absPath);
    } catch {
      // does not exist yet (or dangling): write at the given path
    }
    return this.locks.run(target, () => this.writeLocked(absPath, target, parts, opts));
  }

  private async writeLocked(
    absPath: string,
    target: string,
    parts: readonly Uint8Array[],
    opts: WriteOptions,
  ): Promise<FileStat> {
    const dir = path.dirname(target);
    if (opts.mkdirs) {
      try {
        await fs.promises.mkdir(dir, { recursive: true });
      } catch (e) {
        throw ioError('create directory', dir, e);
      }
    }
    let existing: fs.Stats | undefined;
    try {
      existing = await fs.promises.stat(target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError('stat', target, e);
    }
    if (existing?.isDirectory()) throw new ToolError('invalid_argument', `write ${absPath}: is a directory`);
    this.checkExpected(absPath, existing, opts);

    const tmp = tempNameFor(target);
    let fh: fs.promises.FileHandle | undefined;
    try {
      fh = await fs.promises.open(tmp, 'wx', existing ? 0o600 : (opts.mode ?? 0o666));
      for (const part of parts) await writeAll(fh, part);
      if (existing) {
        // owner first: chown clears set-id bits, chmod then restores the exact mode
        if (
          typeof process.getuid === 'function' &&
          process.getuid() === 0 &&
          (existing.uid !== 0 || existing.gid !== (process.getgid?.() ?? 0))
        ) {
          await fh.chown(existing.uid, existing.gid).catch(() => undefined);
        }
        await fh.chmod(existing.mode & 0o7777);
      }
      await fh.sync();
      await fh.close();
      fh = undefined;
      // the last moment before the rename: did someone else write the file meanwhile?
      if (opts.expectedMtimeMs !== undefined) {
        let now: fs.Stats | undefined;
        try {
          now = await fs.promises.stat(target);
        } catch {
          now = undefined;
        }
        this.checkExpected(absPath, now, opts);
      }
      await fs.promises.rename(tmp, target);
    } catch (e) {
      await fh?.close().catch(() => undefined);
      await fs.promises.unlink(tmp).catch(() => undefined);
      if (e instanceof ToolError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !opts.mkdirs) {
        throw new ToolError(
          'not_found',
          `write ${absPath}: the directory ${dir} does not exist (pass mkdirs to create it)`,
        );
      }
      throw ioError('write', absPath, e);
    }
    if (this.syncDirectory) await fsyncDir(dir);
    try {
      return toStat(await fs.promises.stat(target));
    } catch (e) {
      throw ioError('stat', target, e);
    }
  }

  private checkExpected(absPath: string, st: fs.Stats | undefined, opts: WriteOptions): void {
    if (opts.expectedMtimeMs === undefined) return;
    if (!st || st.mtimeMs !== opts.expectedMtimeMs) {
      throw new ToolError(
        'conflict',
        `${absPath} was changed by someone else since it was read ` +
          `(${st ? 'modified' : 'deleted'} after it was read); nothing was written. Re-read the file and retry.`,
        { expectedMtimeMs: opts.expectedMtimeMs, actualMtimeMs: st?.mtimeMs },
      );
    }
  }

  async remove(absPath: string): Promise<void> {
    try {
      await fs.promises.unlink(absPath);
      await fsyncDir(path.dirname(absPath));
    } catch (e) {
      throw ioError('remove', absPath, e);
    }
  }
}
