/**
 * A file's outline as pages of whole symbols (be-read mode structure): a symbol and its members stay on one page
 * unless together they are larger than a page, then the page breaks between members, never inside a row. The next
 * page starts at a line (`from`) and repeats the containers of its first row, so every row keeps its context.
 *
 * With a query, the reply is the symbols that match it and their neighbours, within a small budget, and says how
 * many it left out and the call that gives them all. Symbols are ranked by BM25 (Robertson & Zaragoza, "The
 * Probabilistic Relevance Framework: BM25 and Beyond", 2009) with its textbook parameters k1 = 1.2, b = 0.75, over
 * the words of each symbol's name, signature and doc line (stemmed, rank/words.ts); no weight was fitted to a set.
 */
import { importsLine, symbolRow } from './render';
import { queryWords, splitWords, stemMatch, stemOf } from './rank/words';
import type { FileStructure, OutlineSymbol, TokenCounter } from './types';

export interface OutlineRow {
  sym: OutlineSymbol;
  depth: number;
  /** index of the enclosing symbol's row, -1 at the top */
  parent: number;
  /** index of the last row of this symbol's members (itself when it has none) */
  last: number;
  /** the row as shown (rendered when first read: a page renders its own rows, not the file's) */
  readonly text: string;
}

class Row implements OutlineRow {
  private shown: string | undefined;
  last = 0;
  constructor(
    readonly sym: OutlineSymbol,
    readonly depth: number,
    readonly parent: number,
  ) {}
  get text(): string {
    return (this.shown ??= symbolRow(this.sym, this.depth));
  }
}

/** Every symbol as a row, in file order (members after their container, siblings by their first line). */
export function outlineRows(symbols: readonly OutlineSymbol[]): OutlineRow[] {
  const rows: Row[] = [];
  const visit = (syms: readonly OutlineSymbol[], depth: number, parent: number) => {
    for (const sym of [...syms].sort((a, b) => a.start - b.start)) {
      const i = rows.push(new Row(sym, depth, parent)) - 1;
      if (sym.children?.length) visit(sym.children, depth + 1, i);
      rows[i]!.last = rows.length - 1;
    }
  };
  visit(symbols, 0, -1);
  return rows;
}

export interface OutlinePage {
  /** The rows (and the imports line on the page that starts the file), one per line. */
  text: string;
  /** Rows on this page that were not repeated as context, and all rows of the file. */
  shown: number;
  total: number;
  /** First line of the first new row, and the line the next page starts at (absent on the last page). */
  from: number;
  next?: number;
}

/** A row's tokens with its newline, counted when first asked: a page counts its own rows, not the file's. */
function lazyCost(rows: readonly OutlineRow[], tokenizer: TokenCounter): (i: number) => number {
  const known = new Map<number, number>();
  return (i) => {
    let n = known.get(i);
    if (n === undefined) known.set(i, (n = tokenizer.count(rows[i]!.text) + 1));
    return n;
  };
}

const ancestors = (rows: readonly OutlineRow[], i: number): number[] => {
  const out: number[] = [];
  for (let p = rows[i]!.parent; p >= 0; p = rows[p]!.parent) out.unshift(p);
  return out;
};

/**
 * The page of `s`'s outline that starts at line `from` (default 1), within `maxTokens`. A symbol whose members do
 * not fit the room left goes whole to the next page if a page holds it, else it is split between its members.
 */
export function outlinePage(s: FileStructure, opts: { from?: number; maxTokens: number; tokenizer: TokenCounter }): OutlinePage {
  const rows = outlineRows(s.symbols);
  const from = Math.max(1, opts.from ?? 1);
  const k = rows.findIndex((r) => r.sym.start >= from);
  const head = from <= 1 ? importsLine(s) : undefined;
  if (k < 0) return { text: head ?? '', shown: 0, total: rows.length, from };
  const cost = lazyCost(rows, opts.tokenizer);
  const context = ancestors(rows, k);
  const fixed = (head ? opts.tokenizer.count(head) + 1 : 0) + context.reduce((n, i) => n + cost(i), 0);
  const pageRoom = Math.max(1, opts.maxTokens - fixed);
  /** A symbol's rows' cost, counted only until it passes `cap` (a big class is not counted whole to learn it is big). */
  const unitCost = (i: number, cap: number) => {
    let n = 0;
    for (let j = i; j <= rows[i]!.last && n <= cap; j++) n += cost(j);
    return n;
  };
  let room = pageRoom;
  let i = k;
  while (i < rows.length) {
    const unit = unitCost(i, Math.max(room, opts.maxTokens));
    if (unit <= room) {
      room -= unit;
      i = rows[i]!.last + 1;
      continue;
    }
    // the room this symbol would have at the top of a page of its own (its containers repeated above it)
    const fresh = opts.maxTokens - ancestors(rows, i).reduce((n, j) => n + cost(j), 0);
    const descend = rows[i]!.last > i && (i === k || unit > fresh);
    if (i > k && (!descend || cost(i) > room)) break;
    // a container too large for any page (or the page's first row): its row here, its members as they fit
    room -= cost(i);
    i++;
  }
  // A page breaks between lines: rows that start on the line of the last row taken stay on this page.
  while (i < rows.length && i > k && rows[i]!.sym.start <= rows[i - 1]!.sym.start) i++;
  const text = [...(head ? [head] : []), ...context.map((j) => rows[j]!.text), ...rows.slice(k, i).map((r) => r.text)].join('\n');
  const page: OutlinePage = { text, shown: i - k, total: rows.length, from: rows[k]!.sym.start };
  if (i < rows.length) page.next = rows[i]!.sym.start;
  return page;
}

