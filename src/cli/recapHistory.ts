/**
 * The be-trx history of a workspace as `recap` reads it: who landed which edit (session and client), read only
 * (no lock, no prune, no write: a hook must not change the state it reports). Every record is parsed and checked
 * like the store's own restore (parseSnapshots); a corrupt, foreign-workspace or non-regular file is skipped.
 * What the history holds is what is still open: a commit forgets every record, a rollback or keep the ones it closes.
 * The landed-edit log next to it (landedLog.ts) remembers past those which edits landed, for "who changed what".
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { workspaceKey } from '../core/files/workspaceKey';
import { readRegularFile } from '../core/files/regularFile';
import { isInside } from '../core/files/ports';
import { FILE_PATTERN, parseSnapshots } from '../core/history/snapshotFile';
import { readLandedLog, type LoggedEdit } from '../core/history/node/landedLog';
import type { OpenStep } from '../core/memory/sessionRecap';

/**
 * A landed edit as the recap shows it: the log's record (landedLog.ts) without its sequence number, its `file`
 * relative to the root it lies in (absolute when outside every root).
 */
export type LandedEdit = Omit<LoggedEdit, 'seq'>;

/** At most this many records are read (the store keeps 30 steps by default; a batch step can hold more). */
const MAX_RECORDS = 500;

/** Edits recorded in `dir` for the workspace of `roots`, oldest first; [] when the directory is missing. */
export async function readLandedEdits(dir: string, roots: readonly string[]): Promise<LandedEdit[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const present = new Set(names);
  const key = workspaceKey(roots);
  const out: LandedEdit[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort().slice(-MAX_RECORDS)) {
    const m = FILE_PATTERN.exec(name);
    if (!m) continue;
    let text: string;
    try {
      text = (await readRegularFile(path.join(dir, name))).toString('utf8');
    } catch {
      continue;
    }
    const entries = parseSnapshots(name, m[2]!, Number(m[1]), text, present);
    if (typeof entries === 'string') continue;
    for (const { meta } of entries) {
      const ours = meta.workspace !== undefined ? meta.workspace === key : roots.some((r) => isInside(r, meta.file));
      if (!ours) continue;
      const root = roots.find((r) => isInside(r, meta.file));
      out.push({
        id: meta.id,
        ...(meta.group !== undefined ? { group: meta.group } : {}),
        file: root ? path.relative(root, meta.file).split(path.sep).join('/') : meta.file,
        tool: meta.tool,
        ...(meta.session !== undefined ? { session: meta.session } : {}),
        ...(meta.client !== undefined ? { client: meta.client } : {}),
        time: meta.created_ms ?? meta.created_at * 1000,
      });
    }
  }
  return out;
}

/** The open be-trx steps among `landed` (oldest first): a batch's snapshots are one step, named by its first id. */
export function openSteps(landed: readonly LandedEdit[]): OpenStep[] {
  const steps: OpenStep[] = [];
  const byGroup = new Map<string, OpenStep>();
  for (const e of landed) {
    const same = e.group !== undefined ? byGroup.get(e.group) : undefined;
    if (same) {
      if (!same.files.includes(e.file)) same.files.push(e.file);
      continue;
    }
    const step: OpenStep = { id: e.id, tool: e.tool, files: [e.file], ...(e.session !== undefined ? { session: e.session } : {}), ...(e.client !== undefined ? { client: e.client } : {}), time: e.time };
    if (e.group !== undefined) byGroup.set(e.group, step);
    steps.push(step);
  }
  return steps;
}

/**
 * Every landed edit still known, oldest first: the history's records (`landed`, from readLandedEdits) and the
 * landed-edit log's, which outlive a commit and the step cap. Edits a rollback or revert undid are left out.
 */
export async function readKnownEdits(dir: string, roots: readonly string[], landed: readonly LandedEdit[]): Promise<LandedEdit[]> {
  const open = new Set(landed.map((e) => e.id));
  const logged: LandedEdit[] = (await readLandedLog(dir, workspaceKey(roots), roots))
    .filter((e) => !open.has(e.id))
    .map(({ seq: _seq, ...e }) => {
      const root = roots.find((r) => isInside(r, e.file))!;
      return { ...e, file: path.relative(root, e.file).split(path.sep).join('/') };
    });
  return [...logged, ...landed].sort((a, b) => a.time - b.time).slice(-MAX_RECORDS);
}
