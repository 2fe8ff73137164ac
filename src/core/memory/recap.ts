/**
 * The `be-memory window` recap: what an agent re-reads after its context was compacted. It must fit in a
 * context itself, so it is built against a token budget however many messages are pinned (4,000 pins made a
 * 578 KB recap). Pins come first (explicit pins, then high priority; oldest first within each: the original
 * goal leads), then the summary; the pins left out are counted and named, with the call that pages through them.
 */
import type { ChatMemory } from './chatMemory';
import { headOf } from './fingerprint';
import { formatReference } from './references';
import type { Fingerprint, MemoryMessage, MemoryStats } from './types';

export const DEFAULT_RECAP_TOKENS = 4000;
export const MIN_RECAP_TOKENS = 500;
/** Characters of a pinned message shown in the recap. */
export const PIN_TEXT_CHARS = 400;
/** JSON punctuation and field names around each listed item, in tokens (measured: 10–14 for a pin entry). */
const ITEM_OVERHEAD_TOKENS = 14;

export type CountTokens = (text: string) => Promise<number>;

export interface PinEntry {
  id: string;
  group?: string;
  text: string;
}

export interface PinsOmitted {
  count: number;
  /** The first few ids left out, in recap order. */
  first_ids: string[];
  /** The call that lists them (pages of the same budget). */
  list_with: Record<string, unknown>;
}

export interface WindowRecap {
  pinned: PinEntry[];
  pinned_omitted?: PinsOmitted;
  summary: string;
  summary_omitted_lines?: number;
  fingerprints: string[];
  recent: string[];
  stats: Record<string, unknown>;
  budget_tokens: number;
}

export function compactStats(s: MemoryStats): Record<string, unknown> {
  return {
    used: s.usedTokens,
    usable: s.usableTokens,
    max: s.maxTokens,
    fill: `${Math.round(s.fill * 100)}%`,
    messages: s.messages,
    summary_tokens: s.summaryTokens,
    by_priority: s.byPriority,
    by_kind: Object.fromEntries(Object.entries(s.byKind).filter(([, v]) => v > 0)),
    evictions: s.evictions,
    evicted_tokens: s.evictedTokens,
    ...(s.overflow ? { overflow: true } : {}),
    ...(s.warnings.length ? { warnings: s.warnings } : {}),
  };
}

/** One line per message: id, kind/priority, flags, tokens, first references, head of the content. */
export function messageLine(m: MemoryMessage): string {
  const refs = m.references.slice(0, 2).map(formatReference).join(',');
  const flags = `${m.pinned ? ' pinned' : ''}${m.status === 'error' ? ' error' : ''}`;
  return `${m.id} ${m.kind}/${m.priority}${flags} ${m.tokens}t${refs ? ` ${refs}` : ''}: ${headOf(m.content, 80)}`;
}

export function fingerprintLine(f: Fingerprint): string {
  const files = f.files.slice(0, 3).map(formatReference).join(',');
  const ids = f.identifiers.slice(0, 4).join(',');
  return `${f.id} ${f.kind}${f.tool ? ` ${f.tool}` : ''}${files ? ` ${files}` : ''}${f.status ? ` ${f.status}` : ''}${ids ? ` [${ids}]` : ''} ${f.tokens}t`;
}

/** Pinned and high-priority messages in recap order: explicit pins first, then high priority; oldest first. */
export function pinnedInOrder(memory: ChatMemory): MemoryMessage[] {
  const visible = memory.visibleMessages();
  return [...visible.filter((m) => m.pinned), ...visible.filter((m) => !m.pinned && m.priority === 'high')];
}

function pinEntry(m: MemoryMessage): PinEntry {
  const text = m.content.length > PIN_TEXT_CHARS ? `${m.content.slice(0, PIN_TEXT_CHARS - 1)}…` : m.content;
  return { id: m.id, ...(m.group !== undefined ? { group: m.group } : {}), text };
}

