/**
 * ChatMemory: a token-budgeted sliding window with priorities, pins, message kinds, a running summary
 * and fingerprints of what was evicted (seed 3.1, 4.1–4.3, 5.2, 6.1–6.5).
 *
 * Rules:
 * - Pinned and high-priority messages are never evicted automatically; neither is the partner of a
 *   protected tool message (a tool_call and its tool_result are one unit and leave together).
 * - The newest `recentKeep` messages are never evicted automatically.
 * - Order: low before medium; within a priority, tool_result before the other kinds; oldest first.
 * - The slide runs before a message enters (seed 6.5): if the window plus the incoming message would
 *   exceed the usable budget, units are evicted until they fit in `targetFill` of it. If protected and
 *   recent messages alone do not fit, the state says `overflow` (never silently over budget).
 * - Each evicted unit leaves a fingerprint and a summary line; the summary's tokens count against the
 *   budget, and it is condensed every `summaryEvery` evicted tokens or when it outgrows its cap.
 *
 * Cost: every message is tokenized once on entry. The window keeps running totals and one
 * insertion-ordered intrusive list per (priority, kind), so an append costs O(1 + units evicted):
 * nothing is rescanned or re-sorted per append.
 */
import { ToolError } from '../errors';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import { Emitter, type Disposable } from '../emitter';
import { fingerprintOf } from './fingerprint';
import { MEMORY_LIMITS, memoryLimitProblem } from './limits';
import { ExtractiveSummarizer, extractiveCondense, type EvictionAggregate, type Summarizer } from './summarizer';
import { getTokenizer, type TokenEncoding, type Tokenizer } from './tokenizer';
import {
  MESSAGE_KINDS,
  PRIORITIES,
  type Fingerprint,
  type MemoryChange,
  type MemoryMessage,
  type MemoryStats,
  type MessageKind,
  type NewMessage,
  type Priority,
  type Role,
} from './types';

export interface ChatMemoryOptions {
  /** Total window budget in tokens (seed 4.3: 40,000). */
  maxTokens: number;
  /** Share kept for the model's output (0.15). */
  reserveRatio: number;
  /** The newest N messages are never evicted automatically (6). */
  recentKeep: number;
  /** Condense the summary every N evicted tokens (10,000). */
  summaryEvery: number;
  /** Messages in these groups are pinned on entry (["goal"]). */
  pinnedGroups: string[];
  /** After a slide the window is brought down to this share of the usable budget (0.9). */
  targetFill: number;
  /** Cap for the running summary (default 5% of the usable budget). */
  summaryMaxTokens?: number;
  /** Fingerprints kept (oldest dropped; they are already folded into the summary). */
  maxFingerprints: number;
  /** Share of the usable budget above which pinned/high messages raise a warning (seed 4.2: 5%). */
  protectedWarnRatio: number;
  encoding: TokenEncoding;
  systemPrompt: string;
}

export interface ChatMemoryDeps {
  tokenizer?: Tokenizer;
  summarizer?: Summarizer;
  clock?: Clock;
}

export const DEFAULT_MEMORY_OPTIONS: ChatMemoryOptions = {
  maxTokens: MEMORY_LIMITS.maxTokens.default,
  reserveRatio: MEMORY_LIMITS.reserveRatio.default,
  recentKeep: MEMORY_LIMITS.recentKeep.default,
  summaryEvery: 10_000,
  pinnedGroups: ['goal'],
  targetFill: 0.9,
  maxFingerprints: 200,
  protectedWarnRatio: 0.05,
  encoding: 'o200k_base',
  systemPrompt:
    'You are a coding agent. Use the external context and the history below to complete the task; call tools when you need more detail.',
};

export const DEFAULT_PRIORITY: Record<MessageKind, Priority> = {
  system: 'high',
  user_query: 'medium',
  tool_call: 'medium',
  tool_result: 'low',
  assistant_code: 'medium',
  assistant: 'low',
  note: 'medium',
};

const DEFAULT_ROLE: Record<MessageKind, Role> = {
  system: 'system',
  user_query: 'user',
  tool_call: 'assistant',
  tool_result: 'tool',
  assistant_code: 'assistant',
  assistant: 'assistant',
  note: 'user',
};

