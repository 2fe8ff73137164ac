/**
 * The edits a be-trx rollback or revert undid, from the landed-edit log (landedLog.ts: one line per landed edit,
 * one per undo), for `recap`: an undone edit of this session is shown as rolled back, and any session's undo marks
 * the files it put back as changed for the symbols read between the edit and its undo. The log's reader of
 * landed edits leaves undone ones out; this one takes the same checked lines (readLoggedLines) for them.
 */
import * as path from 'node:path';
import { workspaceKey } from '../core/files/workspaceKey';
import { isInside } from '../core/files/ports';
import { readLoggedLines, type LoggedEdit } from '../core/history/node/landedLog';
import type { UndoneEdit } from '../core/memory/recapUndo';

/**
 * The edits of the workspace of `roots` that the log says were undone, in the order of their undo, each with when
 * it landed and when it was undone; `file` relative to its root. An undo whose edit's line is gone (trimmed) is
 * left out: its file is unknown.
 */
export async function readUndoneEdits(dir: string, roots: readonly string[]): Promise<UndoneEdit[]> {
  const landed = new Map<string, LoggedEdit>();
  const out: UndoneEdit[] = [];
  for (const line of await readLoggedLines(dir, workspaceKey(roots), roots)) {
    if ('edit' in line) {
      landed.set(line.edit.id, line.edit);
      continue;
    }
    const e = landed.get(line.undone);
    landed.delete(line.undone);
    if (!e) continue;
    const root = roots.find((r) => isInside(r, e.file));
    if (root === undefined) continue;
    const { seq: _seq, file, ...rest } = e;
    out.push({ ...rest, file: path.relative(root, file).split(path.sep).join('/'), undoneAt: line.time });
  }
  return out;
}
