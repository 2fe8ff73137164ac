/**
 * Reviewing agents' edits one at a time (the VS Code "Agent Edits" view and be-trx keep/revert): the bytes before
 * and after an edit, where its lines stand now, keep (forget the snapshot) and revert (the inverse splice of that
 * one edit). An older edit is reverted in today's coordinates: each newer recorded edit of the same file before it
 * shifts it, and a newer edit that touched its bytes refuses the revert (naming that edit). The file must still
 * hold what the newest recorded edit left (else something outside these tools changed it: refused too). A revert
 * is recorded as an edit of its own, so be-trx rollback undoes it. Paths go through the sandbox at the moment of
 * reading and of writing (the RollbackTargets port, targets.ts), as rollback does.
 */
import { Buffer } from 'node:buffer';
import { ToolError, isToolError } from '../errors';
import { describeAuthor } from './author';
import type { QueueAccess, QueueEntry } from './queueAccess';
import type { EditHistory, OtherSessionEdit } from './types';
import { sameTarget } from './targets';
import { applyInverse } from './splice';
import { sha256Hex } from '../util/sha256';
import { lineAtByte } from '../text/lineCount';

export type Rebased = { offset: number } | { blockedBy: QueueEntry };

/** Where `target`'s inserted bytes stand after the `newer` edits of its file (oldest first), or which one touched them. */
export function rebase(target: Pick<QueueEntry, 'offset' | 'inserted_length'>, newer: readonly QueueEntry[]): Rebased {
  let offset = target.offset;
  const length = target.inserted_length;
  for (const n of newer) {
    if (n.created) return { blockedBy: n };
    if (n.offset + n.removed_length <= offset) offset += n.inserted_length - n.removed_length; // wholly before
    else if (n.offset >= offset + length) continue; // wholly after
    else return { blockedBy: n };
  }
  return { offset };
}

function find(q: QueueAccess, id: string): { entry: QueueEntry; newer: QueueEntry[] } {
  const i = q.entries.findIndex((e) => e.id === id);
  if (i < 0) {
    throw new ToolError('not_found', `No edit ${id} in this workspace's history (kept, reverted, rolled back or evicted). Call be-trx status for the current list.`);
  }
  const entry = q.entries[i]!;
  return { entry, newer: q.entries.slice(i + 1).filter((e) => e.file === entry.file) };
}

export function labelOf(e: QueueEntry): string {
  return `${e.id} (${e.summary}${e.session ? `, by ${describeAuthor(e)}` : ''}, ${new Date(e.created_ms).toISOString()})`;
}

/** Reads the file (sandbox-checked) and insists it holds what the newest recorded edit of it left. */
async function readCurrent(q: QueueAccess, entry: QueueEntry, newest: QueueEntry, verb: string) {
  const label = `edit ${entry.id}`;
  const target = await q.targets.confirm(entry.file, label);
  const content = target.exists ? await q.files.read(entry.file) : undefined;
  const hash = content ? sha256Hex(content.bytes) : undefined;
  if (hash !== newest.after_hash) {
    throw new ToolError(
      'conflict',
      `Cannot ${verb} edit ${entry.id}: ${entry.file} ${content ? 'was changed' : 'was deleted'} since the last edit recorded on it ` +
        `(${newest.id}), by something other than these tools (an editor, git, another program). Nothing was written. ` +
        'Look at the file and fix it by hand, or call be-trx status for what is still recorded.',
      { id: entry.id, file: entry.file, expected_hash: newest.after_hash, actual_hash: hash ?? null },
    );
  }
  return { target, bytes: content!.bytes, mtimeMs: content!.stat.mtimeMs };
}

/** The whole file just before and just after edit `id` (undoing the newer edits of it in memory). */
export async function editVersions(q: QueueAccess, id: string): Promise<{ file: string; before: Buffer | undefined; after: Buffer }> {
  const { entry, newer } = find(q, id);
  const { bytes } = await readCurrent(q, entry, newer[newer.length - 1] ?? entry, 'show');
  let after: Buffer = Buffer.from(bytes);
  for (const n of [...newer].reverse()) {
    if (n.created) throw new ToolError('conflict', `Cannot show edit ${id}: the file was created again later by ${labelOf(n)}.`);
    after = applyInverse(after, { offset: n.offset, removed: await n.loadRemoved(), insertedLength: n.inserted_length });
  }
  const before = entry.created ? undefined : applyInverse(after, { offset: entry.offset, removed: await entry.loadRemoved(), insertedLength: entry.inserted_length });
  return { file: entry.file, before, after };
}

