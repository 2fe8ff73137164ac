/**
 * Opening exactly the file (or folder) the Sandbox checked, and nothing that is not a regular file.
 *
 * The Sandbox resolves a path to its real location; between that check and the use, a folder or the file itself
 * can be swapped for a symlink to somewhere else. Checking again just before the use only narrows that window,
 * so the check is made on the opened object instead: the final component is opened with O_NOFOLLOW, and on Linux
 * the real path of the open descriptor (/proc/self/fd/N) must be the checked path. A write then creates its temp
 * file and renames it through /proc/self/fd/<folder fd>/<name>, which names the folder that was opened and checked
 * whatever its path points to by then. Other platforms fall back to a realpath check just before the rename.
 *
 * Pipes, devices and sockets are refused from lstat before anything is opened (opening a FIFO blocks a thread of
 * the I/O pool until a writer comes, reading /dev/zero never ends), and opened O_NONBLOCK in case one is swapped in.
 */
import { promises as fsp, constants as fsc, readlinkSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { syncDirHandle } from './dirSync';
import { fileKind, READ_FLAGS } from './regularFile';
import { callsForFolder, poolCalls, type FsCalls, type Handle } from './fsCalls';

const O_NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fsc.O_DIRECTORY ?? 0;

/** A staged temp: created new, never through a link, and readable too (the read-back reads it through this descriptor). */
export const STAGE_FLAGS = fsc.O_RDWR | fsc.O_CREAT | fsc.O_EXCL | O_NOFOLLOW;

export function notRegularError(op: string, absPath: string, st: Stats): ToolError {
  if (st.isDirectory()) return new ToolError('invalid_argument', `${op} ${absPath}: is a directory, expected a file`);
  return new ToolError(
    'invalid_argument',
    `${op} ${absPath}: it is ${fileKind(st)}, not a regular file; these tools only open regular files. Nothing was read or changed.`,
    { kind: fileKind(st) },
  );
}

export function swappedError(op: string, absPath: string, now?: string): ToolError {
  const where = now ? ` (it now leads to ${now})` : ' (it is now a symbolic link)';
  return new ToolError(
    'conflict',
    `${op} ${absPath}: the path changed while it was being used${where}; nothing was read or changed. ` +
      'Check the path and retry.',
    now ? { now } : undefined,
  );
}

let procFdWorks: boolean | undefined;

/**
 * The real path of an open descriptor (Linux), or undefined where the platform cannot tell. Asked synchronously:
 * /proc answers from the kernel's own record of the descriptor without touching the file's file system (a few µs,
 * never a wait on a disk or a network mount), where a trip through the I/O pool costs ~50 µs of CPU per call.
 */
function fdPath(fd: number): string | undefined {
  if (process.platform !== 'linux' || procFdWorks === false) return undefined;
  try {
    const p = readlinkSync(`/proc/self/fd/${fd}`);
    procFdWorks = true;
    return p;
  } catch {
    procFdWorks ??= false;
    return undefined;
  }
}

async function realpathOrUndefined(p: string): Promise<string | undefined> {
  return fsp.realpath(p).catch(() => undefined);
}

/**
 * Opens a regular file for reading without following a link at its final component, without blocking,
 * and makes sure the descriptor is the file at `absPath` (a real path). Throws ENOENT-coded errors through.
 * `via`: the folder it is in, pinned (the entry is opened through it, with its calls).
 */
export async function openRegularForRead(op: string, absPath: string, via?: PinnedDir): Promise<{ fh: Handle; st: Stats }> {
  const calls = via?.calls ?? poolCalls;
  const entry = via ? via.at(path.basename(absPath)) : absPath;
  const before = await calls.lstat(entry);
  if (before.isSymbolicLink()) throw swappedError(op, absPath);
  if (!before.isFile()) throw notRegularError(op, absPath, before);
  let fh: Handle;
  try {
    fh = await calls.open(entry, READ_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw swappedError(op, absPath);
    throw e;
  }
  try {
    const viaFd = fdPath(fh.fd);
    const st = await fh.stat();
    if (!st.isFile()) throw notRegularError(op, absPath, st);
    const real = viaFd ?? (await realpathOrUndefined(absPath));
    if (real !== absPath) throw swappedError(op, absPath, real);
    return { fh, st };
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/**
 * A folder held open while a file in it is written. `at(name)` is the path of an entry in *this* folder:
 * through the descriptor on Linux, so a swap of any folder on the way cannot redirect it.
 */
export class PinnedDir {
  /** How the calls on entries of this folder are made: through the pool until `chooseCalls` finds a local file system. */
  calls: FsCalls = poolCalls;

  private constructor(
    readonly dir: string,
    private readonly fh: fsp.FileHandle | undefined,
    private readonly viaFd: boolean,
  ) {}

  /** Asks statfs (through the pool) what file system this folder is on; a local one gets direct calls (fsCalls.ts). */
  async chooseCalls(): Promise<this> {
    if (this.viaFd) this.calls = await callsForFolder(this.at('.'));
    return this;
  }

  /** `pin` false: the path-based fallback of other platforms (measured in the reliability suite). */
  static async open(op: string, dir: string, pin = true): Promise<PinnedDir> {
    let fh: fsp.FileHandle | undefined;
    try {
      fh = await fsp.open(dir, fsc.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || (code === 'ENOTDIR' && (await isLink(dir)))) throw swappedError(op, dir);
      // some platforms cannot open folders (Windows); the checks below are path-based there
      if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EACCES') throw e;
      fh = undefined;
    }
    try {
      const real = fh && pin ? fdPath(fh.fd) : undefined;
      const pinned = new PinnedDir(dir, fh, real !== undefined);
      const now = real ?? (await realpathOrUndefined(dir));
      if (now !== dir) throw swappedError(op, dir, now);
      return pinned;
    } catch (e) {
      await fh?.close().catch(() => undefined);
      throw e;
    }
  }

  at(name: string): string {
    return this.viaFd ? `/proc/self/fd/${this.fh!.fd}/${name}` : path.join(this.dir, name);
  }

  /** Just before a rename: the folder is still the checked one (moved or swapped: refuse). */
  async verify(op: string): Promise<void> {
    const now = this.viaFd ? fdPath(this.fh!.fd) : await realpathOrUndefined(this.dir);
    if (now !== this.dir) throw swappedError(op, this.dir, now);
  }

  async sync(): Promise<void> {
    await syncDirHandle(this.fh);
  }

  async close(): Promise<void> {
    await this.fh?.close().catch(() => undefined);
  }
}

async function isLink(p: string): Promise<boolean> {
  try {
    return (await fsp.lstat(p)).isSymbolicLink();
  } catch {
    return false;
  }
}
