/**
 * The repository map behind `overview`: a cached, incrementally updated index of a folder's files
 * (lines, defined names, used identifiers, summaries), a reference graph ranked with PageRank as
 * Aider's repo map does, and a renderer that fits a token budget by choosing how much to show.
 */
import { performance } from 'node:perf_hooks';
import { dirname, posix, relative, sep } from 'node:path';
import { isInside } from '../files/sandbox';
import { languageIdFromPath } from '../text/language';
import type { TokenCounter } from './types';
import { extractTags, isCodeLanguage, type FileTags } from './tags';
import { isWalkedPath, looksBinary, SKIP_DIRS, walkFiles, walkFilesSync, type WalkedFile } from './walk';
import { lstatOrUndefined, readWalkedFile } from './readWalked';
import { Graph } from './rank/graph';
import { queryWords } from './rank/words';
import { nameMatches } from './rank/bm25';
import { centralFile, firstWithCentral, rankFiles } from './rank/personalize';

export const DEFAULT_OVERVIEW_BUDGET = 1024;
/** Files larger than this are counted but not tagged (generated code, data dumps). */
const MAX_TAG_BYTES = 1024 * 1024;
/** Files larger than this are not read at all; their line count is estimated from the size. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

interface FileRecord {
  rel: string;
  abs: string;
  mtimeMs: number;
  size: number;
  lines: number;
  linesEstimated: boolean;
  languageId: string;
  binary: boolean;
  summary: string;
  tags?: FileTags;
  defsKey: string;
}

export interface OverviewOptions {
  /** Absolute folder inside the root to describe; default the root. */
  folder?: string;
  budget?: number;
  query?: string;
}

export interface OverviewFile {
  path: string;
  lines: number;
  summary: string;
  symbols: string[];
  score: number;
}

export interface OverviewResult {
  text: string;
  tokens: number;
  budget: number;
  files: number;
  lines: number;
  shownFiles: number;
  ranked: OverviewFile[];
  hint: string;
  notes: string[];
}

export interface RepoMapStats {
  /** Files read and tagged since creation (cold + incremental). */
  parsed: number;
  /** Warm refreshes that walked every file (mtime checks) vs. those that looked only at watcher-reported paths. */
  walks: number;
  watchedRefreshes: number;
  /** Graph rebuilds from scratch vs. updates of a few files' edges. */
  fullGraphBuilds: number;
  partialGraphUpdates: number;
  refreshes: number;
  /** Milliseconds of the last overview call: walk+stat, reading changed files, graph update, ranking, rendering. */
  lastMs: { walk: number; read: number; graph: number; rank: number; render: number };
}

export class RepoMap {
  readonly stats: RepoMapStats = {
    parsed: 0,
    walks: 0,
    watchedRefreshes: 0,
    fullGraphBuilds: 0,
    partialGraphUpdates: 0,
    refreshes: 0,
    lastMs: { walk: 0, read: 0, graph: 0, rank: 0, render: 0 },
  };
  private records = new Map<string, FileRecord>();
  private invalidated = new Set<string>();
  private totalRefs = new Map<string, number>();
  private graph: Graph | undefined;
  private truncated = false;
  private refreshing: Promise<void> | undefined;
  /** Bumped whenever a refresh saw a change; keys the memo of the last overview. */
  private generation = 0;
  private memo: { key: string; result: OverviewResult } | undefined;
  /**
   * Bumped when the ranking can change: a graph build or update (definitions, references or imports changed) or
   * files added/removed. A file re-read with the same tags keeps the ranked list; only its lines and summary are
   * refreshed in place (the tie-break by size among equal scores may then lag until the next rank change).
   */
  private rankGen = 0;
  private rankedMemo: { key: string; ranked: OverviewFile[]; central: string | undefined } | undefined;
  /** Token counts of rendered overview lines, kept across calls (most lines survive an edit). */
  private lineTokens = new Map<string, number>();
  private readonly tokenizer: TokenCounter;
  /**
   * Set while a file watcher reports every change under the root through invalidate(). Then a warm refresh
   * looks only at the invalidated paths; without a watcher (or after it failed) every refresh walks the folder
   * and compares mtimes and sizes. The first refresh always walks.
   */
  watched = false;
  /** A path the watcher could not place (a new folder, a changed .gitignore): the next refresh walks. */
  private needsWalk = false;

  constructor(
    readonly root: string,
    opts: { tokenizer: TokenCounter },
  ) {
    this.tokenizer = opts.tokenizer;
  }

