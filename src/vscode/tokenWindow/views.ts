/** Core memory objects → the panel's view shapes, and a small per-session chart history. Pure (no vscode). */
import type { TurnRecord } from '../../core/memory/node/turnLog';
import type { TurnView } from './protocol';
import type { ChatMemory } from '../../core/memory/chatMemory';
import { headOf } from '../../core/memory/fingerprint';
import { formatReference } from '../../core/memory/references';
import type { SessionChange } from '../../core/memory/node/registry';
import type { Fingerprint, MemoryMessage } from '../../core/memory/types';
import type { ChartPoint, DeltaMessage, FingerprintView, MessageView } from './protocol';

export function messageView(m: MemoryMessage): MessageView {
  return {
    id: m.id,
    kind: m.kind,
    priority: m.priority,
    pinned: m.pinned,
    tokens: m.tokens,
    time: m.time,
    head: headOf(m.content, 120),
    refs: m.references.slice(0, 3).map(formatReference),
    ...(m.tool !== undefined ? { tool: m.tool } : {}),
    ...(m.status !== undefined ? { status: m.status } : {}),
    ...(m.pairId !== undefined ? { pairId: m.pairId } : {}),
  };
}

export function fingerprintView(f: Fingerprint): FingerprintView {
  const files = f.files.slice(0, 3).map(formatReference).join(', ');
  const ids = f.identifiers.slice(0, 4).join(', ');
  const text = [f.kind, f.tool, files, f.status, ids ? `[${ids}]` : '', `${f.tokens} tok`, files || f.tool ? '' : `“${f.head}”`]
    .filter(Boolean)
    .join(' ');
  return { id: f.id, text, evictedAt: f.evictedAt };
}

/** The fingerprints a panel shows (the newest last). */
export const FINGERPRINTS_SHOWN = 50;

export function deltaOf(e: SessionChange, memory: ChatMemory, point: ChartPoint, now: number): DeltaMessage {
  const c = e.change;
  return {
    type: 'delta',
    sessionId: e.sessionId,
    ...(c.added ? { added: c.added.map(messageView) } : {}),
    ...(c.evicted ? { evicted: c.evicted } : {}),
    ...(c.updated ? { updated: c.updated.map(messageView) } : {}),
    ...(c.fingerprints ? { fingerprints: c.fingerprints.slice(-FINGERPRINTS_SHOWN).map(fingerprintView) } : {}),
    ...(c.summaryChanged || c.cleared ? { summary: memory.summary() } : {}),
    ...(c.cleared ? { cleared: true } : {}),
    stats: c.stats,
    point,
    now,
  };
}

/** The window's tokens over time, per session, bounded; kept by the host so a reopened panel has history. */
export class ChartHistory {
  private readonly points = new Map<string, ChartPoint[]>();
  constructor(private readonly max = 240) {}

  push(sessionId: string, point: ChartPoint): void {
    let list = this.points.get(sessionId);
    if (!list) this.points.set(sessionId, (list = []));
    list.push(point);
    if (list.length > this.max * 2) list.splice(0, list.length - this.max);
  }

  has(sessionId: string): boolean {
    return (this.points.get(sessionId)?.length ?? 0) > 0;
  }

  get(sessionId: string): ChartPoint[] {
    return (this.points.get(sessionId) ?? []).slice(-this.max);
  }

  /** A session restored from disk (or recorded before the panel existed) starts from a history rebuilt from its state. */
  seed(sessionId: string, points: readonly ChartPoint[]): void {
    if (!this.has(sessionId)) for (const p of points) this.push(sessionId, p);
  }
}

/**
 * The chart's past rebuilt from a memory's state: every message the memory still knows about (visible ones, and
 * evicted ones through their fingerprints, which keep the original time) adds its tokens when it arrived; an
 * eviction subtracts them and leaves a mark. The last point is the memory's current `usedTokens` (which also counts
 * the summary), so the line ends where the live updates continue.
 */
export function seedChart(
  messages: readonly { time: number; tokens: number }[],
  fingerprints: readonly { time: number; evictedAt: number; tokens: number }[],
  usedTokens: number,
): ChartPoint[] {
  const events = [
    ...messages.map((m) => ({ t: m.time, delta: m.tokens, evicted: 0 })),
    ...fingerprints.map((f) => ({ t: f.time, delta: f.tokens, evicted: 0 })),
    ...fingerprints.map((f) => ({ t: f.evictedAt, delta: -f.tokens, evicted: 1 })),
  ].sort((a, b) => a.t - b.t || b.delta - a.delta); // at the same instant, arrivals before evictions
  if (events.length === 0) return [];
  // The line starts from an empty window, so even a single message draws a visible rise.
  const points: ChartPoint[] = [{ t: events[0]!.t, used: 0, evicted: 0 }];
  let used = 0;
  for (const e of events) {
    used = Math.max(0, used + e.delta);
    const last = points[points.length - 1];
    // One point per instant and kind: a slide evicts several messages at once.
    if (points.length > 1 && last && last.t === e.t && (e.evicted > 0) === (last.evicted > 0)) {
      last.used = used;
      last.evicted += e.evicted;
    } else {
      points.push({ t: e.t, used, evicted: e.evicted });
    }
  }
  const end = points[points.length - 1]!;
  if (end.used !== usedTokens) points.push({ t: end.t, used: usedTokens, evicted: 0 });
  return points;
}

/** A turn record as the view shows it (the newest turns; slid-out lists cut to 20 per turn). */
export function turnView(t: TurnRecord): TurnView {
  const peak = t.requests.reduce((m, r) => Math.max(m, r.modelTokens ?? r.tokens.total, r.tokens.total), 0);
  const last = t.requests.at(-1);
  return {
    turn: t.turn,
    model: t.model,
    query: t.query.slice(0, 120),
    peakTokens: peak,
    limit: last?.limit ?? 0,
    maxInputTokens: last?.maxInputTokens ?? 0,
    reserveTokens: last?.reserveTokens ?? 0,
    requests: t.requests.length,
    entered: t.entered.length,
    enteredTokens: t.entered.reduce((s, e) => s + e.tokens, 0),
    slidOut: t.slidOut.slice(0, 20),
    recalled: t.recalled.slice(),
    ...(t.error ? { error: t.error } : {}),
    done: t.done,
  };
}
