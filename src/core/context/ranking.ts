/**
 * The repository map's ranking: the reference graph over the records (which also keeps the total uses of each
 * name: summed from the users at each look-up, the top files' symbols held the loop ~1 s), and the ranked files of the
 * last question. Its version moves when the graph does (a file added or removed, or a file's
 * definitions, uses or imports changed); an edit that keeps a file's tags leaves the scores, and only the order
 * among equal scores (by size) and the shown lines and summaries are refreshed.
 */
import { Graph } from './rank/graph';
import { nameMatches, type RelevanceScratch } from './rank/bm25';
import { centralFileSteps, rankFilesSteps } from './rank/personalize';
import { runSliced, runSync, sortSteps, STEP_ITEMS, type Steps } from '../util/slices';
import { sameTags, type FileRecord, type RecordChange } from './fileRecords';
import { CONTEXT_SETTINGS } from './settingsTable';

export interface OverviewFile {
  path: string;
  lines: number;
  summary: string;
  symbols: string[];
  score: number;
}

export interface RankedFiles {
  /** The first MAX_RANKED files in rank order (and the central file after them when it ranks further down). */
  ranked: OverviewFile[];
  /** How many files were ranked. */
  total: number;
  /** The file defining the central class (always shown). */
  central: string | undefined;
}

/** The symbols of a file beyond the first FILES_WITH_SYMBOLS: one shared empty list (200,000 files). */
const NO_SYMBOLS: string[] = Object.freeze([]) as unknown as string[];

/** An overview shows at most one file per 5 tokens of the largest budget: the ranking keeps no more entries. */
export const MAX_RANKED = Math.ceil(CONTEXT_SETTINGS.overviewBudget.max / 5);

/** The budget allows a few hundred files at most: symbols are looked up for these only. */
const FILES_WITH_SYMBOLS = 400;

export class Ranking {
  /** Bumped whenever the graph is built or updated. */
  version = 0;
  private graph: Graph | undefined;
  /** Scores of the last question, valid while `key` holds (graph version, folder, query, summaries if a query). */
  private scored: { key: string; scores: Float64Array; central: string | undefined } | undefined;
  /** The central file of the last folder asked about, valid while the graph version holds. */
  private central: { key: string; rel: string | undefined } | undefined;
  /** The last ranked list: the scores in order, with the records' current lines and summaries. */
  private ordered: { key: string; files: RankedFiles } | undefined;
  /** The arrays a query's relevance works in, kept for the next query (bm25.ts RelevanceScratch). */
  private readonly relevanceScratch: RelevanceScratch = {};
  /** Each file's top symbols for one query, valid while the graph version holds. */
  private symbols: { key: string; byFile: Map<string, string[]> } | undefined;

  /**
   * Follows the records' changes: uses counted, the graph rebuilt (files added or removed), updated (tags
   * changed) or kept. `all` gives every record after the changes.
   */
  update(removed: readonly FileRecord[], changes: readonly RecordChange[], all: () => FileRecord[]): 'built' | 'updated' | 'kept' {
    const r = runSync(this.updateSteps(removed, changes));
    if (r !== 'build') return r;
    this.graph = new Graph(all());
    this.version++;
    return 'built';
  }

  /** update() in slices of the event loop (util/slices.ts): a cold index of 200,000 files builds its graph here. */
  async updateSliced(removed: readonly FileRecord[], changes: readonly RecordChange[], all: () => FileRecord[]): Promise<'built' | 'updated' | 'kept'> {
    const r = await runSliced(this.updateSteps(removed, changes));
    if (r !== 'build') return r;
    this.graph = await Graph.sliced(all());
    this.version++;
    return 'built';
  }

  private *updateSteps(removed: readonly FileRecord[], changes: readonly RecordChange[]): Steps<'build' | 'updated' | 'kept'> {
    const tagsChanged: FileRecord[] = [];
    let added = false;
    for (const [k, { old, rec }] of changes.entries()) {
      if (k % STEP_ITEMS === 0) yield;
      if (!old || !this.graph?.has(rec.rel)) added = true;
      else if (sameTags(old, rec)) this.graph.replaceRecord(rec);
      else tagsChanged.push(rec);
    }
    if (!this.graph || removed.length || added) return 'build';
    if (!tagsChanged.length) return 'kept';
    // Same file set: update the changed files' definitions and the edges that depend on them.
    yield* this.graph.updateFilesSteps(tagsChanged);
    this.version++;
    return 'updated';
  }

