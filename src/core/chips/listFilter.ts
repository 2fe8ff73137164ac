/**
 * be-insert-chip's listing, narrowed for an agent looking for one chip: by the tool that made it, the file it came
 * from and a piece of its text (case-insensitive substrings). A filtered listing is newest first: the chip an agent
 * looks for is almost always the last one of that kind; the plain listing keeps upstream's order (oldest first).
 */
import type { ChipRecord } from './types';

export interface ChipListFilter {
  /** tool name, e.g. "be-delete" (exact, case-insensitive) */
  tool?: string;
  /** part of the path the chip came from (relative to a root, or absolute) */
  path?: string;
  /** part of the chip's text (the deleted text, a failed call's content), its preview or its error */
  text?: string;
}

export function hasFilter(f: ChipListFilter): boolean {
  return [f.tool, f.path, f.text].some((v) => typeof v === 'string' && v.trim() !== '');
}

export function filterChips(
  list: readonly ChipRecord[],
  f: ChipListFilter,
  originalText: (chip: ChipRecord) => string | undefined,
  display: (abs: string) => string,
): ChipRecord[] {
  if (!hasFilter(f)) return [...list];
  const tool = f.tool?.trim().toLowerCase();
  const where = f.path?.trim().toLowerCase();
  const text = f.text?.trim().toLowerCase();
  return list
    .filter((c) => !tool || c.tool.toLowerCase() === tool)
    .filter((c) => !where || (!!c.file && (c.file.toLowerCase().includes(where) || display(c.file).toLowerCase().includes(where))))
    .filter((c) => !text || [originalText(c) ?? '', c.preview, c.err_msg ?? ''].some((s) => s.toLowerCase().includes(text)))
    .sort((a, b) => b.seq - a.seq || b.created_ms - a.created_ms);
}
