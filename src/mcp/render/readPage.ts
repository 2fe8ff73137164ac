/**
 * A page of numbered lines (be-read full or a range): `S-E/T id=… next: …`, then the rows (common.ts compactRows).
 * The file is the one the call named, so the header does not repeat it; a page that is the whole file has no range
 * either (its rows are numbered from 1 and no `next:` follows), only its id.
 */
import { compactRows, join, listedNames, warningLines } from './common';
import type { RenderContext } from './types';

export function renderReadPage(r: Record<string, unknown>, ctx: RenderContext): string {
  const whole = Number(r.start) <= 1 && r.end === r.total && !r.next && !r.partial && r.brief !== true;
  const head = whole ? [] : [`${r.start}-${r.end}/${r.total}`];
  if (typeof r.viewed_code_id === 'string') head.push(`id=${r.viewed_code_id}`);
  if (r.eol === 'crlf' || r.eol === 'mixed') head.push(`eol=${r.eol}`);
  if (r.bom === true) head.push('bom');
  if (r.final_newline === false && Number(r.total) > 0) head.push('no-final-newline');
  const next = r.next as { file: string; column?: number } | undefined;
  if (next) {
    const args: Record<string, unknown> = { file: next.file, mode: 'full' };
    if (next.column && next.column > 1) args.column = next.column;
    head.push(`next: ${ctx.listedName('be-read')} ${JSON.stringify(args)}`);
  }
  const partial = r.partial as { line: number; from: number; to: number; length: number } | undefined;
  const notes: string[] = [];
  if (partial) notes.push(`! line ${partial.line}: characters ${partial.from}-${partial.to} of ${partial.length}`);
  if (r.brief === true) notes.push('(brief: no content)');
  if (Number(r.total) === 0) notes.push('(empty file)');
  const content = typeof r.content === 'string' && r.content !== '' ? compactRows(r.content) : undefined;
  return join([head.join(' '), ...warningLines(r).map((w) => listedNames(w, ctx)), ...notes, content]);
}