export interface PromptMessage {
  role: Role;
  content: string;
}

/** Serialized state (version 1). */
export interface ChatMemoryJSON {
  version: 1;
  options: ChatMemoryOptions;
  nextSeq: number;
  messages: MemoryMessage[];
  summaryLines: string[];
  fingerprints: Fingerprint[];
  evictions: number;
  evictedTokens: number;
  evictedSinceCondense: number;
  aggregate: EvictionAggregate;
}

interface Node {
  msg: MemoryMessage;
  prev: Node | undefined;
  next: Node | undefined;
  /** Links inside the node's eviction queue (undefined when not queued). */
  qprev: Node | undefined;
  qnext: Node | undefined;
  queue: Queue | undefined;
}

interface Queue {
  head: Node | undefined;
  tail: Node | undefined;
}

type Tier = readonly Queue[];

export class ChatMemory {
  readonly options: ChatMemoryOptions;
  private readonly tokenizer: Tokenizer;
  private readonly summarizer: Summarizer;
  private readonly clock: Clock;
  private readonly emitter = new Emitter<MemoryChange>();

  private readonly byId = new Map<string, Node>();
  private head: Node | undefined;
  private tail: Node | undefined;
  private count = 0;
  private nextSeq = 1;
  /** Eviction queues, insertion-ordered, keyed priority → kind (high priority is never queued). */
  private readonly queues: Record<'low' | 'medium', Record<MessageKind, Queue>>;
  /** Slide order: low tool_result, low others, medium tool_result, medium others. */
  private readonly tiers: Tier[];

  private messageTokens = 0;
  private readonly tokensByPriority: Record<Priority, number> = { high: 0, medium: 0, low: 0 };
  private readonly tokensByKind = Object.fromEntries(MESSAGE_KINDS.map((k) => [k, 0])) as Record<MessageKind, number>;
  private protectedTokens = 0;
  private pinnedCount = 0;

  private summaryLines: string[] = [];
  private summaryLineTokens: number[] = [];
  private summaryTokens = 0;
  private summaryGeneration = 0;
  private condenseCount = 0;
  private fingerprintList: Fingerprint[] = [];
  private evictions = 0;
  private evictedTokens = 0;
  private evictedSinceCondense = 0;
  private aggregate: EvictionAggregate = { messages: 0, tokens: 0, errors: 0, files: {}, tools: {} };

  constructor(options: Partial<ChatMemoryOptions> = {}, deps: ChatMemoryDeps = {}) {
    this.options = { ...DEFAULT_MEMORY_OPTIONS, ...options, pinnedGroups: [...(options.pinnedGroups ?? DEFAULT_MEMORY_OPTIONS.pinnedGroups)] };
    validateOptions(this.options);
    this.tokenizer = deps.tokenizer ?? getTokenizer(this.options.encoding);
    this.summarizer = deps.summarizer ?? new ExtractiveSummarizer();
    this.clock = deps.clock ?? systemClock;
    const makeKinds = (): Record<MessageKind, Queue> =>
      Object.fromEntries(MESSAGE_KINDS.map((k) => [k, { head: undefined, tail: undefined }])) as Record<MessageKind, Queue>;
    this.queues = { low: makeKinds(), medium: makeKinds() };
    const others = (p: 'low' | 'medium'): Queue[] => MESSAGE_KINDS.filter((k) => k !== 'tool_result').map((k) => this.queues[p][k]);
    this.tiers = [[this.queues.low.tool_result], others('low'), [this.queues.medium.tool_result], others('medium')];
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
    return this.messageTokens + this.summaryTokens;
  }

  get summaryCap(): number {
    return this.options.summaryMaxTokens ?? Math.max(200, Math.floor(this.usableTokens * 0.05));
  }

  // ---------------------------------------------------------------- adding

