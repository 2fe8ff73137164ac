/**
 * A FileStore that announces every path written or removed through it, at the place the write happens: whichever
 * tool argument named the file (`file`, be-insert-chip's `to`, the files of a be-trx rollback or a be-apply batch),
 * the write goes through the store, so its listeners (the context service's invalidation) hear of it before the
 * tool returns. Wraps the outermost store a host composes, so one wrapper covers the disk, the encoding and the
 * VS Code document stores alike.
 */
import { Emitter, type Disposable } from '../emitter';
import type { FileContent, FileStat, FileStore, ReadOptions, StagedWrite, WriteOptions } from './fileStore';

export interface FileChange {
  /** Absolute, as the Sandbox resolved it for the write. */
  path: string;
  /** The file was removed (a rollback of a creation), else written. */
  removed: boolean;
}

export class NotifyingFileStore implements FileStore {
  private readonly changes = new Emitter<FileChange>();
  // the inner store's optional abilities stay optional: callers test for them (be-apply needs `stage`)
  readonly writeParts?: FileStore['writeParts'];
  readonly stage?: FileStore['stage'];
  readonly lock?: FileStore['lock'];
  readonly lockAll?: FileStore['lockAll'];
  readonly recover?: FileStore['recover'];
  readonly release?: FileStore['release'];
  readonly unsaved?: FileStore['unsaved'];
  readonly readChecksSize?: boolean;

  constructor(
    private readonly inner: FileStore,
    /** A listener that throws is reported here; the write and the other listeners go on. */
    private readonly onListenerError?: (err: unknown) => void,
  ) {
    if (inner.writeParts) {
      const writeParts = inner.writeParts.bind(inner);
      this.writeParts = (absPath, parts, opts) => this.announced(absPath, false, () => writeParts(absPath, parts, opts));
    }
    if (inner.stage) {
      const stage = inner.stage.bind(inner);
      this.stage = async (absPath, parts, opts) => this.announcing(await stage(absPath, parts, opts));
    }
    this.readChecksSize = inner.readChecksSize;
    if (inner.lock) this.lock = inner.lock.bind(inner);
    if (inner.lockAll) this.lockAll = inner.lockAll.bind(inner);
    if (inner.recover) this.recover = inner.recover.bind(inner);
    if (inner.release) this.release = inner.release.bind(inner);
    if (inner.unsaved) this.unsaved = inner.unsaved.bind(inner);
  }

  /** Fires after each write or removal settles, failed ones too: a failure after the rename may have changed the file. */
  readonly onDidChange = (listener: (e: FileChange) => void): Disposable => this.changes.event(listener);

  read(absPath: string, opts?: ReadOptions): Promise<FileContent> {
    return this.inner.read(absPath, opts);
  }

  stat(absPath: string): Promise<FileStat | undefined> {
    return this.inner.stat(absPath);
  }

  write(absPath: string, bytes: Uint8Array, opts?: WriteOptions): Promise<FileStat> {
    return this.announced(absPath, false, () => this.inner.write(absPath, bytes, opts));
  }

  remove(absPath: string): Promise<void> {
    return this.announced(absPath, true, () => this.inner.remove(absPath));
  }

  private async announced<T>(path: string, removed: boolean, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } finally {
      this.changes.fire({ path, removed }, this.onListenerError);
    }
  }

  /** A staged write changes the file at commit, and again at revert (which may remove a file the batch created). */
  private announcing(staged: StagedWrite): StagedWrite {
    const target = staged.target;
    return {
      target,
      tempPath: staged.tempPath,
      before: staged.before,
      get after() {
        return staged.after;
      },
      commit: (opts) => this.announced(target, false, () => staged.commit(opts)),
      ...(staged.syncFolder ? { syncFolder: () => staged.syncFolder!() } : {}),
      discard: () => staged.discard(),
      revert: () => this.announced(target, staged.before === null, () => staged.revert()),
    };
  }
}
