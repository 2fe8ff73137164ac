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
}

export interface FileContent {
  bytes: Buffer;
  stat: FileStat;
}

export interface WriteOptions {
  /** Reject with ToolError('conflict') if the file's mtime is no longer this (another writer got there first). */
  expectedMtimeMs?: number;
  /** Mode for a new file (default 0o644 minus umask); an existing file keeps its own bits. */
  mode?: number;
  /** Create missing parent directories. */
  mkdirs?: boolean;
}

export interface FileStore {
  /** Throws ToolError('not_found') when missing, ToolError('io') when unreadable. */
  read(absPath: string): Promise<FileContent>;
  stat(absPath: string): Promise<FileStat | undefined>;
  /** Whole-or-nothing write of the new bytes; keeps permission bits; writes through a symlink to its target. */
  write(absPath: string, bytes: Uint8Array, opts?: WriteOptions): Promise<FileStat>;
  /**
   * Optional: the same as `write` of the concatenation of `parts`, without building it (an edit of a large
   * file writes prefix + new text + suffix straight from the old buffer). Callers fall back to `write`.
   */
  writeParts?(absPath: string, parts: readonly Uint8Array[], opts?: WriteOptions): Promise<FileStat>;
  /** Remove a file (used by be-trx rollback of a creation). */
  remove(absPath: string): Promise<void>;
  /**
   * Optional: hands back the bytes of a `read` that the caller no longer references anywhere (not even
   * a subarray), so the next read of a similar size can reuse the memory instead of allocating anew.
   */
  release?(bytes: Uint8Array): void;
}
