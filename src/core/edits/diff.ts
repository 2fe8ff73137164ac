/**
 * Renders the before/after windows around an edit, in upstream's two formats.
 * `plain` keeps upstream's numbered listings; `diff` is a real LCS unified diff (jsdiff), so one inserted
 * line shows as exactly one `+` line instead of upstream's position-by-position comparison.
 */
import { diffArrays } from 'diff';
import type { Lang } from '../lang';
import { listingHeader } from './messages';

export interface DiffWindow {
  /** 1-based file line number of `lines[0]` (for an empty window: where it would start). */
  startLine: number;
  /** The window's lines, without terminators. */
  lines: string[];
}

export type DiffLang = Lang;

const stripEol = (s: string): string => s.replace(/\r?\n$/, '').replace(/\r$/, '');

function renderPlain(before: DiffWindow, after: DiffWindow, lang: DiffLang): string {
  const out: string[] = [];
  out.push(listingHeader('before', before.startLine, before.startLine + before.lines.length - 1, lang));
  before.lines.forEach((l, i) => out.push(`${before.startLine + i}\t${stripEol(l)}`));
  out.push('');
  out.push(listingHeader('after', after.startLine, after.startLine + after.lines.length - 1, lang));
  after.lines.forEach((l, i) => out.push(`${after.startLine + i}\t${stripEol(l)}`));
  return out.join('\n').replace(/\n+$/, '');
}

/** Unified-diff range: `start,count`, where an empty side names the line before it (GNU convention). */
function hunkRange(start: number, count: number): string {
  return count === 0 ? `${Math.max(0, start - 1)},0` : `${start},${count}`;
}

/**
 * One hunk for the whole window (the caller already chose the ±5 lines of context), with an LCS
 * line diff inside it. Identical windows give just the header and context lines.
 */
function renderUnified(before: DiffWindow, after: DiffWindow): string {
  const a = before.lines.map(stripEol);
  const b = after.lines.map(stripEol);
  const out = [`@@ -${hunkRange(before.startLine, a.length)} +${hunkRange(after.startLine, b.length)} @@`];
  for (const part of diffArrays(a, b)) {
    const prefix = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value) out.push(prefix + line);
  }
  return out.join('\n');
}

/** Renders the edit window in `plain` (numbered listings) or `diff` (unified LCS diff) format. */
export function renderDiff(
  before: DiffWindow,
  after: DiffWindow,
  format: 'plain' | 'diff',
  lang: Lang = 'en',
): string {
  return format === 'diff' ? renderUnified(before, after) : renderPlain(before, after, lang);
}
