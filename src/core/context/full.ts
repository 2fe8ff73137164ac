/**
 * `full` reads: numbered lines ("N\t<text>", as be-read prints them), cut into pages that stay under a
 * token limit. A page ends on a line boundary; a single line longer than the limit is split by
 * characters and the page says so. The hint names the exact call that continues where the page ended.
 */
import type { TokenCounter } from './types';

export const DEFAULT_PAGE_TOKENS = 8000;

export interface PageRequest {
  /** Path as the agent should use it in the next call. */
  path: string;
  /** All lines of the file, without their line breaks. */
  lines: string[];
  /** 1-based inclusive range to read; default the whole file. */
  start?: number;
  end?: number;
  /** 1-based character offset into the first line (continuing a split long line); default 1. */
  column?: number;
  limit?: number;
  tokenizer: TokenCounter;
  /** How an empty line is shown (be-read prints `<blank>`). */
  blank?: string;
}

export interface Page {
  start: number;
  end: number;
  total: number;
  content: string;
  tokens: number;
  /** Set when the range continues after this page. */
  next?: { file: string; column?: number };
  /** The first/last line of the page is only part of a line (it was longer than the limit). */
  partial?: { line: number; from: number; to: number; length: number };
  hint: string;
}

export function nextCallHint(next: { file: string; column?: number }): string {
  const args: Record<string, unknown> = { file: next.file, mode: 'full' };
  if (next.column && next.column > 1) args.column = next.column;
  return `be-read ${JSON.stringify(args)}`;
}

export function paginate(req: PageRequest): Page {
  const total = req.lines.length;
  const limit = Math.max(16, req.limit ?? DEFAULT_PAGE_TOKENS);
  const tk = req.tokenizer;
  const start = Math.min(Math.max(1, req.start ?? 1), Math.max(total, 1));
  const end = Math.min(req.end ?? total, total);
  if (total === 0 || end < start) {
    return { start, end: Math.max(end, start - 1), total, content: '', tokens: 0, hint: total === 0 ? 'empty file' : `no lines in ${start}-${end}` };
  }
  let column = Math.max(1, req.column ?? 1);
  const firstLine = req.lines[start - 1]!;
  if (column > firstLine.length) column = 1;

  const blank = req.blank ?? '<blank>';
  const shown = (t: string) => (t === '' ? blank : t);
  const entries: string[] = [];
  let used = 0;
  let line = start;
  let partial: Page['partial'];
  let nextColumn: number | undefined;
  for (; line <= end; line++) {
    const text = line === start ? firstLine.slice(column - 1) : req.lines[line - 1]!;
    const entry = `${line}\t${shown(text)}`;
    const cost = tk.count(entry + '\n');
    if (used + cost <= limit) {
      entries.push(entry);
      used += cost;
      if (line === start && column > 1) partial = { line, from: column, to: firstLine.length, length: firstLine.length };
      continue;
    }
    if (entries.length === 0) {
      // One line alone is over the limit: take the longest prefix that fits and continue in the same line.
      const fullLine = req.lines[line - 1]!;
      const offset = line === start ? column - 1 : 0;
      const take = longestPrefixWithin(text, (k) => tk.count(`${line}\t${text.slice(0, k)}\n`), limit);
      entries.push(`${line}\t${text.slice(0, take)}`);
      used = tk.count(entries[0] + '\n');
      partial = { line, from: offset + 1, to: offset + take, length: fullLine.length };
      nextColumn = offset + take + 1;
    }
    break;
  }
  // Token counts of separate lines do not always add up to the count of the joined text: verify and trim.
  let content = entries.join('\n');
  let tokens = tk.count(content);
  while (tokens > limit && entries.length > 1) {
    entries.pop();
    nextColumn = undefined;
    if (partial && partial.line !== start) partial = undefined;
    content = entries.join('\n');
    tokens = tk.count(content);
  }
  const lastLine = start + entries.length - 1;
  const page: Page = { start, end: lastLine, total, content, tokens, hint: '' };
  if (partial) page.partial = partial;
  if (nextColumn !== undefined && nextColumn <= req.lines[lastLine - 1]!.length) {
    page.next = { file: `${req.path}:${lastLine}-${end}`, column: nextColumn };
  } else if (lastLine < end) {
    page.next = { file: `${req.path}:${lastLine + 1}-${end}` };
  }
  const parts: string[] = [];
  if (page.partial) {
    const p = page.partial;
    parts.push(`line ${p.line} is longer than the page limit: characters ${p.from}-${p.to} of ${p.length} shown`);
  }
  if (page.next) parts.push(`page limit ${limit} tokens reached; continue with ${nextCallHint(page.next)}`);
  else parts.push(`complete: lines ${start}-${lastLine} of ${total}`);
  page.hint = parts.join('; ');
  return page;
}

/** Largest k in [1, text.length] with cost(k) <= limit (at least 1 character so a page always advances). */
function longestPrefixWithin(text: string, cost: (k: number) => number, limit: number): number {
  let lo = 1;
  let hi = text.length;
  // Tokens per character are at least ~1/8 for real text; start from a tight upper bound to keep counts small.
  hi = Math.min(hi, limit * 16);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cost(mid) <= limit) lo = mid;
    else hi = mid - 1;
  }
  // Do not cut a surrogate pair in half.
  const code = text.charCodeAt(lo - 1);
  if (lo > 1 && code >= 0xd800 && code <= 0xdbff) lo--;
  return lo;
}
