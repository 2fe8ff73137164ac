/**
 * ChipStore: a bounded, persistent FIFO of chips, one JSON file per chip (`chip-<id>.json`, mode 0600),
 * safe to share between processes (the VS Code extension and stdio servers of the same workspace).
 * Two quotas: removed text (`_content`, be-delete) and failed calls are evicted separately, so noise never
 * pushes deleted text out. Only regular files of bounded size are read (see regularFile.ts).
 *
 * Ordering across processes and restarts: every mutation of the directory (save, eviction, clear) runs
 * under one lock file created with O_EXCL (see dirLock.ts). Under that lock a save reads the directory,
 * takes `seq = max(counter file, highest seq on disk) + 1`, writes the counter, then the chip (temp file,
 * fsync, rename), then evicts the oldest chips by seq. Because allocation and eviction are serialised,
 * seqs are unique and increasing in creation order for every process, eviction sees every process's
 * chips, and no chip is lost to a race. The counter file keeps seq monotonic after `clear()`.
 * Reads (list/get) take no lock: chip files appear whole (rename) and are never rewritten, so a scan
 * is a readdir plus parsing the names not seen before.
 */
import { Buffer } from 'node:buffer';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../../clock';
import { errnoCode, errorText, ToolError } from '../../errors';
import { writeFileAtomic } from '../../files/atomicWrite';
import { DIR_WATCH_DEBOUNCE_MS, watchDir } from '../../files/dirWatch';
import type { ChipSigner } from './integrity';
import { boundErrorText, MAX_ERROR_CHARS } from '../bound';
import { chipKind, failedCallPreview, locationOfArgs, originalTextOf, previewOf } from '../content';
import { createStateDir } from '../../files/stateDir';
import { readStateFile } from '../../files/stateFile';
import { withDirLock } from './dirLock';
import { Mutex } from '../../util/mutex';
import { Emitter, type Disposable } from '../../emitter';
import { CHIP_ID_PATTERN } from '../ids';
import { newShortId } from '../../util/ids';
import { CHIP_FILE_PATTERN, chipFileName, compareChips, parseChip } from '../record';
import type { ChipChangeEvent, ChipKind, ChipRecord, ChipSaveResult, ChipSink } from '../types';

export interface ChipStoreOptions {
  /** Created (mode 0700) when missing. The CLI keeps one per workspace (workspaceChipDir()); VS Code one for all windows. */
  dir: string;
  /** FIFO capacity of failed-call chips (upstream: 30, shared by every chip). */
  capacity?: number;
  /**
   * FIFO capacity of removed-text chips (be-delete), a separate quota: no number of failed calls can push
   * deleted text out. Default: the same as `capacity`.
   */
  deletedCapacity?: number;
  /** Chips older than this are dropped; undefined or 0 = no TTL (upstream has none). */
  ttlMs?: number;
  /** A failed call is saved when its args JSON is longer than this many bytes (upstream: 50). */
  thresholdBytes?: number;
  clock?: Clock;
  /** Warnings (corrupt files, failed evictions); stderr in the CLI, the log channel in VS Code. */
  log?: (message: string) => void;
  /** How long a save waits for another process holding the directory lock (default 10 s). */
  lockTimeoutMs?: number;
  /** Signs saved chips and checks loaded ones (integrity.ts); without it chips are neither signed nor checked. */
  signer?: ChipSigner;
  /**
   * Read every chip when the store opens (default true). False: the first call that needs them reads them (each does
   * a scan that reads only files not seen yet), or `warm` at a quiet moment; 30 chips of deleted blocks (~9 MB) held
   * the stdio CLI's first reply ~170 ms.
   */
  scanAtOpen?: boolean;
}

export const DEFAULT_CHIP_CAPACITY = 30;
export const DEFAULT_CHIP_THRESHOLD_BYTES = 50;
/**
 * Chip files larger than this are skipped with a warning, never read (a foreign 300 MB chip crashed every start).
 * Ours stay under it: a chip's text is at most the 64 MiB file limit of the edit tools, and saveContent refuses a
 * record whose JSON would not fit.
 */
