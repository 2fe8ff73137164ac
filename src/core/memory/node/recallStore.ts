/**
 * Recall: every message that leaves a session's window stays retrievable by its id. Fingerprints keep names,
 * not text; this store keeps the text. One append-only JSON-lines file per session in a private directory
 * (0700, files 0600), bounded per session (oldest entries dropped first when it outgrows its cap) and in
 * number of sessions (those the registry no longer holds are deleted).
 *
 * The store watches the registry's change events: `added` carries the message objects, `evicted` the ids, so
 * it keeps a map id → message of each window (references to the window's own objects, no copies) and writes
 * a message when it leaves. Nothing in ChatMemory changes for it.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { errnoCode } from '../../errors';
import { writeFileAtomic } from '../../files/atomicWrite';
import { readStateFile, readStateRange } from '../../files/stateFile';
import { fileKind } from '../../files/regularFile';
import { systemClock, type Clock } from '../../clock';
import type { Disposable } from '../../emitter';
import type { MemoryRegistry, SessionChange } from './registry';
import type { FileReference, MemoryMessage, MessageKind, Role } from '../types';
import { declaredIn, declaredInEdit, eventIdIn, PREVIEW_ARG, undoneByTrx, type Declared, type UndoneByTrx } from '../recapSymbols';

export interface RecalledMessage {
  id: string;
  kind: MessageKind;
  role: Role;
  tool?: string;
  status?: 'ok' | 'error';
  pairId?: string;
  group?: string;
  references: FileReference[];
  tokens: number;
  time: number;
  evictedAt: number;
  content: string;
}

export interface RecallStoreOptions {
  dir: string;
  /** Bytes kept per session (default 8 MiB: a few thousand evicted tool results of the recorder's 8,000 characters). */
  maxSessionBytes?: number;
  clock?: Clock;
  onError?: (err: unknown) => void;
}

export const DEFAULT_RECALL_SESSION_BYTES = 8 * 1024 * 1024;
const SUFFIX = '.recall.jsonl';
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export function recallFileName(sessionId: string): string {
  return `${Buffer.from(sessionId, 'utf8').toString('base64url')}${SUFFIX}`;
}

interface SessionArchive {
  /** The window's messages, by id (the objects ChatMemory holds). */
  live: Map<string, MemoryMessage>;
  /** Tool call ↔ result links as they entered (ChatMemory unlinks a pair while evicting it, before the event). */
  pairs: Map<string, string>;
  /** Lines not yet on disk. */
  pending: string[];
  /** Size of the archive file once known (undefined until the first write or read). */
  bytes: number | undefined;
  /**
   * Where each id's newest line is in the file (built by the first recall that reads the file whole, then kept
   * by appends and compactions): a recall reads one line, not the whole archive. Undefined: not built, or dropped
   * because the file changed under us.
   */
  index: Map<string, LineSpan> | undefined;
  writing: Promise<void>;
}

/** A line of the archive file: its first byte and its length in bytes, the line break not counted. */
interface LineSpan {
  offset: number;
  bytes: number;
}

export class RecallStore {
  private readonly sessions = new Map<string, SessionArchive>();
  private readonly clock: Clock;
  private readonly maxBytes: number;
  private subscription: Disposable[] = [];

  constructor(private readonly options: RecallStoreOptions) {
    this.clock = options.clock ?? systemClock;
    this.maxBytes = options.maxSessionBytes ?? DEFAULT_RECALL_SESSION_BYTES;
  }

  get dir(): string {
    return this.options.dir;
  }

  /**
   * Starts archiving the registry's evictions at once; deletes archives of sessions the registry no longer has, once
   * it has restored its saved ones (before that, every saved session's archive would look abandoned).
   */
  async attach(registry: MemoryRegistry): Promise<Disposable> {
    for (const id of registry.sessionIds()) this.archiveOf(id, registry);
    this.subscription.push(
      registry.onDidChange((e) => this.onChange(e, registry)),
      registry.onDidChangeSessions(() => void registry.restored.then(() => this.prune(registry.sessionIds()))),
    );
    await registry.restored;
    await this.prune(registry.sessionIds());
    return { dispose: () => this.dispose() };
  }

