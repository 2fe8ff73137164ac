/**
 * FileStore on the local disk. A write is atomic: a temp file in the same directory, named after its owner
 * (tempFiles.ts), written, fsynced, given the old file's mode (and owner, when we can), renamed over the target,
 * then the directory is fsynced. A crash leaves the old file or the new one, never a torn one; on any failure the
 * temp file is removed and the original is untouched; a crashed writer's temp is removed by the next writer in
 * that folder or the next start.
 *
 * Writes go to exactly the path given (the Sandbox resolved it; a symlink there now is refused, not followed),
 * through the folder as it was opened and checked (safeOpen.ts). Edits of one file are serialised in this process
 * and, with `crossProcess`, across processes by a lock file beside it (crossProcessLock.ts); under that lock the
 * file on disk is compared with the bytes the edit was computed from just before the rename (unchangedCheck.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ToolError } from '../errors';
import { CrossProcessLocks, LockGroup, type LockRecord } from './crossProcessLock';
import type { FileContent, FileStat, FileStore, ReadOptions, StagedWrite, WriteOptions } from './fileStore';
import { notRegularError, openRegularForRead, PinnedDir, swappedError } from './safeOpen';
import { commitStaged, existingEntry, stageIn, type Staged } from './stagedWrite';
import { sweepDeadTemps, tempBaseName, tempOwner } from './tempFiles';
import { currentOwner, type ProcessOwner } from './processIdentity';
import { fsyncDir } from './dirSync';
import { assertUnchanged, type KeptRead } from './unchangedCheck';
import { KeptBuffer } from './scratch';
import { KeyedMutex } from '../util/mutex';
import { BoundedFailure, eachBounded } from '../util/bounded';
import type { Handle } from './fsCalls';

function toStat(st: fs.Stats): FileStat {
  return { size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 };
}

function ioError(op: string, p: string, e: unknown): ToolError {
  if (e instanceof ToolError) return e;
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
    case 'ELOOP':
      return swappedError(op, p);
    default:
      return new ToolError('io', `${op} ${p}: ${err.message}`);
  }
}

function tooLarge(absPath: string, size: number, limit: number): ToolError {
  return new ToolError(
    'too_large',
    `${absPath} is ${size > limit ? size : `over ${limit}`} bytes, over the ${limit}-byte limit of these tools; edit it with another tool.`,
    { size, limit },
  );
}

export interface NodeFileStoreOptions {
  /**
   * fsync the directory after the rename (default true), so the new version survives a crash. Without it a crash
   * still leaves the old or the new file whole (the data is synced before the rename), possibly the old one.
   */
  syncDirectory?: boolean;
  /**
   * Serialise edits across processes too, by a lock file beside each edited file (default: true when `lockDir`
   * is given). False: within this process only.
   */
  crossProcess?: boolean;
  /**
   * The per-user lock folder of earlier versions (locks now live beside the files): `recover()` clears dead
   * owners' locks left there. Giving it turns the cross-process lock on.
   */
  lockDir?: string;
  /** How long an edit waits for another process's lock on the same file (default 15 s). */
  lockTimeoutMs?: number;
  /** The most a read returns without `maxBytes` of its own (default 256 MiB). */
  maxReadBytes?: number;
  /**
   * Write through the descriptor of the checked folder (/proc/self/fd, Linux; default true). False: the
   * path-based check just before the rename that other platforms get (for measurements).
   */
  pinDirectories?: boolean;
  /**
   * Dead writers whose temps no sweep removes: those a be-apply journal names (its recovery finishes the batch
   * with them; breaking the dead owner's lock would otherwise sweep them first and force an undo).
   */
  keepTempsOf?: (owner: ProcessOwner) => Promise<boolean>;
}

const SPARE_MIN = 256 * 1024;
const SPARE_MAX = 256 * 1024 * 1024;
const SPARE_SLACK = 1024 * 1024;
/** A folder is swept for crashed writers' temps at most this often per process. */
const SWEEP_EVERY_MS = 60_000;
/**
 * Descriptors kept open past their step (a load's for the compare, a staged temp's for the read-back), at most:
 * a batch of 200 files holds its 200 lock files open already; beyond this many the steps reopen by name instead.
 */
