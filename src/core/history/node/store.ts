/**
 * HistoryStore: the be-trx undo log. One snapshot = an inverse byte splice of one edit, stored as
 * `snap-<seq>-<id>.json` (+ `.bin`, snapshotFile.ts). The seq is zero-padded in the name so a readdir sorts
 * the queue; it is monotonic (kept in `.seq` when the newest snapshots go away), never a wall-clock second.
 * The queue's limit counts steps (steps.ts): a be-apply batch is one step whatever its file count, recorded
 * together (recordGroup) and evicted whole.
 *
 * record() is on every edit's hot path: it writes its files whole (temp + rename) but does not fsync
 * (the edit itself is durable; the undo log is best-effort durable) and never re-reads stored snapshots
 * (one readdir; only names it has not seen are parsed).
 * rollback/status/commit pick up snapshots other processes added to the same directory (a readdir).
 *
 * Each snapshot names its workspace (the key of the sandbox roots): servers of different projects that share
 * one directory see, undo and commit only their own. Rollback resolves every path through the sandbox at the
 * moment it reads and again at the moment it writes (rollback.ts, rollbackTarget.ts).
 * Files in the directory are read only when they are regular files (a FIFO there must not hang startup).
 */
import { Buffer } from 'node:buffer';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../../clock';
import { errnoCode, errorText, ToolError } from '../../errors';
import type { FileStore } from '../../files/fileStore';
import { writeFileAtomic } from '../../files/atomicWrite';
import { callsForFolder, poolCalls, type FsCalls } from '../../files/fsCalls';
import { Mutex } from '../../util/mutex';
import { BoundedFailure, eachBounded } from '../../util/bounded';
import { newShortId } from '../../util/ids';
import { workspaceKey } from '../../files/workspaceKey';
import { readRegularFile } from '../../files/regularFile';
import { isInside } from '../../files/ports';
import type { RollbackSandbox, RollbackTargets } from '../targets';
import { rollbackTargets } from './rollbackTarget';
import { rollbackEntries } from '../rollback';
import { FILE_PATTERN, INLINE_REMOVED_MAX, parseSnapshots, snapshotBase, type Entry, type GroupSnapshotFile, type SnapshotFile } from '../snapshotFile';
import { loadRemoved } from './snapshotBytes';
import { LandedLogAppender } from './landedLog';
import { countSteps, oldestStepLength, snapshotsInSteps } from '../steps';
import type { EditHistory, EditRecordInput, GroupRecordResult, RecordResult, RollbackResult, SnapshotSummary } from '../types';
import { describeAuthor, type EditAuthors } from '../author';
import type { QueueAccess, QueueEntry } from '../queueAccess';
import { explainConflict, otherSessions, reviewAction } from '../review';

export interface HistoryStoreOptions {
  /** Per workspace: see workspaceHistoryDir(). Created (0700) when missing. */
  dir: string;
  /** Rollback reads and writes through this store (atomic), after the sandbox resolved the path. */
  files: FileStore;
  /** Resolves every path a rollback touches; its roots name the workspace the snapshots belong to. */
  sandbox: RollbackSandbox;
  /** history steps kept (a be-apply batch is one step) */
  maxCount?: number;
  maxBytes?: number;
  clock?: Clock;
  log?: (message: string) => void;
  /** Names the MCP session of each recorded edit (conflicts and be-trx status tell sessions apart). */
  authors?: EditAuthors;
}

export const DEFAULT_MAX_SNAPSHOTS = 30;
export const DEFAULT_MAX_SNAPSHOT_BYTES = 100 * 1024 * 1024;
export { INLINE_REMOVED_MAX };
const SEQ_FILE = '.seq';
/** A crashed writer's temp file is removed by commit once it is this old (a younger one may be in flight). */
const STALE_TEMP_MS = 60_000;