  dispose(): void {
    for (const d of this.subscription.splice(0)) d.dispose();
  }

  /** The evicted message `id` of the session, in full; undefined when it was never evicted or no longer kept. */
  async recall(sessionId: string, id: string): Promise<RecalledMessage | undefined> {
    const archive = this.sessions.get(sessionId);
    if (!archive) return this.recallOnDisk(sessionId, undefined, id);
    for (let i = archive.pending.length - 1; i >= 0; i--) {
      const hit = parseIf(archive.pending[i]!, id);
      if (hit) return hit;
    }
    // In line with the writes: the index and the file's size move together.
    let hit: RecalledMessage | undefined;
    archive.writing = archive.writing
      .then(async () => {
        hit = await this.recallOnDisk(sessionId, archive, id);
      })
      .catch((err) => this.options.onError?.(err));
    await archive.writing;
    return hit;
  }

  private async recallOnDisk(sessionId: string, archive: SessionArchive | undefined, id: string): Promise<RecalledMessage | undefined> {
    if (archive?.index) {
      const hit = await this.recallIndexed(sessionId, archive, archive.index, id);
      if (hit !== 'stale') return hit;
      archive.index = undefined;
    }
    const read = await readStateFile(this.fileOf(sessionId), this.maxBytes * 2);
    if (!read.ok) {
      if (read.kind !== 'missing') this.options.onError?.(new Error(`recall archive of ${sessionId}: ${read.reason}`));
      return undefined;
    }
    const lines = read.text.split('\n');
    if (archive) {
      archive.index = indexOf(lines);
      archive.bytes = read.bytes;
    }
    // Newest first: an id evicted, restored by hand and evicted again answers with its last text.
    for (let i = lines.length - 1; i >= 0; i--) {
      const hit = parseIf(lines[i]!, id);
      if (hit) return hit;
    }
    return undefined;
  }

  /**
   * The line the index names, checked (it must be the id's whole line); 'stale' when the file no longer matches
   * the index: another process wrote it, or someone edited it. A miss is a miss only while the file has the size
   * the index covers.
   */
  private async recallIndexed(sessionId: string, archive: SessionArchive, index: Map<string, LineSpan>, id: string): Promise<RecalledMessage | undefined | 'stale'> {
    const file = this.fileOf(sessionId);
    const span = index.get(id);
    if (!span) return (await sizeOf(file).catch(() => -1)) === archive.bytes ? undefined : 'stale';
    const read = await readStateRange(file, span.offset, span.bytes + 1);
    if (!read.ok || read.bytes !== span.bytes + 1 || !read.text.endsWith('\n')) return 'stale';
    return parseIf(read.text.slice(0, -1), id) ?? 'stale';
  }

  /** The archived tool calls of a session with their results' status, oldest first: the durable artifact trail. */
  async trail(sessionId: string): Promise<TrailEntry[]> {
    const archive = this.sessions.get(sessionId);
    if (archive) await this.write(sessionId, archive);
    return readTrail(this.fileOf(sessionId), this.maxBytes * 2);
  }

  /** Writes everything pending. */
  async flush(): Promise<void> {
    await Promise.all([...this.sessions.entries()].map(([id, a]) => this.write(id, a)));
  }

  private fileOf(sessionId: string): string {
    return path.join(this.options.dir, recallFileName(sessionId));
  }

