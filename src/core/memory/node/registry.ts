/**
 * One ChatMemory per session (an MCP client session), persisted as one JSON file per session in a
 * directory the caller chooses (VS Code: globalStorage/memory/<workspace key>; stdio: <cache>/better-edit-tools-mcp/memory/<key>). Writes are
 * debounced, atomic (temp file + rename) and private (0600). `open` restores every saved session before it returns;
 * `openLater` returns at once and restores them when the host calls `restoreSaved` (the stdio CLI: at its first quiet
 * moment, so that no tool call waits for up to 50 saved sessions of up to ~1 MB each, none of which a call needs).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../files/atomicWrite';
import { readStateFile } from '../../files/stateFile';
import { systemClock, type Clock } from '../../clock';
import { ChatMemory, type ChatMemoryDeps, type ChatMemoryJSON, type ChatMemoryOptions } from '../chatMemory';
import { Emitter, type Disposable } from '../../emitter';
import { Slices } from '../../util/slices';
import type { MemoryChange } from '../types';

export interface MemoryRegistryOptions {
  /** Where sessions are saved; without it the registry lives in memory only. */
  dir?: string;
  memoryOptions?: Partial<ChatMemoryOptions>;
  /** The tokenizer port (required) and optional summarizer/clock every session's memory is built with. */
  deps: ChatMemoryDeps;
  /** Delay before a changed session is written (default 500 ms). */
  debounceMs?: number;
  /** Saved sessions kept on open, newest first (default 50); older files are deleted. */
  maxSessions?: number;
  clock?: Clock;
  /** Persistence failures are reported here and never thrown into the recording path. */
  onError?: (err: unknown) => void;
}

export interface SessionInfo {
  sessionId: string;
  messages: number;
  usedTokens: number;
  usableTokens: number;
  overflow: boolean;
  lastActivity: number;
}

export interface SessionChange {
  sessionId: string;
  change: MemoryChange;
}

interface SavedSession {
  sessionId: string;
  savedAt: number;
  lastActivity: number;
  memory: ChatMemoryJSON;
}

interface Entry {
  memory: ChatMemory;
  lastActivity: number;
  subscription: Disposable;
  timer?: NodeJS.Timeout;
  writing: Promise<void>;
}

const SUFFIX = '.memory.json';
/**
 * A saved session is a few hundred KB (its window is bounded by the token budget: 40,000 tokens by default, at
 * most ~1 MB of text per 250,000 tokens, plus the summary and fingerprints); larger files are not ours.
 */
export const MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;
/** Saved sessions read at once on restore (the thread pool has 4 threads). */
const RESTORE_READS = 8;

export function sessionFileName(sessionId: string): string {
  return `${Buffer.from(sessionId, 'utf8').toString('base64url')}${SUFFIX}`;
}

