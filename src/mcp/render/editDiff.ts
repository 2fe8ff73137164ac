/**
 * An edit's reply (be-replace, be-insert, be-delete, be-insert-chip): `file affected` on one line, then a unified
 * diff with 3 lines of context (as `diff -u` and server-filesystem's edit_file), not two numbered windows.
 */
import { join, listedNames, warningLines } from './common';
import type { RenderContext } from './types';

export const DIFF_CONTEXT = 3;

/** The read-back proof every written edit carries (README: the first 16 hex digits of the file's SHA-256 after the write). */
const readBackProof = (sha256: string) => `sha256=${sha256}`;

/** Trims a one-hunk unified diff (`@@ -a,b +c,d @@` then ` `/`-`/`+` rows) to `keep` context rows each side. */
export function trimContext(diff: string, keep = DIFF_CONTEXT): string {
  const rows = diff.split('\n');
  const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(rows[0] ?? '');
  if (!m) return diff;
  const body = rows.slice(1);
  const firstChange = body.findIndex((r) => r.startsWith('-') || r.startsWith('+'));
  if (firstChange < 0) return diff;
  let lastChange = body.length - 1;
  while (lastChange > 0 && !(body[lastChange]!.startsWith('-') || body[lastChange]!.startsWith('+'))) lastChange--;
  const from = Math.max(0, firstChange - keep);
  const to = Math.min(body.length - 1, lastChange + keep);
  const kept = body.slice(from, to + 1);
  const count = (c: string) => kept.filter((r) => r.startsWith(c) || r.startsWith(' ')).length;
  const a = count('-');
  const b = count('+');
  const aStart = Number(m[1]) + (Number(m[2] ?? 1) === 0 ? 1 : 0) + from;
  const bStart = Number(m[3]) + (Number(m[4] ?? 1) === 0 ? 1 : 0) + from;
  const range = (s: number, n: number) => (n === 0 ? `${s - 1},0` : `${s},${n}`);
  return [`@@ -${range(aStart, a)} +${range(bStart, b)} @@`, ...kept].join('\n');
}

export function renderEditDiff(r: Record<string, unknown>, ctx: RenderContext): string {
  const head = [`${r.file}: ${r.affected}`];
  if (r.preview === true) head.push('(preview: not written)');
  if (typeof r.chip_id === 'string') head.push(`removed text: chip://${r.chip_id}`);
  if (typeof r.source === 'string') head.push(`from ${r.source}`);
  if (typeof r.queue_full === 'string') head.push(`! ${r.queue_full}`);
  if (typeof r.sha256 === 'string') head.push(readBackProof(r.sha256));
  const balance = typeof r.balance === 'string' && r.balance && r.balance !== 'balance: OK' ? r.balance : undefined;
  const warnings = warningLines(r).filter((w) => !(typeof r.chip_id === 'string' && w.includes(`chip://${r.chip_id}`)));
  const diff = typeof r.diff === 'string' && r.diff ? r.diff : undefined;
  return join([
    head.join(' '),
    ...warnings.map((w) => listedNames(w, ctx)),
    balance,
    diff && (diff.startsWith('@@') ? trimContext(diff) : diff),
  ]);
}

/** be-write: one line per file written. */
export function renderWrite(r: Record<string, unknown>): string {
  const results = (r.results ?? []) as { file: string; lines: number; bytes: number; created: boolean; warnings?: string[]; sha256?: string }[];
  const lines = results.map(
    (f) =>
      `${f.file}: ${f.created ? 'created' : 'written'}, ${f.lines} lines, ${f.bytes} bytes` +
      (r.preview === true ? ' (preview: not written)' : '') +
      (typeof f.sha256 === 'string' ? ` ${readBackProof(f.sha256)}` : ''),
  );
  for (const f of results) for (const w of f.warnings ?? []) lines.push(`! ${w}`);
  return join([lines.length ? lines.join('\n') : `${r.files} file(s) ${r.preview === true ? 'checked (preview)' : 'written'}`, typeof r.queue_full === 'string' ? `! ${r.queue_full}` : undefined]);
}