export interface RevertResult {
  status: 'ok';
  reverted: string;
  file: string;
  action: 'restored' | 'deleted';
  /** the revert's own snapshot (be-trx rollback undoes the revert) */
  event_id?: string;
}

/** Puts back what edit `id` removed, in place of what it inserted; refused (with the reason) when that changed since. */
export async function revertEdit(q: QueueAccess, id: string): Promise<RevertResult> {
  const { entry, newer } = find(q, id);
  const where = rebase(entry, newer);
  if ('blockedBy' in where) {
    throw new ToolError(
      'conflict',
      `Cannot revert edit ${labelOf(entry)}: its lines were changed since by edit ${labelOf(where.blockedBy)}. Nothing was written. ` +
        `Revert ${where.blockedBy.id} first (or the whole session, newest first), or keep ${entry.id}.`,
      { id: entry.id, file: entry.file, blocked_by: where.blockedBy.id },
    );
  }
  const cur = await readCurrent(q, entry, newer[newer.length - 1] ?? entry, 'revert');
  const label = `edit ${entry.id}`;
  if (entry.created) {
    const now = await q.targets.confirm(entry.file, label);
    if (!sameTarget(now, cur.target)) throw new ToolError('conflict', `Cannot revert ${label}: ${entry.file} was replaced meanwhile; nothing was removed.`);
    await q.targets.remove(entry.file, now, label);
    await q.drop(entry.id, true);
    return { status: 'ok', reverted: entry.id, file: entry.file, action: 'deleted' };
  }
  const removed = await entry.loadRemoved();
  const splice = { offset: where.offset, removed, insertedLength: entry.inserted_length };
  const next = applyInverse(cur.bytes, splice);
  const inserted = Buffer.from(cur.bytes.subarray(where.offset, where.offset + entry.inserted_length));
  // the moment of writing: resolved again, and still the file that was read (the store checks the mtime too)
  const now = await q.targets.confirm(entry.file, label);
  if (!sameTarget(now, cur.target)) throw new ToolError('conflict', `Cannot revert ${label}: ${entry.file} was replaced meanwhile; nothing was written.`);
  await q.files.write(entry.file, next, { expectedMtimeMs: cur.mtimeMs, expectedContent: cur.bytes });
  const rec = await q.record({
    tool: 'be-trx',
    file: entry.file,
    summary: `revert of ${entry.id} (${entry.summary})`,
    created: false,
    offset: where.offset,
    removed: inserted,
    insertedLength: removed.length,
    afterHash: sha256Hex(next),
    afterSize: next.length,
  });
  await q.drop(entry.id, true);
  return { status: 'ok', reverted: entry.id, file: entry.file, action: 'restored', event_id: rec.id };
}

/**
 * Accepts edit `id` and the older recorded edits of its file: their snapshots are forgotten, the file is not
 * touched. The older ones go too because each snapshot is checked against the bytes the next one started from:
 * without the kept one between them they could never be undone again, only refused.
 */
export async function keepEdit(q: QueueAccess, id: string): Promise<{ status: 'ok'; kept: string[] }> {
  const { entry } = find(q, id);
  const kept = q.entries.filter((e) => e.file === entry.file && e.seq <= entry.seq).map((e) => e.id);
  for (const k of kept) await q.drop(k);
  return { status: 'ok', kept };
}

/** Newest first: the ids of `session`'s edits (for "Revert session": each reverted in turn, newest first). */
export function sessionEdits(q: QueueAccess, session: string): string[] {
  return q.entries.filter((e) => e.session === session).map((e) => e.id).reverse();
}

export interface LineSpan {
  id: string;
  /** 1-based, inclusive; end < start for an edit that only deleted (a marker between lines) */
  startLine: number;
  endLine: number;
}

/** Where each recorded edit of `file` stands in `current` (its bytes now), for gutter marks; [] when they no longer line up. */
export function currentSpans(q: QueueAccess, file: string, current: Uint8Array): LineSpan[] {
  const mine = q.entries.filter((e) => e.file === file);
  const newest = mine[mine.length - 1];
  if (!newest || sha256Hex(current) !== newest.after_hash) return [];
  const spans: LineSpan[] = [];
  mine.forEach((e, i) => {
    const at = rebase(e, mine.slice(i + 1));
    if (!('offset' in at)) return;
    const startLine = lineAtByte(current, at.offset);
    const endLine = e.inserted_length === 0 ? startLine - 1 : lineAtByte(current, at.offset + e.inserted_length - 1);
    spans.push({ id: e.id, startLine, endLine });
  });
  return spans;
}