  private archiveOf(sessionId: string, registry?: MemoryRegistry): SessionArchive {
    let archive = this.sessions.get(sessionId);
    if (!archive) {
      archive = { live: new Map(), pairs: new Map(), pending: [], bytes: undefined, index: undefined, writing: Promise.resolve() };
      // A session restored from disk: its window is known now, its earlier evictions are already on disk.
      for (const m of registry?.peek(sessionId)?.visibleMessages() ?? []) this.track(archive, m);
      this.sessions.set(sessionId, archive);
    }
    return archive;
  }

  private onChange({ sessionId, change }: SessionChange, registry: MemoryRegistry): void {
    const archive = this.archiveOf(sessionId, registry);
    if (change.cleared) {
      archive.live.clear();
      archive.pairs.clear();
    }
    for (const m of change.added ?? []) this.track(archive, m);
    if (!change.evicted?.length) return;
    const evictedAt = this.clock.now();
    for (const id of change.evicted) {
      const m = archive.live.get(id);
      if (!m) continue;
      archive.live.delete(id);
      archive.pending.push(JSON.stringify(recordOf(m, evictedAt, archive.pairs.get(id))));
      archive.pairs.delete(id);
    }
    void this.write(sessionId, archive);
  }

  private track(archive: SessionArchive, m: MemoryMessage): void {
    archive.live.set(m.id, m);
    if (m.pairId !== undefined) {
      archive.pairs.set(m.id, m.pairId);
      archive.pairs.set(m.pairId, m.id);
    }
  }

  private write(sessionId: string, archive: SessionArchive): Promise<void> {
    archive.writing = archive.writing
      .then(async () => {
        if (archive.pending.length === 0) return;
        const lines = archive.pending.splice(0);
        const data = lines.map((l) => `${l}\n`).join('');
        await fs.mkdir(this.options.dir, { recursive: true, mode: 0o700 });
        const file = this.fileOf(sessionId);
        archive.bytes ??= await sizeOf(file);
        if (archive.bytes + Buffer.byteLength(data) > this.maxBytes) {
          const kept = await this.compact(file, data);
          archive.bytes = kept.bytes;
          archive.index = indexOf(kept.lines);
          return;
        }
        const known = archive.bytes;
        const { before, start } = await appendRegular(file, data);
        archive.bytes = start + Buffer.byteLength(data);
        // Someone else wrote the file since: the index no longer knows it (the next recall reads it whole).
        archive.index = archive.index && before === known ? indexOf(lines, archive.index, start) : undefined;
      })
      .catch((err) => this.options.onError?.(err));
    return archive.writing;
  }

  /** Keeps the newest lines (old file + new data) within half the cap; returns them and the new size. */
  private async compact(file: string, data: string): Promise<{ lines: string[]; bytes: number }> {
    const read = await readStateFile(file, this.maxBytes * 2);
    const old = read.ok ? read.text : '';
    const lines = (old + data).split('\n').filter((l) => l.length > 0);
    const kept: string[] = [];
    let bytes = 0;
    for (let i = lines.length - 1; i >= 0; i--) {
      const size = Buffer.byteLength(lines[i]!) + 1;
      if (bytes + size > this.maxBytes / 2 && kept.length > 0) break;
      kept.push(lines[i]!);
      bytes += size;
    }
    const text = kept.reverse().map((l) => `${l}\n`).join('');
    await writeFileAtomic(file, text, { mode: 0o600, fsync: false });
    return { lines: kept, bytes };
  }

  private async prune(liveIds: readonly string[]): Promise<void> {
    const keep = new Set(liveIds.map(recallFileName));
    let names: string[];
    try {
      names = (await fs.readdir(this.options.dir)).filter((n) => n.endsWith(SUFFIX));
    } catch {
      return;
    }
    for (const name of names) {
      if (!keep.has(name)) await fs.rm(path.join(this.options.dir, name), { force: true }).catch((e) => this.options.onError?.(e));
    }
    for (const id of [...this.sessions.keys()]) if (!liveIds.includes(id)) this.sessions.delete(id);
  }
}

