/**
 * HistoryStore: the be-trx undo log. One snapshot = an inverse byte splice of one edit, stored as
 * `snap-<seq>-<id>.json` (metadata + removed bytes in base64) plus `snap-<seq>-<id>.bin` when the
 * removed bytes are large. The seq is zero-padded in the name so a readdir sorts the queue; it is
 * monotonic (kept in `.seq` when the newest snapshots go away), never a wall-clock second.
 *
 * record() is on every edit's hot path: it writes its files whole (temp + rename) but does not fsync
 * (the edit itself is durable; the undo log is best-effort durable) and never re-reads stored snapshots
 * (one readdir; only names it has not seen are parsed).
 * rollback/status/commit pick up snapshots other processes added to the same directory (a readdir).
 *
 * Each snapshot names its workspace (the key of the sandbox roots): servers of different projects that share
 * one directory see, undo and commit only their own. Rollback resolves every path through the sandbox at the
 * moment it reads and again at the moment it writes (rollbackTarget.ts), then goes through the FileStore.
 * Files in the directory are read only when they are regular files (a FIFO there must not hang startup).
 */
import { Buffer } from 'node:buffer';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../clock';
import { errnoCode, errorText, isToolError, ToolError } from '../errors';
import type { FileStore } from '../files/fileStore';
import { writeFileAtomic } from '../files/atomicWrite';
import { Mutex } from '../util/mutex';
import { newShortId } from '../util/ids';
import { workspaceKey } from '../util/workspaceKey';
import { readRegularFile } from '../files/regularFile';
import { isInside } from '../files/sandbox';
import { confirmTarget, removeConfirmed, sameTarget, type RollbackSandbox, type TargetState } from './rollbackTarget';
import { applyInverse } from './splice';
import { sha256Hex } from '../util/sha256';
import type { EditHistory, EditRecordInput, OtherSessionEdit, RecordResult, RollbackResult, SnapshotSummary } from './types';
import { describeAuthor, type EditAuthors } from './author';
import type { QueueAccess, QueueEntry, SnapshotFields } from './queueAccess';
import { explainConflict, otherSessions, reviewAction } from './review';

export interface HistoryStoreOptions {
  /** Per workspace: see workspaceHistoryDir(). Created (0700) when missing. */
  dir: string;
  /** Rollback reads and writes through this store (atomic), after the sandbox resolved the path. */
  files: FileStore;
  /** Resolves every path a rollback touches; its roots name the workspace the snapshots belong to. */
  sandbox: RollbackSandbox;
  maxCount?: number;
  maxBytes?: number;
  clock?: Clock;
  log?: (message: string) => void;
  /** Names the MCP session of each recorded edit (conflicts and be-trx status tell sessions apart). */
  authors?: EditAuthors;
}

export const DEFAULT_MAX_SNAPSHOTS = 30;
export const DEFAULT_MAX_SNAPSHOT_BYTES = 100 * 1024 * 1024;
/** Removed bytes up to this size go inline (base64) in the JSON; larger ones in a sidecar .bin file. */
export const INLINE_REMOVED_MAX = 64 * 1024;

/** 12 digits zero-padded; more once the seq outgrows them (up to Number.MAX_SAFE_INTEGER, 16 digits). */
const FILE_PATTERN = /^snap-(\d{12,16})-([0-9a-f]{6}|[0-9a-f]{12})\.(json|bin)$/;
const SEQ_FILE = '.seq';
/** A crashed writer's temp file is removed by commit once it is this old (a younger one may be in flight). */
const STALE_TEMP_MS = 60_000;

/** `base/<first 16 hex of sha256 of the sorted real roots>` (no git subprocess, unlike upstream). */
export function workspaceHistoryDir(base: string, roots: readonly string[]): string {
  return path.join(base, workspaceKey(roots));
}

interface SnapshotFile extends SnapshotFields {
  /** 2: carries `workspace`. 1 (older servers): no workspace, adopted when its file lies inside our roots. */
  v: 1 | 2;
  /** workspaceKey() of the roots of the server that recorded it */
  workspace?: string;
  removed_b64?: string;
  removed_file?: string;
  created_at: number;
  group?: string;
}

/** Snapshots of one file undone in memory, written once. */
interface FileBatch {
  file: string;
  /** what stood at `file` when it was read; the write goes ahead only if the same still stands there */
  target: TargetState;
  existed: boolean;
  mtimeMs?: number;
  bytes: Buffer | undefined;
  done: { entry: Entry; action: 'restored' | 'deleted' }[];
}

interface Entry {
  meta: Omit<SnapshotFile, 'removed_b64'>;
  jsonName: string;
  binName?: string;
  bytes: number;
}

