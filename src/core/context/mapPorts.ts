/**
 * The ports the repository map reaches the disk through, given by the ContextService (node/walk.ts: diskWalker,
 * node/readWalked.ts: fileStoreReader, diskReader), so the map's own code lists, stats and reads nothing itself.
 */

export interface WalkedFile {
  abs: string;
  /** Relative to the walk root, with `/` separators. */
  rel: string;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: WalkedFile[];
  truncated: boolean;
}

/** Asked about each regular file a walk finds: true lists it. */
export type WalkFilter = (rel: string, abs: string, size: number, mtimeMs: number) => boolean;

/** What the file list needs of a stat: lstat's answer (a link is not followed). */
export interface WalkStat {
  isFile(): boolean;
  isDirectory(): boolean;
  size: number;
  mtimeMs: number;
}

/** How the file list walks its root (honouring .gitignore and the skip lists) and looks at one path. */
export interface FileWalker {
  /** Folder names the walk never enters. */
  readonly skipDirs: ReadonlySet<string>;
  /**
   * The walk, with synchronous stat calls in slices that yield to the event loop between them; with `keep`, only
   * the files it returns true for are listed (it is asked about every regular file found).
   */
  walkSliced(root: string, keep?: WalkFilter): Promise<WalkResult>;
  /** Would the walk list `rel` (its folders' .gitignore files and the skip lists)? */
  isWalkedPath(root: string, rel: string): boolean;
  /** lstat, undefined when missing. */
  lstat(abs: string): WalkStat | undefined;
}

/** The port the repository map reads a listed file through. */
export interface MapFileReader {
  /** The text's bytes; undefined when `abs` is not a regular file inside `root` (any more): out of the map. */
  read(root: string, abs: string): Promise<Buffer | undefined>;
  /**
   * The same, synchronously: the map then reads many files per turn of the event loop, in slices of a few
   * milliseconds (awaiting six calls per file made 200,000 files take 100 s).
   */
  readSync?(root: string, abs: string): Buffer | undefined;
}
