/**
 * What each chat turn really sent: every model request's prompt size against the budget, what entered the
 * window, what slid out and why, what was recalled. The Token Window shows it; the bench and tests read it.
 * Bounded: the newest `maxTurns` turns per session, at most `MAX_SLID_PER_TURN` slid-out entries per turn. With a
 * directory, each session's turns are saved (0600, atomic, when a turn ends) so a reloaded window shows them.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../files/atomicWrite';
import { readStateFile } from '../../files/stateFile';
import { Emitter, type Disposable } from '../../emitter';
import type { ChatMemory } from '../chatMemory';
import type { PromptTokens } from '../promptAssembly';
import type { MemoryChange, MessageKind } from '../types';

export interface PromptRequestRecord {
  round: number;
  tokens: PromptTokens;
  /** What the model counted, when it can count (VS Code models do). */
  modelTokens?: number;
  limit: number;
  maxInputTokens: number;
  reserveTokens: number;
  messages: number;
}

export interface EnteredRecord {
  id: string;
  kind: MessageKind;
  tokens: number;
}

export interface SlidOutRecord extends EnteredRecord {
  reason: string;
}

export interface TurnRecord {
  sessionId: string;
  turn: number;
  model: string;
  startedAt: number;
  query: string;
  requests: PromptRequestRecord[];
  entered: EnteredRecord[];
  slidOut: SlidOutRecord[];
  recalled: string[];
  done: boolean;
  error?: string;
}

export interface TurnLogChange {
  sessionId: string;
  turn: TurnRecord;
}

const SUFFIX = '.turns.json';
const MAX_SLID_PER_TURN = 50;
const MAX_TURNS_FILE_BYTES = 8 * 1024 * 1024;

export function turnsFileName(sessionId: string): string {
  return `${Buffer.from(sessionId, 'utf8').toString('base64url')}${SUFFIX}`;
}

export class TurnLog {
  private readonly turns = new Map<string, TurnRecord[]>();
  private readonly emitter = new Emitter<TurnLogChange>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly maxTurns = 200,
    private readonly dir?: string,
    private readonly onError?: (err: unknown) => void,
  ) {}

  /** A log that saves into `dir` and starts with the turns saved there (files that are not ours are skipped). */
  static async open(dir: string, opts: { maxTurns?: number; onError?: (err: unknown) => void } = {}): Promise<TurnLog> {
    const log = new TurnLog(opts.maxTurns, dir, opts.onError);
    let names: string[] = [];
    try {
      names = (await fs.readdir(dir)).filter((n) => n.endsWith(SUFFIX));
    } catch {
      return log;
    }
    for (const name of names) {
      const read = await readStateFile(path.join(dir, name), MAX_TURNS_FILE_BYTES);
      if (!read.ok) continue;
      try {
        const saved = JSON.parse(read.text) as { sessionId: string; turns: TurnRecord[] };
        if (typeof saved.sessionId === 'string' && turnsFileName(saved.sessionId) === name && Array.isArray(saved.turns)) log.turns.set(saved.sessionId, saved.turns);
      } catch (err) {
        opts.onError?.(err);
      }
    }
    return log;
  }

  /**
   * Forgets the turns of sessions the memory registry no longer holds, files included, so the log is bounded
   * like the sessions are (the registry keeps the newest 50).
   */
  prune(liveIds: readonly string[]): Promise<void> {
    const keep = new Set(liveIds);
    for (const id of [...this.turns.keys()]) if (!keep.has(id)) this.turns.delete(id);
    const dir = this.dir;
    if (!dir) return Promise.resolve();
    const keepNames = new Set(liveIds.map(turnsFileName));
    this.writing = this.writing.then(async () => {
      const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(SUFFIX) && !keepNames.has(n));
      for (const name of names) await fs.rm(path.join(dir, name), { force: true }).catch((e: unknown) => this.onError?.(e));
    });
    return this.writing;
  }

  /** Resolves when every save so far is on disk. */
  flush(): Promise<void> {
    return this.writing;
  }

  private save(sessionId: string): void {
    const dir = this.dir;
    if (!dir) return;
    const data = JSON.stringify({ sessionId, turns: this.turns.get(sessionId) ?? [] });
    this.writing = this.writing
      .then(async () => {
        await fs.mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(path.join(dir, turnsFileName(sessionId)), data, { mode: 0o600, fsync: false });
      })
      .catch((err) => this.onError?.(err));
  }

  onDidChange(listener: (e: TurnLogChange) => void): Disposable {
    return this.emitter.event(listener);
  }

  list(sessionId: string): TurnRecord[] {
    return (this.turns.get(sessionId) ?? []).slice();
  }

  sessionIds(): string[] {
    return [...this.turns.keys()];
  }

  /** Starts a turn: from now on the memory's changes are attributed to it until `finish`. */
  begin(sessionId: string, memory: ChatMemory, model: string, query: string, startedAt: number): TurnRecorder {
    const list = this.turns.get(sessionId) ?? [];
    this.turns.set(sessionId, list);
    const record: TurnRecord = { sessionId, turn: (list.at(-1)?.turn ?? 0) + 1, model, startedAt, query: query.slice(0, 200), requests: [], entered: [], slidOut: [], recalled: [], done: false };
    list.push(record);
    if (list.length > this.maxTurns) list.splice(0, list.length - this.maxTurns);
    return new TurnRecorder(record, memory, () => {
      if (record.done) this.save(sessionId);
      this.emitter.fire({ sessionId, turn: record });
    });
  }
}

export class TurnRecorder {
  /** Why an explicit eviction happens (set around the call that evicts). */
  private explicitReason = 'evicted explicitly';
  private readonly subscription: Disposable;

  constructor(
    readonly record: TurnRecord,
    private readonly memory: ChatMemory,
    private readonly changed: () => void,
  ) {
    this.subscription = memory.onDidChange((c) => this.onChange(c));
  }

  /** Runs `fn` with explicit evictions attributed to `reason`. */
  because<T>(reason: string, fn: () => T): T {
    const before = this.explicitReason;
    this.explicitReason = reason;
    try {
      return fn();
    } finally {
      this.explicitReason = before;
    }
  }

  request(r: PromptRequestRecord): void {
    this.record.requests.push(r);
    this.changed();
  }

  recalled(ids: string[]): void {
    this.record.recalled.push(...ids);
  }

  finish(error?: string): void {
    this.subscription.dispose();
    this.record.done = true;
    if (error) this.record.error = error;
    this.changed();
  }

  private onChange(c: MemoryChange): void {
    for (const m of c.added ?? []) this.record.entered.push({ id: m.id, kind: m.kind, tokens: m.tokens });
    if (!c.evicted?.length) return;
    const entering = c.added?.[0];
    const reason = entering
      ? `window full: slid out before ${entering.id} (${entering.kind}, ${entering.tokens}t) entered`
      : c.budgetChanged
        ? `window budget set to ${c.stats.usableTokens} tokens (model input − reserve − system, context, tools)`
        : this.explicitReason;
    const byId = new Map((c.fingerprints ?? []).map((f) => [f.id, f]));
    for (const id of c.evicted) {
      if (this.record.slidOut.length >= MAX_SLID_PER_TURN) break;
      const f = byId.get(id);
      this.record.slidOut.push({ id, kind: f?.kind ?? 'note', tokens: f?.tokens ?? 0, reason });
    }
  }
}
