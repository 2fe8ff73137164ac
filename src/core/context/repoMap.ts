/**
 * The repository map behind `overview`: a cached, incrementally updated index of a folder's files
 * (lines, defined names, used identifiers, summaries), a reference graph ranked with PageRank as
 * Aider's repo map does, and a renderer that fits a token budget by choosing how much to show.
 *
 * Three parts, each with its own cache and version: the file list (which files exist: fileList.ts), the
 * per-file records (what each holds: fileRecords.ts) and the ranking (graph and ranked files: ranking.ts). A
 * change bumps only the parts it reaches: a touch none, a body edit the records, a new definition the records
 * and the ranking, a new file all three. The last overview is kept while no version moved.
 */
import { performance } from 'node:perf_hooks';
import { posix } from 'node:path';
import type { TokenCounter } from './types';
import { FileList } from './fileList';
import { FileRecords, type FileRecord, type RecordChange } from './fileRecords';
import type { FileWalker, MapFileReader, WalkedFile } from './mapPorts';
import type { RecordDescriber } from './recordData';
import { readShared } from './sharedReads';
import { OverviewLayout } from './overviewLayout';
import { Ranking, type OverviewFile } from './ranking';
import { queryWords } from './rank/words';
import { runSliced, Slices } from '../util/slices';
import { Mutex } from '../util/mutex';
import { resetNamePool } from './nameCounts';
import { CONTEXT_SETTINGS } from './settingsTable';

export type { OverviewFile } from './ranking';

export const DEFAULT_OVERVIEW_BUDGET = CONTEXT_SETTINGS.overviewBudget.default;

/** From this many files to read, a refresh shares the describing with the RecordDescriber (its start: ~50 ms). */
const SHARED_MIN_FILES = 500;

export interface OverviewOptions {
  /** Absolute folder inside the root to describe; default the root. */
  folder?: string;
  budget?: number;
  query?: string;
  /** false: answer from the index as the last refresh left it (a second layout of the same call). */
  refresh?: boolean;
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

/** The versions of the map's parts (see the module comment); each only grows. */
export interface RepoMapVersions {
  files: number;
  records: number;
  ranking: number;
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
  private readonly list: FileList;
  private readonly records: FileRecords;
  private readonly ranking = new Ranking();
  private readonly layout: OverviewLayout;
  private refreshing: Promise<void> | undefined;
  private readonly lock = new Mutex();
  /** The last overview, valid while no part's version moved and the question is the same. */
  private memo: { key: string; result: OverviewResult } | undefined;
  /** The records of the last folder asked about (filesIn). */
  private listed: { key: string; files: FileRecord[] } | undefined;
  private readonly tokenizer: TokenCounter;
  private readonly describer: RecordDescriber | undefined;

  constructor(
    readonly root: string,
    /**
     * `reader`: how a listed file's text is read (the ContextService's comes from its FileStore); `walker`: how the
     * files are listed and stat'ed (node/walk.ts: diskWalker); `describer`: a second thread for a large refresh's
     * describing (node/recordsPool.ts), none by default.
     */
    opts: { tokenizer: TokenCounter; reader: MapFileReader; walker: FileWalker; describer?: RecordDescriber },
  ) {
    this.tokenizer = opts.tokenizer;
    this.describer = opts.describer;
    this.list = new FileList(root, opts.walker);
    this.records = new FileRecords(root, opts.reader);
    this.layout = new OverviewLayout(this.tokenizer);
  }

  /**
   * Set while a file watcher reports every change under the root through invalidate(). Then a warm refresh
   * looks only at the invalidated paths; without a watcher (or after it failed) every refresh walks the folder
   * and compares mtimes and sizes. The first refresh always walks.
   */
  get watched(): boolean {
    return this.list.watched;
  }

  set watched(on: boolean) {
    this.list.watched = on;
  }

  /** Forget what is known about `absPath` (a file, or a folder and everything under it); re-read on the next call. */
  invalidate(absPath: string): void {
    this.list.invalidate(absPath);
  }

  /** Set `watched` to false when the watcher stops; the next refresh walks everything once to catch up. */
  setWatched(on: boolean): void {
    this.list.setWatched(on);
  }

  versions(): RepoMapVersions {
    return { files: this.list.version, records: this.records.version, ranking: this.ranking.version };
  }

  /** Walk the folder, re-read only files whose mtime/size changed (or were invalidated), update the graph. */
  refresh(): Promise<void> {
    return this.lock.run(() => this.refreshNow());
  }

