/**
 * be-trx rollback of a run of snapshots, newest first. Consecutive snapshots of one file are undone in memory and
 * written once (one read, one write); each is undone only when the file still hashes to what its edit left (else a
 * conflict, unless forced), and an older snapshot is never undone past one that failed (it depends on it). Every
 * path is resolved through the sandbox at the moment of reading and again at the moment of writing
 * (the RollbackTargets port, targets.ts), then goes through the FileStore.
 */
import { Buffer } from 'node:buffer';
import * as path from 'node:path';
import { errorText, ToolError, isToolError } from '../errors';
import type { FileStore } from '../files/fileStore';
import { sameTarget, type RollbackTargets, type TargetState } from './targets';
import { labelOf, type Entry } from './snapshotFile';
import { applyInverse } from './splice';
import { sha256Hex } from '../util/sha256';
import type { RollbackResult } from './types';

export interface RollbackContext {
  files: FileStore;
  targets: RollbackTargets;
  loadRemoved(entry: Entry): Promise<Buffer>;
  /** A snapshot was undone and its file written: take it out of the queue and delete its files. */
  forget(entry: Entry): Promise<void>;
}

/** Snapshots of one file undone in memory, written once. */
interface FileBatch {
  file: string;
  /** what stood at `file` when it was read; the write goes ahead only if the same still stands there */
  target: TargetState;
  existed: boolean;
  mtimeMs?: number;
  bytes: Buffer | undefined;
  done: { entry: Entry; action: 'restored' | 'deleted' }[];
}

/** Undoes `targets` (newest first), stopping at the first that cannot be undone. */
export async function rollbackEntries(ctx: RollbackContext, targets: readonly Entry[], force: boolean): Promise<RollbackResult> {
  const result: RollbackResult = { status: 'ok', rolled_back: 0, restored: [] };
  const fail = (err: unknown): void => {
    result.status = 'partial';
    (result.errors ??= []).push(errorText(err));
    if (isToolError(err) && err.code === 'conflict' && err.details && !result.conflict) {
      result.conflict = err.details as NonNullable<RollbackResult['conflict']>;
    }
  };
  let batch: FileBatch | undefined;
  for (const entry of targets) {
    if (batch && batch.file !== entry.meta.file) {
      if (!(await flush(ctx, batch, result, fail))) return result;
      batch = undefined;
    }
    try {
      batch ??= await openBatch(ctx, entry);
      const action = await undoInMemory(ctx, entry, batch, force);
      batch.done.push({ entry, action });
    } catch (err) {
      fail(err); // older snapshots depend on this one: never undo past it
      break;
    }
  }
  if (batch) await flush(ctx, batch, result, fail);
  return result;
}

async function openBatch(ctx: RollbackContext, entry: Entry): Promise<FileBatch> {
  const file = entry.meta.file;
  if (!path.isAbsolute(file)) {
    throw new ToolError('invalid_argument', `Rollback stopped: the snapshot path "${file}" is not absolute.`);
  }
  const target = await ctx.targets.confirm(file, labelOf(entry));
  if (!target.exists) return { file, target, existed: false, bytes: undefined, done: [] };
  try {
    const content = await ctx.files.read(file);
    // Bytes read while a link stood on the path for a moment are never used (nor hashed into a decision): the
    // file must be the same before and after, and what was read must carry its mtime (not another file's).
    const after = await ctx.targets.confirm(file, labelOf(entry));
    if (!sameTarget(after, target) || content.stat.mtimeMs !== target.mtimeMs) {
      throw new ToolError('conflict', `Rollback stopped at ${labelOf(entry)}: ${file} was replaced while it was being read. Nothing was written; try again.`);
    }
    return { file, target, existed: true, mtimeMs: content.stat.mtimeMs, bytes: content.bytes, done: [] };
  } catch (err) {
    if (isToolError(err) && err.code === 'not_found') return { file, target: { exists: false }, existed: false, bytes: undefined, done: [] };
    throw err;
  }
}

/** Undoes one snapshot on the batch's bytes (undefined = the file does not exist). */
async function undoInMemory(ctx: RollbackContext, entry: Entry, batch: FileBatch, force: boolean): Promise<'restored' | 'deleted'> {
  const { meta } = entry;
  const label = labelOf(entry);
  const current = batch.bytes;
  if (current === undefined && meta.created) return 'deleted'; // already gone: nothing to undo
  const actualHash = current === undefined ? undefined : sha256Hex(current);
  if (actualHash !== meta.after_hash && !force) {
    const what = current === undefined ? 'was deleted' : 'has changed';
    throw new ToolError(
      'conflict',
      `Rollback stopped at ${label}: ${meta.file} ${what} since that edit, so undoing it would overwrite later changes. ` +
        `Read the file and fix it by hand, or call be-trx rollback again with force: true to apply the undo anyway.`,
      { id: meta.id, file: meta.file, expected_hash: meta.after_hash, actual_hash: actualHash ?? null },
    );
  }
  if (meta.created) {
    batch.bytes = undefined;
    return 'deleted';
  }
  const removed = await ctx.loadRemoved(entry);
  try {
    batch.bytes = applyInverse(current ?? Buffer.alloc(0), { offset: meta.offset, removed, insertedLength: meta.inserted_length });
  } catch (err) {
    throw new ToolError('conflict', `Rollback stopped at ${label}: cannot undo it on ${meta.file}: ${errorText(err)}.`, {
      id: meta.id,
      file: meta.file,
      expected_hash: meta.after_hash,
      actual_hash: actualHash ?? null,
    });
  }
  return 'restored';
}

/** Writes (or removes) the batch's file once, then forgets its snapshots. False when the write failed. */
async function flush(ctx: RollbackContext, batch: FileBatch, result: RollbackResult, fail: (err: unknown) => void): Promise<boolean> {
  if (batch.done.length === 0) return true;
  const label = labelOf(batch.done[batch.done.length - 1]!.entry);
  try {
    // the moment of writing: the path is resolved again and must still hold what was read
    const now = await ctx.targets.confirm(batch.file, label);
    if (!sameTarget(now, batch.target)) {
      throw new ToolError('conflict', `${batch.file} was replaced or ${now.exists ? 'created' : 'deleted'} while the rollback ran`);
    }
    if (batch.bytes === undefined) {
      if (batch.existed) await ctx.targets.remove(batch.file, now, label);
    } else {
      await ctx.files.write(batch.file, batch.bytes, batch.existed ? { expectedMtimeMs: batch.mtimeMs } : { mkdirs: true });
    }
  } catch (err) {
    fail(new ToolError(isToolError(err) ? err.code : 'io', `Rollback could not write ${batch.file}: ${errorText(err)}. It was left unchanged.`));
    return false;
  }
  for (const { entry, action } of batch.done) {
    // a rolled-back deletion names the chip that kept its text (it stays: the user may still want it)
    result.restored.push({ id: entry.meta.id, file: entry.meta.file, action, ...(entry.meta.chip_id ? { chip_id: entry.meta.chip_id } : {}) });
    result.rolled_back++;
    await ctx.forget(entry);
  }
  return true;
}