  /** Forget what is known about `absPath` (a file, or a folder and everything under it); re-read on the next call. */
  invalidate(absPath: string): void {
    this.invalidated.add(absPath);
  }

  /** Set `watched` to false when the watcher stops; the next refresh walks everything once to catch up. */
  setWatched(on: boolean): void {
    if (this.watched && !on) this.needsWalk = true;
    this.watched = on;
  }

  /** Walk the folder, re-read only files whose mtime/size changed (or were invalidated), update the graph. */
  refresh(): Promise<void> {
    // Concurrent callers share one refresh.
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private isInvalidated(abs: string): boolean {
    if (this.invalidated.size === 0) return false;
    // the file or a folder above it, walked up by dirname (separator-correct, O(depth) set look-ups per file: the
    // walk asks this for every file; isInside against each invalidated path ran 30,000 pairs in 120-180 ms here)
    for (let p = abs; ; ) {
      if (this.invalidated.has(p)) return true;
      const up = dirname(p);
      if (p === this.root || up === p) return false;
      p = up;
    }
  }

  /**
   * Watched warm refresh: only the invalidated paths are looked at. Known files are re-stat'ed; a new file is
   * added when the walk would list it (ignore rules checked for its folders only); a vanished path (an editor's
   * temp file) is nothing to do. A folder event, a .gitignore change or a truncated index makes it walk instead.
   */
  private changedFromInvalidations(): { toRead: WalkedFile[]; removed: string[] } | undefined {
    if (!this.watched || this.needsWalk || !this.records.size || this.truncated) return undefined;
    const toRead: WalkedFile[] = [];
    const removed: string[] = [];
    for (const abs of this.invalidated) {
      if (abs === this.root) return undefined;
      if (!isInside(this.root, abs)) continue;
      const rel = relative(this.root, abs).split(sep).join('/');
      const parts = rel.split('/');
      if (parts.some((p) => SKIP_DIRS.has(p))) continue;
      if (parts[parts.length - 1] === '.gitignore') return undefined;
      const st = lstatOrUndefined(abs);
      const old = this.records.get(rel);
      if (st?.isDirectory()) return undefined;
      if (!st?.isFile()) {
        // gone, or no longer a regular file (a link, a FIFO): not in the map
        if (old) removed.push(rel);
        else if (this.hasRecordsUnder(rel)) return undefined; // a folder went away (or became a link)
        continue;
      }
      if (old) {
        if (old.mtimeMs !== st.mtimeMs || old.size !== st.size) toRead.push({ abs, rel, size: st.size, mtimeMs: st.mtimeMs });
      } else if (isWalkedPath(this.root, rel)) {
        toRead.push({ abs, rel, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
    return { toRead, removed };
  }

  private hasRecordsUnder(rel: string): boolean {
    const prefix = rel + '/';
    for (const k of this.records.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  private async doRefresh(): Promise<void> {
    this.stats.refreshes++;
    let t = performance.now();
    let toRead: WalkedFile[];
    let removed: string[];
    const fromWatcher = this.changedFromInvalidations();
    if (fromWatcher) {
      ({ toRead, removed } = fromWatcher);
      this.stats.watchedRefreshes++;
    } else {
      // No watcher (or it could not place a change): walk and compare mtimes. The first walk is async (it may take
      // a while on a cold disk); later ones are mostly cached stat calls.
      const { files, truncated } = this.records.size ? walkFilesSync(this.root) : await walkFiles(this.root);
      this.stats.walks++;
      this.needsWalk = false;
      this.truncated = truncated;
      const seen = new Set<string>();
      toRead = [];
      for (const f of files) {
        seen.add(f.rel);
        const old = this.records.get(f.rel);
        if (!old || old.mtimeMs !== f.mtimeMs || old.size !== f.size || this.isInvalidated(f.abs)) toRead.push(f);
      }
      removed = [...this.records.keys()].filter((rel) => !seen.has(rel));
    }
    this.stats.lastMs.walk = performance.now() - t;
    this.invalidated.clear();
    if (toRead.length || removed.length) this.generation++;

    let defsChanged = removed.length > 0;
    const changed: string[] = [];
    for (const rel of removed) this.dropRecord(rel);
    t = performance.now();
    const fresh = await mapLimit(toRead, 16, (f) => this.readRecord(f));
    this.stats.lastMs.read = performance.now() - t;
    t = performance.now();
    // became a link or a FIFO since the walk: out of the map
    for (const [i, f] of toRead.entries()) if (!fresh[i] && this.records.has(f.rel)) removed.push(this.dropRecord(f.rel));
    for (const rec of fresh) {
      if (!rec) continue; // not a regular file inside the root (any more)
      const old = this.records.get(rec.rel);
      if (old) this.dropRefs(old);
      if (!old || old.defsKey !== rec.defsKey) defsChanged = true;
      this.records.set(rec.rel, rec);
      this.addRefs(rec);
      // Same names defined, same identifiers used as often, same imports: its edges and the ranking stay.
      if (old && sameTags(old, rec)) this.graph?.replaceRecord(rec);
      else changed.push(rec.rel);
      this.stats.parsed++;
    }
    const addedOrRemoved = removed.length > 0 || changed.some((rel) => !this.graph?.has(rel));
    if (!this.graph || addedOrRemoved || changed.length) this.rankGen++;
    if (!this.graph || addedOrRemoved) {
      this.graph = new Graph([...this.records.values()]);
      this.stats.fullGraphBuilds++;
    } else if (changed.length) {
      // Same file set: update the changed files' definitions and the edges that depend on them.
      this.graph.updateFiles(changed.map((rel) => this.records.get(rel)!));
      this.stats.partialGraphUpdates++;
    }
    void defsChanged;
    this.stats.lastMs.graph = performance.now() - t;
  }

  private dropRecord(rel: string): string {
    this.dropRefs(this.records.get(rel)!);
    this.records.delete(rel);
    return rel;
  }

  private dropRefs(rec: FileRecord): void {
    for (const [id, n] of rec.tags?.refs ?? []) {
      const left = (this.totalRefs.get(id) ?? 0) - n;
      if (left > 0) this.totalRefs.set(id, left);
      else this.totalRefs.delete(id);
    }
  }

  private addRefs(rec: FileRecord): void {
    for (const [id, n] of rec.tags?.refs ?? []) this.totalRefs.set(id, (this.totalRefs.get(id) ?? 0) + n);
  }

  private async readRecord(f: { rel: string; abs: string; size: number; mtimeMs: number }): Promise<FileRecord | undefined> {
    const languageId = languageIdFromPath(f.rel);
    const rec: FileRecord = {
      rel: f.rel,
      abs: f.abs,
      mtimeMs: f.mtimeMs,
      size: f.size,
      lines: 0,
      linesEstimated: false,
      languageId,
      binary: false,
      summary: '',
      defsKey: '',
    };
    if (f.size > MAX_READ_BYTES) {
      rec.lines = Math.round(f.size / 40);
      rec.linesEstimated = true;
      return rec;
    }
    let bytes: Buffer | undefined;
    try {
      bytes = await readWalkedFile(this.root, f.abs);
    } catch {
      return rec; // unreadable (permissions): counted, not described
    }
    if (!bytes) return undefined;
    if (looksBinary(bytes)) {
      rec.binary = true;
      return rec;
    }
    rec.lines = countNewlines(bytes);
    if (bytes.length > MAX_TAG_BYTES) return rec;
    const text = bytes.toString('utf8');
    const tags = extractTags(text, languageId);
    rec.summary = tags.summary;
    if (isCodeLanguage(languageId)) {
      rec.tags = tags;
      rec.defsKey = [...tags.defs].sort().join(',');
    }
    return rec;
  }

  /** The overview text for the root or a folder in it, within `budget` tokens. */
  async overview(opts: OverviewOptions = {}): Promise<OverviewResult> {
    await this.refresh();
    const budget = Math.max(128, opts.budget ?? DEFAULT_OVERVIEW_BUDGET);
    const folderRel = opts.folder ? toRel(this.root, opts.folder) : '';
    // Nothing changed since the same question: the same answer.
    const key = `${this.generation}\0${folderRel}\0${budget}\0${opts.query ?? ''}`;
    if (this.memo?.key === key) return this.memo.result;
    const result = this.compute(folderRel, budget, opts.query);
    this.memo = { key, result };
    return result;
  }

  private compute(folderRel: string, budget: number, query: string | undefined): OverviewResult {
    const opts = { query };
    const inFolder = (rel: string) => !folderRel || rel === folderRel || rel.startsWith(folderRel + '/');
    const all = [...this.records.values()].filter((r) => !r.binary && inFolder(r.rel));
    const terms = queryWords(opts.query);
    let t = performance.now();
    const rankKey = `${this.rankGen}\0${folderRel}\0${opts.query ?? ''}`;
    const memo = this.rankedMemo?.key === rankKey ? this.rankedMemo : undefined;
    const ranked = memo ? this.refreshRanked(memo.ranked) : this.rankFiles(all, terms);
    const central = memo ? memo.central : centralFile(all, this.totalRefs);
    this.rankedMemo = { key: rankKey, ranked, central };
    this.stats.lastMs.rank = performance.now() - t;
    t = performance.now();

    const totalLines = all.reduce((n, r) => n + r.lines, 0);
    const notes: string[] = [];
    if (this.truncated) notes.push('the folder has more files than the map indexes; narrow the path');
    const folderLabel = folderRel || '.';
    const langs = languageBreakdown(all);
    const header = `overview of ${folderLabel} · ${all.length.toLocaleString('en-US')} files · ${totalLines.toLocaleString('en-US')} lines${langs ? ` · ${langs}` : ''}`;
    const trees = new Map<number, string[]>();
    const tree = (depth: number) => {
      let t = trees.get(depth);
      if (!t) trees.set(depth, (t = moduleTree(all, folderRel, depth)));
      return t;
    };
    const top = ranked[0]?.path;
    const hint = top
      ? `be-read {"file":"${top}","mode":"structure"} lists a file's symbols with line ranges; be-overview {"path":"<folder>"} zooms into a folder`
      : 'no files found (check the path and .gitignore)';

    const render = (depth: number, k: number, withSymbols: boolean): string => {
      const lines = [header];
      const t = tree(depth);
      if (t.length) lines.push('modules:', ...t);
      if (k > 0) {
        lines.push(terms.length ? `key files (query "${opts.query}" first, then most referenced):` : 'key files (most referenced first):');
        for (const f of firstWithCentral(ranked, central, k)) {
          const sym = withSymbols && f.symbols.length ? ` · ${f.symbols.join(', ')}` : '';
          lines.push(`  ${f.path} ${f.lines}L${f.summary ? ` — ${f.summary}` : ''}${sym}`);
        }
      }
      if (k < ranked.length) lines.push(`+${ranked.length - k} more files (be-overview with a folder path or a query shows others)`);
      return lines.join('\n');
    };
    // Estimating from per-line counts (cached) keeps the search cheap; the chosen layout is checked exactly below.
    const lineTokens = this.lineTokens;
    if (lineTokens.size > 50_000) lineTokens.clear();
    const estimate = (text: string) => {
      let n = 0;
      for (const l of text.split('\n')) {
        let c = lineTokens.get(l);
        if (c === undefined) lineTokens.set(l, (c = this.tokenizer.count(l + '\n')));
        n += c;
      }
      return n;
    };
    const hintTokens = this.tokenizer.count(hint);
    const fits = (s: string) => estimate(s) + hintTokens <= budget;
    const fitsExactly = (s: string) => this.tokenizer.count(s) + hintTokens <= budget;

    // Most detail first; the first layout that shows enough files wins, else the one showing the most. Files
    // come before the folder tree: the tree shrinks and goes before the files lose their symbols.
    const layouts: [number, boolean][] = [
      [2, true],
      [1, true],
      [0, true],
      [1, false],
      [0, false],
    ];
    const want = Math.min(ranked.length, 12);
    let best: { text: string; k: number } | undefined;
    for (const [depth, sym] of layouts) {
      // A file line costs at least ~5 tokens: no need to try more files than the budget could hold.
      let k = maxFitting(Math.min(ranked.length, Math.ceil(budget / 5)), (k) => fits(render(depth, k, sym)));
      while (k >= 0 && !fitsExactly(render(depth, k, sym))) k--;
      if (k < 0) continue;
      if (!best || k > best.k) best = { text: render(depth, k, sym), k };
      if (k >= want) break;
    }
    if (!best) {
      // Even the header does not fit: cut it.
      let text = header;
      while (text.length > 20 && !fits(text)) text = text.slice(0, Math.floor(text.length * 0.8));
      best = { text, k: 0 };
      notes.push('budget too small for a module tree');
    }
    const text = best.text + (notes.length ? '\n' + notes.map((n) => `note: ${n}`).join('\n') : '');
    this.stats.lastMs.render = performance.now() - t;
    return {
      text,
      tokens: this.tokenizer.count(text),
      budget,
      files: all.length,
      lines: totalLines,
      shownFiles: best.k,
      ranked: firstWithCentral(ranked, central, best.k),
      hint,
      notes,
    };
  }

  /** Rank the files (rank/personalize.ts); symbols only for those that can be shown. */
  private rankFiles(all: FileRecord[], terms: string[]): OverviewFile[] {
    const scores = rankFiles(all, this.graph!, terms);
    const ranked: OverviewFile[] = all
      .map((r, i) => ({ path: r.rel, lines: r.lines, summary: r.summary, symbols: [] as string[], score: scores[i]!.score }))
      .sort((a, b) => b.score - a.score || b.lines - a.lines || (a.path < b.path ? -1 : 1));
    // The budget allows a few hundred files at most.
    for (const f of ranked.slice(0, 400)) f.symbols = this.topSymbols(this.records.get(f.path)!, terms);
    return ranked;
  }

  /** Same ranking, fresh line counts and summaries (files re-read without a tag change). */
  private refreshRanked(ranked: OverviewFile[]): OverviewFile[] {
    return ranked.map((f) => {
      const r = this.records.get(f.path);
      return r && (r.lines !== f.lines || r.summary !== f.summary) ? { ...f, lines: r.lines, summary: r.summary } : f;
    });
  }

  /** Up to three defined names of a file, those most used elsewhere (and matching the query) first. */
  private topSymbols(rec: FileRecord, terms: string[]): string[] {
    const defs = rec.tags?.defs ?? [];
    if (!defs.length) return [];
    const scored = defs.map((d) => {
      const elsewhere = (this.totalRefs.get(d) ?? 0) - (rec.tags!.refs.get(d) ?? 0);
      const q = nameMatches(d, terms) ? 1000 : 0;
      return { d, s: elsewhere + q };
    });
    scored.sort((a, b) => b.s - a.s);
    return scored
      .filter((x) => x.s > 0)
      .slice(0, 3)
      .map((x) => x.d);
  }

  /** Indexed files (for tests and the benchmark). */
  fileCount(): number {
    return this.records.size;
  }
}

/** Largest k in [0, n] with ok(k), assuming ok is monotone; -1 when even ok(0) fails. */
function maxFitting(n: number, ok: (k: number) => boolean): number {
  if (!ok(0)) return -1;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function toRel(root: string, abs: string): string {
  const r = posix.relative(root.split('\\').join('/'), abs.split('\\').join('/'));
  return r === '' ? '' : r.replace(/\/$/, '');
}

function countNewlines(b: Buffer): number {
  if (b.length === 0) return 0;
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return b[b.length - 1] === 10 ? n : n + 1;
}

function languageBreakdown(recs: FileRecord[]): string {
  const by = new Map<string, number>();
  for (const r of recs) if (r.languageId !== 'plaintext') by.set(r.languageId, (by.get(r.languageId) ?? 0) + 1);
  return [...by.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
}

/** Folders under `base`, biggest first, `depth` levels deep (0 = no tree), at most 8 per level. */
function moduleTree(recs: FileRecord[], base: string, depth: number): string[] {
  if (depth <= 0) return [];
  interface Dir {
    files: number;
    lines: number;
    kids: Map<string, Dir>;
  }
  const root: Dir = { files: 0, lines: 0, kids: new Map() };
  for (const r of recs) {
    const rel = base ? r.rel.slice(base.length + 1) : r.rel;
    const parts = rel.split('/').slice(0, -1);
    let d = root;
    for (const p of parts.slice(0, depth)) {
      let k = d.kids.get(p);
      if (!k) d.kids.set(p, (k = { files: 0, lines: 0, kids: new Map() }));
      k.files++;
      k.lines += r.lines;
      d = k;
    }
  }
  const out: string[] = [];
  const emit = (d: Dir, indent: number) => {
    const kids = [...d.kids.entries()].sort((a, b) => b[1].lines - a[1].lines);
    for (const [name, k] of kids.slice(0, 8)) {
      out.push(`${'  '.repeat(indent)}${name}/ ${k.files} files, ${k.lines.toLocaleString('en-US')} lines`);
      emit(k, indent + 1);
    }
    if (kids.length > 8) out.push(`${'  '.repeat(indent)}+${kids.length - 8} more folders`);
  };
  emit(root, 1);
  return out;
}

function sameTags(a: FileRecord, b: FileRecord): boolean {
  if (a.defsKey !== b.defsKey || a.binary !== b.binary) return false;
  const ta = a.tags;
  const tb = b.tags;
  if (!ta || !tb) return !ta && !tb;
  if (ta.refs.size !== tb.refs.size || ta.imports.length !== tb.imports.length) return false;
  for (const [id, n] of ta.refs) if (tb.refs.get(id) !== n) return false;
  return ta.imports.every((x, i) => tb.imports[i] === x);
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

