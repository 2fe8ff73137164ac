/**
 * The port rollback and review check a file through at the moment they read or write it (node/rollbackTarget.ts
 * is the Node side: the sandbox resolves the path, lstat says what stands there). Pure code here only compares
 * the answers.
 */

/** The part of the Sandbox a rollback needs (core's Sandbox satisfies it). */
export interface RollbackSandbox {
  readonly roots: readonly string[];
  /** Real path of `input`; throws ToolError('outside_roots') outside the roots or where writes are refused. */
  resolveForWrite(input: string): Promise<string>;
}

/** What stands at the snapshot's path: nothing, or one regular file (its identity and mtime, to notice a swap). */
export type TargetState = { exists: false } | { exists: true; dev: number; ino: number; mtimeMs: number };

export interface RollbackTargets {
  /** Resolves `file` (a snapshot's absolute real path) now; throws unless it is still that file, inside the roots. */
  confirm(file: string, label: string): Promise<TargetState>;
  /** Removes the confirmed file (undoing its creation), after checking it is still the same file. */
  remove(file: string, target: TargetState, label: string): Promise<void>;
}

export function sameTarget(a: TargetState, b: TargetState): boolean {
  if (!a.exists || !b.exists) return a.exists === b.exists;
  return a.dev === b.dev && a.ino === b.ino;
}
