/**
 * The messages of a ChatMemory window and their indexes: the window in order (a doubly linked list), the
 * messages by id, running token totals, and one insertion-ordered eviction queue per (priority, kind). An append
 * costs O(1); the eviction order walks the queues without rescanning or re-sorting the window.
 */
import { MESSAGE_KINDS, PRIORITIES, type MemoryMessage, type MessageKind, type Priority } from './types';

export interface WindowNode {
  readonly msg: MemoryMessage;
  prev: WindowNode | undefined;
  next: WindowNode | undefined;
  /** Links inside the node's eviction queue (undefined when not queued). */
  qprev: WindowNode | undefined;
  qnext: WindowNode | undefined;
  queue: Queue | undefined;
}

interface Queue {
  head: WindowNode | undefined;
  tail: WindowNode | undefined;
}

type Tier = readonly Queue[];

/** The running totals of the messages in the window. */
export interface WindowTotals {
  messageTokens: number;
  byPriority: Record<Priority, number>;
  byKind: Record<MessageKind, number>;
  /** Tokens of pinned and high-priority messages (never evicted automatically). */
  protectedTokens: number;
  pinnedCount: number;
}

/** Pinned and high-priority messages are never evicted automatically. */
export function isProtected(msg: MemoryMessage): boolean {
  return msg.pinned || msg.priority === 'high';
}

export class MessageWindow {
  private readonly byId = new Map<string, WindowNode>();
  private head: WindowNode | undefined;
  private tail: WindowNode | undefined;
  private count = 0;
  /** Eviction queues, insertion-ordered, keyed priority → kind (high priority is never queued). */
  private readonly queues: Record<'low' | 'medium', Record<MessageKind, Queue>>;
  /** Eviction order: low tool_result, low others, medium tool_result, medium others. */
  private readonly tiers: Tier[];
  readonly totals: WindowTotals = emptyTotals();

  constructor() {
    const makeKinds = (): Record<MessageKind, Queue> =>
      Object.fromEntries(MESSAGE_KINDS.map((k) => [k, { head: undefined, tail: undefined }])) as Record<MessageKind, Queue>;
    this.queues = { low: makeKinds(), medium: makeKinds() };
    const others = (p: 'low' | 'medium'): Queue[] => MESSAGE_KINDS.filter((k) => k !== 'tool_result').map((k) => this.queues[p][k]);
    this.tiers = [[this.queues.low.tool_result], others('low'), [this.queues.medium.tool_result], others('medium')];
  }