export const MAX_CHIP_FILE_BYTES = 128 * 1024 * 1024;
const MAX_COUNTER_FILE_BYTES = 64;
const LOCK_FILE = '.lock';
const SEQ_FILE = '.seq';
const STALE_TEMP_MS = 60 * 60 * 1000;

type CacheEntry = { record: ChipRecord } | { invalid: string };

export class ChipStore implements ChipSink {
  readonly dir: string;
  readonly capacity: number;
  readonly deletedCapacity: number;
  readonly ttlMs: number | undefined;
  readonly thresholdBytes: number;
  private readonly clock: Clock;
  private readonly log: (message: string) => void;
  private readonly lockTimeoutMs: number | undefined;
  private readonly signer?: ChipSigner;
  private readonly mutex = new Mutex();
  private readonly changes = new Emitter<ChipChangeEvent>();
  /** file name -> parsed record or the reason it was skipped (warned once). Chip files are immutable. */
  private cache = new Map<string, CacheEntry>();
  private warnedForeign = new Set<string>();

  private constructor(opts: Required<Pick<ChipStoreOptions, 'dir'>> & ChipStoreOptions) {
    this.dir = opts.dir;
    this.capacity = Math.max(1, Math.floor(opts.capacity ?? DEFAULT_CHIP_CAPACITY));
    this.deletedCapacity = Math.max(1, Math.floor(opts.deletedCapacity ?? this.capacity));
    this.ttlMs = opts.ttlMs && opts.ttlMs > 0 ? opts.ttlMs : undefined;
    this.thresholdBytes = opts.thresholdBytes ?? DEFAULT_CHIP_THRESHOLD_BYTES;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log ?? (() => undefined);
    this.lockTimeoutMs = opts.lockTimeoutMs;
    this.signer = opts.signer;
  }

  static async open(opts: ChipStoreOptions): Promise<ChipStore> {
    await createStateDir(opts.dir, 'chip');
    const store = new ChipStore(opts);
    await store.removeStaleTempFiles();
    if (opts.scanAtOpen ?? true) await store.scan();
    return store;
  }

  /** Reads the chips not read yet (their records cached, bad files warned about), for a quiet moment. */
  async warm(): Promise<void> {
    await this.scan();
  }

  /** Fires on saves, deletions, evictions, clear and reload. */
  onDidChange(listener: (e: ChipChangeEvent) => void): Disposable {
    return this.changes.event(listener);
  }

  async saveFailedCall(tool: string, args: unknown, errMsg: string): Promise<ChipSaveResult | undefined> {
    const json = JSON.stringify(args);
    if (json === undefined || Buffer.byteLength(json, 'utf8') <= this.thresholdBytes) return undefined;
    const argsObject: Record<string, unknown> =
      typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : { _args: args };
    const text = originalTextOf({ args: argsObject });
    const err = errMsg.length > MAX_ERROR_CHARS ? boundErrorText(errMsg, undefined) : errMsg;
    return this.persistNew((id, seq, now) => ({
      id,
      tool,
      args: argsObject,
      err_msg: err,
      created_at: Math.floor(now / 1000),
      seq,
      created_ms: now,
      ...locationOfArgs(argsObject),
      size: Buffer.byteLength(text ?? json, 'utf8'),
      preview: failedCallPreview(tool, argsObject, err),
    }));
  }

  async saveContent(
    tool: string,
    content: string,
    where?: { file?: string; range?: { start: number; end: number } },
  ): Promise<ChipSaveResult> {
    return this.persistNew((id, seq, now) => ({
      id,
      tool,
      args: { _content: content },
      created_at: Math.floor(now / 1000),
      seq,
      created_ms: now,
      ...(where?.file !== undefined ? { file: where.file } : {}),
      ...(where?.range !== undefined ? { range: { start: where.range.start, end: where.range.end } } : {}),
      size: Buffer.byteLength(content, 'utf8'),
      preview: previewOf(content),
    }));
  }