  /** Adds a message. The window slides first, so after this returns it fits the budget or reports overflow. */
  add(input: NewMessage): MemoryMessage {
    if (input.id !== undefined && this.byId.has(input.id)) {
      throw new ToolError('invalid_argument', `message id "${input.id}" is already in the window; use a new id or omit it.`);
    }
    const tokens = input.tokens ?? this.tokenizer.count(input.content);
    const seq = this.nextSeq++;
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
      time: this.clock.now(),
      references: input.references ?? [],
      ...(input.tool !== undefined ? { tool: input.tool } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      pinned: input.pinned ?? (group !== undefined && this.options.pinnedGroups.includes(group)),
    };
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.summaryGeneration;
    // The partner of the incoming message must not leave to make room for it (no orphan result).
    const partnerNode = input.pairId !== undefined ? this.byId.get(input.pairId) : undefined;
    this.slide(tokens, true, evicted, fingerprints, partnerNode);
    this.link(msg);
    if (input.pairId !== undefined) this.pair(msg, input.pairId);
    if (this.emitter.hasListeners()) {
      this.emit({
        added: [msg],
        ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
        ...(summaryBefore !== this.summaryGeneration ? { summaryChanged: true } : {}),
      });
    }
    return msg;
  }

  /** Links `msg` with its partner (a tool_call / tool_result pair) if the partner is in the window. */
  private pair(msg: MemoryMessage, pairId: string): void {
    const partner = this.byId.get(pairId);
    if (!partner || partner.msg.pairId !== undefined) return;
    msg.pairId = pairId;
    partner.msg.pairId = msg.id;
    // A unit with a protected side is protected as a whole: take the other side out of its queue.
    if (this.isProtected(partner.msg)) this.dequeue(this.byId.get(msg.id)!);
    if (this.isProtected(msg)) this.dequeue(partner);
  }

  /** Counts with this memory's tokenizer without blocking the event loop (then pass the count to `add`). */
  countTokensAsync(text: string): Promise<number> {
    return this.tokenizer.countAsync(text);
  }

  // ---------------------------------------------------------------- reading

  visibleMessages(): MemoryMessage[] {
    const out: MemoryMessage[] = [];
    for (let n = this.head; n; n = n.next) out.push(n.msg);
    return out;
  }

  get(id: string): MemoryMessage | undefined {
    return this.byId.get(id)?.msg;
  }

  /** The newest `n` visible messages, oldest first. */
  recent(n: number): MemoryMessage[] {
    const out: MemoryMessage[] = [];
    for (let node = this.tail; node && out.length < n; node = node.prev) out.push(node.msg);
    return out.reverse();
  }

  get size(): number {
    return this.count;
  }

  summary(): string {
    return this.summaryLines.map((l) => `- ${l}\n`).join('');
  }

  fingerprints(): Fingerprint[] {
    return this.fingerprintList.slice();
  }

