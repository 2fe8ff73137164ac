/**
 * ChatMemory: a token-budgeted sliding window with priorities, pins, message kinds, a running summary
 * and fingerprints of what was evicted (ARCHITECTURE.md, ChatMemory M1–M5).
 *
 * Rules:
 * - Pinned and high-priority messages are never evicted automatically; neither is the partner of a
 *   protected tool message (a tool_call and its tool_result are one unit and leave together).
 * - The newest `recentKeep` messages are never evicted automatically.
 * - Order: low before medium; within a priority, tool_result before the other kinds; oldest first.
 * - The slide runs before a message enters (ChatMemory M3): if the window plus the incoming message would
 *   exceed the usable budget, units are evicted until they fit in `targetFill` of it. If protected and
 *   recent messages alone do not fit, the state says `overflow` (never silently over budget).
 * - Each evicted unit leaves a fingerprint and a summary line; the summary's tokens count against the
 *   budget, and it is condensed every `summaryEvery` evicted tokens or when it outgrows its cap.
 *
 * Cost: every message is tokenized once on entry. The window (messageWindow.ts) keeps running totals and
 * one insertion-ordered intrusive list per (priority, kind), so an append costs O(1 + units evicted):
 * nothing is rescanned or re-sorted per append. What eviction leaves behind is runningSummary.ts; the
 * options and their bounds are memoryOptions.ts and limits.ts.
 */
import { ToolError } from '../errors';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import { Emitter, type Disposable } from '../emitter';
import { DEFAULT_MEMORY_OPTIONS, DEFAULT_PRIORITY, DEFAULT_ROLE, validateOptions, type ChatMemoryOptions } from './memoryOptions';
import { MessageWindow, type WindowNode } from './messageWindow';
import { RunningSummary, type RunningSummaryJSON } from './runningSummary';
import { ExtractiveSummarizer, type Summarizer } from './summarizer';
import type { TokenEncoding, Tokenizer } from './node/tokenizer';
import { PRIORITIES, type Fingerprint, type MemoryChange, type MemoryMessage, type MemoryStats, type NewMessage, type Priority, type Role } from './types';

export { DEFAULT_MEMORY_OPTIONS, DEFAULT_PRIORITY, type ChatMemoryOptions } from './memoryOptions';

/** How much later than the message before it a message added in the same millisecond is (1 µs). */
const TIE_STEP_MS = 0.001;

export interface ChatMemoryDeps {
  /** The tokenizer for an encoding, given by the composition root (the memory's encoding is an option). */
  tokenizerFor: (encoding: TokenEncoding) => Tokenizer;
  summarizer?: Summarizer;
  clock?: Clock;
}

export interface PromptMessage {
  role: Role;
  content: string;
}

/** Serialized state (version 1). */
export interface ChatMemoryJSON extends RunningSummaryJSON {
  version: 1;
  options: ChatMemoryOptions;
  nextSeq: number;
  messages: MemoryMessage[];
}

export class ChatMemory {
  readonly options: ChatMemoryOptions;
  private readonly tokenizer: Tokenizer;
  private readonly clock: Clock;
  private readonly emitter = new Emitter<MemoryChange>();
  private readonly window = new MessageWindow();
  private readonly runningSummary: RunningSummary;
  private nextSeq = 1;
  /** The newest message's time: the next one's is later (see add). */
  private lastTime = -Infinity;