  /**
   * `files` (the records of the folder asked about) ranked for `terms`: by reference rank, or by relevance to the
   * query first. `recordsVersion` says whether lines and summaries may have changed since the last call.
   */
  rank(files: readonly FileRecord[], folderRel: string, terms: readonly string[], recordsVersion: number): RankedFiles {
    return runSync(this.rankSteps(files, folderRel, terms, recordsVersion));
  }

  /** rank() as steps (util/slices.ts). */
  *rankSteps(files: readonly FileRecord[], folderRel: string, terms: readonly string[], recordsVersion: number): Steps<RankedFiles> {
    const query = terms.join(' ');
    // With a query, a summary is one of the fields the relevance reads: any record change may move a file.
    const scoreKey = `${this.version}\0${folderRel}\0${query}\0${terms.length ? recordsVersion : ''}`;
    if (this.scored?.key !== scoreKey) {
      const ranked = yield* rankFilesSteps(files, this.graph!, terms, this.relevanceScratch);
      yield;
      // kept by graph position (the same paths as `files` while the key holds), not as a Map of 200,000 paths
      const graph = this.graph!;
      const scores = new Float64Array(graph.size);
      for (const [i, r] of files.entries()) {
        if (i % STEP_ITEMS === 0) yield;
        const at = graph.indexOf(r.rel);
        if (at !== undefined) scores[at] = ranked[i]!;
      }
      yield;
      // the central file does not depend on the query: one search per graph version and folder
      const centralKey = `${this.version}\0${folderRel}`;
      if (this.central?.key !== centralKey) this.central = { key: centralKey, rel: yield* centralFileSteps(files, (name) => this.graph!.usesOf(name)) };
      this.scored = { key: scoreKey, scores, central: this.central.rel };
    }
    const orderKey = `${scoreKey}\0${recordsVersion}`;
    if (this.ordered?.key === orderKey) return this.ordered.files;
    const { scores, central } = this.scored;
    yield;
    const n = files.length;
    const score = new Float64Array(n);
    for (const [i, r] of files.entries()) {
      if (i % STEP_ITEMS === 0) yield;
      const at = this.graph!.indexOf(r.rel);
      score[i] = at === undefined ? 0 : scores[at]!;
    }
    yield;
    // positions sorted, not an object per file: only the first MAX_RANKED (and the central file) become entries
    const order = yield* sortSteps(
      Array.from({ length: n }, (_, i) => i),
      (a, b) => score[b]! - score[a]! || files[b]!.lines - files[a]!.lines || (files[a]!.rel < files[b]!.rel ? -1 : 1),
    );
    yield;
    const entry = (i: number): OverviewFile => ({ path: files[i]!.rel, lines: files[i]!.lines, summary: files[i]!.summary, symbols: NO_SYMBOLS, score: score[i]! });
    const ranked = order.slice(0, MAX_RANKED).map(entry);
    if (central !== undefined && n > MAX_RANKED && !ranked.some((f) => f.path === central)) {
      const at = files.findIndex((r) => r.rel === central);
      if (at >= 0) ranked.push(entry(at)); // firstWithCentral finds it after the others
    }
    for (let p = 0; p < Math.min(FILES_WITH_SYMBOLS, n); p++) ranked[p]!.symbols = this.topSymbols(files[order[p]!]!, terms, query);
    this.ordered = { key: orderKey, files: { ranked, central, total: n } };
    return this.ordered.files;
  }

  /** Up to three defined names of a file, those most used elsewhere (and matching the query) first. */
  private topSymbols(rec: FileRecord, terms: readonly string[], query: string): string[] {
    const key = `${this.version}\0${query}`;
    if (this.symbols?.key !== key) this.symbols = { key, byFile: new Map() };
    let top = this.symbols.byFile.get(rec.rel);
    if (top) return top;
    const defs = rec.tags?.defs ?? [];
    const scored = defs.map((d) => {
      const elsewhere = this.graph!.usesOf(d) - (rec.tags!.refs.get(d) ?? 0);
      const q = nameMatches(d, terms) ? 1000 : 0;
      return { d, s: elsewhere + q };
    });
    scored.sort((a, b) => b.s - a.s);
    top = scored
      .filter((x) => x.s > 0)
      .slice(0, 3)
      .map((x) => x.d);
    this.symbols.byFile.set(rec.rel, top);
    return top;
  }

}
