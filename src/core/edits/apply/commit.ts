/**
 * Commits a batch of writes all or nothing. First the journal names the temp each file will be staged to (so a crash
 * while staging leaves no temp it does not name), then every temp is staged (written and synced, several at once),
 * then the journal is completed and synced, then each temp is renamed over its file (several at once) and each
 * folder synced once. A failure before the first rename drops the temps, a failure after it puts the renamed files
 * back (revert; a commit that failed after its own rename counts as renamed), and a crash anywhere leaves a journal
 * the next start completes or undoes (node/journal.ts, given as the BatchJournal port). The caller holds every
 * file's lock. `fault` lets tests fail each step in turn.
 */
import * as path from 'node:path';
import { ToolError } from '../../errors';
import type { FileStat, FileStore, StagedWrite, WriteOptions } from '../../files/fileStore';
import { BoundedFailure, eachBounded } from '../../util/bounded';

/** The port a batch records itself in (node/journal.ts: ApplyJournal). */
export interface BatchJournal {
  /** Before anything is staged: a journal naming the temp of each target. */
  intend(targets: readonly string[]): Promise<JournalIntent>;
}

export interface JournalIntent {
  /** The temp path of each target, in order, to stage to (WriteOptions.stageAs). */
  readonly temps: readonly string[];
  /** Every temp staged: the full journal (hashes, undo splices), synced, before the first rename. */
  begin(staged: readonly StagedWrite[]): Promise<JournalHandle>;
  /** Nothing was renamed and the temps are discarded: the journal goes. */
  drop(): Promise<void>;
}

export interface JournalHandle {
  readonly id: string;
  /** Deletes the journal: the batch is over (all new, or all old again). */
  finish(): Promise<void>;
}

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

/** Files staged or renamed at once: enough to keep the thread pool's four threads and the disk queue busy. */
const CONCURRENCY = 8;

export async function commitBatch(files: FileStore, journal: BatchJournal, writes: readonly BatchWrite[], fault?: FaultHook): Promise<FileStat[]> {
  if (!files.stage) throw new ToolError('invalid_argument', 'be-apply is not available with this file store (it cannot stage writes); use one be-* edit per file.');
  const stage = files.stage.bind(files);
  const intent = await journal.intend(writes.map((w) => w.abs));
  const staged: (StagedWrite | undefined)[] = writes.map(() => undefined);
  const renamed: boolean[] = writes.map(() => false);
  const discardAll = () => Promise.all(staged.map((s) => s?.discard().catch(() => undefined)));
  let handle: JournalHandle;
  try {
    await eachBounded(writes, CONCURRENCY, async (w, i) => {
      await fault?.('stage', i);
      // told of the rename as it happens: a commit that fails after it leaves the new file, which must be put back too
      const onRenamed = async (written: { sha256: string; ofGiven: boolean }) => {
        renamed[i] = true;
        await w.opts.onRenamed?.(written);
      };
      staged[i] = await stage(w.abs, w.parts, { ...w.opts, stageAs: intent.temps[i], onRenamed }).catch((e: unknown) => {
        throw conflictOf(e, w.abs);
      });
    });
    await fault?.('journal', 0);
    handle = await intent.begin(staged as StagedWrite[]);
  } catch (e) {
    await discardAll();
    await intent.drop().catch(() => undefined);
    throw e instanceof BoundedFailure ? e.error : e;
  }
  const all = staged as StagedWrite[];
  const stats: FileStat[] = [];
  const committed: boolean[] = all.map(() => false);
  try {
    await eachBounded(all, CONCURRENCY, async (s, i) => {
      await fault?.('commit', i);
      // a store that can sync a folder later is told not to now: each folder is synced once, after all renames
      stats[i] = await s.commit({ concurrent: true, ...(s.syncFolder ? { syncFolder: false } : {}) });
      committed[i] = true;
    });
    const folders = new Map<string, StagedWrite>();
    for (const s of all) if (s.syncFolder && !folders.has(path.dirname(s.target))) folders.set(path.dirname(s.target), s);
    await Promise.all([...folders.values()].map((s) => s.syncFolder!()));
  } catch (failure) {
    const { error: e, index } = failure instanceof BoundedFailure ? failure : { error: failure, index: all.length - 1 };
    await discardAll();
    // every file renamed already, newest first: those whose commit returned, and one whose commit failed after its rename
    const left = await putBack(files, all.flatMap((s, i) => (committed[i] || renamed[i] ? [{ s, whole: committed[i] }] : [])));
    if (left.length === 0) await handle.finish().catch(() => undefined);
    const head =
      left.length === 0
        ? 'nothing was changed (the files written before the failure were put back)'
        : `${left.join(', ')} could not be put back (check ${left.length === 1 ? 'it' : 'them'} now; the next start of the server completes the undo from its journal); every other file of the batch is as it was`;
    const details = left.length === 0 ? (e instanceof ToolError ? e.details : undefined) : { ...(e instanceof ToolError ? e.details : {}), not_put_back: left };
    const err = new ToolError(e instanceof ToolError ? e.code : 'io', `apply: ${(e as Error).message} — ${head}.`, details);
    throw conflictOf(err, writes[index].abs);
  }
  // all new now: a failure to delete the journal only leaves the next start a batch to find finished
  await fault?.('finish', 0);
  await handle.finish().catch(() => undefined);
  return stats;
}

/**
 * Puts back, newest first, the files a failed batch renamed already; returns those that could not be. A revert
 * writes the old bytes only over the batch's own new ones (its expected content); a file the batch created is
 * removed only when it still holds exactly the batch's bytes, so a file another writer put there after a commit
 * that failed after its rename is never removed.
 */
async function putBack(files: FileStore, renamed: readonly { s: StagedWrite; whole: boolean }[]): Promise<string[]> {
  const left: string[] = [];
  for (const { s, whole } of [...renamed].reverse()) {
    try {
      if (s.before === null && !whole && !(await holdsExactly(files, s.target, s.after))) throw new Error('not the batch\'s bytes');
      await s.revert();
    } catch {
      left.push(s.target);
    }
  }
  return left.reverse();
}

async function holdsExactly(files: FileStore, abs: string, bytes: Uint8Array): Promise<boolean> {
  const now = await files.read(abs).catch(() => undefined);
  return now !== undefined && now.encoding === undefined && Buffer.from(bytes).equals(now.bytes);
}
