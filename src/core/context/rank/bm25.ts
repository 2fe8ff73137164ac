/**
 * Query relevance of files: BM25F over three fields of each file, its path words, the words of the names it
 * defines, and its summary, each stemmed. A rare word counts more than a common one (idf), a word repeated in a
 * field counts less each time (k1), and a long field (a file defining 200 names) does not win by size (b).
 */
import { pathWords, splitWords, stemMatch, stemOf } from './words';
import { runSync, STEP_ITEMS, type Steps } from '../../util/slices';

/** What relevance reads of a file (a FileRecord of the repository map has these). */
export interface RankDoc {
  rel: string;
  summary: string;
  tags?: { defs: readonly string[] };
}

type Field = 'path' | 'defs' | 'summary';
const FIELDS: Field[] = ['path', 'defs', 'summary'];
/** A path word says most about what a file is; a defined name more than a summary word. */
export const FIELD_WEIGHT: Record<Field, number> = { path: 3, defs: 1.5, summary: 1 };
const K1 = 1.2;
const B = 0.75;

/** Stems and their counts, in first-seen order: two arrays, not a Map (three per file, 200,000 files). */
interface Bag {
  stems: string[];
  counts: number[];
}
type DocWords = Record<Field, { bag: Bag; length: number }> & { names: string[][] };
/**
 * A defined name made of several query words (`mergePath` for "merging paths", `get_environment_proxies` for
 * "proxy environment") is what the request describes: such a name adds the idf of each word it shares with the
 * query beyond the first, times this. Measured on the benchmark (`npm run bench:context`): the answer file moves
 * into the overview's first 3 for such queries without moving the others.
 */
export const NAME_PHRASE_WEIGHT = 1;

/** Per-file stemmed words; a re-read file is a new record, so the entry goes with the old one. */
const cache = new WeakMap<RankDoc, DocWords>();

function bagOf(words: string[]): { bag: Bag; length: number } {
  const counts = new Map<string, number>();
  for (const w of words) {
    if (w.length < 2) continue;
    const s = stemOf(w);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let length = 0;
  for (const n of counts.values()) length += n;
  return { bag: { stems: [...counts.keys()], counts: [...counts.values()] }, length };
}

export function docWords(doc: RankDoc): DocWords {
  let d = cache.get(doc);
  if (!d) {
    const defWords: string[] = [];
    const names: string[][] = [];
    for (const name of doc.tags?.defs ?? []) {
      const words = splitWords(name).filter((w) => w.length >= 2);
      defWords.push(...words);
      if (words.length >= 2) names.push(words.map(stemOf));
    }
    d = { path: bagOf(pathWords(doc.rel)), defs: bagOf(defWords), summary: bagOf(splitWords(doc.summary)), names };
    cache.set(doc, d);
  }
  return d;
}

/**
 * rel → BM25F score of every file matching at least one query word (`words`: from queryWords). A query word
 * matches a file's word when their stems match (stemMatch: equal, or a long shared prefix at half weight).
 */
export function relevance(docs: readonly RankDoc[], words: readonly string[]): Map<string, number> {
  return runSync(relevanceSteps(docs, words));
}

/** relevance() as steps (util/slices.ts): the first query over 200,000 files splits every name into words. */
export function* relevanceSteps(docs: readonly RankDoc[], words: readonly string[]): Steps<Map<string, number>> {
  const out = new Map<string, number>();
  if (!words.length || !docs.length) return out;
  const queryStems = [...new Set(words.map(stemOf))];
  const all: DocWords[] = new Array(docs.length);
  for (let j = 0; j < docs.length; j++) {
    all[j] = docWords(docs[j]!);
    if (j % STEP_ITEMS === 0) yield;
  }
  // Which stems of the vocabulary each query stem matches, and how strongly (computed once per stem).
  const matches = new Map<string, [number, number][]>(); // doc stem → [query index, strength]
  const avg: Record<Field, number> = { path: 0, defs: 0, summary: 0 };
  for (const [j, d] of all.entries()) {
    if (j % STEP_ITEMS === 0) yield;
    for (const f of FIELDS) {
      avg[f] += d[f].length;
      for (const s of d[f].bag.stems) {
        if (matches.has(s)) continue;
        const m: [number, number][] = [];
        queryStems.forEach((q, i) => {
          const strength = stemMatch(q, s);
          if (strength > 0) m.push([i, strength]);
        });
        matches.set(s, m);
      }
    }
  }
  for (const f of FIELDS) avg[f] = avg[f] / all.length || 1;

  // Weighted, length-normalised term frequency of each query stem in each file.
  const tf = all.map(() => new Float64Array(queryStems.length));
  const df = new Float64Array(queryStems.length);
  for (const [j, d] of all.entries()) {
    if (j % STEP_ITEMS === 0) yield;
    for (const f of FIELDS) {
      const norm = 1 - B + (B * d[f].length) / avg[f];
      const { stems, counts } = d[f].bag;
      for (let k = 0; k < stems.length; k++) {
        const s = stems[k]!;
        const n = counts[k]!;
        for (const [i, strength] of matches.get(s)!) tf[j]![i]! += (FIELD_WEIGHT[f] * strength * n) / norm;
      }
    }
    for (let i = 0; i < queryStems.length; i++) if (tf[j]![i]! > 0) df[i]!++;
  }
  const n = all.length;
  const idf = Array.from(df, (x) => Math.log(1 + (n - x + 0.5) / (x + 0.5)));
  for (const [j, doc] of docs.entries()) {
    if (j % STEP_ITEMS === 0) yield;
    let score = 0;
    for (let i = 0; i < queryStems.length; i++) {
      const t = tf[j]![i]!;
      if (t > 0) score += (idf[i]! * t * (K1 + 1)) / (t + K1);
    }
    if (score > 0) score += NAME_PHRASE_WEIGHT * namePhrase(all[j]!.names, matches, idf);
    if (score > 0) out.set(doc.rel, score);
  }
  return out;
}

/** Whether a name (a defined symbol) shares a word with the query: such names are shown first. */
export function nameMatches(name: string, words: readonly string[]): boolean {
  if (!words.length) return false;
  const qs = words.map(stemOf);
  return splitWords(name).some((w) => qs.some((q) => stemMatch(q, stemOf(w)) > 0));
}

/** The best defined name's phrase bonus: the idf of the query words it matches fully, the rarest one left out. */
function namePhrase(names: readonly string[][], matches: ReadonlyMap<string, [number, number][]>, idf: readonly number[]): number {
  let best = 0;
  for (const stems of names) {
    const hit = new Set<number>();
    for (const st of stems) for (const [i, strength] of matches.get(st) ?? []) if (strength === 1) hit.add(i);
    if (hit.size < 2) continue;
    const weights = [...hit].map((i) => idf[i]!).sort((a, b) => b - a);
    best = Math.max(best, weights.slice(1).reduce((n, w) => n + w, 0));
  }
  return best;
}