export class HistoryStore implements EditHistory {
  readonly dir: string;
  readonly maxCount: number;
  readonly maxBytes: number;
  /** workspaceKey() of the sandbox roots: this store's snapshots in a shared directory */
  readonly workspace: string;
  private readonly files: FileStore;
  private readonly sandbox: RollbackSandbox;
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

  private constructor(opts: HistoryStoreOptions) {
    this.dir = opts.dir;
    this.files = opts.files;
    this.sandbox = opts.sandbox;
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
    store.lastSeq = await store.readCounter();
    await store.refresh();
    return store;
  }

  async record(input: EditRecordInput): Promise<RecordResult> {
    if (!path.isAbsolute(input.file)) {
      throw new ToolError('invalid_argument', `Snapshot paths must be absolute, got "${input.file}".`);
    }
    return this.mutex.run(() => this.recordUnlocked(input));
  }

  private async recordUnlocked(input: EditRecordInput): Promise<RecordResult> {
    {
      // A readdir (only unknown names are parsed) so the seq follows snapshots other processes of this
      // workspace recorded, and eviction counts them. Two processes recording in the same instant can
      // still pick one seq; both snapshots are kept (names carry the id), the tie is broken by time, and
      // the hash check at rollback turns a wrong order on one file into a conflict, never into damage.
      await this.refresh().catch((err) => this.log(`snapshot directory scan failed: ${errorText(err)}`));
      const taken = new Set(this.entries.map((e) => e.meta.id));
      const id = newShortId((candidate) => taken.has(candidate));
      const seq = ++this.lastSeq;
      const now = this.clock.now();
      const base = `snap-${String(seq).padStart(12, '0')}-${id}`;
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
      const json = JSON.stringify(meta);
      try {
        if (binName) await writeFileAtomic(path.join(this.dir, binName), removed, { mode: 0o600, fsync: false });
        await writeFileAtomic(path.join(this.dir, `${base}.json`), json, { mode: 0o600, fsync: false });
      } catch (err) {
        if (binName) await fs.unlink(path.join(this.dir, binName)).catch(() => undefined);
        throw new ToolError(
          'io',
          `The edit was written, but its undo snapshot could not be saved in ${this.dir}: ${errorText(err)}. ` +
            `be-trx rollback cannot undo this edit.`,
        );
      }
      const { removed_b64: _inline, ...kept } = meta;
      this.entries.push({
        meta: kept,
        jsonName: `${base}.json`,
        ...(binName ? { binName } : {}),
        bytes: Buffer.byteLength(json) + (binName ? removed.length : 0),
      });
      const queue_full = await this.evict();
      return queue_full ? { id, queue_full } : { id };
    }
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
        sandbox: this.sandbox,
        author: this.authors?.current(),
        record: (input) => this.recordUnlocked(input),
        drop: async (id) => {
          const i = this.entries.findIndex((e) => e.meta.id === id);
          if (i < 0) return false;
          const [gone] = this.entries.splice(i, 1);
          await this.deleteFiles(gone!);
          return true;
        },
      });
    });
  }

  async rollback(step: number, force: boolean): Promise<RollbackResult> {
    return this.mutex.run(async () => {
      await this.refresh();
      const count = this.snapshotsInSteps(Math.max(1, Math.floor(Number.isFinite(step) ? step : 1)));
      const result: RollbackResult = { status: 'ok', rolled_back: 0, restored: [] };
      const fail = (err: unknown): void => {
        result.status = 'partial';
        (result.errors ??= []).push(errorText(err));
        if (isToolError(err) && err.code === 'conflict' && err.details && !result.conflict) {
          result.conflict = err.details as NonNullable<RollbackResult['conflict']>;
        }
      };
      // Consecutive snapshots of one file are undone in memory and written once (one read, one write).
      let batch: FileBatch | undefined;
      const targets = count > 0 ? this.entries.slice(-count).reverse() : []; // newest first; flush() shrinks this.entries
      for (const entry of targets) {
        if (batch && batch.file !== entry.meta.file) {
          if (!(await this.flush(batch, result, fail))) break;
          batch = undefined;
        }
        try {
          batch ??= await this.openBatch(entry);
          const action = await this.undoInMemory(entry, batch, force);
          batch.done.push({ entry, action });
        } catch (err) {
          fail(err); // older snapshots depend on this one: never undo past it
          break;
        }
      }
      if (batch) await this.flush(batch, result, fail);
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
      for (const entry of this.entries) {
        if (entry.binName) await unlink(entry.binName);
        if (await unlink(entry.jsonName)) committed++;
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
        queue: { used: this.entries.length, max: this.maxCount, bytes: this.totalBytes(), max_bytes: this.maxBytes },
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

  /** How many of the newest snapshots make up `steps` steps (a run of one group's snapshots is one step). */
  private snapshotsInSteps(steps: number): number {
    let n = 0;
    for (let taken = 0; taken < steps && n < this.entries.length; taken++) {
      const group = this.entries[this.entries.length - 1 - n].meta.group;
      n++;
      while (group && n < this.entries.length && this.entries[this.entries.length - 1 - n].meta.group === group) n++;
    }
    return n;
  }

  private async openBatch(entry: Entry): Promise<FileBatch> {
    const file = entry.meta.file;
    if (!path.isAbsolute(file)) {
      throw new ToolError('invalid_argument', `Rollback stopped: the snapshot path "${file}" is not absolute.`);
    }
    const target = await confirmTarget(this.sandbox, file, labelOf(entry));
    if (!target.exists) return { file, target, existed: false, bytes: undefined, done: [] };
    try {
      const content = await this.files.read(file);
      // Bytes read while a link stood on the path for a moment are never used (nor hashed into a decision): the
      // file must be the same before and after, and what was read must carry its mtime (not another file's).
      const after = await confirmTarget(this.sandbox, file, labelOf(entry));
      if (!sameTarget(after, target) || content.stat.mtimeMs !== target.mtimeMs) {
        throw new ToolError('conflict', `Rollback stopped at ${labelOf(entry)}: ${file} was replaced while it was being read. Nothing was written; try again.`);
      }
      return { file, target, existed: true, mtimeMs: content.stat.mtimeMs, bytes: content.bytes, done: [] };
    } catch (err) {
      if (isToolError(err) && err.code === 'not_found') return { file, target: { exists: false }, existed: false, bytes: undefined, done: [] };
      throw err;
    }
  }

  /** Undoes one snapshot on the batch's bytes (undefined = the file does not exist). */
  private async undoInMemory(entry: Entry, batch: FileBatch, force: boolean): Promise<'restored' | 'deleted'> {
    const { meta } = entry;
    const label = labelOf(entry);
    const current = batch.bytes;
    if (current === undefined && meta.created) return 'deleted'; // already gone: nothing to undo
    const actualHash = current === undefined ? undefined : sha256Hex(current);
    if (actualHash !== meta.after_hash && !force) {
      const what = current === undefined ? 'was deleted' : 'has changed';
      throw new ToolError(
        'conflict',
        `Rollback stopped at ${label}: ${meta.file} ${what} since that edit, so undoing it would overwrite later changes. ` +
          `Read the file and fix it by hand, or call be-trx rollback again with force: true to apply the undo anyway.`,
        { id: meta.id, file: meta.file, expected_hash: meta.after_hash, actual_hash: actualHash ?? null },
      );
    }
    if (meta.created) {
      batch.bytes = undefined;
      return 'deleted';
    }
    const removed = await this.loadRemoved(entry);
    try {
      batch.bytes = applyInverse(current ?? Buffer.alloc(0), { offset: meta.offset, removed, insertedLength: meta.inserted_length });
    } catch (err) {
      throw new ToolError('conflict', `Rollback stopped at ${label}: cannot undo it on ${meta.file}: ${errorText(err)}.`, {
        id: meta.id,
        file: meta.file,
        expected_hash: meta.after_hash,
        actual_hash: actualHash ?? null,
      });
    }
    return 'restored';
  }

  /** Writes (or removes) the batch's file once, then drops its snapshots. False when the write failed. */
  private async flush(batch: FileBatch, result: RollbackResult, fail: (err: unknown) => void): Promise<boolean> {
    if (batch.done.length === 0) return true;
    try {
      // the moment of writing: the path is resolved again and must still hold what was read
      const now = await confirmTarget(this.sandbox, batch.file, labelOf(batch.done[batch.done.length - 1]!.entry));
      if (!sameTarget(now, batch.target)) {
        throw new ToolError('conflict', `${batch.file} was replaced or ${now.exists ? 'created' : 'deleted'} while the rollback ran`);
      }
      if (batch.bytes === undefined) {
        if (batch.existed) await removeConfirmed(this.files, batch.file, now, labelOf(batch.done[batch.done.length - 1]!.entry));
      } else {
        await this.files.write(batch.file, batch.bytes, batch.existed ? { expectedMtimeMs: batch.mtimeMs } : { mkdirs: true });
      }
    } catch (err) {
      fail(new ToolError(isToolError(err) ? err.code : 'io', `Rollback could not write ${batch.file}: ${errorText(err)}. It was left unchanged.`));
      return false;
    }
    for (const { entry, action } of batch.done) {
      this.entries.splice(this.entries.indexOf(entry), 1);
      // a rolled-back deletion names the chip that kept its text (it stays: the user may still want it)
      result.restored.push({ id: entry.meta.id, file: entry.meta.file, action, ...(entry.meta.chip_id ? { chip_id: entry.meta.chip_id } : {}) });
      result.rolled_back++;
      await this.deleteFiles(entry).catch((err) => this.log(`rolled back snapshot ${entry.meta.id}, but ${errorText(err)}`));
    }
    return true;
  }

  private async loadRemoved(entry: Entry): Promise<Buffer> {
    try {
      if (entry.binName) {
        const bytes = await readRegularFile(path.join(this.dir, entry.binName));
        if (bytes.length !== entry.meta.removed_length) throw new Error(`${entry.binName} has ${bytes.length} bytes, expected ${entry.meta.removed_length}`);
        return bytes;
      }
      const parsed = JSON.parse((await readRegularFile(path.join(this.dir, entry.jsonName))).toString('utf8')) as SnapshotFile;
      const bytes = Buffer.from(parsed.removed_b64 ?? '', 'base64');
      if (bytes.length !== entry.meta.removed_length) throw new Error(`${entry.jsonName} holds ${bytes.length} removed bytes, expected ${entry.meta.removed_length}`);
      return bytes;
    } catch (err) {
      throw new ToolError('io', `Rollback stopped at snapshot ${entry.meta.id}: its stored data cannot be read (${errorText(err)}).`);
    }
  }

  /** Drops the oldest snapshots beyond maxCount or maxBytes (always keeping the newest). */
  private async evict(): Promise<string | undefined> {
    let byCount = false;
    let byBytes = false;
    while (this.entries.length > 1 && (this.entries.length > this.maxCount || this.totalBytes() > this.maxBytes)) {
      if (this.entries.length > this.maxCount) byCount = true;
      else byBytes = true;
      const oldest = this.entries.shift()!;
      await this.deleteFiles(oldest).catch((err) => this.log(`evicting snapshot ${oldest.meta.id}: ${errorText(err)}`));
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

  private async deleteFiles(entry: Entry): Promise<void> {
    for (const name of [entry.jsonName, entry.binName]) {
      if (!name) continue;
      try {
        await fs.unlink(path.join(this.dir, name));
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') throw new Error(`could not delete ${path.join(this.dir, name)}: ${errorText(err)}`);
      }
    }
  }

  private async readdir(): Promise<string[]> {
    try {
      return await fs.readdir(this.dir);
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
      const entry = await this.parseEntry(name, m[2]!, Number(m[1]), present);
      if (entry && this.isOurs(entry.meta)) kept.push(entry);
      else if (entry) this.skipped.add(name); // another workspace's: never undone, committed or evicted here
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

  private async parseEntry(name: string, id: string, seq: number, present: Set<string>): Promise<Entry | undefined> {
    const full = path.join(this.dir, name);
    let text: string;
    try {
      text = (await readRegularFile(full)).toString('utf8');
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') this.warnOnce(name, `skipping snapshot ${full}: cannot read it (${errorText(err)})`);
      return undefined;
    }
    let raw: SnapshotFile;
    try {
      raw = JSON.parse(text) as SnapshotFile;
    } catch (err) {
      this.warnOnce(name, `skipping corrupt snapshot ${full}: invalid JSON (${errorText(err)}); it was left in place`);
      return undefined;
    }
    const ok =
      raw && (raw.v === 1 || (raw.v === 2 && typeof raw.workspace === 'string')) && raw.id === id && raw.seq === seq && typeof raw.file === 'string' && typeof raw.tool === 'string' &&
      typeof raw.summary === 'string' && typeof raw.created === 'boolean' && Number.isSafeInteger(raw.offset) &&
      Number.isSafeInteger(raw.inserted_length) && typeof raw.after_hash === 'string' && Number.isSafeInteger(raw.removed_length) &&
      (typeof raw.removed_b64 === 'string' || (typeof raw.removed_file === 'string' && present.has(raw.removed_file)));
    if (!ok) {
      this.warnOnce(name, `skipping snapshot ${full}: not a valid snapshot record; it was left in place`);
      return undefined;
    }
    const { removed_b64, ...meta } = raw;
    const binName = removed_b64 === undefined ? raw.removed_file : undefined;
    return {
      meta,
      jsonName: name,
      ...(binName ? { binName } : {}),
      bytes: Buffer.byteLength(text) + (binName ? raw.removed_length : 0),
    };
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

function authorFields(a: { session: string; client?: string } | undefined): { session?: string; client?: string } {
  return a ? { session: a.session, ...(a.client ? { client: a.client } : {}) } : {};
}

function labelOf(entry: Entry): string {
  return `snapshot ${entry.meta.id} (${entry.meta.summary})`;
}