/**
 * Who made the content a write just found changed: the recorded edit that left the file as it is now (`current`),
 * named with its session, or a note that no edit through these tools did. Appended to a conflict's message.
 */
export function whoChanged(q: QueueAccess, file: string, current: Uint8Array | undefined): string {
  const hash = current ? sha256Hex(current) : undefined;
  const last = [...q.entries].reverse().find((e) => e.file === file && e.after_hash === hash);
  if (!last) return ' No edit recorded through these tools explains the change (an editor, git or another program made it).';
  const self = q.author && last.session === q.author.session ? ' (this same session, in a call that ran meanwhile)' : '';
  return ` It was changed by ${last.session ? describeAuthor(last) : 'an unnamed session'}${self}: ${last.tool}, ${last.summary} at ${new Date(last.created_ms).toISOString()} (edit ${last.id}).`;
}

const EXPLAIN_TRIES = 5;
const EXPLAIN_WAIT_MS = 20;

/**
 * A write's conflict with the author named: the other server records its edit just after its write, so a
 * conflict seen in between waits for that record a little (at most EXPLAIN_TRIES x EXPLAIN_WAIT_MS).
 */
export async function explainConflict(
  withQueue: <T>(fn: (q: QueueAccess) => Promise<T>) => Promise<T>,
  err: unknown,
  file: string,
): Promise<unknown> {
  if (!isToolError(err) || err.code !== 'conflict') return err;
  let note = '';
  for (let i = 0; i < EXPLAIN_TRIES; i++) {
    const found = await withQueue(async (q) => {
      const current = await q.files.read(file).then((c) => c.bytes, () => undefined);
      note = whoChanged(q, file, current);
      return !note.startsWith(' No edit');
    }).catch(() => false);
    if (found) break;
    await new Promise((r) => setTimeout(r, EXPLAIN_WAIT_MS));
  }
  return note ? new ToolError('conflict', err.message + note, err.details) : err;
}

/**
 * A stale viewed_code_id refused because the file's content changed since it was read (the guard's conflict that
 * carries `details.viewed`), with the session that changed it named; any other error (an unknown id, lines outside
 * the read) as it is, since no edit explains it.
 */
export async function explainStaleRead(history: Pick<EditHistory, 'explainConflict'> | undefined, err: unknown, file: string): Promise<unknown> {
  const changed = isToolError(err) && err.code === 'conflict' && typeof err.details === 'object' && err.details !== null && 'viewed' in err.details;
  return changed ? ((await history?.explainConflict?.(err, file)) ?? err) : err;
}

/** be-trx keep / revert: one edit by `id`, or (revert) all of a `session`'s edits, newest first, stopping at a refusal. */
export async function reviewAction(q: QueueAccess, args: { action: 'keep' | 'revert'; id?: string; session?: string }): Promise<object> {
  if (args.action === 'keep') {
    if (!args.id) throw new ToolError('invalid_argument', 'be-trx keep needs `id`: the event_id of the edit to keep (be-trx status lists them).');
    return keepEdit(q, args.id);
  }
  if (args.id) return revertEdit(q, args.id);
  if (!args.session) {
    throw new ToolError('invalid_argument', 'be-trx revert needs `id` (one edit\'s event_id) or `session` (all edits of that session); be-trx status lists both.');
  }
  const ids = sessionEdits(q, args.session);
  if (ids.length === 0) throw new ToolError('not_found', `No recorded edit of session ${args.session} in this workspace's history.`);
  const reverted: string[] = [];
  for (const id of ids) {
    try {
      // each revert changes the queue: look the entries up again through a fresh view of it
      await revertEdit(q, id);
      reverted.push(id);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return { status: 'partial', reverted, errors: [why] };
    }
  }
  return { status: 'ok', reverted };
}

/** Edits by other sessions on files that `me` edited too, newest first (none when the caller is unknown). */
export function otherSessions(
  entries: readonly { id: string; file: string; summary: string; session?: string; client?: string; created_ms: number }[],
  me: { session: string } | undefined,
): { other_sessions?: OtherSessionEdit[] } {
  if (!me) return {};
  const mine = new Set(entries.filter((e) => e.session === me.session).map((e) => e.file));
  const others = entries
    .filter((e) => e.session !== me.session && mine.has(e.file))
    .map((e) => ({ id: e.id, file: e.file, summary: e.summary, by: e.session ? describeAuthor(e) : 'an unnamed session', created_ms: e.created_ms }))
    .reverse();
  return others.length ? { other_sessions: others } : {};
}
