/**
 * The one path every mutating operation takes. A line edit (be-replace, be-delete, be-insert, be-insert-chip):
 * resolve for writing and lock → load → the operation's checks and plan (range, viewed_code_id, old) → the byte
 * splice → diff and balance → the deleted text saved as a chip → write against the bytes it was planned from →
 * read-back proof → history record. be-write joins at the write (commitWrite, recordEdit).
 */
import { ToolError } from '../errors';
import type { FileStat, FileStore, WriteOptions } from '../files/fileStore';
import type { EditRecordInput } from '../history/types';
import type { LineSpec } from '../text/range';
import type { ByteSplice } from '../text/splice';
import { editBalance, editDiff } from './editReport';
import { sha256Parts } from '../util/sha256';
import type { LoadedText } from '../read/load';
import { affectedNothing, contentWarnings, editMessages, usesTabIndent } from './messages';
import { readBack } from './readBack';
import type { DiffFormat, EditResult } from './types';
import { loadFile, withWriteLock, type EditContext } from './editContext';

export interface EditOptions {
  format?: DiffFormat;
  preview?: boolean;
  brief?: boolean;
}

/** One planned line edit: lines start..end of the old file become newLines (end = start - 1 for an insert). */
export interface LineEdit {
  tool: string;
  start: number;
  end: number;
  newLines: string[];
  splice: ByteSplice;
  /** the result's `affected` line */
  affected: string;
  /** the history's summary of the edit */
  summary: string;
  /** the result's line counts (removed, added, after) */
  counts: Pick<EditResult, 'removed' | 'added' | 'after'>;
  /** the operation's own warnings, before those about the content */
  warnings?: string[];
  /** be-delete: the text removed, kept as a chip before the write */
  deleted?: { text: string; range: { start: number; end: number } };
}

/** What an operation's plan returns: the edit, or the result to give when there is nothing to change. */
export type Planned = LineEdit | EditResult;

/**
 * Lock `pathInput` for writing, load it, plan with `plan` (which throws when a check fails) and apply the plan.
 * Nothing is written before every check has passed; the lock is held from the load to the history record.
 */
export function editLines(
  ctx: EditContext,
  pathInput: string,
  options: EditOptions,
  plan: (ld: LoadedText) => Planned | Promise<Planned>,
): Promise<EditResult> {
  return withWriteLock(ctx, pathInput, async (abs) => {
    const ld = await loadFile(ctx, pathInput, abs);
    const planned = await plan(ld);
    return 'splice' in planned ? applyLineEdit(ctx, ld, options, planned) : planned;
  });
}

/** The result of an edit that changes nothing: the file is not written. */
export function unchangedResult(ctx: EditContext, ld: LoadedText, tool: string): EditResult {
  return {
    status: 'ok',
    file: ld.display,
    total: ld.doc.lineCount,
    diff: '',
    balance: '',
    affected: affectedNothing(ctx.lang, ld.doc.lineCount),
    warnings: [editMessages.nothingToChange(tool)],
  };
}

async function applyLineEdit(ctx: EditContext, ld: LoadedText, options: EditOptions, edit: LineEdit): Promise<EditResult> {
  const { doc } = ld;
  const { splice } = edit;
  const oldSlice = doc.bytes.subarray(splice.offset, splice.removeEnd);
  if (oldSlice.equals(splice.insert)) {
    const r = unchangedResult(ctx, ld, edit.tool);
    Object.assign(r, edit.counts);
    r.warnings = [editMessages.sameContent(edit.tool)];
    return r;
  }
  // the new file as three slices of the old buffer and the new text: a large file is never copied
  const parts = [doc.bytes.subarray(0, splice.offset), splice.insert, doc.bytes.subarray(splice.removeEnd)];
  const newSize = parts[0].length + parts[1].length + parts[2].length;
  const result: EditResult = {
    status: 'ok',
    file: ld.display,
    total: doc.lineCount - (edit.end - edit.start + 1) + edit.newLines.length,
    diff: '',
    balance: '',
    affected: edit.affected,
    ...edit.counts,
  };
  if (!options.brief) {
    result.diff = editDiff(doc, edit, options.format ?? 'plain', ctx.lang);
    result.balance = editBalance(doc, ld.languageId, edit, { parts, size: newSize }, ctx.limits.maxWholeBalanceBytes, ctx.lang);
  } else {
    result.brief = true;
  }
  const surrounding = doc.lines(Math.max(1, edit.start - 50), Math.min(doc.lineCount, edit.end + 50));
  const warnings = [...(edit.warnings ?? []), ...contentWarnings(edit.newLines, usesTabIndent(surrounding))];

  if (options.preview) {
    result.preview = true;
    if (warnings.length) result.warnings = warnings;
    return result;
  }

  let chipId: string | undefined;
  const deleted = edit.deleted;
  // the deleted text is kept (and synced) while the new file is staged; both before the rename
  const saveChip = deleted ? async () => void (chipId = await saveDeleted(ctx, ld, deleted, warnings)) : undefined;
  const record = (afterHash: string) =>
    recordEdit(ctx, result, {
      tool: edit.tool,
      file: ld.abs,
      summary: edit.summary,
      created: false,
      offset: splice.offset,
      removed: Buffer.from(oldSlice),
      insertedLength: splice.insert.length,
      afterHash,
      afterSize: newSize,
      chipId,
    }, warnings);
  // the history records the edit as soon as it is in place, beside the folder's sync and the read-back
  // (told with no history too: whether the rename happened decides whether the chip stays)
  let recorded: Promise<void> | undefined;
  let renamed = false;
  const onRenamed = async (w: { sha256: string; ofGiven: boolean }) => {
    renamed = true;
    if (ctx.history) await (recorded = (async () => record(w.ofGiven ? w.sha256 : await sha256Parts(...parts)))());
  };
  let written: Written;
  try {
    // under the lock, the file must still hold the bytes this edit was computed from
    written = await commitWrite(ctx, ld.abs, parts, newSize, { expectedMtimeMs: ld.stat.mtimeMs, expectedContent: doc.bytes, onRenamed }, saveChip);
  } catch (e) {
    // a deletion that is in place keeps its chip (the read-back refused it, but the file is changed)
    if (chipId && ctx.chips && !renamed) await ctx.chips.delete(chipId).catch(() => undefined);
    await recorded;
    throw e;
  }
  readBack(result, written.stat);
  if (chipId) result.chip_id = chipId;
  await (recorded ?? record(written.afterHash));
  // Written, hashed and recorded (the history keeps a copy of the removed bytes): nothing holds the old
  // buffer now, so the store may reuse it for the next read instead of allocating another file-sized one; a big
  // file's next edit loads with the index this one derives, whose entry gives the buffer back then
  if (!ctx.editedIndex?.remember(ld.abs, doc, splice)) ctx.files.release?.(doc.bytes);
  if (warnings.length) result.warnings = warnings;
  return result;
}

