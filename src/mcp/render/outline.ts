/**
 * A file's structure (be-read mode structure): `T lines, N tokens (structure)` (the file is the one the call
 * named), then, for a page of a longer outline, the lines it starts at and the exact `next:` call; for an outline
 * narrowed to a query, how many symbols it shows and the call for the rest. Then the rows (`S-E signature — doc`)
 * and the hint.
 */
import { join, listedNames } from './common';
import type { RenderContext } from './types';

export function renderOutline(r: Record<string, unknown>, ctx: RenderContext): string {
  const notes = Array.isArray(r.notes) ? (r.notes as unknown[]).map((n) => `! ${String(n)}`) : [];
  const symbols = Array.isArray(r.symbols) ? JSON.stringify(r.symbols) : undefined;
  const read = ctx.listedName('be-read');
  const head = [`${r.total} lines, ${r.file_tokens} tokens (structure${typeof r.from === 'number' && r.from > 1 ? ` from line ${r.from}` : ''})`];
  if (r.next) head.push(`next: ${read} ${JSON.stringify(r.next)}`);
  if (typeof r.query === 'string') {
    if (typeof r.matched === 'number') {
      const rest = r.all ? `; all ${r.symbols_total}: ${read} ${JSON.stringify(r.all)}` : '';
      const which = r.matched === r.matched_shown ? `the ${r.matched} matching` : `the best of the ${r.matched} matching`;
      notes.unshift(`! ${r.shown} of ${r.symbols_total} symbols: ${which} ${JSON.stringify(r.query)}${r.carried ? ' (the overview\'s query)' : ''} and their neighbours${rest}`);
    } else notes.unshift(`! no symbol matches ${JSON.stringify(r.query)}${r.carried ? ' (the overview\'s query)' : ''}: the outline in file order`);
  }
  return join([
    head.join(' '),
    ...notes,
    String(r.outline ?? ''),
    symbols,
    typeof r.hint === 'string' && r.hint ? listedNames(r.hint, ctx) : undefined,
  ]);
}