  private refreshNow(): Promise<void> {
    // Concurrent callers share one refresh.
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    this.stats.refreshes++;
    let t = performance.now();
    const { toRead, removed: gone, walked } = await this.list.changes();
    if (walked) this.stats.walks++;
    else this.stats.watchedRefreshes++;
    this.stats.lastMs.walk = performance.now() - t;

    const removed: FileRecord[] = [];
    for (const rel of gone) {
      const rec = this.records.remove(rel);
      if (rec) removed.push(rec);
    }
    t = performance.now();
    const fresh = await this.readAll(toRead);
    this.stats.lastMs.read = performance.now() - t;
    t = performance.now();
    const changes: RecordChange[] = [];
    const slices = new Slices();
    for (const [i, f] of toRead.entries()) {
      const rec = fresh[i];
      if (!rec) {
        // not a regular file inside the root (any more): a link or a FIFO since the walk
        this.list.drop(f.rel);
        const old = this.records.remove(f.rel);
        if (old) removed.push(old);
        continue;
      }
      this.stats.parsed++;
      const change = this.records.store(rec);
      if (change) changes.push(change);
      const due = slices.tick();
      if (due) await due;
    }
    // Nothing is named any more in this refresh: the pool's table and the walk's and the reads' lists go before the
    // graph is built (at 200,000 files they held ~50 MB through the build).
    resetNamePool();
    toRead.length = 0;
    fresh.length = 0;
    const graph = await this.ranking.updateSliced(removed, changes, () => [...this.records.values()]);
    if (graph === 'built') this.stats.fullGraphBuilds++;
    if (graph === 'updated') this.stats.partialGraphUpdates++;
    this.stats.lastMs.graph = performance.now() - t;
  }

  /**
   * The records of `files`: read synchronously in slices that yield to the event loop when the reader can (many
   * files per turn, a few milliseconds each), else awaited 16 at a time; many files are described on two threads
   * (sharedReads.ts).
   */
  private async readAll(files: WalkedFile[]): Promise<(FileRecord | undefined)[]> {
    if (!this.records.syncReads) return mapLimit(files, 16, (f) => this.records.read(f));
    if (this.describer && files.length >= SHARED_MIN_FILES) return readShared(files, this.records, this.describer);
    const out: (FileRecord | undefined)[] = new Array(files.length);
    const slices = new Slices();
    for (let i = 0; i < files.length; i++) {
      out[i] = this.records.readSync(files[i]!)!.rec;
      const due = slices.tick();
      if (due) await due;
    }
    return out;
  }

  /** The overview text for the root or a folder in it, within `budget` tokens. */
  overview(opts: OverviewOptions = {}): Promise<OverviewResult> {
    // One at a time: a refresh and a ranking run in slices that yield, and must not interleave with another's.
    return this.lock.run(() => this.overviewNow(opts));
  }

  private async overviewNow(opts: OverviewOptions): Promise<OverviewResult> {
    if (opts.refresh !== false) await this.refreshNow();
    const budget = Math.max(CONTEXT_SETTINGS.overviewBudget.min, opts.budget ?? DEFAULT_OVERVIEW_BUDGET);
    const folderRel = opts.folder ? toRel(this.root, opts.folder) : '';
    // Nothing changed since the same question: the same answer.
    const v = this.versions();
    const key = `${v.files}\0${v.records}\0${v.ranking}\0${folderRel}\0${budget}\0${opts.query ?? ''}`;
    if (this.memo?.key === key) return this.memo.result;
    const result = await this.compute(folderRel, budget, opts.query);
    this.memo = { key, result };
    return result;
  }

  private async compute(folderRel: string, budget: number, query: string | undefined): Promise<OverviewResult> {
    const files = this.filesIn(folderRel);
    const terms = queryWords(query);
    let t = performance.now();
    const ranking = await runSliced(this.ranking.rankSteps(files, folderRel, terms, this.records.version));
    this.stats.lastMs.rank = performance.now() - t;
    t = performance.now();
    const filesKey = `${this.list.version}\0${this.records.version}\0${folderRel}`;
    const out = await runSliced(this.layout.renderSteps({ files, folderRel, budget, query, hasTerms: terms.length > 0, ranking, truncated: this.list.truncated, filesKey }));
    this.stats.lastMs.render = performance.now() - t;
    const ranked: OverviewFile[] = out.shown;
    return {
      text: out.text,
      tokens: out.tokens,
      budget,
      files: files.length,
      lines: out.lines,
      shownFiles: out.shownFiles,
      ranked,
      hint: out.hint,
      notes: out.notes,
    };
  }

  /**
   * The records an overview of `folderRel` ranks (not binary, inside the folder), the same list while no version
   * moved: at 200,000 files each overview's own list (grown by push, 5 MB with its copies) waited for a full
   * collection in the large-object space, one more per question.
   */
  private filesIn(folderRel: string): FileRecord[] {
    const key = `${this.list.version}\0${this.records.version}\0${folderRel}`;
    if (this.listed?.key === key) return this.listed.files;
    const inFolder = (rel: string) => !folderRel || rel === folderRel || rel.startsWith(folderRel + '/');
    const files: FileRecord[] = [];
    for (const r of this.records.values()) if (!r.binary && inFolder(r.rel)) files.push(r);
    this.listed = { key, files };
    return files;
  }

  /** Indexed files (for tests and the benchmark). */
  fileCount(): number {
    return this.records.size;
  }
}

function toRel(root: string, abs: string): string {
  const r = posix.relative(root.split('\\').join('/'), abs.split('\\').join('/'));
  return r === '' ? '' : r.replace(/\/$/, '');
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