  async get(id: string): Promise<ChipRecord | undefined> {
    if (!CHIP_ID_PATTERN.test(id)) return undefined;
    const name = chipFileName(id);
    const read = await readStateFile(path.join(this.dir, name), MAX_CHIP_FILE_BYTES);
    if (!read.ok) {
      if (read.kind === 'missing') {
        this.cache.delete(name);
        return undefined;
      }
      throw new ToolError('io', `Cannot load chip ${id} in ${this.dir}: ${read.reason}. List the chips and pick another one.`);
    }
    const parsed = parseText(read.text, id, this.signer);
    if (typeof parsed === 'string') {
      throw new ToolError('io', `chip ${id} is corrupt (${parsed}); list the chips and pick another one.`);
    }
    if (parsed.tampered) {
      throw new ToolError(
        'conflict',
        `chip ${id} failed its integrity check: its file ${path.join(this.dir, name)} was changed by something other than ` +
          'Better Edit Tools, so its text is not used. Delete the chip (be-chip or the Chips view) and pick another one.',
      );
    }
    this.cache.set(name, { record: parsed });
    return this.isExpired(parsed) ? undefined : parsed;
  }

  /** Every chip in the directory, this process's and others', oldest first. */
  async list(): Promise<ChipRecord[]> {
    const records = await this.scan();
    const expired = records.filter((r) => this.isExpired(r));
    if (expired.length > 0) await this.removeQuietly(expired.map((r) => r.id), 'expired');
    return records.filter((r) => !this.isExpired(r));
  }

