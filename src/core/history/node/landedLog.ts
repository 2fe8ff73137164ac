/**
 * The landed-edit log: one JSON line per edit that landed (file, tool, author, time, seq; never file contents)
 * and one per edit a rollback or revert undid, in `landed.jsonl` next to the snapshots. Unlike the snapshots it
 * outlives be-trx commit and the step cap, so `recap` can still say which files other sessions changed.
 * Writing is one append without fsync: the edit itself is durable and this log is a hint, so a crash may lose
 * its last lines. Past MAX_LOG_BYTES the file is rewritten with its last MAX_ENTRIES lines (a concurrent
 * append from another process during that rewrite may be lost: best effort). Read as untrusted input.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../files/atomicWrite';
import { poolCalls, type FsCalls, type Handle } from '../../files/fsCalls';
import { READ_FLAGS } from '../../files/regularFile';
import { isInside } from '../../files/ports';

export const LANDED_LOG = 'landed.jsonl';
/** Entries kept when the log is trimmed. */
export const MAX_ENTRIES = 500;
/** The log is trimmed once it grows past this (≈ 2 × MAX_ENTRIES lines of metadata). */
const MAX_LOG_BYTES = 256 * 1024;
/** At most this much of the log's end is read; a longer line is skipped as planted. */
const MAX_READ_BYTES = 1024 * 1024;
const MAX_LINE = 4096;

export type LandedLine =
  | { ws: string; id: string; seq: number; file: string; tool: string; session?: string; client?: string; group?: string; t: number }
  | { ws: string; undone: string; t: number };

/** The log's path, when it exists, must be a regular file: O_NOFOLLOW refuses a link, fstat a FIFO or device. */
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export async function appendLanded(dir: string, lines: readonly LandedLine[]): Promise<void> {
  if (lines.length === 0) return;
  const p = path.join(dir, LANDED_LOG);
  const fh = await fs.open(p, APPEND_FLAGS, 0o600);
  let size: number;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new Error(`${LANDED_LOG} is not a regular file`);
    await fh.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    size = st.size;
  } finally {
    await fh.close();
  }
  if (size > MAX_LOG_BYTES) await trim(p);
}

/** An appender's descriptor is closed after this long without an append (a store left behind keeps none open). */
const IDLE_CLOSE_MS = 10_000;

/**
 * Appends to one folder's log through a descriptor kept open between edits: an append is a write and a stat (the
 * size, for the trim; the link count, for a log replaced or removed since, by a trim here or in another process:
 * then the line went to the old file, and is written again to the log now at the name). appendLanded opens and
 * closes the log each time, four calls in place of two. Where a replaced file's link count cannot be trusted to
 * drop (Windows), each append opens the log afresh, as appendLanded does.
 */
export class LandedLogAppender {
  private fh: Promise<Handle> | undefined;
  /** How the log is opened, written and looked at (fsCalls.ts): the history store's, from its folder's file system. */
  calls: FsCalls = poolCalls;
  private queue: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private readonly keep = process.platform !== 'win32';

  constructor(private readonly dir: string) {}

