/**
 * Which of a session's landed edits a be-trx rollback or revert undid since, for the recap: an undone edit is
 * shown as rolled back, never as a change that landed, and a file all of whose edits were undone is not listed as
 * changed. What was undone comes from the landed-edit log (any session's rollback; `recap` reads it) and from the
 * session's own be-trx replies (which name the snapshots they undid). The log names each edit's session, file and
 * time, but the replies of single edits name no event id: such an edit is the session's first landed call on that
 * file at or after the time its snapshot was taken (calls are recorded when they end).
 */
import { samePath, type FileChange, type UndoneByTrx } from './recapSymbols';
import type { FileReference } from './types';

/** An edit the landed-edit log says a rollback or revert undid (`file` relative to its root, as `recap` shows it). */
export interface UndoneEdit {
  id: string;
  file: string;
  tool: string;
  session?: string;
  client?: string;
  /** One be-apply batch: its snapshots share it. */
  group?: string;
  /** When it landed. */
  time: number;
  /** When it was undone. */
  undoneAt: number;
}

/** What the matching needs of an edit call (sessionRecap.ts's EditEvent). */
export interface UndoCall {
  id: string;
  tool: string;
  files: readonly FileReference[];
  status: 'ok' | 'error' | 'unknown' | 'preview';
  time: number;
  /** be-trx rollback / revert: what it undid. */
  undid?: readonly UndoneByTrx[];
  /** be-apply: its batch's event id. */
  eventId?: string;
}

export interface Undos {
  /** Per landed edit call, the paths (as the call named them) whose edit was undone. */
  byCall: Map<string, Set<string>>;
  /** Every undo known, as a change to its file (this session's and others'). */
  changes: FileChange[];
  /** Per be-trx call, the paths it put back (a matched call's path, else the log's, else as the reply said). */
  putBack: Map<string, string[]>;
}

/** A landed edit of this session the history or the log still holds, not undone. */
export interface KeptEdit {
  id: string;
  file: string;
  time: number;
  tool?: string;
  group?: string;
}

interface Fact {
  /** a landed edit of this session not undone: it only takes its call, so that an undone one takes the next */
  kept?: true;
  id: string;
  file: string;
  session?: string;
  group?: string;
  time?: number;
  undoneAt: number;
  /** the be-trx call of this session that undid it */
  by?: string;
}

/**
 * The undos of `calls` (oldest first) by the log's `undone` (undefined: not read) and the session's be-trx
 * replies. `kept`: the session's landed edits the history and log still know that were not undone; each takes
 * its own call first, so an edit of the same file recorded in the same millisecond is not taken for the undone one.
 */
export function undosOf(
  calls: readonly UndoCall[],
  sessionId: string,
  undone: readonly UndoneEdit[] | undefined,
  kept: readonly KeptEdit[] = [],
): Undos {
  // a revert's own snapshot (tool be-trx) is no edit call's
  const facts: Fact[] = [
    ...kept.filter((k) => k.tool !== 'be-trx').map((k) => ({ ...k, session: sessionId, undoneAt: Infinity, kept: true as const })),
    ...(undone ?? []).map((u) => ({ ...u })),
  ];
  const byId = new Map(facts.map((f) => [f.id, f]));
  for (const c of calls) {
    for (const u of c.tool === 'be-trx' && c.status === 'ok' ? (c.undid ?? []) : []) {
      const known = byId.get(u.id);
      if (known) known.by = c.id;
      else {
        const f: Fact = { id: u.id, file: u.file, undoneAt: c.time, by: c.id };
        facts.push(f);
        byId.set(u.id, f);
      }
    }
  }
  const order = new Map(calls.map((c, i) => [c.id, i]));
  // a call before the undo: before this session's be-trx call that undid it (the calls' order, whatever their
  // times). An undo only the log knows is not compared with the calls' times: a call is recorded once its reply
  // is counted (the first, while the tokenizer loads, can be recorded after another session's undo of it).
  const precedes = (c: UndoCall, f: Fact) => f.by === undefined || order.get(c.id)! < order.get(f.by)!;
  // landed calls by the file names they edit (oldest first): an undo is matched among those of its file only
  const landed = new Map<string, UndoCall[]>();
  for (const c of calls) {
    if (c.status !== 'ok' || c.tool === 'be-trx') continue;
    for (const name of new Set(c.files.map((r) => baseName(r.path)))) {
      const list = landed.get(name);
      if (list) list.push(c);
      else landed.set(name, [c]);
    }
  }
  const groups = new Map<string, string>();
  for (const f of facts) if (f.group !== undefined) groups.set(f.id, f.group);
  const byCall = new Map<string, Set<string>>();
  const putBack = new Map<string, string[]>();
  const changes: FileChange[] = [];
  const taken = new Map<string, Set<string>>();
  const free = (c: UndoCall, file: string) => c.files.find((r) => samePath(r.path, file) && !taken.get(c.id)?.has(r.path))?.path;
  for (const f of [...facts].sort((a, b) => (a.time ?? a.undoneAt) - (b.time ?? b.undoneAt))) {
    let call: UndoCall | undefined;
    if (f.session === undefined || f.session === sessionId) {
      // a batch by its event id (its first snapshot's, which names the group); a single edit by file and time
      const mine = landed.get(baseName(f.file)) ?? [];
      call = mine.find((c) => c.eventId !== undefined && (c.eventId === f.id || (f.group !== undefined && groups.get(c.eventId) === f.group)) && free(c, f.file));
      const fits = (c: UndoCall) => precedes(c, f) && free(c, f.file) !== undefined;
      // the first call recorded at or after the snapshot (the log's edits take theirs oldest first); without the
      // log's time (its line was trimmed, or the log not read): the newest such call before the undo
      call ??= f.time !== undefined ? mine.find((c) => c.time >= f.time! && fits(c)) : mine.findLast(fits);
    }
    const path = call ? free(call, f.file)! : f.file;
    if (call) take(taken, call.id, path);
    if (f.kept) continue;
    if (call) take(byCall, call.id, path);
    const time = f.time ?? call?.time;
    changes.push({ file: f.file, ...(time !== undefined ? { time } : {}), undoneAt: f.undoneAt });
    if (f.by !== undefined) {
      const list = putBack.get(f.by);
      if (list) list.push(path);
      else putBack.set(f.by, [path]);
    }
  }
  return { byCall, changes, putBack };
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

function take(map: Map<string, Set<string>>, id: string, path: string): void {
  const set = map.get(id) ?? new Set<string>();
  set.add(path);
  map.set(id, set);
}

/** Whether every file of a landed call was undone. */
export function allUndone(c: UndoCall, undos: Undos): boolean {
  const set = undos.byCall.get(c.id);
  return set !== undefined && c.files.every((r) => set.has(r.path));
}
