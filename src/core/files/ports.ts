/**
 * The Sandbox as pure core sees it: the port every path an agent gives goes through (sandbox.ts is the Node
 * implementation: symlinks followed, the write policy and the git-shape rules applied). Pure modules import this
 * interface, never the class. The FileStore port is fileStore.ts, pure as well.
 */
import * as path from 'node:path';

export interface SandboxPort {
  /** The real paths of the roots. */
  readonly roots: readonly string[];
  /** Resolve to the real absolute path; throws ToolError('outside_roots') unless it lies inside a root. */
  resolve(input: string): Promise<string>;
  /**
   * resolve() for a path about to be written (or removed), refusing what the write policy protects. `batch`: the
   * other paths (absolute, resolved) written together with this one, judged as if already there.
   */
  resolveForWrite(input: string, batch?: readonly string[], lookups?: WriteLookups): Promise<string>;
  /** The batch (resolved paths) judged together: no set of its files may make a git directory. */
  resolveBatchForWrite(paths: readonly string[], lookups?: WriteLookups): Promise<void>;
  /** The content half of the write policy, for the write itself; throws ToolError('outside_roots'). */
  checkWriteContent(abs: string, content: string | Buffer | readonly Buffer[]): Promise<void>;
  /** The path to show an agent: relative to the first root that contains it, with '/' separators. */
  display(abs: string): string;
}

/**
 * The on-disk look-ups of resolveForWrite's git-shape checks, shared by the paths of one call only (a batch's files
 * share their folders: each folder's entries are looked up once). A new Map per call; never kept.
 */
export type WriteLookups = Map<string, Promise<unknown>>;

/** Is `p` inside `root` (or `root` itself)? Both absolute; no link is followed (the Sandbox does that first). */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  if (rel === '') return true;
  if (path.isAbsolute(rel)) return false;
  // "..foo" is a name inside the root; only ".." itself or "../…" leaves it
  return rel !== '..' && !rel.startsWith('..' + path.sep);
}