export interface TrailEntry {
  id: string;
  tool: string;
  references: FileReference[];
  status: 'ok' | 'error' | 'unknown';
  /** The result's id (recall it for the outcome's text). */
  resultId?: string;
  time: number;
  /** be-trx: the action its arguments named. */
  action?: string;
  /** The call asked for a preview only (nothing is written whatever its status). */
  preview?: true;
  /** A be-trx rollback or revert: the edits it undid (the files it put back). */
  undid?: UndoneByTrx[];
  /** A be-apply that landed: its batch's event id. */
  eventId?: string;
  /** A be-read that answered or an edit that landed: the top-level declarations it showed (recapSymbols.ts). */
  symbols?: { declared: Declared[]; full: boolean };
}

/** Tool calls in an archive file (its lines' headers; contents are not kept), each with its result's status. */
export async function readTrail(file: string, maxBytes = DEFAULT_RECALL_SESSION_BYTES * 2): Promise<TrailEntry[]> {
  const read = await readStateFile(file, maxBytes);
  if (!read.ok) return [];
  const calls = new Map<string, TrailEntry>();
  const results = new Map<string, { id: string; status: 'ok' | 'error' | 'unknown'; symbols?: TrailEntry['symbols']; undid?: UndoneByTrx[]; eventId?: string }>();
  const written = new Map<string, Declared[]>();
  for (const line of read.text.split('\n')) {
    if (!line.startsWith('{"id":')) continue;
    let r: RecalledMessage;
    try {
      r = JSON.parse(line) as RecalledMessage;
    } catch {
      continue;
    }
    if (r.kind === 'tool_call' && r.tool) {
      const preview = typeof r.content === 'string' && PREVIEW_ARG.test(r.content);
      const action = r.tool === 'be-trx' && typeof r.content === 'string' ? /"action":"(\w+)"/.exec(r.content)?.[1] : undefined;
      calls.set(r.id, { id: r.id, tool: r.tool, references: r.references ?? [], status: 'unknown', time: r.time, ...(preview ? { preview: true as const } : {}), ...(action ? { action } : {}) });
      const declared = typeof r.content === 'string' ? declaredInEdit(r.tool, r.content) : undefined;
      if (declared?.length) written.set(r.id, declared);
    }
    else if (r.kind === 'tool_result' && r.pairId) {
      // a call is written before its result (they leave the window together)
      const ok = r.status !== 'error';
      // symbols an edit wrote count only for an edit known to have landed (as in the window)
      const wrote = r.status === 'ok' ? written.get(r.pairId) : undefined;
      const read = ok && r.tool === 'be-read' && typeof r.content === 'string' ? declaredIn(r.content, calls.get(r.pairId)?.references[0]?.all === true) : undefined;
      const symbols = wrote ? { declared: wrote, full: false } : read;
      const undid = ok && r.tool === 'be-trx' && typeof r.content === 'string' ? undoneByTrx(r.content) : undefined;
      const eventId = ok && r.tool === 'be-apply' && typeof r.content === 'string' ? eventIdIn(r.content) : undefined;
      results.set(r.pairId, { id: r.id, status: r.status ?? 'unknown', ...(symbols ? { symbols } : {}), ...(undid ? { undid } : {}), ...(eventId ? { eventId } : {}) });
    }
  }
  return [...calls.values()].map((c) => {
    const res = results.get(c.id);
    return res
      ? { ...c, status: res.status, resultId: res.id, ...(res.symbols && c.references.length > 0 ? { symbols: res.symbols } : {}), ...(res.undid ? { undid: res.undid } : {}), ...(res.eventId ? { eventId: res.eventId } : {}) }
      : c;
  });
}

