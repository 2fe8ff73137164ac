/**
 * be-memory: the window recap as sections (pins, summary, evicted fingerprints, recent messages, stats on one
 * line); the other actions are small data and stay compact JSON text.
 */
import { join } from './common';

const statsLine = (s: Record<string, unknown>): string =>
  Object.entries(s)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' ');

export function renderMemory(r: Record<string, unknown>): string {
  if (!Array.isArray(r.pinned) || !Array.isArray(r.recent) || !Array.isArray(r.fingerprints)) return JSON.stringify(r);
  const pins = r.pinned as { id: string; group?: string; text: string }[];
  const omitted = r.pinned_omitted as { count: number; first_ids: string[]; list_with: unknown } | undefined;
  const summary = String(r.summary ?? '');
  return join([
    `memory window (${r.budget_tokens} tokens): ${statsLine((r.stats ?? {}) as Record<string, unknown>)}`,
    pins.length ? 'pinned:' : undefined,
    ...pins.map((p) => `  ${p.id}${p.group ? ` [${p.group}]` : ''}: ${p.text}`),
    omitted ? `  (+${omitted.count} pins left out: ${omitted.first_ids.join(', ')}…; list them with ${JSON.stringify(omitted.list_with)})` : undefined,
    summary ? 'summary:' : undefined,
    summary || undefined,
    typeof r.summary_omitted_lines === 'number' ? `  (${r.summary_omitted_lines} older summary lines left out)` : undefined,
    (r.fingerprints as string[]).length ? 'evicted (recall by id):' : undefined,
    ...(r.fingerprints as string[]).map((f) => `  ${f}`),
    (r.recent as string[]).length ? 'recent:' : undefined,
    ...(r.recent as string[]).map((m) => `  ${m}`),
  ]);
}
