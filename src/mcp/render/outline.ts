/**
 * A file's structure (be-read mode structure): `T lines, N tokens (structure)` (the file is the one the call
 * named), the outline (`S-E signature — doc` rows), then the hint.
 */
import { join, listedNames } from './common';
import type { RenderContext } from './types';

export function renderOutline(r: Record<string, unknown>, ctx: RenderContext): string {
  const notes = Array.isArray(r.notes) ? (r.notes as unknown[]).map((n) => `! ${String(n)}`) : [];
  const symbols = Array.isArray(r.symbols) ? JSON.stringify(r.symbols) : undefined;
  return join([
    `${r.total} lines, ${r.file_tokens} tokens (structure)`,
    ...notes,
    String(r.outline ?? ''),
    symbols,
    typeof r.hint === 'string' && r.hint ? listedNames(r.hint, ctx) : undefined,
  ]);
}
