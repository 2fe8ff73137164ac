/**
 * The overview's text: a header, a folder tree and the key files, laid out to fit a token budget by choosing
 * how much to show (tree depth, number of files, symbols or not).
 */
import type { TokenCounter } from './types';
import type { FileRecord } from './fileRecords';
import { firstWithCentral } from './rank/personalize';
import { runSync, STEP_ITEMS, type Steps } from '../util/slices';
import { MAX_RANKED, type OverviewFile, type RankedFiles } from './ranking';

export interface LayoutInput {
  /** The folder's records (binary files left out). */
  files: readonly FileRecord[];
  folderRel: string;
  budget: number;
  query: string | undefined;
  hasTerms: boolean;
  ranking: RankedFiles;
  truncated: boolean;
  /** Names the files' state (records version, folder): the sums and trees of the last call with it are reused. */
  filesKey?: string;
}

export interface Layout {
  text: string;
  tokens: number;
  shownFiles: number;
  shown: OverviewFile[];
  lines: number;
  hint: string;
  notes: string[];
}

/** Most detail first; files come before the folder tree: the tree shrinks and goes before files lose symbols. */
const LAYOUTS: [depth: number, symbols: boolean][] = [
  [2, true],
  [1, true],
  [0, true],
  [1, false],
  [0, false],
];

export class OverviewLayout {
  /** Token counts of rendered overview lines, kept across calls (most lines survive an edit). */
  private readonly lineTokens = new Map<string, number>();
  /** The line count, language breakdown and folder trees of the last files asked about (200,000 files: ~1 s). */
  private sums: { key: string; totalLines: number; langs: string; trees: Map<number, string[]> } | undefined;

  constructor(private readonly tokenizer: TokenCounter) {}

  render(input: LayoutInput): Layout {
    return runSync(this.renderSteps(input));
  }

  /** render() as steps (util/slices.ts): the sums and the folder trees go over every file (200,000 of them). */
  *renderSteps(input: LayoutInput): Steps<Layout> {
    const { files: all, folderRel, budget, query, truncated } = input;
    const { ranked, central, total } = input.ranking;
    if (input.filesKey === undefined || this.sums?.key !== input.filesKey) {
      let totalLines = 0;
      for (const [i, r] of all.entries()) {
        if (i % STEP_ITEMS === 0) yield;
        totalLines += r.lines;
      }
      const langs = yield* languageBreakdown(all);
      const trees = new Map<number, string[]>();
      const deepest = Math.max(...LAYOUTS.map(([depth]) => depth));
      const dirs = yield* folderCounts(all, folderRel, deepest);
      for (const [depth] of LAYOUTS) if (!trees.has(depth)) trees.set(depth, moduleTree(dirs, depth));
      this.sums = { key: input.filesKey ?? '', totalLines, langs, trees };
    }
    const { totalLines, langs, trees } = this.sums;
    if (input.filesKey === undefined) this.sums = undefined;
    const notes: string[] = [];
    if (truncated) notes.push('the folder has more files than the map indexes; narrow the path');
    const header = `overview of ${folderRel || '.'} · ${all.length.toLocaleString('en-US')} files · ${totalLines.toLocaleString('en-US')} lines${langs ? ` · ${langs}` : ''}`;
    const tree = (depth: number) => trees.get(depth)!;
    const top = ranked[0]?.path;
    const hint = top
      ? `be-read {"file":"${top}","mode":"structure"} lists a file's symbols with line ranges; be-overview {"path":"<folder>"} zooms into a folder`
      : 'no files found (check the path and .gitignore)';

    const render = (depth: number, k: number, withSymbols: boolean): string => {
      const lines = [header];
      const t = tree(depth);
      if (t.length) lines.push('modules:', ...t);
      if (k > 0) {
        lines.push(input.hasTerms ? `key files (query "${query}" first, then most referenced):` : 'key files (most referenced first):');
        for (const f of firstWithCentral(ranked, central, k)) {
          const sym = withSymbols && f.symbols.length ? ` · ${f.symbols.join(', ')}` : '';
          lines.push(`  ${f.path} ${f.lines}L${f.summary ? ` — ${f.summary}` : ''}${sym}`);
        }
      }
      if (k < total) lines.push(`+${total - k} more files (be-overview with a folder path or a query shows others)`);
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

    // The first layout that shows enough files wins, else the one showing the most.
    const want = Math.min(total, 12);
    let best: { text: string; k: number } | undefined;
    for (const [depth, sym] of LAYOUTS) {
      // A file line costs at least ~5 tokens: no need to try more files than the budget could hold.
      let k = maxFitting(Math.min(total, MAX_RANKED, Math.ceil(budget / 5)), (k) => fits(render(depth, k, sym)));
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
    return {
      text,
      tokens: this.tokenizer.count(text),
      shownFiles: best.k,
      shown: firstWithCentral(ranked, central, best.k),
      lines: totalLines,
      hint,
      notes,
    };
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

function* languageBreakdown(recs: readonly FileRecord[]): Steps<string> {
  const by = new Map<string, number>();
  for (const [i, r] of recs.entries()) {
    if (i % STEP_ITEMS === 0) yield;
    if (r.languageId !== 'plaintext') by.set(r.languageId, (by.get(r.languageId) ?? 0) + 1);
  }
  return [...by.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
}

interface Dir {
  files: number;
  lines: number;
  kids: Map<string, Dir>;
}

/** Files and lines of the folders under `base`, `depth` levels deep: one pass over the files for every tree. */
function* folderCounts(recs: readonly FileRecord[], base: string, depth: number): Steps<Dir> {
  const root: Dir = { files: 0, lines: 0, kids: new Map() };
  for (const [i, r] of recs.entries()) {
    if (i % STEP_ITEMS === 0) yield;
    const rel = base ? r.rel.slice(base.length + 1) : r.rel;
    let d = root;
    // the folders of the path, at most `depth` of them (the last part is the file's name)
    for (let from = 0, level = 0; level < depth; level++) {
      const slash = rel.indexOf('/', from);
      if (slash < 0) break;
      const p = rel.slice(from, slash);
      from = slash + 1;
      let k = d.kids.get(p);
      if (!k) d.kids.set(p, (k = { files: 0, lines: 0, kids: new Map() }));
      k.files++;
      k.lines += r.lines;
      d = k;
    }
  }
  return root;
}

/** Folders, biggest first, `depth` levels deep (0 = no tree), at most 8 per level. */
function moduleTree(root: Dir, depth: number): string[] {
  if (depth <= 0) return [];
  const out: string[] = [];
  const emit = (d: Dir, indent: number) => {
    if (indent > depth) return;
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
