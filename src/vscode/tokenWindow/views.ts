/** Core memory objects → the panel's view shapes, and a small per-session chart history. Pure (no vscode). */
import type { ChatMemory } from '../../core/memory/chatMemory';
import { headOf } from '../../core/memory/fingerprint';
import { formatReference } from '../../core/memory/references';
import type { SessionChange } from '../../core/memory/registry';
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

  get(sessionId: string): ChartPoint[] {
    return (this.points.get(sessionId) ?? []).slice(-this.max);
  }
}