  stats(): MemoryStats {
    const usable = this.usableTokens;
    const used = this.usedTokens;
    const overflow = used > usable;
    const warnings: string[] = [];
    const warnAt = usable * this.options.protectedWarnRatio;
    if (this.protectedTokens > warnAt) {
      warnings.push(
        `pinned and high-priority messages use ${this.protectedTokens} tokens (${pct(this.protectedTokens, usable)} of the usable budget, ` +
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
      messageTokens: this.messageTokens,
      summaryTokens: this.summaryTokens,
      fill: usable > 0 ? used / usable : 1,
      messages: this.count,
      byPriority: { ...this.tokensByPriority },
      byKind: { ...this.tokensByKind },
      protectedTokens: this.protectedTokens,
      pinnedMessages: this.pinnedCount,
      evictions: this.evictions,
      evictedTokens: this.evictedTokens,
      overflow,
      warnings,
    };
  }

  /** The prompt in the seed's order (5.4): system (with summary and external context), history, then the query. */
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
    const partner = this.partnerOf(node);
    for (const n of [node, partner]) {
      if (n?.msg.pinned) {
        throw new ToolError('invalid_argument', `message "${n.msg.id}" is pinned; unpin it first, then evict.`, { id: n.msg.id });
      }
    }
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.summaryGeneration;
    this.evictUnit(node, partner, evicted, fingerprints);
    this.emit({
      evicted: evicted.map((m) => m.id),
      fingerprints,
      ...(summaryBefore !== this.summaryGeneration ? { summaryChanged: true } : {}),
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
    const summaryBefore = this.summaryGeneration;
    this.slide(0, false, evicted, fingerprints);
    this.emit({
      budgetChanged: true,
      ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
      ...(summaryBefore !== this.summaryGeneration ? { summaryChanged: true } : {}),
    });
    return this.stats();
  }

  /** Forgets everything (messages, summary, fingerprints, counters); options stay. */
  clear(): void {
    this.byId.clear();
    this.head = this.tail = undefined;
    this.count = 0;
    for (const p of ['low', 'medium'] as const) {
      for (const k of MESSAGE_KINDS) this.queues[p][k].head = this.queues[p][k].tail = undefined;
    }
    this.messageTokens = this.protectedTokens = this.pinnedCount = 0;
    for (const p of PRIORITIES) this.tokensByPriority[p] = 0;
    for (const k of MESSAGE_KINDS) this.tokensByKind[k] = 0;
    this.summaryLines = [];
    this.summaryLineTokens = [];
    this.summaryTokens = 0;
    this.summaryGeneration++;
    this.condenseCount++; // a pending LM summary belongs to the old state
    this.fingerprintList = [];
    this.evictions = this.evictedTokens = this.evictedSinceCondense = 0;
    this.aggregate = { messages: 0, tokens: 0, errors: 0, files: {}, tools: {} };
    this.emit({ cleared: true, summaryChanged: true });
  }

  private update(id: string, change: (msg: MemoryMessage) => void): MemoryMessage {
    const node = this.requireNode(id);
    const partner = this.partnerOf(node);
    // Take the unit out of the indexes, change it, put it back: totals and queues stay consistent.
    this.unlinkAccounting(node.msg, -1);
    this.dequeue(node);
    if (partner) this.dequeue(partner);
    change(node.msg);
    this.unlinkAccounting(node.msg, +1);
    this.requeue(node);
    if (partner) this.requeue(partner);
    const evicted: MemoryMessage[] = [];
    const fingerprints: Fingerprint[] = [];
    const summaryBefore = this.summaryGeneration;
    if (this.usedTokens > this.usableTokens) this.slide(0, false, evicted, fingerprints);
    this.emit({
      updated: [node.msg],
      ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}),
      ...(summaryBefore !== this.summaryGeneration ? { summaryChanged: true } : {}),
    });
    return node.msg;
  }

  private requireNode(id: string): Node {
    const node = this.byId.get(id);
    if (!node) {
      throw new ToolError('not_found', `message "${id}" is not in the window (it may have been evicted); call be-memory window to list ids.`, { id });
    }
    return node;
  }

  // ---------------------------------------------------------------- sliding

  private isProtected(msg: MemoryMessage): boolean {
    return msg.pinned || msg.priority === 'high';
  }

  private partnerOf(node: Node): Node | undefined {
    return node.msg.pairId !== undefined ? this.byId.get(node.msg.pairId) : undefined;
  }

  /**
   * Seq from which messages count as recent. `incoming` is true when a new message is about to enter:
   * it will be one of the newest `recentKeep`, so only `recentKeep - 1` existing ones are protected.
   */
  private recentThreshold(incoming: boolean): number {
    let keep = this.options.recentKeep - (incoming ? 1 : 0);
    if (keep <= 0) return Infinity;
    let node = this.tail;
    while (node && keep > 1) {
      node = node.prev;
      keep--;
    }
    return node ? node.msg.seq : -Infinity;
  }