  async delete(id: string): Promise<boolean> {
    if (!CHIP_ID_PATTERN.test(id)) return false;
    const name = chipFileName(id);
    try {
      await fs.unlink(path.join(this.dir, name));
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') {
        this.cache.delete(name);
        return false;
      }
      throw new ToolError('io', `Cannot delete chip ${id} in ${this.dir}: ${errorText(err)}.`);
    }
    this.cache.delete(name);
    this.fire({ kind: 'removed', ids: [id] });
    return true;
  }

  /** Deletes every chip file in the directory (not foreign or corrupt files). Returns how many. */
  async clear(): Promise<number> {
    const ids = await this.locked(async () => {
      const records = await this.scan();
      const failures: string[] = [];
      const deleted: string[] = [];
      for (const r of records) {
        try {
          await fs.unlink(path.join(this.dir, chipFileName(r.id)));
          deleted.push(r.id);
        } catch (err) {
          if (errnoCode(err) !== 'ENOENT') failures.push(`${r.id}: ${errorText(err)}`);
        }
        this.cache.delete(chipFileName(r.id));
      }
      if (failures.length > 0) {
        throw new ToolError('io', `Could not delete ${failures.length} chip file(s) in ${this.dir}: ${failures.join('; ')}.`);
      }
      return deleted;
    });
    this.fire({ kind: 'cleared', ids });
    return ids.length;
  }

  /** Forgets the cache and rescans the directory (warnings about bad files are given again). */
  async reload(): Promise<ChipRecord[]> {
    this.cache = new Map();
    this.warnedForeign = new Set();
    const records = await this.list();
    this.fire({ kind: 'reloaded', ids: records.map((r) => r.id) });
    return records;
  }

  /**
   * Watches the directory for chips other processes save or delete and fires 'reloaded' when the set of
   * chips changed. Events are debounced; the watcher is closed by dispose(). Where fs.watch is not
   * available the returned handle does nothing (list() still sees everything when called).
   */
  watch(debounceMs = DIR_WATCH_DEBOUNCE_MS): Disposable {
    let known = '';
    const check = async (): Promise<void> => {
      try {
        const ids = (await this.list()).map((r) => r.id);
        const key = ids.join(',');
        if (key !== known) {
          known = key;
          this.fire({ kind: 'reloaded', ids });
        }
      } catch (err) {
        this.log(`watching ${this.dir}: ${errorText(err)}`);
      }
    };
    void this.list().then((records) => (known = records.map((r) => r.id).join(',')), () => undefined);
    // temp files, the lock and the counter are not chips
    return watchDir(this.dir, () => void check(), {
      debounceMs,
      accept: (name) => CHIP_FILE_PATTERN.test(name),
      onError: (m) => this.log(`${m} (other processes' chips show on Refresh)`),
    });
  }

  originalText(chip: ChipRecord): string | undefined {
    return originalTextOf(chip);
  }

  // ---------------------------------------------------------------- internals

  private async persistNew(build: (id: string, seq: number, nowMs: number) => ChipRecord): Promise<ChipSaveResult> {
    const { chip, evicted } = await this.locked(async () => {
      const existing = await this.scan();
      const ids = new Set(existing.map((r) => r.id));
      const id = newShortId((candidate) => ids.has(candidate) || this.cache.has(chipFileName(candidate)));
      const seq = Math.max(await this.readCounter(), ...existing.map((r) => r.seq), 0) + 1;
      // The counter goes first: a crash after it wastes a number, never reuses one.
      await this.writeOrThrow(path.join(this.dir, SEQ_FILE), `${seq}\n`, false, 'the chip sequence counter');
      const record = build(id, seq, this.clock.now());
      const name = chipFileName(id);
      const json = JSON.stringify(this.signer ? { ...record, mac: this.signer.sign(record) } : record, null, 2) + '\n';
      // A chip that could not be loaded again is not saved at all (the caller keeps its text: nothing is lost).
      const bytes = json.length * 3 <= MAX_CHIP_FILE_BYTES ? json.length : Buffer.byteLength(json, 'utf8');
      if (bytes > MAX_CHIP_FILE_BYTES) {
        throw new ToolError(
          'too_large',
          `The chip would be ${bytes} bytes, over the ${MAX_CHIP_FILE_BYTES}-byte limit of a chip file; nothing was saved. ` +
            'Work in smaller ranges (e.g. delete a large block in several parts).',
          { bytes, limit: MAX_CHIP_FILE_BYTES },
        );
      }
      await this.writeOrThrow(path.join(this.dir, name), json, true, `chip ${id}`);
      this.cache.set(name, { record });
      const evicted = await this.evict([...existing, record], record.id);
      return { chip: record, evicted };
    });
    this.fire({ kind: 'added', ids: [chip.id] });
    if (evicted.length > 0) this.fire({ kind: 'removed', ids: evicted });
    return { chip, evicted };
  }

  /** The capacity of the quota a chip counts against. */
  capacityFor(kind: ChipKind): number {
    return kind === 'deleted' ? this.deletedCapacity : this.capacity;
  }

  /**
   * Called under the lock: drop expired chips, then the oldest beyond capacity (never the one just saved).
   * Each kind has its own quota: a failed call only ever evicts failed-call chips, never removed text.
   */
  private async evict(all: ChipRecord[], keep: string): Promise<string[]> {
    const sorted = [...all].sort(compareChips);
    const victims = new Set(sorted.filter((r) => r.id !== keep && this.isExpired(r)).map((r) => r.id));
    for (const kind of ['failed', 'deleted'] as const) {
      const ofKind = sorted.filter((r) => chipKind(r) === kind);
      let remaining = ofKind.filter((r) => !victims.has(r.id)).length;
      const capacity = this.capacityFor(kind);
      for (const r of ofKind) {
        if (remaining <= capacity) break;
        if (r.id === keep || victims.has(r.id)) continue;
        victims.add(r.id);
        remaining--;
      }
    }
    return this.removeQuietly([...victims], 'evicted');
  }

  /**
   * Deletions the caller did not ask for (eviction, TTL): a failure is logged, not thrown, because the
   * operation that triggered it (a save) did succeed. Returns the ids actually removed.
   */
  private async removeQuietly(ids: string[], why: string): Promise<string[]> {
    const removed: string[] = [];
    for (const id of ids) {
      const name = chipFileName(id);
      try {
        await fs.unlink(path.join(this.dir, name));
        removed.push(id);
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') {
          this.log(`chip ${id} should have been ${why} but could not be deleted from ${this.dir}: ${errorText(err)}`);
          continue;
        }
      }
      this.cache.delete(name);
    }
    if (why === 'expired' && removed.length > 0) this.fire({ kind: 'removed', ids: removed });
    return removed;
  }

  /** readdir + parse names not seen before. Returns valid chips, oldest first. */
  private async scan(): Promise<ChipRecord[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (err) {
      throw new ToolError('io', `Cannot list the chip directory ${this.dir}: ${errorText(err)}.`);
    }
    const present = new Set<string>();
    const records: ChipRecord[] = [];
    for (const name of names) {
      const m = CHIP_FILE_PATTERN.exec(name);
      if (!m) {
        if (name.endsWith('.json') && !name.startsWith('.tmp-') && !this.warnedForeign.has(name)) {
          this.warnedForeign.add(name);
          this.log(`skipping ${path.join(this.dir, name)}: not a chip file name (expected chip-<hex id>.json)`);
        }
        continue;
      }
      present.add(name);
      let entry = this.cache.get(name);
      if (!entry) {
        const read = await readStateFile(path.join(this.dir, name), MAX_CHIP_FILE_BYTES);
        if (!read.ok) {
          if (read.kind === 'missing') continue; // deleted by another process meanwhile
          if (read.kind === 'error') {
            this.log(`skipping chip file ${path.join(this.dir, name)}: ${read.reason}`);
            continue; // not cached: retried on the next scan
          }
          // Not a regular file, or too large: warned once, left in place, not retried until reload().
          this.log(`skipping chip file ${path.join(this.dir, name)}: ${read.reason}; it was left in place`);
          this.cache.set(name, { invalid: read.reason });
          continue;
        }
        const parsed = parseText(read.text, m[1]!, this.signer);
        if (typeof parsed === 'string') {
          this.log(`skipping corrupt or foreign chip file ${path.join(this.dir, name)}: ${parsed}; it was left in place`);
          entry = { invalid: parsed };
        } else {
          entry = { record: parsed };
        }
        this.cache.set(name, entry);
      }
      if ('record' in entry) records.push(entry.record);
    }
    for (const name of [...this.cache.keys()]) if (!present.has(name)) this.cache.delete(name);
    return records.sort(compareChips);
  }

  /** Temp files of writes that crashed half-way: ours by name, and no write takes an hour. */
  private async removeStaleTempFiles(): Promise<void> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.startsWith('.tmp-chip-') && !name.startsWith('.tmp-.seq')) continue;
      const full = path.join(this.dir, name);
      try {
        if (this.clock.now() - (await fs.stat(full)).mtimeMs > STALE_TEMP_MS) await fs.unlink(full);
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') this.log(`could not remove the stale temp file ${full}: ${errorText(err)}`);
      }
    }
  }

  private isExpired(r: ChipRecord): boolean {
    return this.ttlMs !== undefined && this.clock.now() - r.created_ms > this.ttlMs;
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(() =>
      withDirLock(path.join(this.dir, LOCK_FILE), fn, {
        log: this.log,
        ...(this.lockTimeoutMs !== undefined ? { timeoutMs: this.lockTimeoutMs } : {}),
      }),
    );
  }

  private async readCounter(): Promise<number> {
    // Missing, unreadable or not a regular file: the highest seq on disk still keeps order.
    const read = await readStateFile(path.join(this.dir, SEQ_FILE), MAX_COUNTER_FILE_BYTES);
    if (!read.ok) return 0;
    const n = Number.parseInt(read.text, 10);
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  }

  private async writeOrThrow(file: string, data: string, fsync: boolean, what: string): Promise<void> {
    try {
      await writeFileAtomic(file, data, { mode: 0o600, fsync });
    } catch (err) {
      throw new ToolError('io', `Could not save ${what} in ${this.dir}: ${errorText(err)}. Nothing was saved; check free space and permissions.`);
    }
  }

  private fire(e: ChipChangeEvent): void {
    this.changes.fire(e, (err) => this.log(`a chip change listener failed: ${errorText(err)}`));
  }
}

function parseText(text: string, id: string, signer: ChipSigner | undefined): ChipRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `invalid JSON (${errorText(err)})`;
  }
  const record = parseChip(value, id);
  if (typeof record !== 'string' && signer?.verify(value as Record<string, unknown>) === 'tampered') record.tampered = true;
  return record;
}