/** Takes entries from `from` while their tokens fit in `budget`; returns them and how many tokens they used. */
async function takeWithin(from: MemoryMessage[], budget: number, count: CountTokens): Promise<{ taken: PinEntry[]; used: number }> {
  const taken: PinEntry[] = [];
  let used = 0;
  for (const m of from) {
    const entry = pinEntry(m);
    const cost = (await count(entry.text)) + ITEM_OVERHEAD_TOKENS;
    if (used + cost > budget) break;
    taken.push(entry);
    used += cost;
  }
  return { taken, used };
}

/** A recap call's budget (at least MIN_RECAP_TOKENS) and how it counts tokens (the memory's tokenizer by default). */
function budgetAndCounter(memory: ChatMemory, opts: { budgetTokens?: number; count?: CountTokens }): { budget: number; count: CountTokens } {
  return {
    budget: Math.max(MIN_RECAP_TOKENS, Math.floor(opts.budgetTokens ?? DEFAULT_RECAP_TOKENS)),
    count: opts.count ?? ((t: string) => memory.countTokensAsync(t)),
  };
}

export async function buildWindowRecap(
  memory: ChatMemory,
  opts: { recent: number; budgetTokens?: number; count?: CountTokens },
): Promise<WindowRecap> {
  const { budget, count } = budgetAndCounter(memory, opts);
  // The fixed parts are short by construction (12 fingerprints, `recent` one-line entries, the stats).
  const fingerprints = memory.fingerprints().slice(-12).map(fingerprintLine);
  const recent = memory.recent(opts.recent).map(messageLine);
  const stats = compactStats(memory.stats());
  const fixed = await count(JSON.stringify({ fingerprints, recent, stats }));
  const summaryLines = memory.summary().split('\n').filter((l) => l !== '');
  const summaryTokens = await count(summaryLines.join('\n'));
  // Pins get what the fixed parts leave, but never less than half of the budget: they matter most.
  const pinBudget = Math.max(Math.floor(budget / 2), budget - fixed - summaryTokens);
  const pins = pinnedInOrder(memory);
  const { taken, used } = await takeWithin(pins, pinBudget, count);
  // The summary gets the rest; over it, its oldest lines go first (the newest say where the work is now).
  let summaryLeft = Math.max(0, budget - fixed - used);
  const kept: string[] = [];
  for (let i = summaryLines.length - 1; i >= 0; i--) {
    const cost = await count(summaryLines[i]!);
    if (cost > summaryLeft) break;
    kept.unshift(summaryLines[i]!);
    summaryLeft -= cost;
  }
  const recap: WindowRecap = {
    pinned: taken,
    summary: kept.map((l) => `${l}\n`).join(''),
    fingerprints,
    recent,
    stats,
    budget_tokens: budget,
  };
  if (taken.length < pins.length) {
    recap.pinned_omitted = {
      count: pins.length - taken.length,
      first_ids: pins.slice(taken.length, taken.length + 10).map((m) => m.id),
      list_with: { action: 'pins', offset: taken.length },
    };
  }
  if (kept.length < summaryLines.length) recap.summary_omitted_lines = summaryLines.length - kept.length;
  return recap;
}

export interface PinsPage {
  pinned: PinEntry[];
  total: number;
  offset: number;
  next_offset?: number;
}

/** Pinned messages from `offset` on, in recap order, as many as fit in the budget (at least one). */
export async function listPins(
  memory: ChatMemory,
  opts: { offset: number; budgetTokens?: number; count?: CountTokens },
): Promise<PinsPage> {
  const { budget, count } = budgetAndCounter(memory, opts);
  const pins = pinnedInOrder(memory);
  const offset = Math.max(0, Math.floor(opts.offset));
  const rest = pins.slice(offset);
  let { taken } = await takeWithin(rest, budget, count);
  if (taken.length === 0 && rest.length > 0) taken = [pinEntry(rest[0]!)]; // a page always moves on
  const next = offset + taken.length;
  return { pinned: taken, total: pins.length, offset, ...(next < pins.length ? { next_offset: next } : {}) };
}