/** `base/<first 16 hex of sha256 of the sorted real roots>` (no git subprocess, unlike upstream). */
export function workspaceHistoryDir(base: string, roots: readonly string[]): string {
  return path.join(base, workspaceKey(roots));
}

export class HistoryStore implements EditHistory {
  readonly dir: string;
  readonly maxCount: number;
  readonly maxBytes: number;
  /** workspaceKey() of the sandbox roots: this store's snapshots in a shared directory */
  readonly workspace: string;
  private readonly files: FileStore;
  private readonly sandbox: RollbackSandbox;
  private readonly targets: RollbackTargets;
  private readonly clock: Clock;
  private readonly log: (message: string) => void;
  private readonly authors?: EditAuthors;
  private readonly mutex = new Mutex();
  /** oldest first (ascending seq) */
  private entries: Entry[] = [];
  private lastSeq = 0;
  private warned = new Set<string>();
  /** Snapshot names of other workspaces (or unreadable ones) seen in the directory: not parsed again. */
  private skipped = new Set<string>();
  /** The landed-edit log's appender: its descriptor stays open between edits. */
  private readonly landed: LandedLogAppender;
  /** How the snapshot folder's calls are made: direct when it is on a local file system (statfs at open). */
  private calls: FsCalls = poolCalls;