  /** Evicts units until `incoming` more tokens fit under the usable budget (down to targetFill of it). */
  private slide(incoming: number, entering: boolean, evicted: MemoryMessage[], fingerprints: Fingerprint[], keep?: Node): void {
    const usable = this.usableTokens;
    if (this.usedTokens + incoming <= usable) {
      if (this.summaryTokens > this.summaryCap) this.condense();
      return;
    }
    const target = Math.floor(usable * this.options.targetFill);
    const threshold = this.recentThreshold(entering);
    const over = (): boolean => this.usedTokens + incoming > target;
    for (const tier of this.tiers) {
      if (!over()) break;
      // One cursor per queue of the tier; the candidate is the oldest cursor. Skips (a partner that is
      // still recent) are bounded by recentKeep, so the walk is O(evicted + recentKeep).
      const cursors: (Node | undefined)[] = tier.map((q) => q.head);
      while (over()) {
        let best = -1;
        for (let i = 0; i < cursors.length; i++) {
          const c = cursors[i];
          if (c && (best < 0 || c.msg.seq < cursors[best]!.msg.seq)) best = i;
        }
        if (best < 0) break;
        const candidate = cursors[best]!;
        if (candidate.msg.seq >= threshold) break; // queues are ordered: everything after is recent too
        const partner = this.partnerOf(candidate);
        if ((keep && (candidate === keep || partner === keep)) || (partner && (partner.msg.seq >= threshold || this.isProtected(partner.msg)))) {
          cursors[best] = candidate.qnext;
          continue;
        }
        // Advance any cursor that sits on a node about to leave.
        for (let i = 0; i < cursors.length; i++) {
          if (cursors[i] === candidate) cursors[i] = candidate.qnext;
          if (partner && cursors[i] === partner) cursors[i] = partner.qnext;
        }
        this.evictUnit(candidate, partner, evicted, fingerprints);
      }
    }
    if (this.summaryTokens > this.summaryCap) this.condense();
  }

  private evictUnit(node: Node, partner: Node | undefined, evicted: MemoryMessage[], fingerprints: Fingerprint[]): void {
    const now = this.clock.now();
    const primary = partner && partner.msg.seq < node.msg.seq ? partner : node;
    const secondary = primary === node ? partner : node;
    let unitTokens = 0;
    const unitPrints: Fingerprint[] = [];
    for (const n of [primary, secondary]) {
      if (!n) continue;
      this.unlink(n);
      evicted.push(n.msg);
      const fp = fingerprintOf(n.msg, now);
      unitPrints.push(fp);
      fingerprints.push(fp);
      unitTokens += n.msg.tokens;
      this.absorb(n.msg, fp);
    }
    this.evictions += unitPrints.length;
    this.evictedTokens += unitTokens;
    this.evictedSinceCondense += unitTokens;
    const line = normalizeLine(this.summarizer.lineFor(primary.msg, unitPrints[0]!, secondary?.msg));
    const lineTokens = this.tokenizer.count(`- ${line}\n`);
    // A fact longer than what it replaces would grow the window; the fingerprint alone keeps it.
    if (line && lineTokens < unitTokens) {
      this.summaryLines.push(line);
      this.summaryLineTokens.push(lineTokens);
      this.summaryTokens += lineTokens;
      this.summaryGeneration++;
    }
    if (this.evictedSinceCondense >= this.options.summaryEvery || this.summaryTokens > this.summaryCap) this.condense();
  }

  private absorb(msg: MemoryMessage, fp: Fingerprint): void {
    this.fingerprintList.push(fp);
    const max = this.options.maxFingerprints;
    if (this.fingerprintList.length > max * 2) this.fingerprintList.splice(0, this.fingerprintList.length - max);
    const a = this.aggregate;
    a.messages++;
    a.tokens += msg.tokens;
    if (msg.status === 'error') a.errors++;
    if (msg.kind === 'tool_call' && msg.tool) a.tools[msg.tool] = (a.tools[msg.tool] ?? 0) + 1;
    if (msg.kind !== 'tool_result') for (const r of msg.references) a.files[r.path] = (a.files[r.path] ?? 0) + 1;
    // Bound the aggregate: keep the most referenced files.
    if (Object.keys(a.files).length > 400) a.files = Object.fromEntries(Object.entries(a.files).sort((x, y) => y[1] - x[1]).slice(0, 200));
  }