const MAX_KEPT_DESCRIPTORS = 256;

export class NodeFileStore implements FileStore {
  readonly readChecksSize = true;
  private readonly inProcess = new KeyedMutex();
  private readonly crossProcess?: CrossProcessLocks;
  /**
   * The paths whose lock the current async call chain holds (a write inside `lock` must not take it again), each
   * with the folder the lock was made in, still open: the write stages and renames through that same descriptor
   * (one open and one check of the folder per edit); and the descriptor of the last read of the file under this
   * hold, kept open until the release: the write takes the file's mode and owner from its stat and the
   * byte-compare reads through it (one look-up of the name instead of a reopen).
   */
  private readonly held = new AsyncLocalStorage<ReadonlyMap<string, Hold>>();
  private readonly syncDirectory: boolean;
  private readonly maxReadBytes: number;
  private readonly pin: boolean;
  private readonly sweptAt = new Map<string, number>();
  private readonly keepTempsOf?: (owner: ProcessOwner) => Promise<boolean>;
  private keptDescriptors = 0;

  constructor(opts: NodeFileStoreOptions = {}) {
    this.syncDirectory = opts.syncDirectory ?? true;
    this.maxReadBytes = opts.maxReadBytes ?? SPARE_MAX;
    this.pin = opts.pinDirectories ?? true;
    this.keepTempsOf = opts.keepTempsOf;
    if (opts.crossProcess ?? opts.lockDir !== undefined) {
      this.crossProcess = new CrossProcessLocks({
        dir: opts.lockDir,
        timeoutMs: opts.lockTimeoutMs,
        onAbandoned: (owner) => this.cleanUpAfter(owner),
      });
    }
  }

  // ---------------------------------------------------------------- reading

  async read(absPath: string, opts: ReadOptions = {}): Promise<FileContent> {
    const limit = Math.min(opts.maxBytes ?? this.maxReadBytes, this.maxReadBytes);
    let fh: Handle | undefined;
    // read under this call chain's lock: through the lock's folder (and its calls); the descriptor stays open for
    // the write that follows (closed at release)
    const hold = this.held.getStore()?.get(absPath);
    try {
      const opened = await openRegularForRead('read', absPath, hold?.pinned);
      fh = opened.fh;
      if (opened.st.size > limit) throw tooLarge(absPath, opened.st.size, limit);
      const bytes = await this.readBounded(fh, opened.st.size, limit, absPath);
      if (hold) {
        void this.dropKept(hold);
        if (this.keepOne()) {
          hold.kept = { fh, st: opened.st };
          fh = undefined;
        }
      }
      return { bytes, stat: toStat(opened.st) };
    } catch (e) {
      throw ioError('read', absPath, e);
    } finally {
      await fh?.close().catch(() => undefined);
    }
  }