  constructor(options: Partial<ChatMemoryOptions>, deps: ChatMemoryDeps) {
    this.options = { ...DEFAULT_MEMORY_OPTIONS, ...options, pinnedGroups: [...(options.pinnedGroups ?? DEFAULT_MEMORY_OPTIONS.pinnedGroups)] };
    validateOptions(this.options);
    this.tokenizer = deps.tokenizerFor(this.options.encoding);
    this.clock = deps.clock ?? systemClock;
    this.runningSummary = new RunningSummary({
      tokenizer: this.tokenizer,
      summarizer: deps.summarizer ?? new ExtractiveSummarizer(),
      summaryEvery: () => this.options.summaryEvery,
      cap: () => this.summaryCap,
      maxFingerprints: () => this.options.maxFingerprints,
      onLateSummary: () => {
        const evicted: MemoryMessage[] = [];
        const fingerprints: Fingerprint[] = [];
        if (this.usedTokens > this.usableTokens) this.slide(0, false, evicted, fingerprints);
        this.emit({ summaryChanged: true, ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}) });
      },
    });
  }

  /** Fires after every change with a delta (added, evicted ids, updated, budget, summary) and the stats. */
  onDidChange(listener: (e: MemoryChange) => void): Disposable {
    return this.emitter.event(listener);
  }

  get usableTokens(): number {
    return this.options.maxTokens - this.reserveTokens;
  }

  get reserveTokens(): number {
    return Math.floor(this.options.maxTokens * this.options.reserveRatio);
  }

  get usedTokens(): number {
    return this.window.totals.messageTokens + this.runningSummary.tokens;
  }

  get summaryCap(): number {
    return this.options.summaryMaxTokens ?? Math.max(200, Math.floor(this.usableTokens * 0.05));
  }

  // ---------------------------------------------------------------- adding

  /** Adds a message. The window slides first, so after this returns it fits the budget or reports overflow. */
  add(input: NewMessage): MemoryMessage {
    if (input.id !== undefined && this.window.has(input.id)) {
      throw new ToolError('invalid_argument', `message id "${input.id}" is already in the window; use a new id or omit it.`);
    }
    const tokens = input.tokens ?? this.tokenizer.count(input.content);
    const seq = this.nextSeq++;
    // strictly after the message before it: two added within one millisecond keep their order in time too (the
    // recap asks whether an edit came at or after a read by their times)
    const now = this.clock.now();
    const at = input.time === undefined ? now : Math.min(input.time, now);
    const time = at > this.lastTime ? at : this.lastTime + TIE_STEP_MS;
    this.lastTime = time;
    const priority = input.priority ?? DEFAULT_PRIORITY[input.kind];
    const group = input.group;
    const msg: MemoryMessage = {
      id: input.id ?? `m${seq}`,
      seq,
      role: input.role ?? DEFAULT_ROLE[input.kind],
      kind: input.kind,
      priority,
      ...(group !== undefined ? { group } : {}),
      content: input.content,
      tokens,
      time,
      references: input.references ?? [],
      ...(input.tool !== undefined ? { tool: input.tool } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      pinned: input.pinned ?? (group !== undefined && this.options.pinnedGroups.includes(group)),
    };
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.runningSummary.generation;
    // The partner of the incoming message must not leave to make room for it (no orphan result).
    const partnerNode = input.pairId !== undefined ? this.window.node(input.pairId) : undefined;
    this.slide(tokens, true, evicted, fingerprints, partnerNode);
    this.window.append(msg);
    if (input.pairId !== undefined) this.window.pair(msg, input.pairId);
    if (this.emitter.hasListeners()) {
      this.emit({
        added: [msg],
        ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
        ...(summaryBefore !== this.runningSummary.generation ? { summaryChanged: true } : {}),
      });
    }
    return msg;
  }

  /** Counts with this memory's tokenizer without blocking the event loop (then pass the count to `add`). */
  countTokensAsync(text: string): Promise<number> {
    return this.tokenizer.countAsync(text);
  }

  // ---------------------------------------------------------------- reading

  visibleMessages(): MemoryMessage[] {
    return this.window.messages();
  }

  get(id: string): MemoryMessage | undefined {
    return this.window.node(id)?.msg;
  }

  /** The newest `n` visible messages, oldest first. */
  recent(n: number): MemoryMessage[] {
    return this.window.newest(n);
  }

  get size(): number {
    return this.window.size;
  }

  summary(): string {
    return this.runningSummary.text();
  }

  fingerprints(): Fingerprint[] {
    return this.runningSummary.fingerprints();
  }

  stats(): MemoryStats {
    const usable = this.usableTokens;
    const used = this.usedTokens;
    const totals = this.window.totals;
    const overflow = used > usable;
    const warnings: string[] = [];
    const warnAt = usable * this.options.protectedWarnRatio;
    if (totals.protectedTokens > warnAt) {
      warnings.push(
        `pinned and high-priority messages use ${totals.protectedTokens} tokens (${pct(totals.protectedTokens, usable)} of the usable budget, ` +
          `over ${pct(warnAt, usable)}): trim the constraints or unpin some.`,
      );
    }
    if (overflow) {
      warnings.push(
        `window over budget: ${used} of ${usable} tokens are used by pinned, high-priority and recent messages that cannot be evicted; ` +
          `unpin, lower a priority, evict explicitly or raise the budget.`,
      );
    }
    return {
      maxTokens: this.options.maxTokens,
      reserveTokens: this.reserveTokens,
      usableTokens: usable,
      usedTokens: used,
      messageTokens: totals.messageTokens,
      summaryTokens: this.runningSummary.tokens,
      fill: usable > 0 ? used / usable : 1,
      messages: this.window.size,
      byPriority: { ...totals.byPriority },
      byKind: { ...totals.byKind },
      protectedTokens: totals.protectedTokens,
      pinnedMessages: totals.pinnedCount,
      evictions: this.runningSummary.evictions,
      evictedTokens: this.runningSummary.evictedTokens,
      overflow,
      warnings,
    };
  }

  /** The prompt in the order of ChatMemory M5: system (with summary and external context), history, then the query. */
  assemble(query: string, externalContext?: string): PromptMessage[] {
    let system = this.options.systemPrompt;
    const summary = this.summary();
    if (summary) system += `\n\n[Summary of earlier conversation]\n${summary.trimEnd()}`;
    if (externalContext) system += `\n\n[External context]\n${externalContext}`;
    return [
      { role: 'system', content: system },
      ...this.visibleMessages().map((m) => ({ role: m.role, content: m.content })),
      { role: 'user', content: query },
    ];
  }

  // ---------------------------------------------------------------- explicit changes

  pin(id: string): MemoryMessage {
    return this.update(id, (msg) => {
      if (!msg.pinned) msg.pinned = true;
    });
  }

  unpin(id: string): MemoryMessage {
    return this.update(id, (msg) => {
      msg.pinned = false;
    });
  }

  setPriority(id: string, priority: Priority): MemoryMessage {
    if (!PRIORITIES.includes(priority)) {
      throw new ToolError('invalid_argument', `priority must be one of ${PRIORITIES.join(', ')}; got "${String(priority)}".`);
    }
    return this.update(id, (msg) => {
      msg.priority = priority;
    });
  }

  /** Evicts a message (and its tool partner) now. Pinned messages must be unpinned first. */
  evict(id: string): string[] {
    const node = this.requireNode(id);
    const partner = this.window.partnerOf(node);
    for (const n of [node, partner]) {
      if (n?.msg.pinned) {
        throw new ToolError('invalid_argument', `message "${n.msg.id}" is pinned; unpin it first, then evict.`, { id: n.msg.id });
      }
    }
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.runningSummary.generation;
    this.evictUnit(node, partner, evicted, fingerprints);
    this.emit({
      evicted: evicted.map((m) => m.id),
      fingerprints,
      ...(summaryBefore !== this.runningSummary.generation ? { summaryChanged: true } : {}),
    });
    return evicted.map((m) => m.id);
  }

  /** Changes the budget; the window slides right away if it no longer fits. */
  setBudget(budget: { maxTokens?: number; reserveRatio?: number; recentKeep?: number }): MemoryStats {
    const next = { ...this.options, ...definedOnly(budget) };
    validateOptions(next);
    Object.assign(this.options, definedOnly(budget));
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.runningSummary.generation;
    this.slide(0, false, evicted, fingerprints);
    this.emit({
      budgetChanged: true,
      ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
      ...(summaryBefore !== this.runningSummary.generation ? { summaryChanged: true } : {}),
    });
    return this.stats();
  }

  /** Forgets everything (messages, summary, fingerprints, counters); options stay. */
  clear(): void {
    this.window.clear();
    this.runningSummary.clear();
    this.emit({ cleared: true, summaryChanged: true });
  }

  private update(id: string, change: (msg: MemoryMessage) => void): MemoryMessage {
    const node = this.requireNode(id);
    this.window.changeMessage(node, change);
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.runningSummary.generation;
    if (this.usedTokens > this.usableTokens) this.slide(0, false, evicted, fingerprints);
    this.emit({
      updated: [node.msg],
      ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
      ...(summaryBefore !== this.runningSummary.generation ? { summaryChanged: true } : {}),
    });
    return node.msg;
  }

  private requireNode(id: string): WindowNode {
    const node = this.window.node(id);
    if (!node) {
      throw new ToolError('not_found', `message "${id}" is not in the window (it may have been evicted); call be-memory window to list ids.`, { id });
    }
    return node;
  }

  // ---------------------------------------------------------------- sliding

  /** Evicts units until `incoming` more tokens fit under the usable budget (down to targetFill of it). */
  private slide(incoming: number, entering: boolean, evicted: MemoryMessage[], fingerprints: Fingerprint[], keep?: WindowNode): void {
    const usable = this.usableTokens;
    if (this.usedTokens + incoming > usable) {
      const target = Math.floor(usable * this.options.targetFill);
      const order = this.window.evictionOrder(this.window.recentFrom(this.options.recentKeep, entering), keep);
      while (this.usedTokens + incoming > target) {
        const unit = order.next();
        if (unit.done) break;
        this.evictUnit(unit.value[0], unit.value[1], evicted, fingerprints);
      }
    }
    this.runningSummary.condenseIfOverCap();
  }

  /** Takes a unit (a message and its tool partner) out of the window; the summary keeps what it was. */
  private evictUnit(node: WindowNode, partner: WindowNode | undefined, evicted: MemoryMessage[], fingerprints: Fingerprint[]): void {
    const primary = partner && partner.msg.seq < node.msg.seq ? partner : node;
    const secondary = primary === node ? partner : node;
    const unit: MemoryMessage[] = [];
    for (const n of [primary, secondary]) {
      if (!n) continue;
      this.window.remove(n);
      unit.push(n.msg);
    }
    evicted.push(...unit);
    fingerprints.push(...this.runningSummary.recordEviction(unit, this.clock.now()));
  }

  private emit(change: Omit<MemoryChange, 'stats'>): void {
    if (!this.emitter.hasListeners()) return;
    this.emitter.fire({ ...change, stats: this.stats() });
  }

  // ---------------------------------------------------------------- persistence

  toJSON(): ChatMemoryJSON {
    return {
      version: 1,
      options: { ...this.options, pinnedGroups: [...this.options.pinnedGroups] },
      nextSeq: this.nextSeq,
      messages: this.visibleMessages().map((m) => ({ ...m, references: m.references.map((r) => ({ ...r })) })),
      ...this.runningSummary.toJSON(),
    };
  }

  /** Restores a window. Tool links to missing messages are dropped (stores can hold orphans). */
  static fromJSON(json: ChatMemoryJSON, deps: ChatMemoryDeps, overrides: Partial<ChatMemoryOptions> = {}): ChatMemory {
    if (!json || json.version !== 1 || !Array.isArray(json.messages)) {
      throw new ToolError('invalid_argument', 'not a ChatMemory state (expected {"version":1, "messages":[...]})');
    }
    const memory = new ChatMemory({ ...json.options, ...overrides }, deps);
    const recount = json.options.encoding !== memory.options.encoding;
    const ids = new Set(json.messages.map((m) => m.id));
    const sorted = [...json.messages].sort((a, b) => a.seq - b.seq);
    for (const m of sorted) {
      const msg: MemoryMessage = {
        ...m,
        references: (m.references ?? []).map((r) => ({ ...r })),
        tokens: recount ? memory.tokenizer.count(m.content) : m.tokens,
        pinned: Boolean(m.pinned),
      };
      if (msg.pairId !== undefined && !ids.has(msg.pairId)) delete msg.pairId;
      if (memory.window.has(msg.id)) continue;
      const pairId = msg.pairId;
      delete msg.pairId;
      memory.window.append(msg);
      if (pairId !== undefined && memory.window.has(pairId)) memory.window.pair(msg, pairId);
    }
    memory.nextSeq = Math.max(json.nextSeq ?? 1, (sorted.at(-1)?.seq ?? 0) + 1);
    for (const m of sorted) if (Number.isFinite(m.time) && m.time > memory.lastTime) memory.lastTime = m.time;
    memory.runningSummary.restore(json, recount);
    // Restore exactly what was saved (an overflow stays reported); slide only if the caller changed the budget.
    if (Object.keys(overrides).length > 0) memory.slide(0, false, [], []);
    return memory;
  }
}

function pct(part: number, whole: number): string {
  return `${whole > 0 ? ((100 * part) / whole).toFixed(1) : '∞'}%`;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
