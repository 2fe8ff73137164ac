/**
 * The edits a be-trx rollback or revert undid, from the landed-edit log (landedLog.ts: one line per landed edit,
 * one per undo), for `recap`: an undone edit of this session is shown as rolled back, and any session's undo marks
 * the files it put back as changed for the symbols read between the edit and its undo. The log's own reader
 * leaves undone edits out; this one reads the same lines for them, read only, as untrusted input: a regular file
 * of bounded size (no link followed, no FIFO waited on), each line checked, foreign and outside ones skipped.
 */
import * as path from 'node:path';
import { workspaceKey } from '../core/files/workspaceKey';
import { isInside } from '../core/files/ports';
import { readStateFile } from '../core/files/stateFile';
import { LANDED_LOG } from '../core/history/node/landedLog';
import type { UndoneEdit } from '../core/memory/recapUndo';

/** A log larger than this is not read (it trims itself at a quarter of it). */
const MAX_READ_BYTES = 1024 * 1024;
const MAX_LINE = 4096;

const str = (v: unknown, max = 1024): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * The edits of the workspace of `roots` that the log says were undone, in the order of their undo, each with when
 * it landed and when it was undone; `file` relative to its root. An undo whose edit's line is gone (trimmed) is
 * left out: its file is unknown.
 */
export async function readUndoneEdits(dir: string, roots: readonly string[]): Promise<UndoneEdit[]> {
  const key = workspaceKey(roots);
  const landed = new Map<string, Omit<UndoneEdit, 'undoneAt'>>();
  const out: UndoneEdit[] = [];
  const read = await readStateFile(path.join(dir, LANDED_LOG), MAX_READ_BYTES);
  if (!read.ok) return [];
  for (const line of read.text.split('\n')) {
    if (line === '' || line.length > MAX_LINE) continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof v !== 'object' || v === null || v.ws !== key || !num(v.t)) continue;
    if (str(v.undone, 64)) {
      const e = landed.get(v.undone);
      if (e) out.push({ ...e, undoneAt: v.t });
      landed.delete(v.undone);
      continue;
    }
    if (!str(v.id, 64) || !str(v.tool, 64) || !str(v.file, 4096)) continue;
    const file = v.file;
    const root = path.isAbsolute(file) ? roots.find((r) => isInside(r, file)) : undefined;
    if (!root) continue;
    landed.set(v.id, {
      id: v.id,
      file: path.relative(root, file).split(path.sep).join('/'),
      tool: v.tool,
      ...(str(v.session, 256) ? { session: v.session } : {}),
      ...(str(v.client, 256) ? { client: v.client } : {}),
      ...(str(v.group, 64) ? { group: v.group } : {}),
      time: v.t,
    });
  }
  return out;
}