  private condense(): void {
    this.evictedSinceCondense = 0;
    if (this.summaryLines.length === 0) return;
    const count = this.lineCounter();
    const input = { lines: this.summaryLines.slice(), aggregate: cloneAggregate(this.aggregate), maxTokens: this.summaryCap, count };
    let result: string[] | Promise<string[]>;
    try {
      result = this.summarizer.condense(input);
    } catch {
      result = extractiveCondense(input);
    }
    if (Array.isArray(result)) {
      this.condenseCount++;
      this.setSummaryLines(result);
      return;
    }
    // An asynchronous summarizer (an LM): apply the extractive result now, and the LM's when it arrives
    // in place of those lines (lines added since stay after it) — unless another condense happened in
    // between or the LM broke the budget.
    this.setSummaryLines(extractiveCondense(input));
    const condenseId = ++this.condenseCount;
    const replaced = this.summaryLines.length;
    void Promise.resolve(result).then(
      (lines) => {
        if (condenseId !== this.condenseCount || !Array.isArray(lines)) return;
        const normalized = lines.map(normalizeLine).filter((l) => l.length > 0);
        const next = [...normalized, ...this.summaryLines.slice(replaced)];
        const tokens = next.reduce((sum, l) => sum + count(`- ${l}\n`), 0);
        if (normalized.length === 0 || tokens > this.summaryCap) return;
        this.setSummaryLines(next);
        const evicted: MemoryMessage[] = [];
        const fingerprints: Fingerprint[] = [];
        if (this.usedTokens > this.usableTokens) this.slide(0, false, evicted, fingerprints);
        this.emit({ summaryChanged: true, ...(evicted.length ? { evicted: evicted.map((m) => m.id), fingerprints } : {}) });
      },
      () => undefined,
    );
  }

  /** Counts rendered summary lines, reusing the counts of lines already in the summary (condensing keeps most). */
  private lineCounter(): (text: string) => number {
    const known = new Map<string, number>();
    this.summaryLines.forEach((line, i) => known.set(`- ${line}\n`, this.summaryLineTokens[i]!));
    return (text) => known.get(text) ?? this.tokenizer.count(text);
  }

  private setSummaryLines(lines: string[]): void {
    const known = new Map<string, number>();
    this.summaryLines.forEach((line, i) => known.set(line, this.summaryLineTokens[i]!));
    // Lines kept from the current summary are normalized and counted already.
    this.summaryLines = lines.map((l) => (known.has(l) ? l : normalizeLine(l))).filter((l) => l.length > 0);
    this.summaryLineTokens = this.summaryLines.map((l) => known.get(l) ?? this.tokenizer.count(`- ${l}\n`));
    this.summaryTokens = this.summaryLineTokens.reduce((a, b) => a + b, 0);
    this.summaryGeneration++;
  }

  // ---------------------------------------------------------------- indexes

  private link(msg: MemoryMessage): void {
    const node: Node = { msg, prev: this.tail, next: undefined, qprev: undefined, qnext: undefined, queue: undefined };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.byId.set(msg.id, node);
    this.count++;
    this.unlinkAccounting(msg, +1);
    this.enqueueTail(node);
  }

  private unlink(node: Node): void {
    this.dequeue(node);
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = undefined;
    this.byId.delete(node.msg.id);
    this.count--;
    this.unlinkAccounting(node.msg, -1);
    const partner = this.partnerOf(node);
    if (partner) {
      // The partner is leaving with it (evictUnit) or the link is obsolete: never leave a dangling id.
      if (partner.msg.pairId === node.msg.id) delete partner.msg.pairId;
      if (!this.isProtected(partner.msg)) this.requeue(partner);
    }
  }

  /** Adds (sign +1) or removes (−1) a message from the running totals. */
  private unlinkAccounting(msg: MemoryMessage, sign: 1 | -1): void {
    this.messageTokens += sign * msg.tokens;
    this.tokensByPriority[msg.priority] += sign * msg.tokens;
    this.tokensByKind[msg.kind] += sign * msg.tokens;
    if (this.isProtected(msg)) this.protectedTokens += sign * msg.tokens;
    if (msg.pinned) this.pinnedCount += sign;
  }

  private queueFor(node: Node): Queue | undefined {
    const msg = node.msg;
    if (this.isProtected(msg) || msg.priority === 'high') return undefined; // (narrows the priority type)
    const partner = this.partnerOf(node);
    if (partner && this.isProtected(partner.msg)) return undefined;
    return this.queues[msg.priority][msg.kind];
  }

  private enqueueTail(node: Node): void {
    const q = this.queueFor(node);
    if (!q) return;
    node.queue = q;
    node.qprev = q.tail;
    node.qnext = undefined;
    if (q.tail) q.tail.qnext = node;
    else q.head = node;
    q.tail = node;
  }