  /** Appends in call order (a failure is the caller's, and leaves no descriptor open). */
  append(lines: readonly LandedLine[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    if (!this.keep) return appendLanded(this.dir, lines);
    const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    const run = this.queue.then(() => this.appendText(text));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Closes the descriptor (the next append opens the log again). */
  close(): Promise<void> {
    const run = this.queue.then(() => this.drop());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async appendText(text: string): Promise<void> {
    try {
      let st = await this.writeTo(await this.handle(), text);
      if (st.nlink === 0) {
        await this.drop();
        st = await this.writeTo(await this.handle(), text);
      }
      if (st.size > MAX_LOG_BYTES) {
        await this.drop();
        await trim(path.join(this.dir, LANDED_LOG));
      }
    } catch (e) {
      await this.drop();
      throw e;
    }
    this.idle ??= setTimeout(() => void this.close(), IDLE_CLOSE_MS).unref();
    this.idle.refresh();
  }

  private async writeTo(fh: Handle, text: string): Promise<{ nlink: number; size: number }> {
    // O_APPEND: at the end, whatever the position
    const bytes = Buffer.from(text);
    await fh.write(bytes, 0, bytes.length);
    return fh.stat();
  }

  /** The log, opened as appendLanded opens it: no link followed, a regular file only. */
  private handle(): Promise<Handle> {
    this.fh ??= (async () => {
      const fh = await this.calls.open(path.join(this.dir, LANDED_LOG), APPEND_FLAGS, 0o600);
      const st = await fh.stat().catch(async (e: unknown) => {
        await fh.close();
        throw e;
      });
      if (!st.isFile()) {
        await fh.close();
        throw new Error(`${LANDED_LOG} is not a regular file`);
      }
      return fh;
    })();
    const opening = this.fh;
    opening.catch(() => (this.fh === opening ? (this.fh = undefined) : undefined));
    return opening;
  }

  private async drop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const fh = this.fh;
    this.fh = undefined;
    await (await fh?.catch(() => undefined))?.close().catch(() => undefined);
  }
}

async function trim(p: string): Promise<void> {
  const lines = (await readTail(p)).split('\n').filter((l) => l !== '' && l.length <= MAX_LINE).slice(-MAX_ENTRIES);
  // at most half the trigger size too, so long lines cannot make every later append a rewrite
  let bytes = 0;
  let from = lines.length;
  while (from > 0 && bytes + lines[from - 1]!.length + 1 <= MAX_LOG_BYTES / 2) bytes += lines[--from]!.length + 1;
  await writeFileAtomic(p, `${lines.slice(from).join('\n')}\n`, { mode: 0o600, fsync: false });
}

/** The last MAX_READ_BYTES of the log, as text; '' when it is missing or not a regular file. */
async function readTail(p: string): Promise<string> {
  const before = await fs.lstat(p).catch(() => undefined);
  if (!before?.isFile()) return '';
  const fh = await fs.open(p, READ_FLAGS).catch(() => undefined);
  if (!fh) return '';
  try {
    const st = await fh.stat();
    if (!st.isFile()) return '';
    const len = Math.min(st.size, MAX_READ_BYTES);
    const buf = Buffer.alloc(len);
    let off = 0;
    while (off < len) {
      const { bytesRead } = await fh.read(buf, off, len - off, st.size - len + off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    const text = buf.subarray(0, off).toString('utf8');
    // a cut first line is dropped whole
    return len < st.size ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

export interface LoggedEdit {
  /** The snapshot's event id (be-trx keep/revert take it). */
  id: string;
  seq: number;
  /** One be-apply batch: its snapshots share it and are one be-trx step. */
  group?: string;
  /** Absolute, inside one of the roots. */
  file: string;
  tool: string;
  session?: string;
  client?: string;
  time: number;
}

const str = (v: unknown, max = 1024): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** One line of the log, checked: a landed edit, or the undo of one (by its id). */
export type LoggedLine = { edit: LoggedEdit } | { undone: string; time: number };

/**
 * The lines the log holds for workspace `key` (files inside `roots` only), oldest first. The log is untrusted
 * input: it is read as a regular file only (no link followed, no FIFO waited on), its last MAX_READ_BYTES at most,
 * and malformed, foreign or outside lines are skipped.
 */
export async function readLoggedLines(dir: string, key: string, roots: readonly string[]): Promise<LoggedLine[]> {
  const text = await readTail(path.join(dir, LANDED_LOG));
  const out: LoggedLine[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.length > MAX_LINE) continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof v !== 'object' || v === null || v.ws !== key || !num(v.t)) continue;
    if (str(v.undone, 64)) {
      out.push({ undone: v.undone, time: v.t });
      continue;
    }
    if (!str(v.id, 64) || !num(v.seq) || !str(v.tool, 64) || !str(v.file, 4096)) continue;
    const file = v.file;
    if (!path.isAbsolute(file) || !roots.some((r) => isInside(r, file))) continue;
    out.push({
      edit: {
        id: v.id,
        seq: v.seq,
        ...(str(v.group, 64) ? { group: v.group } : {}),
        file,
        tool: v.tool,
        ...(str(v.session, 256) ? { session: v.session } : {}),
        ...(str(v.client, 256) ? { client: v.client } : {}),
        time: v.t,
      },
    });
  }
  return out;
}

/**
 * The landed edits the log holds for workspace `key` (files inside `roots` only), oldest first, without the
 * ones a later line says were undone.
 */
export async function readLandedLog(dir: string, key: string, roots: readonly string[]): Promise<LoggedEdit[]> {
  const lines = await readLoggedLines(dir, key, roots);
  const undone = new Set(lines.flatMap((l) => ('undone' in l ? [l.undone] : [])));
  return lines.flatMap((l) => ('edit' in l && !undone.has(l.edit.id) ? [l.edit] : []));
}
