/**
 * Reading files that must be regular files, without ever blocking on (or triggering) anything else: a FIFO
 * opened for reading waits for a writer forever, a device can have side effects. lstat first (nothing that is
 * not a regular file is opened), then open with O_NOFOLLOW | O_NONBLOCK and check again with fstat, so a swap
 * between the two neither follows a link nor hangs.
 *
 * readConfinedFile() also proves that the file it opened lies where the caller allows, even when a folder on
 * the way was replaced by a link meanwhile (O_NOFOLLOW guards the last name only): on Linux by asking the kernel
 * what was opened (/proc/self/fd), elsewhere by checking the real path and that it names the same inode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Read-only, never through a link at the last name, never blocking on a FIFO swapped in after the lstat. */
export const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** The error for "exists but is not a regular file" (BSD's errno name for an inappropriate file type). */
export class NotRegularFileError extends Error {
  readonly code = 'EFTYPE';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file; it was not opened`);
    this.name = 'NotRegularFileError';
  }
}

/** The outside-the-roots error of readConfinedFile(). */
export class OutsideError extends Error {
  readonly code = 'EOUTSIDE';
  constructor(
    readonly path: string,
    readonly real: string,
  ) {
    super(`${path} leads to ${real}, outside the allowed folders; it was not read`);
    this.name = 'OutsideError';
  }
}

/** What a file system entry is, in words for a message: `a directory`, `a FIFO (named pipe)`, … */
export function fileKind(st: Pick<fs.Stats, 'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket'>): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function eloopAsNotRegular(p: string, e: unknown): never {
  // O_NOFOLLOW on a link that appeared after the lstat
  if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(p, 'a symbolic link');
  throw e;
}

async function readAll(fh: fs.promises.FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await fh.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  // shrank meanwhile: what is there (growth shows as a new mtime, and the caller reads again)
  return off === size ? buf : buf.subarray(0, off);
}

/** The whole file, when `p` is a regular file (not a link to one). ENOENT when missing, NotRegularFileError else. */
export async function readRegularFile(p: string): Promise<Buffer> {
  return withRegularFile(p, (fh, st) => readAll(fh, st.size));
}

/** Opens `p` only if it is a regular file (lstat, then O_NOFOLLOW | O_NONBLOCK, then fstat) and runs `use` on it. */
async function withRegularFile<T>(p: string, use: (fh: fs.promises.FileHandle, st: fs.Stats) => Promise<T>): Promise<T> {
  const before = await fs.promises.lstat(p);
  if (!before.isFile()) throw new NotRegularFileError(p, fileKind(before));
  const fh = await fs.promises.open(p, READ_FLAGS).catch((e: unknown) => eloopAsNotRegular(p, e));
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFileError(p, fileKind(st));
    return await use(fh, st);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** Synchronous twin of readRegularFile, for small files (a .gitignore, a counter). */
export function readRegularFileSync(p: string): Buffer {
  const before = fs.lstatSync(p);
  if (!before.isFile()) throw new NotRegularFileError(p, fileKind(before));
  return withRegularFdSync(p, (fd) => fs.readFileSync(fd));
}

/** Opens `p` (no link followed, no FIFO waited on) and runs `use` only if what was opened is a regular file. */
function withRegularFdSync<T>(p: string, use: (fd: number, st: fs.Stats) => T): T {
  let fd: number;
  try {
    fd = fs.openSync(p, READ_FLAGS);
  } catch (e) {
    eloopAsNotRegular(p, e);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(p, fileKind(st));
    return use(fd, st);
  } finally {
    fs.closeSync(fd);
  }
}

const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

/** Where the open file `fh` (opened as `p`) really is: the kernel's answer on Linux, else a checked real path. */
async function openedPath(fh: fs.promises.FileHandle, p: string, st: fs.Stats): Promise<string> {
  if (PROC_FD) {
    try {
      return await fs.promises.readlink(path.join(PROC_FD, String(fh.fd)));
    } catch {
      // no /proc in this container: fall through
    }
  }
  const real = await fs.promises.realpath(p);
  const now = await fs.promises.lstat(real);
  // not the same inode: the path was swapped after the open, so what we opened is somewhere we cannot name
  if (now.ino !== st.ino || now.dev !== st.dev) throw new NotRegularFileError(p, 'a file that was replaced while it was opened');
  return real;
}

/**
 * readRegularFile() that also refuses a file whose real location is not `allowed` (a folder on the way was
 * replaced by a link to somewhere else): OutsideError, nothing returned.
 */
export async function readConfinedFile(p: string, allowed: (real: string) => boolean): Promise<Buffer> {
  return withRegularFile(p, async (fh, st) => {
    const real = await openedPath(fh, p, st);
    if (!allowed(real)) throw new OutsideError(p, real);
    return readAll(fh, st.size);
  });
}

/**
 * Synchronous twin of readConfinedFile, for the repository map's cold index (read in time slices that yield to the
 * event loop: six awaited calls per file took 100 s for 200,000 files). No lstat first: O_NOFOLLOW refuses
 * a link, O_NONBLOCK a FIFO, and the fstat of what was opened says whether it is a regular file.
 */
export function readConfinedFileSync(p: string, allowed: (real: string) => boolean): Buffer {
  return withRegularFdSync(p, (fd, st) => {
    let real: string | undefined;
    if (PROC_FD) {
      try {
        real = fs.readlinkSync(path.join(PROC_FD, String(fd)));
      } catch {
        // no /proc in this container: fall through
      }
    }
    if (real === undefined) {
      real = fs.realpathSync(p);
      const now = fs.lstatSync(real);
      if (now.ino !== st.ino || now.dev !== st.dev) throw new NotRegularFileError(p, 'a file that was replaced while it was opened');
    }
    if (!allowed(real)) throw new OutsideError(p, real);
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = fs.readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : buf.subarray(0, off);
  });
}
