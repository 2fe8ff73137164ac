/**
 * The file a rollback is about to read or write, checked at that moment: resolved by the sandbox (inside the
 * roots, allowed by the write policy), still at the very path the edit wrote (no link put on its path since:
 * rollback never follows one, even with force), and a regular file or nothing. A snapshot is only a record of
 * an edit; what is on disk now decides where bytes go.
 */
import { promises as fs } from 'node:fs';
import { errnoCode, isToolError, ToolError } from '../../errors';
import type { FileStore } from '../../files/fileStore';
import { fileKind } from '../../files/regularFile';
import type { RollbackSandbox, RollbackTargets, TargetState } from '../targets';

/** The RollbackTargets port on disk: `sandbox` resolves, the FileStore removes. */
export function rollbackTargets(sandbox: RollbackSandbox, files: FileStore): RollbackTargets {
  return {
    confirm: (file, label) => confirmTarget(sandbox, file, label),
    remove: (file, target, label) => removeConfirmed(files, file, target, label),
  };
}

/** Resolves `file` (a snapshot's absolute real path) now; throws unless it is still that file, inside the roots. */
export async function confirmTarget(sandbox: RollbackSandbox, file: string, label: string): Promise<TargetState> {
  let real: string;
  try {
    real = await sandbox.resolveForWrite(file);
  } catch (err) {
    if (!isToolError(err) || err.code !== 'outside_roots') throw err;
    throw new ToolError('outside_roots', `Rollback stopped at ${label}: ${err.message} Nothing was written.`, err.details);
  }
  if (real !== file) {
    throw new ToolError(
      'outside_roots',
      `Rollback stopped at ${label}: ${file} now leads to ${real} (a symbolic link was put on its path since the edit), ` +
        'and rollback never follows a link that was not there, even with force. Nothing was written. Put the file back ' +
        'where it was, or call be-trx commit to drop the snapshots.',
      { file, resolved: real },
    );
  }
  let st;
  try {
    st = await fs.lstat(file);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { exists: false };
    throw new ToolError('io', `Rollback stopped at ${label}: cannot inspect ${file}: ${(err as Error).message}.`);
  }
  if (!st.isFile()) {
    throw new ToolError(
      'outside_roots',
      `Rollback stopped at ${label}: ${file} is now ${fileKind(st)}, not the regular file the edit wrote; it was not ` +
        'opened and nothing was written. Put the file back, or call be-trx commit to drop the snapshots.',
      { file, kind: fileKind(st) },
    );
  }
  return { exists: true, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs };
}

/**
 * Removes the file a rollback confirmed (undoing its creation), after checking it is still the same file. The
 * FileStore removes through a handle on the checked folder (see NodeFileStore.remove), so a folder swapped for a
 * link after this check cannot redirect the unlink outside.
 */
export async function removeConfirmed(files: FileStore, file: string, target: TargetState, label: string): Promise<void> {
  if (target.exists) {
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st?.isFile() || st.dev !== target.dev || st.ino !== target.ino) {
      throw new ToolError('conflict', `Rollback stopped at ${label}: ${file} was replaced while the rollback ran; nothing was removed. Try again.`);
    }
  }
  await files.remove(file);
}
