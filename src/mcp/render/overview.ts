/** A repository map (be-overview, be-read mode overview): one header line, the map, then the hint. */
import { join, listedNames } from './common';
import type { RenderContext } from './types';

export function renderOverview(r: Record<string, unknown>, ctx: RenderContext): string {
  const head = `${r.path} ${r.files} files, ${r.lines} lines (${r.shown_files} shown, ${r.tokens}/${r.budget} tokens)` +
    (typeof r.pinned_id === 'string' ? ` pinned=${r.pinned_id}` : '');
  return join([head, String(r.overview ?? ''), typeof r.hint === 'string' && r.hint ? listedNames(r.hint, ctx) : undefined]);
}
