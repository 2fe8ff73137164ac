/** Fingerprints: the structured trace an evicted message leaves (kind, tool, files, status, identifiers). */
import type { Fingerprint, MemoryMessage } from './types';

/** Only the head of a large message is scanned (declarations and names cluster there): an eviction must stay cheap. */
const SCAN_CHARS = 1500;
const DECLARATION =
  /\b(?:function|class|interface|type|enum|def|fn|func|struct|trait|const|let|var|impl|module|namespace)\s+([A-Za-z_$][\w$]{2,})/g;
/** camelCase, PascalCase with an inner capital, snake_case, or dotted member access. */
const CODE_IDENTIFIER = /\b(?:[a-z_$][\w$]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[a-z]+_[a-z0-9_]+)\b/g;
const MAX_IDENTIFIERS = 6;

export function keyIdentifiers(content: string): string[] {
  const text = content.length > SCAN_CHARS ? content.slice(0, SCAN_CHARS) : content;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(DECLARATION)) {
    if (!seen.has(m[1]!)) {
      seen.add(m[1]!);
      out.push(m[1]!);
      if (out.length >= MAX_IDENTIFIERS) return out;
    }
  }
  const counts = new Map<string, number>();
  for (const m of text.matchAll(CODE_IDENTIFIER)) {
    if (!seen.has(m[0])) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [name] of frequent) {
    if (out.length >= MAX_IDENTIFIERS) break;
    out.push(name);
  }
  return out;
}

/** The first line of `content`, whitespace collapsed, at most `max` characters. */
export function headOf(content: string, max = 80): string {
  const slice = content.length > max * 4 ? content.slice(0, max * 4) : content;
  const line = slice.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function fingerprintOf(message: MemoryMessage, evictedAt: number): Fingerprint {
  return {
    id: message.id,
    kind: message.kind,
    priority: message.priority,
    ...(message.tool !== undefined ? { tool: message.tool } : {}),
    files: message.references.map((r) => ({ ...r })),
    ...(message.status !== undefined ? { status: message.status } : {}),
    identifiers: keyIdentifiers(message.content),
    tokens: message.tokens,
    time: message.time,
    evictedAt,
    head: headOf(message.content),
  };
}
