/**
 * `full` reads: numbered lines ("N\t<text>", as be-read prints them), cut into pages that stay under a
 * token limit. A page ends on a line boundary; a single line longer than the limit is split by
 * characters and the page says so. The hint names the exact call that continues where the page ended.
 */
import { CONTEXT_SETTINGS } from './settingsTable';
import type { TokenCounter } from './types';

export const DEFAULT_PAGE_TOKENS = CONTEXT_SETTINGS.pageTokens.default;
/**
 * A page also holds at most this many characters per token of its limit. Text runs at ~4; only runs of one
 * character (whitespace, `=`) reach 128, and a page of a megabyte of spaces helps no one while its counting
 * would cost ~100 ms. The cap keeps a page's work bounded by the page.
 */
export const MAX_PAGE_CHARS_PER_TOKEN = 16;

export interface PageRequest {
  /** Path as the agent should use it in the next call. */
  path: string;
  /** All lines of the file, without their line breaks; or `source`. */
  lines?: readonly string[];
  /** The file's lines by number (1-based), decoded only as the page reaches them: a 10 MB file is not split. */
  source?: { count: number; line(n: number): string };
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

/**
 * A page whose whole range is at most `limit` bytes (line numbers and breaks included) holds at most `limit` tokens,
 * since a token is at least one byte: `paginate` then takes every line whatever the counts, so it can run on
 * `BYTES_AS_TOKENS` and give the same page before the tokenizer's ranks are loaded (a small range read first thing
 * after a start waits for nothing). The page's `tokens` is then that bound, not the count.
 */
export function fitsWithoutCounting(req: Omit<PageRequest, 'tokenizer'>): boolean {
  const src = req.source;
  const all = req.lines ?? [];
  const total = src ? src.count : all.length;
  const limit = Math.max(16, req.limit ?? DEFAULT_PAGE_TOKENS);
  const start = Math.min(Math.max(1, req.start ?? 1), Math.max(total, 1));
  const end = Math.min(req.end ?? total, total);
  if ((req.column ?? 1) > 1) return false;
  const blank = req.blank ?? '<blank>';
  const maxChars = limit * MAX_PAGE_CHARS_PER_TOKEN;
  let bytes = 0;
  let chars = 0;
  for (let line = start; line <= end; line++) {
    const text = src ? src.line(line) : all[line - 1]!;
    const entry = `${line}\t${text === '' ? blank : text}`;
    bytes += Buffer.byteLength(entry) + 1;
    chars += entry.length + 1;
    if (bytes > limit || chars > maxChars) return false;
  }
  return true;
}

/** Counts bytes: an upper bound of the tokens of any text (for `fitsWithoutCounting` pages only). */
export const BYTES_AS_TOKENS: TokenCounter = { count: (text) => Buffer.byteLength(text) };

export function paginate(req: PageRequest): Page {
  const src = req.source;
  const all = req.lines ?? [];
  const total = src ? src.count : all.length;
  const lineAt = src ? (n: number) => src.line(n) : (n: number) => all[n - 1]!;
  const limit = Math.max(16, req.limit ?? DEFAULT_PAGE_TOKENS);
  const tk = req.tokenizer;
  const fit = fitterOf(tk);
  const start = Math.min(Math.max(1, req.start ?? 1), Math.max(total, 1));
  const end = Math.min(req.end ?? total, total);
  if (total === 0 || end < start) {
    return { start, end: Math.max(end, start - 1), total, content: '', tokens: 0, hint: total === 0 ? 'empty file' : `no lines in ${start}-${end}` };
  }
  let column = Math.max(1, req.column ?? 1);
  const firstLine = lineAt(start);
  if (column > firstLine.length) column = 1;

  const blank = req.blank ?? '<blank>';
  const shown = (t: string) => (t === '' ? blank : t);
  const entries: string[] = [];
  const maxChars = limit * MAX_PAGE_CHARS_PER_TOKEN;
  let used = 0;
  let usedChars = 0;
  let line = start;
  let partial: Page['partial'];
  let nextColumn: number | undefined;
  for (; line <= end; line++) {
    const text = line === start ? firstLine.slice(column - 1) : lineAt(line);
    const entry = `${line}\t${shown(text)}`;
    // Counted only as far as the page has room: a 4 MiB line costs what one page of it costs.
    let room: { chars: number; tokens: number } | undefined;
    if (entry.length + 1 <= maxChars - usedChars) {
      room = fit(entry + '\n', limit - used);
      if (room.chars === entry.length + 1) {
        entries.push(entry);
        used += room.tokens;
        usedChars += entry.length + 1;
        if (line === start && column > 1) partial = { line, from: column, to: firstLine.length, length: firstLine.length };
        continue;
      }
    }
    if (entries.length === 0) {
      // One line alone is over the limit: take the longest prefix that fits and continue in the same line.
      const fullLine = lineAt(line);
      const offset = line === start ? column - 1 : 0;
      const prefix = `${line}\t`;
      const { take, tokens } = longestPrefixWithin(prefix, text.slice(0, maxChars - prefix.length - 1), limit, tk, fit, room);
      entries.push(`${prefix}${text.slice(0, take)}`);
      used = tokens;
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
  if (nextColumn !== undefined && nextColumn <= lineAt(lastLine).length) {
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

type Fit = (text: string, limit: number) => { chars: number; tokens: number };

/**
 * The tokenizer's own prefix fit when it has one (the shared tokenizer: work proportional to the page); else
 * whole counts, galloping over prefix lengths so that a line is still not counted whole for every page.
 */
function fitterOf(tk: TokenCounter & { fit?: Fit }): Fit {
  if (typeof tk.fit === 'function') return (text, limit) => tk.fit!(text, limit);
  return (text, limit) => {
    const whole = (k: number) => ({ chars: k, tokens: tk.count(text.slice(0, k)) });
    let good = { chars: 0, tokens: 0 };
    for (let k = Math.min(text.length, Math.max(64, limit * 4)); ; k = Math.min(text.length, k * 2)) {
      const probe = whole(k);
      if (probe.tokens > limit) return bisect(good, k, limit, whole);
      if (k === text.length) return probe;
      good = probe;
    }
  };
}

function bisect(good: { chars: number; tokens: number }, bad: number, limit: number, count: (k: number) => { chars: number; tokens: number }) {
  let lo = good;
  let hi = bad;
  while (hi - lo.chars > 1) {
    const probe = count((lo.chars + hi) >> 1);
    if (probe.tokens <= limit) lo = probe;
    else hi = probe.chars;
  }
  return lo;
}

/**
 * Characters of `text` that fit with `prefix` (the line number) in `limit` tokens: at least 1 so a page always
 * advances, never half a surrogate pair; `known` is a fit of the whole entry already made with `limit`. The fit
 * is checked with a whole count of the entry (a cut inside a pre-token can count a token more than the fit said)
 * and tightened, a few times at most.
 */
function longestPrefixWithin(
  prefix: string,
  text: string,
  limit: number,
  tk: TokenCounter,
  fit: Fit,
  known?: { chars: number },
): { take: number; tokens: number } {
  let budget = limit;
  let take = 1;
  let tokens = 0;
  for (let attempt = 0; attempt < 4; attempt++) {
    // the first fit may be known already (the whole line was tried with the whole limit)
    const cut = attempt === 0 && known ? known.chars : fit(prefix + text, budget).chars;
    take = Math.min(text.length, Math.max(1, cut - prefix.length));
    const code = text.charCodeAt(take - 1);
    if (take > 1 && code >= 0xd800 && code <= 0xdbff) take--;
    tokens = tk.count(`${prefix}${text.slice(0, take)}\n`);
    if (tokens <= limit || take === 1) break;
    budget -= tokens - limit;
  }
  return { take, tokens };
}
