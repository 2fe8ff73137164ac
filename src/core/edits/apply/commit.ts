/**
 * Commits a batch of writes all or nothing: every temp is staged (written and synced) first, then the journal is
 * written, then each temp is renamed over its file; a failure before the first rename drops the temps, a failure
 * after it puts the renamed files back (revert), and a crash anywhere leaves a journal the next start completes or
 * undoes (journal.ts). The caller holds every file's lock. `fault` lets tests fail each step in turn.
 */
import { ToolError } from '../../errors';
import type { FileStat, FileStore, StagedWrite, WriteOptions } from '../../files/fileStore';
import type { ApplyJournal } from './node/journal';

export interface BatchWrite {
  abs: string;
  parts: readonly Uint8Array[];
  opts: WriteOptions;
}

/** A write of the batch refused because its file changed since it was read: which file (to name who changed it). */
export class BatchConflict extends ToolError {
  constructor(
    readonly file: string,
    cause: ToolError,
  ) {
    super(cause.code, cause.message, cause.details);
  }
}

function conflictOf(e: unknown, file: string): unknown {
  return e instanceof ToolError && e.code === 'conflict' && !(e instanceof BatchConflict) ? new BatchConflict(file, e) : e;
}

/** Called before each step: `stage`, `journal`, `commit` (with the file's index) and `finish`. */
export type FaultHook = (step: 'stage' | 'journal' | 'commit' | 'finish', index: number) => void | Promise<void>;

export async function commitBatch(files: FileStore, journal: ApplyJournal, writes: readonly BatchWrite[], fault?: FaultHook): Promise<FileStat[]> {
  if (!files.stage) throw new ToolError('invalid_argument', 'be-apply is not available with this file store (it cannot stage writes); use one be-* edit per file.');
  const staged: StagedWrite[] = [];
  const discardAll = () => Promise.all(staged.map((s) => s.discard().catch(() => undefined)));
  let handle;
  try {
    for (let i = 0; i < writes.length; i++) {
      await fault?.('stage', i);
      staged.push(await files.stage(writes[i].abs, writes[i].parts, writes[i].opts).catch((e: unknown) => {
        throw conflictOf(e, writes[i].abs);
      }));
    }
    await fault?.('journal', 0);
    handle = await journal.begin(staged);
  } catch (e) {
    await discardAll();
    throw e;
  }
  const stats: FileStat[] = [];
  let committed = 0;
  try {
    for (let i = 0; i < staged.length; i++) {
      await fault?.('commit', i);
      stats.push(await staged[i].commit());
      committed++;
    }
  } catch (e) {
    await discardAll();
    const undone = await revertCommitted(staged.slice(0, committed));
    if (undone) await handle.finish().catch(() => undefined);
    const head = undone
      ? 'nothing was changed (the files written before the failure were put back)'
      : 'putting back the files written before the failure also failed; the next start of the server completes the undo from its journal';
    const err = new ToolError(e instanceof ToolError ? e.code : 'io', `apply: ${(e as Error).message} — ${head}.`, e instanceof ToolError ? e.details : undefined);
    throw conflictOf(err, writes[committed].abs);
  }
  // all new now: a failure to delete the journal only leaves the next start a batch to find finished
  await fault?.('finish', 0);
  await handle.finish().catch(() => undefined);
  return stats;
}

/** Puts back, newest first, the files a failed batch renamed already. False when one could not be put back. */
async function revertCommitted(committed: readonly StagedWrite[]): Promise<boolean> {
  let ok = true;
  for (const s of [...committed].reverse()) {
    try {
      await s.revert();
    } catch {
      ok = false;
    }
  }
  return ok;
}
