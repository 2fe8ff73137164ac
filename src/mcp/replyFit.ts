/**
 * Replies that fit the host (hostProfiles.ts): the measure of a reply as its host counts it (on the model view:
 * `JSON.stringify(structuredContent)` when present, else the text), and the last resort for a reply still over
 * the limit: pages of whole lines, each naming the exact call for the next one. Nothing is cut: a line longer
 * than a page is split at characters and the page says that the line goes on.
 */
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../core/errors';
import type { ReplyLimit } from './hostProfiles';

export type Measure = (text: string) => number;

/** The text a client shows the model of a result. */
export function modelView(result: CallToolResult): string {
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Without a tokenizer, tokens are bounded by UTF-8 bytes (a token is at least one byte). */
export function measureFor(limit: ReplyLimit, tokenizer?: { count(text: string): number }): Measure {
  switch (limit.unit) {
    case 'chars':
      return (t) => t.length;
    case 'bytes':
      return (t) => Buffer.byteLength(t, 'utf8');
    case 'tokens':
      return tokenizer ? (t) => tokenizer.count(t) : (t) => Buffer.byteLength(t, 'utf8');
  }
}

/**
 * The page budget (tokens) a paged tool is first asked for under `limit`: o200k averages ~3.5 characters and
 * ~3.8 UTF-8 bytes per token on code; a page that still comes out over is asked again, smaller (callPipeline.ts).
 */
export function firstPageTokens(limit: ReplyLimit): number {
  if (limit.unit === 'tokens') return Math.floor(limit.max * 0.95);
  return Math.max(200, Math.floor(limit.max / (limit.unit === 'chars' ? 3.5 : 3.8)));
}

/** The next budget after a page measured `measured` against `limit.max` with budget `budget`. */
export function smallerPageTokens(budget: number, measured: number, limit: ReplyLimit): number {
  return Math.max(64, Math.min(budget - 32, Math.floor((budget * limit.max * 0.92) / measured)));
}

/** The longest prefix of `s` (in UTF-16 units, never splitting a surrogate pair) whose measure is at most `room`. */
function longestPrefix(s: string, room: number, measure: Measure): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(s.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0 && lo < s.length && /[\uD800-\uDBFF]/.test(s[lo - 1]!)) lo--;
  return Math.max(lo, Math.min(1, s.length));
}

export interface TextPage {
  text: string;
  /** The page ends inside a line that the next page goes on with. */
  splitLine: boolean;
}

/** `text` as pages of whole lines, each at most `room` by `measure` (a longer line alone is split at characters). */
export function splitIntoPages(text: string, room: number, measure: Measure): TextPage[] {
  const pages: TextPage[] = [];
  let cur: string[] = [];
  let used = 0;
  const flush = (splitLine = false) => {
    if (cur.length) pages.push({ text: cur.join('\n'), splitLine });
    cur = [];
    used = 0;
  };
  for (const line of text.split('\n')) {
    const size = measure(line) + (cur.length ? 1 : 0);
    if (used + size <= room) {
      cur.push(line);
      used += size;
      continue;
    }
    flush();
    if (measure(line) <= room) {
      cur.push(line);
      used = measure(line);
      continue;
    }
    let rest = line;
    while (measure(rest) > room) {
      const take = longestPrefix(rest, room, measure);
      pages.push({ text: rest.slice(0, take), splitLine: true });
      rest = rest.slice(take);
    }
    cur.push(rest);
    used = measure(rest);
  }
  flush();
  // Token counts of lines do not always add up to the count of their join: move rows on until each page fits.
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    if (measure(p.text) <= room) continue;
    const rows = p.text.split('\n');
    if (rows.length < 2) continue; // one row already cut by its own measure
    const moved: string[] = [];
    while (rows.length > 1 && measure(rows.join('\n')) > room) moved.unshift(rows.pop()!);
    pages.splice(i, 1, { text: rows.join('\n'), splitLine: false }, { text: moved.join('\n'), splitLine: p.splitLine });
  }
  return pages;
}

/** The pages of replies that did not fit, per caller (one MCP session): the newest kept, bounded. */
export class ReplyPages {
  private readonly kept = new Map<string, { tool: string; pages: TextPage[] }>();
  constructor(private readonly maxKept = 64) {}

  /** Pages `text` under `limit` and returns the first page's text; the rest wait for `reply_page`. */
  page(tool: string, listed: string, text: string, limit: ReplyLimit, measure: Measure): string {
    const id = randomBytes(4).toString('hex');
    const sample = this.header(listed, id, 9998, 9999, true); // the longest header: a next call, a split line
    const room = limit.max - measure(sample) - 1;
    const pages = splitIntoPages(text, Math.max(16, room), measure);
    this.kept.set(id, { tool, pages });
    while (this.kept.size > this.maxKept) this.kept.delete(this.kept.keys().next().value!);
    return this.render(listed, id, 1, pages);
  }

  /** Page `n` (1-based) of a paged reply `id/n`; a clear error when it is not kept. */
  get(ref: string, listedName: (tool: string) => string): string {
    const m = /^([0-9a-f]{8})\/(\d+)$/.exec(ref);
    const kept = m ? this.kept.get(m[1]!) : undefined;
    const n = m ? Number(m[2]) : 0;
    if (!m || !kept || n < 1 || n > kept.pages.length) {
      throw new ToolError(
        'not_found',
        `reply page "${ref}" is not kept: pages are kept for the last ${this.maxKept} paged replies of this session, not over a restart; repeat the call that gave it.`,
      );
    }
    return this.render(listedName(kept.tool), m[1]!, n, kept.pages);
  }

  private header(listed: string, id: string, n: number, of: number, split: boolean): string {
    const next = n < of ? ` next: ${listed} ${JSON.stringify({ reply_page: `${id}/${n + 1}` })}` : '';
    return `(reply page ${n}/${of}${split ? ', its last line goes on in the next page' : ''})${next}`;
  }

  private render(listed: string, id: string, n: number, pages: TextPage[]): string {
    const p = pages[n - 1]!;
    return `${this.header(listed, id, n, pages.length, p.splitLine && n < pages.length)}\n${p.text}`;
  }
}
