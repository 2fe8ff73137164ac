/** be-insert-chip with no arguments: one line per chip, oldest first. */
import { join } from './common';

export function renderChipList(r: Record<string, unknown>): string {
  const items = (r.items ?? []) as { id: string; tool: string; file?: string; range?: { start: number; end: number }; size: number; preview: string }[];
  if (!items.length) return String(r.message ?? 'no chips recorded');
  return join([
    `${items.length} chips (insert one with from "chip://<id>")`,
    ...items.map((c) => `chip://${c.id} ${c.tool}${c.file ? ` ${c.file}${c.range ? `:${c.range.start}-${c.range.end}` : ''}` : ''} ${c.size}B: ${c.preview}`),
  ]);
}