  /**
   * The whole file with one positional read into a buffer a little larger than its size (one thread-pool job, where
   * readFile takes one per 512 KiB): a short read is the end of the file, so the read that finds it is the same one;
   * a file that grew past the buffer is read on until its end, never past `limit` bytes actually read (a size of 0,
   * as /proc files report, is read that way too).
   */
  private async readBounded(fh: Handle, size: number, limit: number, absPath: string): Promise<Buffer> {
    // headroom, so a file that grows by a few lines still fits the buffer released by the previous edit
    const capacity = size >= SPARE_MIN ? size + Math.max(64 * 1024, size >> 6) : size + 1;
    const buf = size === 0 ? Buffer.allocUnsafe(64 * 1024) : (this.takeSpare(size + 1) ?? Buffer.allocUnsafe(capacity));
    let off = 0;
    for (;;) {
      const want = buf.length - off;
      const { bytesRead } = await fh.read(buf, off, want, off);
      off += bytesRead;
      if (off > limit) throw tooLarge(absPath, off, limit);
      if (bytesRead < want) return size === 0 && off === 0 ? Buffer.alloc(0) : buf.subarray(0, off);
      if (off === buf.length) break;
    }
    // grew past the buffer: on in chunks until end of file
    const more: Buffer[] = [buf];
    let total = off;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) throw tooLarge(absPath, total, limit);
      more.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(more, total);
  }

  /**
   * One spare read buffer (scratch.ts): reusing the last released one keeps the peak of repeated edits of a large
   * file near one copy of it.
   */
  private readonly spare = new KeptBuffer(SPARE_MIN, SPARE_MAX);

  private takeSpare(size: number): Buffer | undefined {
    return this.spare.take(size, size * 2 + SPARE_SLACK);
  }

  release(bytes: Uint8Array): void {
    this.spare.give(bytes);
  }

  async stat(absPath: string): Promise<FileStat | undefined> {
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(absPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw ioError('stat', absPath, e);
    }
    if (st.isSymbolicLink()) throw swappedError('stat', absPath);
    if (!st.isFile()) throw notRegularError('stat', absPath, st);
    return toStat(st);
  }

  // ---------------------------------------------------------------- locking

  lock<T>(absPath: string, fn: () => Promise<T>): Promise<T> {
    const held = this.held.getStore();
    if (held?.has(absPath)) return fn();
    return this.inProcess.run(absPath, async () => {
      const { release, pinned } = await this.acquireCrossProcess(absPath);
      const hold: Hold = { pinned };
      try {
        return await this.held.run(new Map([...(held ?? []), [absPath, hold]]), fn);
      } finally {
        await this.dropKept(hold);
        await release?.();
        await pinned?.close();
      }
    });
  }

  /**
   * `lock` of several files at once (a batch): the in-process locks in sorted order, then every lock file tried at
   * once; when one is busy, the ones sorting after it are let go and taken in order, waiting, as nested `lock` calls
   * take them. A process only ever waits for a lock while holding none that sorts after it: batches never deadlock.
   */
  lockAll<T>(paths: readonly string[], fn: () => Promise<T>): Promise<T> {
    const held = this.held.getStore();
    const todo = [...new Set(paths)].filter((p) => !held?.has(p)).sort();
    if (todo.length === 0) return fn();
    const locked = async () => {
      const { taken, letGo } = await this.acquireAll(todo);
      const holds = todo.map((_, i): Hold => ({ pinned: taken[i].pinned }));
      try {
        return await this.held.run(new Map([...(held ?? []), ...todo.map((p, i) => [p, holds[i]] as const)]), fn);
      } finally {
        await Promise.all(holds.map((h) => this.dropKept(h)));
        await letGo();
      }
    };
    return todo.reduceRight<() => Promise<T>>((inner, p) => () => this.inProcess.run(p, inner), locked)();
  }

  /**
   * Each folder of the batch pinned once, shared by its files' locks and writes, closed after the last release; its
   * files' locks one lock file under their names (crossProcessLock.ts, LockGroup).
   */
  private async acquireAll(paths: readonly string[]): Promise<{ taken: Taken[]; letGo: () => Promise<void> }> {
    const cross = this.crossProcess;
    if (!cross) return { taken: paths.map(() => ({})), letGo: async () => undefined };
    const folders = new Map<string, Promise<PinnedDir | undefined>>();
    const groups = new Map<string, LockGroup>();
    const groupOf = (p: string) => {
      let g = groups.get(path.dirname(p));
      if (!g) groups.set(path.dirname(p), (g = new LockGroup()));
      return g;
    };
    const folderOf = (p: string) => {
      let f = folders.get(path.dirname(p));
      if (!f) folders.set(path.dirname(p), (f = this.openLockFolder(p)));
      return f;
    };
    const taken: (Taken | undefined)[] = paths.map(() => undefined);
    const releaseFrom = (from: number) => Promise.all(taken.slice(from).map((t) => t?.release?.()));
    const letGo = async () => {
      await releaseFrom(0);
      for (const f of folders.values()) await (await f.catch(() => undefined))?.close();
    };
    try {
      await eachBounded(paths, 8, async (p, i) => {
        const pinned = await folderOf(p);
        // no folder yet (a write with mkdirs): nothing to exclude on; the byte-compare still guards the rename
        const release = pinned && (await cross.tryAcquire(p, pinned.at('.'), pinned.calls, groupOf(p)));
        taken[i] = !pinned ? {} : release ? { release, pinned } : undefined;
      });
      const busy = taken.findIndex((t) => t === undefined);
      if (busy >= 0) {
        await releaseFrom(busy);
        taken.fill(undefined, busy);
        for (let i = busy; i < paths.length; i++) {
          const pinned = await folderOf(paths[i]);
          taken[i] = pinned ? { release: await cross.acquire(paths[i], pinned.at('.'), pinned.calls, groupOf(paths[i])), pinned } : {};
        }
      }
      return { taken: taken as Taken[], letGo };
    } catch (e) {
      await letGo();
      throw e instanceof BoundedFailure ? e.error : e;
    }
  }

  /** The folder of `absPath` pinned for its lock file (and its calls chosen); undefined when it does not exist (yet). */
  private async openLockFolder(absPath: string): Promise<PinnedDir | undefined> {
    try {
      return await this.pinFolder('lock', path.dirname(absPath));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw ioError('write', absPath, e);
    }
  }

  /** The lock file beside `absPath`, made through the pinned folder (a folder swapped for a link cannot move it). */
  private async acquireCrossProcess(absPath: string): Promise<Taken> {
    if (!this.crossProcess) return {};
    let pinned: PinnedDir;
    try {
      pinned = await this.pinFolder('lock', path.dirname(absPath));
    } catch (e) {
      // no folder yet (a write with mkdirs): nothing to exclude on; the byte-compare still guards the rename
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw ioError('write', absPath, e);
    }
    try {
      return { release: await this.crossProcess.acquire(absPath, pinned.at('.'), pinned.calls), pinned };
    } catch (e) {
      await pinned.close();
      throw e;
    }
  }

  /** A folder an edit works in, pinned, with the calls its file system allows (fsCalls.ts). */
  private async pinFolder(op: string, dir: string): Promise<PinnedDir> {
    const pinned = await PinnedDir.open(op, dir, this.pin);
    try {
      return await pinned.chooseCalls();
    } catch (e) {
      await pinned.close();
      throw e;
    }
  }

  /** At start: break crashed servers' locks and remove the temp files they left next to the files they wrote. */
  async recover(): Promise<void> {
    await this.crossProcess?.recover();
  }

  private async cleanUpAfter(owner: LockRecord): Promise<void> {
    const dir = path.dirname(owner.path);
    let pinned: PinnedDir | undefined;
    try {
      pinned = await PinnedDir.open('clean up', dir, this.pin);
      await sweepDeadTemps(pinned.at('.'), { owner, keep: this.keepTempsOf });
    } catch {
      // the folder is gone or is not where it was: nothing of ours to remove there
    } finally {
      await pinned?.close();
    }
  }

  // ---------------------------------------------------------------- writing

  write(absPath: string, bytes: Uint8Array, opts: WriteOptions = {}): Promise<FileStat> {
    return this.writeParts(absPath, [bytes], opts);
  }

  writeParts(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<FileStat> {
    return this.lock(absPath, () => this.writeLocked(absPath, parts, opts));
  }

  private async writeLocked(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions): Promise<FileStat> {
    const staged = await this.stageLocked(absPath, parts, opts, true, true);
    return staged.commit();
  }

  stage(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions = {}): Promise<StagedWrite> {
    // the lock's folder is shared only with a staged write that the caller's own hold of the lock outlives
    const callerHolds = this.held.getStore()?.has(absPath) ?? false;
    return this.lock(absPath, () => this.stageLocked(absPath, parts, opts, callerHolds));
  }

  /**
   * The temp file, written and synced in the pinned folder, which stays open until commit or discard. `alone`: a
   * single write, staged and committed at once (a batch stages each of its files before it commits any).
   */
  private async stageLocked(absPath: string, parts: readonly Uint8Array[], opts: WriteOptions, shareLockDir: boolean, alone = false): Promise<StagedWrite> {
    const dir = path.dirname(absPath);
    const name = path.basename(absPath);
    if (opts.mkdirs) {
      try {
        await fs.promises.mkdir(dir, { recursive: true });
      } catch (e) {
        throw ioError('create directory', dir, e);
      }
    }
    // the lock's folder where this call chain holds it (a folder made by mkdirs just now was not there to lock in)
    const hold = shareLockDir ? this.held.getStore()?.get(absPath) : undefined;
    const shared = hold?.pinned;
    let pinned: PinnedDir;
    try {
      pinned = shared ?? (await this.pinFolder('write', dir));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !opts.mkdirs) {
        throw new ToolError('not_found', `write ${absPath}: the directory ${dir} does not exist (pass mkdirs to create it)`);
      }
      throw ioError('write', absPath, e);
    }
    let staged: Staged;
    // the folder's sweep (a first write there, once a minute) lists it on the thread pool while the temp is staged:
    // it removes only dead writers' temps and locks, never this write's temp or a lock a live process holds
    const swept = this.sweepNow(pinned).catch(() => undefined);
    try {
      // the load under this hold saw the file through a checked descriptor: its stat, else a look at the entry
      const existing = hold?.kept?.st ?? (await existingEntry(pinned, name, absPath));
      await assertEarly(pinned.at(name), absPath, existing, opts);
      const keep = this.keepOne();
      staged = await stageIn(pinned, parts, name, existing, opts, opts.stageAs === undefined ? undefined : stagedName(opts.stageAs, absPath), keep, alone).catch((e: unknown) => {
        if (keep) this.giveBack();
        throw e;
      });
    } catch (e) {
      await swept;
      if (!shared) await pinned.close();
      throw ioError('write', absPath, e);
    }
    await swept; // it lists the folder through the pinned descriptor, which the commit may close
    // joined only when asked (be-apply's journal, a revert): a single edit's commit never needs the copy
    let joined: Uint8Array | undefined;
    const afterBytes = () => (joined ??= parts.length === 1 ? parts[0] : Buffer.concat(parts));
    const before = opts.expectedContent;
    let open = true;
    const close = async () => {
      // a shared folder is the lock's: it closes with the lock
      if (open && !shared) await pinned.close();
      open = false;
    };
    return {
      target: absPath,
      tempPath: path.join(dir, staged.tempName),
      before,
      get after() {
        return afterBytes();
      },
      commit: async (commitOpts) => {
        // the load's descriptor serves this one compare: after the rename it is no longer the file at the name
        const kept = hold?.kept;
        const closeKept = async () => {
          if (hold && hold.kept === kept) await this.dropKept(hold);
        };
        try {
          const how = { syncFolder: this.syncDirectory && commitOpts?.syncFolder !== false, concurrent: commitOpts?.concurrent === true };
          return await commitStaged(pinned, staged, parts, name, absPath, opts, how, kept, closeKept);
        } catch (e) {
          throw ioError('write', absPath, e);
        } finally {
          await closeKept();
          if (staged.fh) this.giveBack();
          await close();
        }
      },
      // the lock's folder is still open while the caller holds the lock; an own one was closed by the commit
      syncFolder: () => (this.syncDirectory ? (shared ? pinned.sync() : fsyncDir(dir)) : Promise.resolve()),
      discard: async () => {
        if (open) {
          if (staged.fh) this.giveBack();
          await Promise.all([staged.fh?.close().catch(() => undefined), pinned.calls.unlink(pinned.at(staged.tempName)).catch(() => undefined)]);
        }
        await close();
      },
      revert: async () => {
        // after a commit: the old bytes back (or no file), unless someone changed it since
        if (before === undefined) throw new ToolError('invalid_argument', `cannot revert ${absPath}: the write was staged without its expected content`);
        if (before === null) await this.remove(absPath);
        else await this.writeParts(absPath, [before], { expectedContent: afterBytes() });
      },
    };
  }

  /** One more descriptor may be kept open past its step (false: the step closes it, the next reopens by name). */
  private keepOne(): boolean {
    if (this.keptDescriptors >= MAX_KEPT_DESCRIPTORS) return false;
    this.keptDescriptors++;
    return true;
  }

  private giveBack(): void {
    this.keptDescriptors--;
  }

  private async dropKept(hold: Hold): Promise<void> {
    const kept = hold.kept;
    if (!kept) return;
    hold.kept = undefined;
    this.giveBack();
    await kept.fh.close().catch(() => undefined);
  }

  /** A dead writer's temps and locks in this folder go at the next write here (at most once a minute per folder). */
  private async sweepNow(pinned: PinnedDir): Promise<void> {
    const now = Date.now();
    if (now - (this.sweptAt.get(pinned.dir) ?? -Infinity) < SWEEP_EVERY_MS) return;
    this.sweptAt.set(pinned.dir, now);
    if (this.sweptAt.size > 10_000) this.sweptAt.clear();
    // one list of the folder for both sweeps
    const names = await fs.promises.readdir(pinned.at('.')).catch(() => undefined);
    if (!names) return;
    await sweepDeadTemps(pinned.at('.'), { keep: this.keepTempsOf, names });
    await this.crossProcess?.sweepDir(pinned.at('.'), undefined, names);
  }

  async remove(absPath: string): Promise<void> {
    await this.lock(absPath, async () => {
      let pinned: PinnedDir | undefined;
      try {
        pinned = await PinnedDir.open('remove', path.dirname(absPath), this.pin);
        await fs.promises.unlink(pinned.at(path.basename(absPath)));
        await pinned.sync();
      } catch (e) {
        throw ioError('remove', absPath, e);
      } finally {
        await pinned?.close();
      }
    });
  }
}

