/**
 * Who owns a lock or a temp file, and whether that owner still runs. A pid alone is not enough: after a crash
 * (or a reboot) the pid can belong to an unrelated process, so on Linux the owner is pid + the process start time
 * (field 22 of /proc/<pid>/stat, clock ticks since boot); elsewhere it is the pid only.
 */
import { promises as fsp, readFileSync } from 'node:fs';

export interface ProcessOwner {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux); 0 when unknown. */
  start: number;
}

/** The start-time field of a /proc/<pid>/stat line (the command name in parentheses may hold spaces). */
export function parseStartTime(statLine: string): number {
  const fields = statLine.slice(statLine.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]); // field 22 overall; the fields after ") " start at field 3
  return Number.isSafeInteger(start) ? start : 0;
}

let self: ProcessOwner | undefined;

/** This process. Read once (a few bytes of /proc), so later calls cost nothing. */
export function currentOwner(): ProcessOwner {
  if (self) return self;
  let start = 0;
  if (process.platform === 'linux') {
    try {
      start = parseStartTime(readFileSync('/proc/self/stat', 'utf8'));
    } catch {
      start = 0;
    }
  }
  self = { pid: process.pid, start };
  return self;
}

/** False only when we know the owner is gone: no such pid, or the pid now belongs to a process started later. */
export async function isOwnerAlive(owner: ProcessOwner): Promise<boolean> {
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return false;
  if (owner.pid === process.pid) return owner.start === 0 || owner.start === currentOwner().start;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to another user
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (process.platform !== 'linux') return true;
  let stat: string;
  try {
    stat = await fsp.readFile(`/proc/${owner.pid}/stat`, 'utf8');
  } catch {
    return false; // exited between the two checks
  }
  // a killed process nobody has reaped yet (a zombie) holds its pid but will never release anything
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  if (state === 'Z' || state === 'X') return false;
  return owner.start === 0 || parseStartTime(stat) === owner.start;
}