  private constructor(opts: HistoryStoreOptions) {
    this.dir = opts.dir;
    this.landed = new LandedLogAppender(opts.dir);
    this.files = opts.files;
    this.sandbox = opts.sandbox;
    this.targets = rollbackTargets(opts.sandbox, opts.files);
    this.workspace = workspaceKey(opts.sandbox.roots);
    this.maxCount = Math.max(1, Math.floor(opts.maxCount ?? DEFAULT_MAX_SNAPSHOTS));
    this.maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES);
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? (() => undefined);
    this.authors = opts.authors;
  }

  static async open(opts: HistoryStoreOptions): Promise<HistoryStore> {
    if (!path.isAbsolute(opts.dir)) {
      throw new ToolError('invalid_argument', `The snapshot directory must be an absolute path, got "${opts.dir}".`);
    }
    try {
      await fs.mkdir(opts.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new ToolError('io', `Cannot create the snapshot directory ${opts.dir}: ${errorText(err)}.`);
    }
    const store = new HistoryStore(opts);
    store.calls = store.landed.calls = await callsForFolder(opts.dir);
    store.lastSeq = await store.readCounter();
    await store.refresh();
    return store;
  }

  /** Closes what the store keeps open between edits (the landed-edit log's descriptor); it stays usable. */
  close(): Promise<void> {
    return this.landed.close();
  }

  async record(input: EditRecordInput): Promise<RecordResult> {
    checkAbsolute(input);
    return this.mutex.run(() => this.recordUnlocked(input));
  }

  /**
   * One be-apply batch: every snapshot written under one hold of the lock (so they stand together in the queue),
   * then one eviction, which counts the batch as one step and never drops a part of it.
   */
  async recordGroup(inputs: readonly EditRecordInput[]): Promise<GroupRecordResult> {
    inputs.forEach(checkAbsolute);
    return this.mutex.run(async () => {
      await this.scan();
      // several written at once: each takes its seq and id in order before its first write, and joins the queue in order
      const taken = new Set(this.entries.map((e) => e.meta.id));
      const written = inputs.length === 1 && !inputs[0]!.group ? [await this.writeSnapshot(inputs[0]!, taken)] : await this.writeBatch(inputs, taken);
      for (const entry of written) this.entries.push(entry);
      await this.logLanded(written);
      const ids = written.map((e) => e.meta.id);
      const queue_full = await this.evict();
      return queue_full ? { ids, queue_full } : { ids };
    });
  }

  private async recordUnlocked(input: EditRecordInput): Promise<RecordResult> {
    await this.scan();
    const { entry, write } = this.planSnapshot(input);
    // the landed-edit log line beside the snapshot's files, not after them: the edit has landed either way
    const [saved] = await Promise.allSettled([write(), this.logLanded([entry])]);
    if (saved.status === 'rejected') throw saved.reason;
    this.entries.push(entry);
    const id = entry.meta.id;
    const queue_full = await this.evict();
    return queue_full ? { id, queue_full } : { id };
  }

  /**
   * A readdir (only unknown names are parsed) so the seq follows snapshots other processes of this workspace
   * recorded, and eviction counts them. Two processes recording in the same instant can still pick one seq; both
   * snapshots are kept (names carry the id), the tie is broken by time, and the hash check at rollback turns a
   * wrong order on one file into a conflict, never into damage.
   */
  private scan(): Promise<void> {
    return this.refresh().catch((err) => this.log(`snapshot directory scan failed: ${errorText(err)}`));
  }

  /**
   * A batch's snapshots in one file (v 3, snapshotFile.ts): each part takes its seq and id in order, a large part's
   * bytes go to its own `.bin` first (several at once), then the one JSON. Nothing of it stays when a write fails.
   */
  private async writeBatch(inputs: readonly EditRecordInput[], taken: Set<string>): Promise<Entry[]> {
    const planned = inputs.map((input) => this.planPart(input, taken));
    const first = planned[0]!.meta;
    const jsonName = `${snapshotBase(first.seq, first.id)}.json`;
    const file: GroupSnapshotFile = { v: 3, workspace: this.workspace, group: first.group ?? first.id, parts: planned.map((p) => p.meta) };
    const json = JSON.stringify(file);
    const bins = planned.filter((p) => p.binName !== undefined);
    try {
      await eachBounded(bins, 8, (p) => writeFileAtomic(path.join(this.dir, p.binName!), p.removed, { mode: 0o600, fsync: false, calls: this.calls }));
      await writeFileAtomic(path.join(this.dir, jsonName), json, { mode: 0o600, fsync: false, calls: this.calls });
    } catch (err) {
      await Promise.all(bins.map((p) => fs.unlink(path.join(this.dir, p.binName!)).catch(() => undefined)));
      throw this.notSaved(err instanceof BoundedFailure ? err.error : err);
    }
    const share = Math.ceil(Buffer.byteLength(json) / planned.length);
    return planned.map(({ meta: { removed_b64: _inline, ...kept }, binName, removed }) => ({
      meta: kept,
      jsonName,
      ...(binName ? { binName } : {}),
      bytes: share + (binName ? removed.length : 0),
      shared: true as const,
    }));
  }

  private notSaved(err: unknown): ToolError {
    return new ToolError('io', `The edit was written, but its undo snapshot could not be saved in ${this.dir}: ${errorText(err)}. be-trx rollback cannot undo this edit.`);
  }

  /** Writes one snapshot's files (no eviction); returns its queue entry, for the caller to append. `taken`: ids in use. */
  private async writeSnapshot(input: EditRecordInput, taken?: Set<string>): Promise<Entry> {
    const { entry, write } = this.planSnapshot(input, taken);
    await write();
    return entry;
  }

  /** One snapshot's id, seq and queue entry (taken now), and the write of its files. */
  private planSnapshot(input: EditRecordInput, taken = new Set(this.entries.map((e) => e.meta.id))): { entry: Entry; write: () => Promise<void> } {
    const { meta, binName, removed } = this.planPart(input, taken);
    const base = snapshotBase(meta.seq, meta.id);
    const json = JSON.stringify(meta);
    const write = async () => {
      try {
        if (binName) await writeFileAtomic(path.join(this.dir, binName), removed, { mode: 0o600, fsync: false, calls: this.calls });
        await writeFileAtomic(path.join(this.dir, `${base}.json`), json, { mode: 0o600, fsync: false, calls: this.calls });
      } catch (err) {
        if (binName) await fs.unlink(path.join(this.dir, binName)).catch(() => undefined);
        throw this.notSaved(err);
      }
    };
    const { removed_b64: _inline, ...kept } = meta;
    return { entry: { meta: kept, jsonName: `${base}.json`, ...(binName ? { binName } : {}), bytes: Buffer.byteLength(json) + (binName ? removed.length : 0) }, write };
  }

  /** One snapshot record: its id and seq (taken now), the removed bytes inline or in a sidecar's name. */
  private planPart(input: EditRecordInput, taken: Set<string>): { meta: SnapshotFile; binName?: string; removed: Buffer } {
    const id = newShortId((candidate) => taken.has(candidate));
    taken.add(id);
    const seq = ++this.lastSeq;
    const now = this.clock.now();
    const base = snapshotBase(seq, id);
    const removed = Buffer.isBuffer(input.removed) ? input.removed : Buffer.from(input.removed as Uint8Array);
    const inline = removed.length <= INLINE_REMOVED_MAX;
    const binName = inline ? undefined : `${base}.bin`;
    const meta: SnapshotFile = {
      v: 2,
      workspace: this.workspace,
      id,
      seq,
      tool: input.tool,
      file: input.file,
      summary: input.summary,
      created: input.created,
      offset: input.offset,
      inserted_length: input.insertedLength,
      after_hash: input.afterHash,
      after_size: input.afterSize,
      removed_length: removed.length,
      ...(inline ? { removed_b64: removed.toString('base64') } : { removed_file: binName }),
      created_at: Math.floor(now / 1000),
      created_ms: now,
      ...(input.group ? { group: input.group } : {}),
      ...authorFields(input.author ?? this.authors?.current()),
      ...(input.chipId ? { chip_id: input.chipId } : {}),
    };
    return { meta, ...(binName ? { binName } : {}), removed };
  }

  /** The landed-edit log (landedLog.ts) outlives commit and eviction; a failure to write it never fails the edit. */
  private logLanded(entries: readonly Entry[]): Promise<void> {
    const lines = entries.map(({ meta: m }) => ({
      ws: this.workspace,
      id: m.id,
      seq: m.seq,
      file: m.file,
      tool: m.tool,
      ...(m.session !== undefined ? { session: m.session } : {}),
      ...(m.client !== undefined ? { client: m.client } : {}),
      ...(m.group !== undefined ? { group: m.group } : {}),
      t: m.created_ms ?? m.created_at * 1000,
    }));
    return this.landed.append(lines).catch((err) => this.log(`landed-edit log: ${errorText(err)}`));
  }

  private logUndone(id: string): Promise<void> {
    return this.landed.append([{ ws: this.workspace, undone: id, t: this.clock.now() }]).catch((err) => this.log(`landed-edit log: ${errorText(err)}`));
  }

  explainConflict(err: unknown, file: string): Promise<unknown> {
    return explainConflict((fn) => this.withQueue(fn), err, file);
  }

  review(args: { action: 'keep' | 'revert'; id?: string; session?: string }): Promise<object> {
    return this.withQueue((q) => reviewAction(q, args));
  }

  /** Runs `fn` under the queue's lock on a fresh view of it (review.ts: revert, keep, diff, conflict authors). */
  async withQueue<T>(fn: (q: QueueAccess) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      await this.refresh();
      const view = (e: Entry): QueueEntry => ({ ...e.meta, loadRemoved: () => this.loadRemoved(e) });
      const entries = (): Entry[] => this.entries;
      return fn({
        // live: a revert records and drops snapshots, and the next look-up must see that
        get entries() {
          return entries().map(view);
        },
        files: this.files,
        targets: this.targets,
        author: this.authors?.current(),
        record: (input) => this.recordUnlocked(input),
        drop: async (id, undone) => {
          const i = this.entries.findIndex((e) => e.meta.id === id);
          if (i < 0) return false;
          const [gone] = this.entries.splice(i, 1);
          if (undone) await this.logUndone(id);
          await this.deleteFiles(gone!);
          return true;
        },
      });
    });
  }

  async rollback(step: number, force: boolean): Promise<RollbackResult> {
    return this.mutex.run(async () => {
      await this.refresh();
      const count = snapshotsInSteps(this.entries, Math.max(1, Math.floor(Number.isFinite(step) ? step : 1)));
      const targets = count > 0 ? this.entries.slice(-count).reverse() : []; // newest first; forget() shrinks this.entries
      const result = await rollbackEntries(
        {
          files: this.files,
          targets: this.targets,
          loadRemoved: (entry) => this.loadRemoved(entry),
          forget: async (entry) => {
            this.entries.splice(this.entries.indexOf(entry), 1);
            await this.logUndone(entry.meta.id);
            await this.deleteFiles(entry).catch((err) => this.log(`rolled back snapshot ${entry.meta.id}, but ${errorText(err)}`));
          },
        },
        targets,
        force,
      );
      if (result.rolled_back > 0) await this.writeCounter();
      return result;
    });
  }

  /** Forgets this workspace's snapshots (another workspace's in a shared directory stay). */
  async commit(): Promise<{ committed: number }> {
    return this.mutex.run(async () => {
      await this.refresh();
      const names = await this.readdir();
      let committed = 0;
      const failures: string[] = [];
      const unlink = async (name: string): Promise<boolean> => {
        try {
          await fs.unlink(path.join(this.dir, name));
          return true;
        } catch (err) {
          if (errnoCode(err) !== 'ENOENT') failures.push(`${name}: ${errorText(err)}`);
          return false;
        }
      };
      // a batch file holds several entries: each counts once its file is gone
      const gone = new Set<string>();
      for (const entry of this.entries) {
        if (entry.binName) await unlink(entry.binName);
        if (gone.has(entry.jsonName) || (await unlink(entry.jsonName))) {
          gone.add(entry.jsonName);
          committed++;
        }
      }
      // temp files a crashed writer left (a young one may belong to a record in flight in another process)
      const cutoff = Date.now() - STALE_TEMP_MS; // against file times: the wall clock, not the injected one
      for (const name of names.filter((n) => n.startsWith('.tmp-snap-'))) {
        const st = await fs.lstat(path.join(this.dir, name)).catch(() => undefined);
        if (st?.isFile() && st.mtimeMs < cutoff) await unlink(name);
      }
      this.lastSeq = Math.max(this.lastSeq, ...names.map((n) => Number(FILE_PATTERN.exec(n)?.[1] ?? 0)));
      this.entries = [];
      await this.writeCounter();
      if (failures.length > 0) {
        throw new ToolError('io', `Committed ${committed} snapshot(s), but could not delete ${failures.join('; ')} in ${this.dir}.`);
      }
      return { committed };
    });
  }

  async status(): Promise<{
    queue: { used: number; max: number; bytes: number; max_bytes: number };
    snapshots: SnapshotSummary[];
  }> {
    return this.mutex.run(async () => {
      await this.refresh();
      return {
        queue: { used: countSteps(this.entries), max: this.maxCount, bytes: this.totalBytes(), max_bytes: this.maxBytes },
        snapshots: this.entries
          .map((e) => ({
            id: e.meta.id,
            seq: e.meta.seq,
            tool: e.meta.tool,
            file: e.meta.file,
            summary: e.meta.summary,
            created_at: e.meta.created_at,
            created_ms: e.meta.created_ms,
            bytes: e.bytes,
            ...(e.meta.session ? { by: describeAuthor(e.meta) } : {}),
            ...(e.meta.chip_id ? { chip_id: e.meta.chip_id } : {}),
          }))
          .reverse(),
        ...otherSessions(this.entries.map((e) => e.meta), this.authors?.current()),
      };
    });
  }

  // ---------------------------------------------------------------- internals

  private loadRemoved(entry: Entry): Promise<Buffer> {
    return loadRemoved(this.dir, entry);
  }

  /**
   * Drops the oldest steps beyond maxCount steps or maxBytes, a batch's snapshots all at once (always keeping the
   * newest step, however large).
   */
  private async evict(): Promise<string | undefined> {
    let byCount = false;
    let byBytes = false;
    // a batch's parts share one file: it is deleted once (and its queued parts looked for once), not once per part
    const gone = new Set<string>();
    for (let steps = countSteps(this.entries); steps > 1 && (steps > this.maxCount || this.totalBytes() > this.maxBytes); steps--) {
      if (steps > this.maxCount) byCount = true;
      else byBytes = true;
      for (const oldest of this.entries.splice(0, oldestStepLength(this.entries))) {
        await this.deleteFiles(oldest, gone).catch((err) => this.log(`evicting snapshot ${oldest.meta.id}: ${errorText(err)}`));
      }
    }
    const messages: string[] = [];
    if (byCount) {
      messages.push(`snapshot queue reached maximum capacity (${this.maxCount}); oldest snapshot evicted. The file was written successfully.`);
    }
    if (byBytes) {
      messages.push(
        `snapshot queue exceeded maximum disk capacity (${this.maxBytes} bytes); oldest snapshot(s) evicted. The file was written successfully.`,
      );
    }
    return messages.length > 0 ? messages.join(' ') : undefined;
  }

  private totalBytes(): number {
    return this.entries.reduce((sum, e) => sum + e.bytes, 0);
  }

  /**
   * An entry's files, once it has left the queue. A batch file's part: the file goes with its last part; until
   * then the parts still queued are rewritten in place, then renamed after the first of them (rewriteBatch).
   */
  private async deleteFiles(entry: Entry, gone?: Set<string>): Promise<void> {
    if (gone?.has(entry.jsonName) && (!entry.binName || gone.has(entry.binName))) return;
    const rest = entry.shared ? this.entries.filter((e) => e.jsonName === entry.jsonName) : [];
    if (rest.length > 0) await this.rewriteBatch(entry.jsonName, rest);
    for (const name of [rest.length > 0 ? undefined : entry.jsonName, entry.binName]) {
      if (!name || gone?.has(name)) continue;
      try {
        await fs.unlink(path.join(this.dir, name));
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') throw new Error(`could not delete ${path.join(this.dir, name)}: ${errorText(err)}`);
      }
      gone?.add(name);
    }
  }

  /**
   * The batch file without the part that left: the parts still queued here and still in the file (another process
   * may have taken one out meanwhile, or moved the file: then the next refresh follows it). Written over the same
   * name first (one atomic rename: a crash leaves the old parts or the rest, never neither, and no process reads a
   * part twice), then renamed after its first part so other processes re-read it; a crash between the two leaves it
   * valid under the old name (parseSnapshots accepts a name older than the first part).
   */
  private async rewriteBatch(jsonName: string, rest: Entry[]): Promise<void> {
    const full = path.join(this.dir, jsonName);
    let raw: GroupSnapshotFile;
    try {
      raw = JSON.parse((await readRegularFile(full)).toString('utf8')) as GroupSnapshotFile;
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw err;
    }
    const ids = new Set(rest.map((e) => e.meta.id));
    const parts = (raw.v === 3 && Array.isArray(raw.parts) ? raw.parts : []).filter((p) => p && ids.has(p.id));
    if (parts.length === 0) {
      await fs.unlink(full).catch(() => undefined);
      return;
    }
    const json = JSON.stringify({ ...raw, parts });
    await writeFileAtomic(full, json, { mode: 0o600, fsync: false });
    let name = `${snapshotBase(parts[0]!.seq, parts[0]!.id)}.json`;
    if (name !== jsonName) {
      await fs.rename(full, path.join(this.dir, name)).catch((err: unknown) => {
        this.log(`batch snapshot ${full} keeps its name (the rest of its parts stay undoable): ${errorText(err)}`);
        name = jsonName;
      });
    }
    const share = Math.ceil(Buffer.byteLength(json) / parts.length);
    for (const e of rest) {
      e.jsonName = name;
      e.bytes = share + (e.binName ? e.meta.removed_length : 0);
    }
  }

  private async readdir(): Promise<string[]> {
    try {
      return await this.calls.readdir(this.dir);
    } catch (err) {
      throw new ToolError('io', `Cannot list the snapshot directory ${this.dir}: ${errorText(err)}.`);
    }
  }

  /** Syncs the in-memory queue with the directory: parses only names not known yet. */
  private async refresh(): Promise<void> {
    const names = await this.readdir();
    const present = new Set(names);
    const known = new Map(this.entries.map((e) => [e.jsonName, e]));
    const kept = this.entries.filter((e) => present.has(e.jsonName));
    for (const name of this.skipped) if (!present.has(name)) this.skipped.delete(name);
    for (const name of names) {
      const m = FILE_PATTERN.exec(name);
      if (!m || m[3] !== 'json' || known.has(name) || this.skipped.has(name)) continue;
      const entries = await this.parseEntries(name, m[2]!, Number(m[1]), present);
      if (entries && entries.every((e) => this.isOurs(e.meta))) kept.push(...entries);
      else if (entries) this.skipped.add(name); // another workspace's: never undone, committed or evicted here
    }
    kept.sort((a, b) => a.meta.seq - b.meta.seq || a.meta.created_ms - b.meta.created_ms || (a.meta.id < b.meta.id ? -1 : 1));
    this.entries = kept;
    // Every snapshot-like name counts, even a skipped one, so a new name never collides with it.
    const seqs = names.map((n) => Number(FILE_PATTERN.exec(n)?.[1] ?? 0));
    this.lastSeq = Math.max(this.lastSeq, ...seqs, ...kept.map((e) => e.meta.seq));
  }

  /** Recorded by this workspace, or an older record (no workspace) of a file inside our roots. */
  private isOurs(meta: Entry['meta']): boolean {
    if (meta.workspace !== undefined) return meta.workspace === this.workspace;
    return this.sandbox.roots.some((root) => isInside(root, meta.file));
  }

  private async parseEntries(name: string, id: string, seq: number, present: Set<string>): Promise<Entry[] | undefined> {
    const full = path.join(this.dir, name);
    let text: string;
    try {
      text = (await readRegularFile(full)).toString('utf8');
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') this.warnOnce(name, `skipping snapshot ${full}: cannot read it (${errorText(err)})`);
      return undefined;
    }
    const entries = parseSnapshots(name, id, seq, text, present);
    if (typeof entries === 'string') this.warnOnce(name, `skipping snapshot ${full}: ${entries}; it was left in place`);
    return typeof entries === 'string' ? undefined : entries;
  }

  private warnOnce(name: string, message: string): void {
    if (this.warned.has(name)) return;
    this.warned.add(name);
    this.log(message);
  }

  private async readCounter(): Promise<number> {
    try {
      const n = Number.parseInt((await readRegularFile(path.join(this.dir, SEQ_FILE))).toString('utf8'), 10);
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') this.log(`ignoring the snapshot sequence counter ${path.join(this.dir, SEQ_FILE)}: ${errorText(err)}`);
      return 0;
    }
  }

  private async writeCounter(): Promise<void> {
    try {
      await writeFileAtomic(path.join(this.dir, SEQ_FILE), `${this.lastSeq}\n`, { mode: 0o600, fsync: false });
    } catch (err) {
      this.log(`could not save the snapshot sequence counter in ${this.dir}: ${errorText(err)}`);
    }
  }
}

function checkAbsolute(input: EditRecordInput): void {
  if (!path.isAbsolute(input.file)) throw new ToolError('invalid_argument', `Snapshot paths must be absolute, got "${input.file}".`);
}

function authorFields(a: { session: string; client?: string } | undefined): { session?: string; client?: string } {
  return a ? { session: a.session, ...(a.client ? { client: a.client } : {}) } : {};
}