export interface QueryOutline {
  text: string;
  /** Rows whose symbol matches a query word. */
  matched: number;
  /** Matching rows that made it into the budget. */
  matchedShown: number;
  /** The best-scoring symbol. */
  best: OutlineSymbol;
  shown: number;
  total: number;
}

/** Rows whose words are read between two yields to the event loop (a 20,000-symbol file takes ~200 ms whole). */
const ROWS_PER_SLICE = 2000;

/** BM25 score of each row for the query's words (0 where no word matches). */
export async function symbolScores(rows: readonly OutlineRow[], query: string): Promise<number[]> {
  const qs = [...new Set(queryWords(query).map(stemOf))];
  if (!qs.length || !rows.length) return rows.map(() => 0);
  const K1 = 1.2;
  const B = 0.75;
  const docs: string[][] = [];
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_SLICE === 0) await new Promise((r) => setTimeout(r, 0));
    const sym = rows[i]!.sym;
    docs.push(splitWords(`${sym.name} ${sym.signature} ${sym.doc ?? ''}`).filter((w) => w.length >= 2).map(stemOf));
  }
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const tf = docs.map((d) => qs.map((q) => d.reduce((n, w) => n + stemMatch(q, w), 0)));
  const idf = qs.map((_, j) => {
    const df = tf.filter((t) => t[j]! > 0).length;
    return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
  });
  return tf.map((t, i) => t.reduce((n, f, j) => (f > 0 ? n + (idf[j]! * f * (K1 + 1)) / (f + K1 * (1 - B + (B * docs[i]!.length) / avg)) : n), 0));
}

/**
 * The rows that answer `query` within `maxTokens`, in file order: each matching symbol (best score first) with
 * its containers, then the symbols on either side of each match, then the members of a matching container.
 * Undefined when no symbol matches.
 */
export async function queryOutline(s: FileStructure, query: string, opts: { maxTokens: number; tokenizer: TokenCounter }): Promise<QueryOutline | undefined> {
  const rows = outlineRows(s.symbols);
  const scores = await symbolScores(rows, query);
  const matches = rows.map((_, i) => i).filter((i) => scores[i]! > 0).sort((a, b) => scores[b]! - scores[a]! || a - b);
  if (!matches.length) return undefined;
  const cost = lazyCost(rows, opts.tokenizer);
  const picked = new Set<number>();
  let room = opts.maxTokens;
  /** Adds the rows of `want` not yet picked if they all fit; whether they did. */
  const add = (want: number[]): boolean => {
    const fresh = [...new Set(want)].filter((j) => !picked.has(j));
    const n = fresh.reduce((t, j) => t + cost(j), 0);
    if (n > room) return false;
    room -= n;
    for (const j of fresh) picked.add(j);
    return true;
  };
  const kids = new Map<number, number[]>();
  rows.forEach((r, j) => (kids.get(r.parent) ?? kids.set(r.parent, []).get(r.parent)!).push(j));
  const siblings = (i: number) => kids.get(rows[i]!.parent)!;
  // the best match is shown whatever its containers cost; the others as they fit
  const bestRows = [...ancestors(rows, matches[0]!), matches[0]!];
  if (!add(bestRows)) {
    for (const j of bestRows) picked.add(j);
    room -= bestRows.reduce((n, j) => n + cost(j), 0);
  }
  // a row costs at least 2 tokens: no more matches than that can be shown are tried (each try counts its rows)
  for (const m of matches.slice(0, Math.ceil(opts.maxTokens / 2))) add([...ancestors(rows, m), m]);
  for (const m of matches.filter((j) => picked.has(j))) {
    const sib = siblings(m);
    const at = sib.indexOf(m);
    for (const j of [sib[at - 1], sib[at + 1]]) if (j !== undefined) add([...ancestors(rows, j), j]);
  }
  for (const m of matches.filter((j) => picked.has(j) && rows[j]!.last > j)) {
    for (const j of kids.get(m) ?? []) add([j]);
  }
  const order = [...picked].sort((a, b) => a - b);
  return { text: order.map((j) => rows[j]!.text).join('\n'), matched: matches.length, matchedShown: matches.filter((j) => picked.has(j)).length, best: rows[matches[0]!]!.sym, shown: order.length, total: rows.length };
}