  /** Re-inserts at the node's place by seq (rare: explicit pin/priority changes, partner leaving). */
  private requeue(node: Node): void {
    if (node.queue) return;
    const q = this.queueFor(node);
    if (!q) return;
    let after = q.tail;
    while (after && after.msg.seq > node.msg.seq) after = after.qprev;
    node.queue = q;
    node.qprev = after;
    node.qnext = after ? after.qnext : q.head;
    if (node.qnext) node.qnext.qprev = node;
    else q.tail = node;
    if (after) after.qnext = node;
    else q.head = node;
  }

  private dequeue(node: Node): void {
    const q = node.queue;
    if (!q) return;
    if (node.qprev) node.qprev.qnext = node.qnext;
    else q.head = node.qnext;
    if (node.qnext) node.qnext.qprev = node.qprev;
    else q.tail = node.qprev;
    node.qprev = node.qnext = undefined;
    node.queue = undefined;
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
      summaryLines: this.summaryLines.slice(),
      fingerprints: this.fingerprintList.map((f) => ({ ...f, files: f.files.map((r) => ({ ...r })), identifiers: [...f.identifiers] })),
      evictions: this.evictions,
      evictedTokens: this.evictedTokens,
      evictedSinceCondense: this.evictedSinceCondense,
      aggregate: cloneAggregate(this.aggregate),
    };
  }

  /** Restores a window. Tool links to missing messages are dropped (stores can hold orphans). */
  static fromJSON(json: ChatMemoryJSON, deps: ChatMemoryDeps = {}, overrides: Partial<ChatMemoryOptions> = {}): ChatMemory {
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
      if (memory.byId.has(msg.id)) continue;
      const pairId = msg.pairId;
      delete msg.pairId;
      memory.link(msg);
      if (pairId !== undefined && memory.byId.has(pairId)) memory.pair(msg, pairId);
    }
    memory.nextSeq = Math.max(json.nextSeq ?? 1, (sorted.at(-1)?.seq ?? 0) + 1);
    memory.setSummaryLines(json.summaryLines ?? []);
    memory.fingerprintList = (json.fingerprints ?? []).map((f) => ({ ...f }));
    memory.evictions = json.evictions ?? 0;
    memory.evictedTokens = json.evictedTokens ?? 0;
    memory.evictedSinceCondense = json.evictedSinceCondense ?? 0;
    memory.aggregate = cloneAggregate(json.aggregate ?? { messages: 0, tokens: 0, errors: 0, files: {}, tools: {} });
    // Restore exactly what was saved (an overflow stays reported); slide only if the caller changed the budget.
    if (Object.keys(overrides).length > 0) memory.slide(0, false, [], []);
    return memory;
  }
}

function cloneAggregate(a: EvictionAggregate): EvictionAggregate {
  return { messages: a.messages, tokens: a.tokens, errors: a.errors, files: { ...a.files }, tools: { ...a.tools } };
}

/** One summary line: no line breaks, no leading dash or spaces (the renderer adds "- "). */
function normalizeLine(line: string): string {
  return line.replace(/\s+/g, ' ').replace(/^[-\s]+/, '').trim();
}

function pct(part: number, whole: number): string {
  return `${whole > 0 ? ((100 * part) / whole).toFixed(1) : '∞'}%`;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function validateOptions(o: ChatMemoryOptions): void {
  const fail = (what: string): never => {
    throw new ToolError('invalid_argument', `invalid ChatMemory option: ${what}`);
  };
  for (const key of ['maxTokens', 'reserveRatio', 'recentKeep'] as const) {
    const problem = memoryLimitProblem(key, o[key]);
    if (problem) fail(problem);
  }
  if (!(o.summaryEvery > 0)) fail(`summaryEvery must be > 0 (got ${o.summaryEvery})`);
  if (!(o.targetFill > 0 && o.targetFill <= 1)) fail(`targetFill must be in (0, 1] (got ${o.targetFill})`);
  if (!Array.isArray(o.pinnedGroups)) fail('pinnedGroups must be an array of group names');
}
