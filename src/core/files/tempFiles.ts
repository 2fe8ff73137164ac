/**
 * Temp files of atomic writes. They sit next to their target (a rename is atomic only within one file system),
 * so a crash in the middle of a write leaves one in the workspace. Their names say whose they are,
 * `.<name>.be-<pid>-<start>-<random>.tmp`, so the next write in that folder, or the next start of a server,
 * can tell a dead owner's leftover from a live writer's work in progress and remove only the former.
 * State files (chips, snapshots, sessions) live in private directories of their own: their temps keep the
 * older `.tmp-` form (stateTempPath), which their stores sweep.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomHex } from '../util/ids';
import { OLD_TEMP_RE, STATE_TEMP_PREFIX, TEMP_RE } from './ownNames';
import { currentOwner, isOwnerAlive, type ProcessOwner } from './processIdentity';

/** Long names are shortened in the temp name so it stays under the usual 255-byte limit of a file name. */
const MAX_BASE_BYTES = 100;


/** A temp path for `target` in its folder, in the owner-recording form above (workspace files, lock records). */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), tempBaseName(path.basename(target)));
}

/**
 * A temp path for a state file (a chip, a snapshot, a saved session): `.tmp-<name>.<pid>.<random>`. The stores
 * sweep their own directories by that `.tmp-` prefix, so directory scans never mistake one for a record.
 */
export function stateTempPath(target: string): string {
  return path.join(path.dirname(target), `${STATE_TEMP_PREFIX}${path.basename(target)}.${process.pid}.${randomHex(4)}`);
}

export function tempBaseName(targetName: string, owner: ProcessOwner = currentOwner()): string {
  const base = Buffer.byteLength(targetName) > MAX_BASE_BYTES ? shorten(targetName) : targetName;
  return `.${base}.be-${owner.pid}-${owner.start.toString(36)}-${randomHex(6)}.tmp`;
}

function shorten(name: string): string {
  let out = '';
  for (const ch of name) {
    if (Buffer.byteLength(out + ch) > MAX_BASE_BYTES - 1) break;
    out += ch;
  }
  return out + '~';
}

/** The owner a temp name records, or undefined when the name is not one of ours. */
export function tempOwner(name: string): ProcessOwner | undefined {
  const m = TEMP_RE.exec(name);
  if (m) return { pid: Number(m[1]), start: parseInt(m[2], 36) };
  const old = OLD_TEMP_RE.exec(name);
  return old ? { pid: Number(old[1]), start: 0 } : undefined;
}

export interface SweepOptions {
  /** Stop after looking at this many of the folder's names (it is listed once, whole; the loop is bounded). */
  maxEntries?: number;
  /** Only temps of this (known dead) owner. */
  owner?: ProcessOwner;
  /** A dead owner whose temps are kept (a be-apply journal still needs them to finish its batch). */
  keep?: (owner: ProcessOwner) => Promise<boolean>;
  /** The folder's names, read already (a sweep of its locks reads the same list). */
  names?: readonly string[];
}

/**
 * Removes the temp files of dead owners in `dir` (not recursive). Returns how many were removed.
 * Never throws: a folder that cannot be read is simply not swept.
 * The names come from one readdir: iterating the folder's entries (opendir) cost a promise per entry, ~95 ms of the
 * first edit in a folder of 20,000 files; only a name of the temp form is looked at (lstat: regular files only).
 */
export async function sweepDeadTemps(dir: string, opts: SweepOptions = {}): Promise<number> {
  const max = opts.maxEntries ?? 20_000;
  const alive = new Map<string, boolean>();
  let removed = 0;
  let names: readonly string[];
  try {
    names = opts.names ?? (await fsp.readdir(dir));
  } catch {
    return 0;
  }
  for (let i = 0; i < names.length && i < max; i++) {
    const name = names[i];
    const owner = tempOwner(name);
    if (!owner) continue;
    if (opts.owner && (owner.pid !== opts.owner.pid || (owner.start !== 0 && opts.owner.start !== 0 && owner.start !== opts.owner.start))) continue;
    const key = `${owner.pid}-${owner.start}`;
    let live = alive.get(key);
    if (live === undefined) {
      live = opts.owner ? false : await isOwnerAlive(owner);
      if (!live && opts.keep) live = await opts.keep(owner).catch(() => true);
      alive.set(key, live);
    }
    if (live) continue;
    const file = path.join(dir, name);
    try {
      // a folder or a link named like a temp is not one of ours
      if (!(await fsp.lstat(file)).isFile()) continue;
      await fsp.unlink(file);
      removed++;
    } catch {
      // gone already (another server swept it), or not ours to remove
    }
  }
  return removed;
}
