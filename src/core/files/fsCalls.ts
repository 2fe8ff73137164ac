/**
 * The file-system calls of the edit path (the lock, the load, the temp, the compare, the rename, the read-back, the
 * release), made one of two ways. Through the thread pool (`poolCalls`, node:fs's promises): every call a trip to a
 * worker thread and back, ~20–50 µs each and, on a machine of few cores, the main thread preempted by the worker it
 * wakes; a 4 KiB edit makes about twenty such trips. Or at once on the main thread (`directCalls`): the same calls,
 * synchronous, for folders on a file system of this machine's own disks or memory, where a call answers in
 * microseconds and never waits on a network. A hung network file system would freeze the event loop (the VS Code
 * extension host) in a synchronous call, so a folder gets the direct calls only when statfs, asked through the thread
 * pool of the folder's open descriptor, names a local file system (`callsForFolder`); anything else, or unknown,
 * keeps the pool. Even then the fsyncs stay on the pool (a flush of the disk can take milliseconds), and so do a
 * batch's temps' creates, writes and renames (see directOpen) and a read or write of more than DIRECT_IO_MAX bytes.
 *
 * Both give the same results and the same errors (with their `code`), so each step keeps its checks as they were.
 */
import { promises as fsp, type Stats } from 'node:fs';
import * as fs from 'node:fs';