/** A path's lock held by a call chain: the folder it was made in, and the descriptor of the last read under it. */
interface Hold {
  pinned?: PinnedDir;
  kept?: KeptRead;
}

/** A lock file taken (release) in its pinned folder; both absent where there is nothing to lock on. */
interface Taken {
  release?: () => Promise<void>;
  pinned?: PinnedDir;
}

/** The temp name `stageAs` gives, when it is this process's temp form for `absPath`, in its folder; else refused. */
function stagedName(stageAs: string, absPath: string): string {
  const name = path.basename(stageAs);
  const owner = tempOwner(name);
  const me = currentOwner();
  const prefix = tempBaseName(path.basename(absPath)).slice(0, -'000000000000.tmp'.length);
  if (path.dirname(stageAs) !== path.dirname(absPath) || owner?.pid !== me.pid || owner.start !== me.start || !name.startsWith(prefix) || !/^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length))) {
    throw new ToolError('invalid_argument', `stage ${absPath}: ${stageAs} is not a temp name of this process for it`);
  }
  return name;
}

/** Before writing a temp: the cheap part of the final check (existence, size, mtime), to fail early. */
async function assertEarly(entry: string, absPath: string, existing: fs.Stats | undefined, opts: WriteOptions): Promise<void> {
  const expected = opts.expectedContent;
  const mismatch =
    expected === null
      ? existing !== undefined
      : expected !== undefined
        ? !existing || existing.size !== expected.length
        : opts.expectedMtimeMs !== undefined && (!existing || existing.mtimeMs !== opts.expectedMtimeMs);
  if (!mismatch) return;
  // the full check words the conflict
  await assertUnchanged(entry, absPath, opts);
  throw new ToolError('conflict', `${absPath} was changed by someone else since it was read; nothing was written. Re-read the file and retry.`);
}