/** Saved before the write so the text is never lost (the caller removes it again if the write fails). */
async function saveDeleted(
  ctx: EditContext,
  ld: LoadedText,
  deleted: NonNullable<LineEdit['deleted']>,
  warnings: string[],
): Promise<string | undefined> {
  if (!ctx.chips) return undefined;
  const saved = await ctx.chips.saveContent('be-delete', deleted.text, { file: ld.abs, range: deleted.range });
  warnings.push(editMessages.deletedSaved(saved.chip.id));
  // the chip store (core/chips/node/store.ts) names its capacity; the ChipSink port does not require one
  const capacity = (ctx.chips as { capacity?: unknown }).capacity;
  for (const ev of saved.evicted) warnings.push(editMessages.chipEvicted(ev, typeof capacity === 'number' ? capacity : undefined));
  return saved.chip.id;
}

export interface Written {
  stat: FileStat;
  /** sha256 of the bytes written ('' without a history, which is the only reader, or when onRenamed was told it) */
  afterHash: string;
}

/**
 * Write the new content; the history's hash is the one the store's read-back proved (hashed here only for a store
 * that returns none). A refused write (the file changed since
 * it was read) is explained by the history, which names the session that changed it. Slices of an old buffer go
 * through `writeParts` where the store has it, so a large file is never copied; a whole new body through `write`.
 */
export async function commitWrite(
  ctx: EditContext,
  abs: string,
  parts: Buffer[],
  size: number,
  opts: WriteOptions,
  alongside?: () => Promise<void>,
): Promise<Written> {
  // the content half of the git rule (a config that runs a command, next to git-directory entries): at the write
  await ctx.sandbox.checkWriteContent(abs, parts);
  // a caller told of the written file's digest (onRenamed) has its hash: it is not taken again here
  let told = false;
  const onRenamed = opts.onRenamed;
  if (onRenamed) opts = { ...opts, onRenamed: (w) => ((told = true), onRenamed(w)) };
  try {
    const stat = await (alongside && ctx.files.stage ? stageAlongside(ctx.files.stage.bind(ctx.files), abs, parts, opts, alongside) : writeAfter(ctx, abs, parts, size, opts, alongside));
    // the store's read-back digest is the hash of these very bytes (compared equal): hashed once, not again here
    const afterHash = stat.sha256OfGiven && stat.sha256 ? stat.sha256 : ctx.history && !told ? await sha256Parts(...parts) : '';
    return { stat, afterHash };
  } catch (e) {
    throw (await ctx.history?.explainConflict?.(e, abs)) ?? e;
  }
}

async function writeAfter(ctx: EditContext, abs: string, parts: Buffer[], size: number, opts: WriteOptions, first?: () => Promise<void>): Promise<FileStat> {
  await first?.();
  return parts.length > 1 && ctx.files.writeParts
    ? ctx.files.writeParts(abs, parts, opts)
    : ctx.files.write(abs, parts.length === 1 ? parts[0] : Buffer.concat(parts, size), opts);
}

/** `alongside` runs while the new bytes are staged; the commit (check, rename) waits for both to succeed. */
async function stageAlongside(
  stage: NonNullable<FileStore['stage']>,
  abs: string,
  parts: Buffer[],
  opts: WriteOptions,
  alongside: () => Promise<void>,
): Promise<FileStat> {
  const [side, staged] = await Promise.allSettled([alongside(), stage(abs, parts, opts)]);
  if (side.status === 'rejected') {
    if (staged.status === 'fulfilled') await staged.value.discard();
    throw side.reason;
  }
  if (staged.status === 'rejected') throw staged.reason;
  return staged.value.commit();
}

/** Record a landed edit for be-trx; a failure to record is a warning (the edit itself has landed). */
export async function recordEdit(
  ctx: EditContext,
  result: { event_id?: string; queue_full?: string },
  input: EditRecordInput,
  warnings: string[],
): Promise<void> {
  if (!ctx.history) return;
  try {
    const rec = await ctx.history.record(input);
    result.event_id = rec.id;
    if (rec.queue_full) result.queue_full = rec.queue_full;
  } catch (e) {
    warnings.push(editMessages.notRecorded((e as Error).message));
  }
}

/** A `path:range` argument that must name lines (replace, delete). */
export function requireRange(op: string, spec: LineSpec, path: string): void {
  if (spec.kind === 'none') throw new ToolError('invalid_argument', editMessages.needsRange(op, path));
}