/** The part of a FileHandle the edit path uses. */
export interface Handle {
  readonly fd: number;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  writev(buffers: Uint8Array[]): Promise<{ bytesWritten: number }>;
  writeFile(data: string | Uint8Array): Promise<void>;
  stat(): Promise<Stats>;
  chmod(mode: number): Promise<void>;
  chown(uid: number, gid: number): Promise<void>;
  utimes(atime: Date, mtime: Date): Promise<void>;
  /** fsync: always through the thread pool */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface FsCalls {
  /** true: the calls are made at once on the main thread (a local file system) */
  readonly direct: boolean;
  open(path: string, flags: number, mode?: number): Promise<Handle>;
  lstat(path: string): Promise<Stats>;
  rename(from: string, to: string): Promise<void>;
  /** A hard link: fails with EEXIST when `to` exists (as an exclusive create does) */
  link(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  /** The calls a batch's temps are created, written and renamed with (the pool's for those, where these are direct) */
  readonly staging?: FsCalls;
}

export const poolCalls: FsCalls = {
  direct: false,
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  lstat: (p) => fsp.lstat(p),
  rename: (a, b) => fsp.rename(a, b),
  link: (a, b) => fsp.link(a, b),
  unlink: (p) => fsp.unlink(p),
  readdir: (p) => fsp.readdir(p),
};

/**
 * A read or write of more than this goes through the pool even on a local file system: a batch of 200 files reads
 * each up to three times (the load, the compare, the read-back), and its direct reads must not hold the event loop
 * near 100 ms (256 KiB from the page cache: ~50 µs).
 */
export const DIRECT_IO_MAX = 256 * 1024;

/** The result of a synchronous call as a promise (its error as a rejection, as the pool's would be). */
function now<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (e) {
    return Promise.reject(e);
  }
}

function pooled<T>(start: (done: (e: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((e, value) => (e ? reject(e) : resolve(value))));
}

function closedError(): NodeJS.ErrnoException {
  return Object.assign(new Error('EBADF: bad file descriptor (closed)'), { code: 'EBADF' });
}

/**
 * A descriptor opened synchronously. Its number is closed exactly once, after every call through the pool on it has
 * returned (a number closed early could be reused by another open while that call still runs). `writesViaPool`: its
 * writes go through the pool (a staged temp's, written while other temps' fsyncs are in flight).
 */
class DirectHandle implements Handle {
  private closed = false;
  private pending = new Set<Promise<unknown>>();

  constructor(
    readonly fd: number,
    private readonly writesViaPool = false,
  ) {}

  private use<T>(call: () => T): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return now(call);
  }

  private viaPool<T>(start: (done: (e: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    const p = pooled(start);
    this.pending.add(p);
    const forget = () => void this.pending.delete(p);
    p.then(forget, forget);
    return p;
  }

  private poolWrite(size: number): boolean {
    return size > DIRECT_IO_MAX || this.writesViaPool;
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    if (length > DIRECT_IO_MAX) return this.viaPool<number>((done) => fs.read(this.fd, buffer, offset, length, position, done)).then((bytesRead) => ({ bytesRead }));
    return this.use(() => ({ bytesRead: fs.readSync(this.fd, buffer, offset, length, position) }));
  }

  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }> {
    if (this.poolWrite(length)) return this.viaPool<number>((done) => fs.write(this.fd, buffer, offset, length, null, done)).then((bytesWritten) => ({ bytesWritten }));
    return this.use(() => ({ bytesWritten: fs.writeSync(this.fd, buffer, offset, length) }));
  }

  writev(buffers: Uint8Array[]): Promise<{ bytesWritten: number }> {
    const size = buffers.reduce((n, b) => n + b.length, 0);
    if (this.poolWrite(size)) return this.viaPool<number>((done) => fs.writev(this.fd, buffers, done)).then((bytesWritten) => ({ bytesWritten }));
    return this.use(() => ({ bytesWritten: fs.writevSync(this.fd, buffers) }));
  }

  writeFile(data: string | Uint8Array): Promise<void> {
    if (this.poolWrite(data.length)) return this.viaPool<void>((done) => fs.writeFile(this.fd, data, (e) => done(e, undefined)));
    return this.use(() => fs.writeFileSync(this.fd, data));
  }

  stat(): Promise<Stats> {
    return this.use(() => fs.fstatSync(this.fd));
  }

  chmod(mode: number): Promise<void> {
    if (this.poolWrite(0)) return this.viaPool<void>((done) => fs.fchmod(this.fd, mode, (e) => done(e, undefined)));
    return this.use(() => fs.fchmodSync(this.fd, mode));
  }

  chown(uid: number, gid: number): Promise<void> {
    if (this.poolWrite(0)) return this.viaPool<void>((done) => fs.fchown(this.fd, uid, gid, (e) => done(e, undefined)));
    return this.use(() => fs.fchownSync(this.fd, uid, gid));
  }

  utimes(atime: Date, mtime: Date): Promise<void> {
    return this.use(() => fs.futimesSync(this.fd, atime, mtime));
  }

  sync(): Promise<void> {
    return this.viaPool<void>((done) => fs.fsync(this.fd, (e) => done(e, undefined)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    fs.closeSync(this.fd);
  }
}

/**
 * A batch's staged temps (`staging`) are created and written through the pool: a batch writes its temps while the
 * fsyncs of the others are in flight, and a create or a write then waits in the kernel for the journal's commit
 * (ext4's jbd2), which a direct call would spend on the event loop (measured: a be-apply of 100 files took 20–30%
 * longer that way, where direct calls for everything else save as much). A batch's renames go there too: each
 * replaces an old file, whose release the kernel then overlaps with the next renames on the other threads, where
 * direct calls make them one after another on the event loop (a be-apply of 100 files: median 0.95× the time; the
 * compares and read-backs beside them stay direct, on the pool they cost more than they overlap). A single write's
 * temp, and every other change (the lock's create, its rename, the lock's removal), comes when no fsync of the edit
 * is in flight.
 */
function directOpen(p: string, flags: number, mode: number | undefined, staging: boolean): Promise<Handle> {
  if (staging) return pooled<number>((done) => fs.open(p, flags, mode, done)).then((fd) => new DirectHandle(fd, true));
  return now(() => new DirectHandle(fs.openSync(p, flags, mode)));
}

const lstat = (p: string) => now(() => fs.lstatSync(p));
const rename = (a: string, b: string) => now(() => fs.renameSync(a, b));
const link = (a: string, b: string) => now(() => fs.linkSync(a, b));
const unlink = (p: string) => now(() => fs.unlinkSync(p));
const readdir = (p: string) => now(() => fs.readdirSync(p));

/** The direct calls for a batch's staged temps (their create, writes and renames through the pool, see directOpen). */
const directStagingCalls: FsCalls = { direct: true, open: (p, flags, mode) => directOpen(p, flags, mode, true), lstat, rename: poolCalls.rename, link, unlink, readdir };

export const directCalls: FsCalls = { direct: true, staging: directStagingCalls, open: (p, flags, mode) => directOpen(p, flags, mode, false), lstat, rename, link, unlink, readdir };

/**
 * File systems on this machine's own disks or memory (statfs f_type, linux/magic.h): ext2/3/4, tmpfs, xfs, btrfs,
 * overlayfs, f2fs, ramfs, zfs. Not NFS, SMB/CIFS, FUSE (sshfs, virtiofs), 9p (WSL's Windows drives), Ceph, AFS.
 */
const LOCAL_TYPES = new Set([0xef53, 0x01021994, 0x58465342, 0x9123683e, 0x794c7630, 0xf2f52010, 0x858458f6, 0x2fc12fc1]);

/** Tests only: the pool for every folder, as on a file system not recognised as local. */
let forcePool = process.env.BET_FS_CALLS === 'pool';
export function usePoolOnly(on: boolean): void {
  forcePool = on;
}

/**
 * The calls for a folder, from statfs of `folder` (a path through the folder's open descriptor, /proc/self/fd/N,
 * so it is the file system of the folder that was opened and checked): direct on a local file system (Linux), the
 * pool otherwise or when statfs fails.
 */
export async function callsForFolder(folder: string): Promise<FsCalls> {
  if (forcePool || process.platform !== 'linux') return poolCalls;
  try {
    const st = await fsp.statfs(folder);
    return LOCAL_TYPES.has(Number(st.type) >>> 0) ? directCalls : poolCalls;
  } catch {
    return poolCalls;
  }
}