export class MemoryRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly changes = new Emitter<SessionChange>();
  private readonly sessionsChanged = new Emitter<string[]>();
  private readonly clock: Clock;
  private readonly debounceMs: number;
  private disposed = false;
  private restoring: Promise<void> | undefined;
  private inRestore = false;
  private markRestored!: () => void;
  /** Sessions deleted while the saved ones were being read: never attached again by that restore. */
  private readonly deletedWhileRestoring = new Set<string>();
  /**
   * Resolves once every saved session is restored (at once without a `dir`); never rejects, and stays pending after a
   * restore that failed or was cut short by `dispose`, so that nothing acts on a partial list of sessions.
   */
  readonly restored: Promise<void> = new Promise((resolve) => (this.markRestored = resolve));

  constructor(private readonly options: MemoryRegistryOptions) {
    this.clock = options.clock ?? systemClock;
    this.debounceMs = options.debounceMs ?? 500;
    if (!options.dir) this.markRestored();
  }

  /** Creates a registry and restores the sessions saved in `options.dir`. */
  static async open(options: MemoryRegistryOptions): Promise<MemoryRegistry> {
    const registry = new MemoryRegistry(options);
    await registry.restoreSaved();
    return registry;
  }

  /**
   * A registry at once, its saved sessions not read yet: `restoreSaved` reads them (`restored` tells when). Sessions
   * made before then (`get`) keep their live memory: a saved file of the same id is neither attached nor deleted.
   */
  static openLater(options: MemoryRegistryOptions): MemoryRegistry {
    return new MemoryRegistry(options);
  }

  /** Reads the sessions saved in `dir` into the registry (once: later calls share the first). */
  restoreSaved(): Promise<void> {
    const dir = this.options.dir;
    if (!dir) return this.restored;
    if (!this.restoring) {
      if (this.disposed) return Promise.resolve();
      this.inRestore = true;
      this.restoring = this.restore(dir)
        .then((complete) => {
          // a restore cut short (disposed) or failed leaves `restored` pending: nothing prunes on a partial list
          if (complete) this.markRestored();
        })
        .finally(() => {
          this.inRestore = false;
          this.deletedWhileRestoring.clear();
        });
    }
    return this.restoring;
  }

  get dir(): string | undefined {
    return this.options.dir;
  }

  onDidChange(listener: (e: SessionChange) => void): Disposable {
    return this.changes.event(listener);
  }

  /** Fires with the session ids when a session is created or deleted. */
  onDidChangeSessions(listener: (sessionIds: string[]) => void): Disposable {
    return this.sessionsChanged.event(listener);
  }

  /** The session's memory, created on first use. */
  get(sessionId: string): ChatMemory {
    const existing = this.entries.get(sessionId);
    if (existing) return existing.memory;
    const memory = new ChatMemory(this.options.memoryOptions ?? {}, this.depsWithClock());
    this.attach(sessionId, memory, this.clock.now());
    this.sessionsChanged.fire(this.sessionIds());
    return memory;
  }

  peek(sessionId: string): ChatMemory | undefined {
    return this.entries.get(sessionId)?.memory;
  }

  has(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  sessionIds(): string[] {
    return [...this.entries.keys()];
  }

  /** Sessions, most recently active first. */
  sessions(): SessionInfo[] {
    return [...this.entries.entries()]
      .map(([sessionId, e]) => {
        const s = e.memory.stats();
        return { sessionId, messages: s.messages, usedTokens: s.usedTokens, usableTokens: s.usableTokens, overflow: s.overflow, lastActivity: e.lastActivity };
      })
      .sort((a, b) => b.lastActivity - a.lastActivity);
  }

  /** Removes the session and its saved file (a saved one not restored yet too: it is not restored later). */
  async delete(sessionId: string): Promise<void> {
    if (this.inRestore) this.deletedWhileRestoring.add(sessionId);
    const entry = this.entries.get(sessionId);
    if (!entry) {
      const notRestoredYet = this.restoring === undefined || this.inRestore;
      if (this.options.dir && notRestoredYet) await fs.rm(path.join(this.options.dir, sessionFileName(sessionId)), { force: true });
      return;
    }
    entry.subscription.dispose();
    if (entry.timer) clearTimeout(entry.timer);
    this.entries.delete(sessionId);
    await entry.writing;
    if (this.options.dir) await fs.rm(path.join(this.options.dir, sessionFileName(sessionId)), { force: true });
    this.sessionsChanged.fire(this.sessionIds());
  }

  /** Writes every pending session now. */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.entries.entries()].map(([id, e]) => {
        if (e.timer) {
          clearTimeout(e.timer);
          e.timer = undefined;
          this.save(id, e);
        }
        return e.writing;
      }),
    );
  }

  async dispose(): Promise<void> {
    await this.flush();
    this.disposed = true;
    for (const e of this.entries.values()) e.subscription.dispose();
  }

  private depsWithClock(): ChatMemoryDeps {
    return { clock: this.clock, ...this.options.deps };
  }

  private attach(sessionId: string, memory: ChatMemory, lastActivity: number): void {
    const entry: Entry = { memory, lastActivity, writing: Promise.resolve(), subscription: { dispose() {} } };
    entry.subscription = memory.onDidChange((change) => {
      entry.lastActivity = this.clock.now();
      this.schedule(sessionId, entry);
      this.changes.fire({ sessionId, change });
    });
    this.entries.set(sessionId, entry);
  }

  private schedule(sessionId: string, entry: Entry): void {
    if (!this.options.dir || this.disposed || entry.timer) return;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.save(sessionId, entry);
    }, this.debounceMs);
    entry.timer.unref?.();
  }

  private save(sessionId: string, entry: Entry): void {
    const dir = this.options.dir;
    if (!dir) return;
    const saved: SavedSession = { sessionId, savedAt: this.clock.now(), lastActivity: entry.lastActivity, memory: entry.memory.toJSON() };
    const data = JSON.stringify(saved);
    // Writes of one session are chained so an older snapshot never lands after a newer one.
    entry.writing = entry.writing
      .then(async () => {
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(path.join(dir, sessionFileName(sessionId)), data, { mode: 0o600, fsync: false });
      })
      .catch((err) => this.options.onError?.(err));
  }

  /** True when every saved session was looked at (false: cut short by `dispose`). */
  private async restore(dir: string): Promise<boolean> {
    let names: string[];
    try {
      names = (await fs.readdir(dir)).filter((n) => n.endsWith(SUFFIX));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw err;
    }
    const slots: (SavedSession | undefined)[] = [];
    const readOne = async (name: string, at: number) => {
      try {
        // A FIFO here would block the start forever, a huge foreign file would stall it: neither is opened.
        const read = await readStateFile(path.join(dir, name), MAX_SESSION_FILE_BYTES);
        if (!read.ok) {
          if (read.kind !== 'missing') this.options.onError?.(new Error(`skipping ${path.join(dir, name)}: ${read.reason}`));
          return;
        }
        const saved = JSON.parse(read.text) as SavedSession;
        if (typeof saved.sessionId !== 'string' || sessionFileName(saved.sessionId) !== name) throw new Error(`${name}: session id does not match the file name`);
        slots[at] = saved;
      } catch (err) {
        this.options.onError?.(err); // a corrupt file must not stop the others from loading
      }
    };
    // a few at a time: one after the other, 50 saved sessions held every start ~30 ms in file system round trips
    for (let i = 0; i < names.length; i += RESTORE_READS) await Promise.all(names.slice(i, i + RESTORE_READS).map((n, k) => readOne(n, i + k)));
    // in the folder's order, as read one by one; a session live or deleted meanwhile is this process's, not a saved one
    const settled = (id: string) => this.entries.has(id) || this.deletedWhileRestoring.has(id);
    const loaded = slots.filter((s) => s !== undefined && !settled(s.sessionId)) as SavedSession[];
    loaded.sort((a, b) => b.lastActivity - a.lastActivity);
    if (this.disposed) return false;
    const max = this.options.maxSessions ?? 50;
    await Promise.all(loaded.splice(max).map((stale) => fs.rm(path.join(dir, sessionFileName(stale.sessionId)), { force: true }).catch(() => undefined)));
    // up to 50 windows of hundreds of messages each: in slices of the event loop, not in one block
    const slices = new Slices();
    let attached = 0;
    for (const saved of loaded) {
      if (this.disposed) return false;
      if (settled(saved.sessionId)) continue;
      try {
        const memory = ChatMemory.fromJSON(saved.memory, this.depsWithClock(), budgetOverrides(this.options.memoryOptions));
        this.attach(saved.sessionId, memory, saved.lastActivity);
        attached++;
      } catch (err) {
        this.options.onError?.(err);
      }
      const due = slices.tick();
      if (due) await due;
    }
    if (attached > 0) this.sessionsChanged.fire(this.sessionIds());
    return true;
  }
}

/** Budget settings given by the caller win over the saved ones (a changed setting applies on restart). */
function budgetOverrides(o: Partial<ChatMemoryOptions> | undefined): Partial<ChatMemoryOptions> {
  if (!o) return {};
  const out: Partial<ChatMemoryOptions> = {};
  if (o.maxTokens !== undefined) out.maxTokens = o.maxTokens;
  if (o.reserveRatio !== undefined) out.reserveRatio = o.reserveRatio;
  if (o.recentKeep !== undefined) out.recentKeep = o.recentKeep;
  return out;
}
