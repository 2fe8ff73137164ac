/**
 * FileStore: the port every edit goes through. The Node implementation writes atomically on disk;
 * the VS Code implementation routes files open in an editor through a WorkspaceEdit.
 * Paths given to a FileStore are absolute and already resolved by the Sandbox.
 */
export interface FileStat {
  size: number;
  mtimeMs: number;
  /** permission bits (st_mode & 0o7777) */
  mode: number;
  /**
   * After a write: sha256 (hex) of the bytes read back from where they were written, already compared with the
   * bytes intended (a mismatch is an error, not a value here). Absent on a plain stat.
   */
  sha256?: string;
  /**
   * `sha256` is the digest of exactly the bytes given to the write (the store wrote them unchanged, not re-encoded),
   * so a caller that needs that digest (the edit history) takes it from here instead of hashing them again.
   */
  sha256OfGiven?: boolean;
}

/**
 * A write prepared but not yet visible: the new bytes sit whole and synced in a temp file beside the target.
 * `commit` makes them the file (the expected-content check, the rename, the read-back); `discard` drops the temp;
 * `revert` puts the old bytes back after a commit (an all-or-nothing batch whose later file failed).
 */
export interface StagedWrite {
  readonly target: string;
  /** The temp file beside the target, recognisable by its owner's name (tempFiles.ts); absent when not on disk. */
  readonly tempPath?: string;
  /** The bytes the target must hold at commit (null: must not exist; undefined: not checked), as on disk. */
  readonly before?: Uint8Array | null;
  /** The bytes the target will hold, as they will be on disk. */
  readonly after: Uint8Array;
  /** `syncFolder: false`: the caller syncs the folder itself afterwards (syncFolder), once for a batch's files there. */
  commit(opts?: CommitOptions): Promise<FileStat>;
  /** Optional: fsyncs the target's folder, after a commit told not to (absent: the commit always syncs it). */
  syncFolder?(): Promise<void>;
  discard(): Promise<void>;
  revert(): Promise<void>;
}

export interface CommitOptions {
  /** Default true. False only where the store offers `syncFolder`, which the caller then calls. */
  syncFolder?: boolean;
  /** Other commits (a batch's) run beside this one: a store may then make its rename where those overlap. */
  concurrent?: boolean;
}

export interface FileContent {
  bytes: Buffer;
  stat: FileStat;
  /** Set by a store that decoded a legacy encoding: `bytes` are UTF-8 then, and this names the one on disk. */
  encoding?: string;
}

export interface ReadOptions {
  /** Refuse with ToolError('too_large') once more than this many bytes have been read (counted, not stat'ed). */
  maxBytes?: number;
}

export interface WriteOptions {
  /**
   * Reject with ToolError('conflict') if the file's mtime is no longer this (another writer got there first).
   * Ignored when `expectedContent` is given: the content decides then.
   */
  expectedMtimeMs?: number;
  /**
   * The bytes the edit was computed from: just before the rename, under the file's lock, the file on disk must
   * still hold exactly these, else ToolError('conflict') saying what changed. `null`: the file must not exist.
   */
  expectedContent?: Uint8Array | null;
  /** Mode for a new file (default 0o644 minus umask); an existing file keeps its own bits. */
  mode?: number;
  /** Create missing parent directories. */
  mkdirs?: boolean;
  /**
   * Optional: called once the new file is in place (after the rename, still under the lock), and run beside the
   * folder's sync and the read-back, which the write still waits for; `sha256` is the digest of the bytes written,
   * `ofGiven` whether those are the bytes given (not re-encoded). Its failure is the caller's, never the write's.
   * A store that cannot tell (an editor buffer) never calls it.
   */
  onRenamed?: (written: { sha256: string; ofGiven: boolean }) => Promise<void>;
  /**
   * `stage` only: the temp's path, in this process's temp-name form for this target (tempFiles.ts tempPathFor), so
   * a journal can name the temp before it exists. Anything else is refused.
   */
  stageAs?: string;
}

export interface FileStore {
  /**
   * Throws ToolError('not_found') when missing, ToolError('io') when unreadable, ToolError('invalid_argument')
   * for anything that is not a regular file (nothing else is opened), ToolError('conflict') when the path is a
   * symlink now (it changed after the Sandbox resolved it).
   */
  read(absPath: string, opts?: ReadOptions): Promise<FileContent>;
  /**
   * True when `read` refuses a missing file (not_found) and one over `maxBytes` (too_large, `details.size`) from
   * the descriptor's own stat before reading it: a loader need not stat first (one look-up less per load).
   */
  readonly readChecksSize?: boolean;
  /** Undefined when missing; refuses what `read` refuses. */
  stat(absPath: string): Promise<FileStat | undefined>;
  /**
   * Whole-or-nothing write of the new bytes to exactly `absPath` (a real path: a symlink there, or a folder on the
   * way swapped for one, is refused, never followed); keeps permission bits.
   */
  write(absPath: string, bytes: Uint8Array, opts?: WriteOptions): Promise<FileStat>;
  /**
   * Optional: the same as `write` of the concatenation of `parts`, without building it (an edit of a large
   * file writes prefix + new text + suffix straight from the old buffer). Callers fall back to `write`.
   */
  writeParts?(absPath: string, parts: readonly Uint8Array[], opts?: WriteOptions): Promise<FileStat>;
  /**
   * Optional: the first half of `write` (the temp file, written and synced), for a batch that commits several
   * files together. Must be called holding the file's `lock`, and committed or discarded under it.
   */
  stage?(absPath: string, parts: readonly Uint8Array[], opts?: WriteOptions): Promise<StagedWrite>;
  /** Remove a file (used by be-trx rollback of a creation). */
  remove(absPath: string): Promise<void>;
  /**
   * Optional: runs `fn` holding the file's edit lock, shared with other server processes, so a read-modify-write
   * cycle is not interleaved with another one. Writes to the same path inside `fn` use the held lock.
   */
  lock?<T>(absPath: string, fn: () => Promise<T>): Promise<T>;
  /** Optional: `lock` of every path of a batch at once, deadlock-free (callers fall back to nested `lock` calls). */
  lockAll?<T>(absPaths: readonly string[], fn: () => Promise<T>): Promise<T>;
  /** Optional, at start: clean up after crashed writers (their locks and temp files). */
  recover?(): Promise<void>;
  /**
   * Optional: hands back the bytes of a `read` that the caller no longer references anywhere (not even
   * a subarray), so the next read of a similar size can reuse the memory instead of allocating anew.
   */
  release?(bytes: Uint8Array): void;
  /**
   * Optional: the bytes of the file's unsaved editor buffer when it has one (VS Code), else undefined. Readers
   * that must prove on disk where a file lies (the overview's confined reads) take the text from here.
   */
  unsaved?(absPath: string): Buffer | undefined;
}
