/**
 * The order of the overview's key files. Without a query: the reference rank (PageRank over who uses whose
 * names). With a query: relevance first (BM25F over path, names and summary words), the reference rank
 * personalised toward the matching files as Aider personalises toward the files and names of the chat, and used
 * only to order files of similar relevance: a hub that everybody imports cannot outrank a file whose names match
 * by more than HUB_WEIGHT.
 */
import { relevanceSteps, type RankDoc, type RelevanceScratch } from './bm25';
import { runSync, STEP_ITEMS, type Steps } from '../../util/slices';
import type { Graph, GraphFile } from './graph';

/** A file's reference rank can raise its relevance by at most this share (the most referenced file: +50%). */
export const HUB_WEIGHT = 0.5;

/**
 * The score of each of `files` (by position): without a query the reference rank; with one, relevance first and
 * the personalised rank only ordering files of similar relevance. One typed array, not an object per file.
 */
export function rankFiles(files: readonly (RankDoc & GraphFile)[], graph: Graph, words: readonly string[]): Float64Array {
  return runSync(rankFilesSteps(files, graph, words));
}

/** rankFiles() as steps (util/slices.ts); `scratch`: arrays kept between queries (bm25.ts RelevanceScratch). */
export function* rankFilesSteps(files: readonly (RankDoc & GraphFile)[], graph: Graph, words: readonly string[], scratch?: RelevanceScratch): Steps<Float64Array> {
  // no query: no relevance array (every score would be 0)
  const rel = words.length ? yield* relevanceSteps(files, words, scratch) : undefined;
  let maxRel = 0;
  for (const r of rel ?? []) maxRel = Math.max(maxRel, r);
  // each file's position in the graph, looked up once: the restart vector and the ranks are by graph position
  const pos = new Int32Array(files.length).fill(-1);
  for (const [i, f] of files.entries()) {
    if (i % STEP_ITEMS === 0) yield;
    pos[i] = graph.indexOf(f.rel) ?? -1;
  }
  let restart: Float64Array | undefined;
  if (rel && maxRel > 0) {
    restart = new Float64Array(graph.size);
    for (let i = 0; i < files.length; i++) if (rel[i]! > 0 && pos[i]! >= 0) restart[pos[i]!] = rel[i]! / maxRel;
  }
  const ranks = (yield* graph.rankSteps(restart, words.join(' '))).values;
  const rankOf = new Float64Array(files.length);
  for (let i = 0; i < files.length; i++) rankOf[i] = pos[i]! >= 0 ? ranks[pos[i]!]! : 0;
  if (!rel) return rankOf;
  let maxRank = 0;
  for (const r of rankOf) maxRank = Math.max(maxRank, r);
  const out = rankOf; // each score from the same file's rank: written in place (one array of 200,000 less)
  const logMax = Math.log1p(maxRank);
  for (let i = 0; i < files.length; i++) {
    if (i % STEP_ITEMS === 0) yield;
    const r = rel[i]!;
    const c = maxRank > 0 ? Math.log1p(rankOf[i]!) / logMax : 0;
    // Files no query word matched follow all that matched, in reference order (c ≤ 1 < any match's share).
    out[i] = r > 0 ? 1 + (r / maxRel) * (1 + HUB_WEIGHT * c) : c / 2;
  }
  return out;
}

/**
 * The file defining the central class: of the capitalised names (classes, types, Go's exported names) that one
 * file defines, the one other files use most. The overview always shows it, whatever the query.
 */
export function centralFile(files: readonly GraphFile[], usesOf: (name: string) => number): string | undefined {
  return runSync(centralFileSteps(files, usesOf));
}

/**
 * `usesOf`: how often all files use a name (Graph.usesOf). A name no file uses cannot win (its uses elsewhere are 0 or
 * less), so only the used ones are tracked, each with every file defining it: a Map of every capitalised name
 * (200,000 at 200,000 files, ~14 MB with the tables it grew through) was garbage after each graph change.
 */
export function* centralFileSteps(files: readonly GraphFile[], usesOf: (name: string) => number): Steps<string | undefined> {
  const definers = new Map<string, GraphFile | null>();
  for (const [i, f] of files.entries()) {
    if (i % STEP_ITEMS === 0) yield;
    for (const d of f.tags?.defs ?? []) if (capitalised(d) && (definers.has(d) || usesOf(d) > 0)) definers.set(d, definers.has(d) ? null : f);
  }
  yield;
  let best: { rel: string; uses: number } | undefined;
  let seen = 0;
  for (const [name, f] of definers) {
    if (++seen % STEP_ITEMS === 0) yield;
    if (!f) continue;
    const uses = usesOf(name) - (f.tags?.refs.get(name) ?? 0);
    if (uses > 0 && (!best || uses > best.uses || (uses === best.uses && f.rel < best.rel))) best = { rel: f.rel, uses };
  }
  return best?.rel;
}

/** Starts with A-Z (only such names can be the central class: the others are not looked at). */
function capitalised(name: string): boolean {
  const c = name.charCodeAt(0);
  return c >= 65 && c <= 90;
}

/** The first `k` of `ranked`, with the central file as the last of them when the ranking left it further down. */
export function firstWithCentral<T extends { path: string }>(ranked: readonly T[], central: string | undefined, k: number): T[] {
  const first = ranked.slice(0, k);
  if (!central || k === 0 || first.some((f) => f.path === central)) return first;
  const c = ranked.find((f) => f.path === central);
  if (c) first[k - 1] = c;
  return first;
}