  get size(): number {
    return this.count;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  node(id: string): WindowNode | undefined {
    return this.byId.get(id);
  }

  messages(): MemoryMessage[] {
    const out: MemoryMessage[] = [];
    for (let n = this.head; n; n = n.next) out.push(n.msg);
    return out;
  }

  /** The newest `n` messages, oldest first. */
  newest(n: number): MemoryMessage[] {
    const out: MemoryMessage[] = [];
    for (let node = this.tail; node && out.length < n; node = node.prev) out.push(node.msg);
    return out.reverse();
  }

  partnerOf(node: WindowNode): WindowNode | undefined {
    return node.msg.pairId !== undefined ? this.byId.get(node.msg.pairId) : undefined;
  }

  /** Appends `msg` as the newest message. */
  append(msg: MemoryMessage): WindowNode {
    const node: WindowNode = { msg, prev: this.tail, next: undefined, qprev: undefined, qnext: undefined, queue: undefined };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.byId.set(msg.id, node);
    this.count++;
    this.addToTotals(msg);
    this.enqueueNewest(node);
    return node;
  }

  /** Links `msg` with its partner (a tool_call / tool_result pair) if the partner is in the window and unpaired. */
  pair(msg: MemoryMessage, pairId: string): void {
    const partner = this.byId.get(pairId);
    if (!partner || partner.msg.pairId !== undefined) return;
    msg.pairId = pairId;
    partner.msg.pairId = msg.id;
    // A unit with a protected side is protected as a whole: take the other side out of its queue.
    if (isProtected(partner.msg)) this.dequeue(this.byId.get(msg.id)!);
    if (isProtected(msg)) this.dequeue(partner);
  }

  /** Takes `node` out of the window; its partner, if it stays, loses the link and may be evicted alone. */
  remove(node: WindowNode): void {
    this.dequeue(node);
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = undefined;
    this.byId.delete(node.msg.id);
    this.count--;
    this.removeFromTotals(node.msg);
    const partner = this.partnerOf(node);
    if (partner) {
      // The partner is leaving with it (evictUnit) or the link is obsolete: never leave a dangling id.
      if (partner.msg.pairId === node.msg.id) delete partner.msg.pairId;
      if (!isProtected(partner.msg)) this.enqueueInOrder(partner);
    }
  }

  /** Changes a message's pin or priority: the unit leaves the totals and queues, changes, and comes back. */
  changeMessage(node: WindowNode, change: (msg: MemoryMessage) => void): void {
    const partner = this.partnerOf(node);
    this.removeFromTotals(node.msg);
    this.dequeue(node);
    if (partner) this.dequeue(partner);
    change(node.msg);
    this.addToTotals(node.msg);
    this.enqueueInOrder(node);
    if (partner) this.enqueueInOrder(partner);
  }

  /**
   * Seq from which messages count as recent (never evicted automatically): the newest `recentKeep`. `incoming`
   * is true when a new message is about to enter: it will be one of them, so only `recentKeep - 1` existing ones
   * are protected.
   */
  recentFrom(recentKeep: number, incoming: boolean): number {
    let keep = recentKeep - (incoming ? 1 : 0);
    if (keep <= 0) return Infinity;
    let node = this.tail;
    while (node && keep > 1) {
      node = node.prev;
      keep--;
    }
    return node ? node.msg.seq : -Infinity;
  }

  /**
   * The units that may be evicted, in eviction order: tier by tier, oldest first, each with its partner. Units
   * with a recent, protected or `keep` side are skipped. The caller removes each unit before asking for the
   * next. One cursor per queue of the tier; skips are bounded by recentKeep, so the walk is O(evicted + recentKeep).
   */
  *evictionOrder(recentSeq: number, keep?: WindowNode): Generator<[WindowNode, WindowNode | undefined]> {
    for (const tier of this.tiers) {
      const cursors: (WindowNode | undefined)[] = tier.map((q) => q.head);
      for (;;) {
        let best = -1;
        for (let i = 0; i < cursors.length; i++) {
          const c = cursors[i];
          if (c && (best < 0 || c.msg.seq < cursors[best]!.msg.seq)) best = i;
        }
        if (best < 0) break;
        const candidate = cursors[best]!;
        if (candidate.msg.seq >= recentSeq) break; // queues are ordered: everything after is recent too
        const partner = this.partnerOf(candidate);
        if ((keep && (candidate === keep || partner === keep)) || (partner && (partner.msg.seq >= recentSeq || isProtected(partner.msg)))) {
          cursors[best] = candidate.qnext;
          continue;
        }
        // Advance any cursor that sits on a node about to leave.
        for (let i = 0; i < cursors.length; i++) {
          if (cursors[i] === candidate) cursors[i] = candidate.qnext;
          if (partner && cursors[i] === partner) cursors[i] = partner.qnext;
        }
        yield [candidate, partner];
      }
    }
  }

  /** Forgets every message. */
  clear(): void {
    this.byId.clear();
    this.head = this.tail = undefined;
    this.count = 0;
    for (const p of ['low', 'medium'] as const) {
      for (const k of MESSAGE_KINDS) this.queues[p][k].head = this.queues[p][k].tail = undefined;
    }
    Object.assign(this.totals, emptyTotals());
  }

  private addToTotals(msg: MemoryMessage): void {
    this.shiftTotals(msg, +1);
  }

  private removeFromTotals(msg: MemoryMessage): void {
    this.shiftTotals(msg, -1);
  }

  private shiftTotals(msg: MemoryMessage, sign: 1 | -1): void {
    const t = this.totals;
    t.messageTokens += sign * msg.tokens;
    t.byPriority[msg.priority] += sign * msg.tokens;
    t.byKind[msg.kind] += sign * msg.tokens;
    if (isProtected(msg)) t.protectedTokens += sign * msg.tokens;
    if (msg.pinned) t.pinnedCount += sign;
  }

  private queueFor(node: WindowNode): Queue | undefined {
    const msg = node.msg;
    if (isProtected(msg) || msg.priority === 'high') return undefined; // (narrows the priority type)
    const partner = this.partnerOf(node);
    if (partner && isProtected(partner.msg)) return undefined;
    return this.queues[msg.priority][msg.kind];
  }

  /** Queues a new message at the end of its queue (it is the newest). */
  private enqueueNewest(node: WindowNode): void {
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
  private enqueueInOrder(node: WindowNode): void {
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

  private dequeue(node: WindowNode): void {
    const q = node.queue;
    if (!q) return;
    if (node.qprev) node.qprev.qnext = node.qnext;
    else q.head = node.qnext;
    if (node.qnext) node.qnext.qprev = node.qprev;
    else q.tail = node.qprev;
    node.qprev = node.qnext = undefined;
    node.queue = undefined;
  }
}

function emptyTotals(): WindowTotals {
  return {
    messageTokens: 0,
    byPriority: Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<Priority, number>,
    byKind: Object.fromEntries(MESSAGE_KINDS.map((k) => [k, 0])) as Record<MessageKind, number>,
    protectedTokens: 0,
    pinnedCount: 0,
  };
}