/** What is kept of a message: its text whole, up to a quarter of the per-session cap (then head and tail). */
function recordOf(m: MemoryMessage, evictedAt: number, pairId = m.pairId): RecalledMessage {
  return {
    id: m.id,
    kind: m.kind,
    role: m.role,
    ...(m.tool !== undefined ? { tool: m.tool } : {}),
    ...(m.status !== undefined ? { status: m.status } : {}),
    ...(pairId !== undefined ? { pairId } : {}),
    ...(m.group !== undefined ? { group: m.group } : {}),
    references: m.references,
    tokens: m.tokens,
    time: m.time,
    evictedAt,
    content: m.content,
  };
}

const ID_PREFIX = /^\{"id":("(?:[^"\\]|\\.)*"),/;

/** Line spans of archive lines by id, the newest line of an id winning; `lines` start at byte `offset`. */
function indexOf(lines: readonly string[], into = new Map<string, LineSpan>(), offset = 0): Map<string, LineSpan> {
  for (const line of lines) {
    const bytes = Buffer.byteLength(line);
    const quoted = ID_PREFIX.exec(line)?.[1];
    if (quoted !== undefined) {
      try {
        into.set(JSON.parse(quoted) as string, { offset, bytes });
      } catch {
        // not an id: the line is skipped by recall too
      }
    }
    offset += bytes + 1;
  }
  return into;
}

function parseIf(line: string, id: string): RecalledMessage | undefined {
  if (!line.startsWith(`{"id":${JSON.stringify(id)},`)) return undefined;
  try {
    return JSON.parse(line) as RecalledMessage;
  } catch {
    return undefined; // a torn last line (crash mid-append) is skipped
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    const st = await fs.lstat(file);
    if (!st.isFile()) throw new Error(`${file} is ${fileKind(st)}, not a regular file; recall archive not written`);
    return st.size;
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return 0;
    throw err;
  }
}

/**
 * Appends to a regular file only (a FIFO or a symlink swapped in is refused, never blocked on). After a last line
 * an append cut short (a crash), a line break first: the cut line ends there and the new records start whole.
 * Returns the size found and where the data starts.
 */
async function appendRegular(file: string, data: string): Promise<{ before: number; start: number }> {
  const handle = await fs.open(file, APPEND_FLAGS, 0o600);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${file} became ${fileKind(st)}; recall archive not written`);
    await handle.chmod(0o600);
    let cut = false;
    if (st.size > 0) {
      const last = Buffer.alloc(1);
      const { bytesRead } = await handle.read(last, 0, 1, st.size - 1);
      cut = bytesRead === 1 && last[0] !== 0x0a;
    }
    await handle.writeFile(cut ? `\n${data}` : data);
    return { before: st.size, start: st.size + (cut ? 1 : 0) };
  } finally {
    await handle.close();
  }
}

/**
 * One page of a recalled message: characters from `offset` while they fit `budgetTokens`, cut at a line end when
 * there is one in the page's last fifth (a recorded tool result is often one long JSON line, so pages are not
 * whole lines). `next_offset` continues; a page always moves on.
 */
export async function recallPage(
  message: RecalledMessage,
  opts: { offset: number; budgetTokens: number; count: (text: string) => Promise<number> },
): Promise<{ content: string; offset: number; total_chars: number; next_offset?: number }> {
  const text = message.content;
  const offset = Math.min(Math.max(0, Math.floor(opts.offset)), text.length);
  // A token is at least one character of text: budget × 4 characters is an upper bound worth trying first.
  let size = Math.min(text.length - offset, Math.max(1, opts.budgetTokens * 4));
  let page = text.slice(offset, offset + size);
  for (let i = 0; i < 20 && size > 1 && (await opts.count(page)) > opts.budgetTokens; i++) {
    size = Math.max(1, Math.floor(size * 0.75));
    page = text.slice(offset, offset + size);
  }
  if (offset + size < text.length) {
    const cut = page.lastIndexOf('\n');
    if (cut >= Math.floor(size * 0.8)) page = page.slice(0, cut + 1);
  }
  const next = offset + page.length;
  return { content: page, offset, total_chars: text.length, ...(next < text.length ? { next_offset: next } : {}) };
}
