/**
 * Query relevance of files: BM25F over three fields of each file, its path words, the words of the names it
 * defines, and its summary, each stemmed. A rare word counts more than a common one (idf), a word repeated in a
 * field counts less each time (k1), and a long field (a file defining 200 names) does not win by size (b).
 */
import { pathWords, splitWords, stemMatch, stemOf } from './words';
import { runSync, STEP_ITEMS, type Steps } from '../../util/slices';
import { TermsReader, TermsWriter } from './packedTerms';

/** What relevance reads of a file (a FileRecord of the repository map has these). */
export interface RankDoc {
  rel: string;
  summary: string;
  tags?: { defs: readonly string[] };
  /** termsOf(this), kept by the record when it was made (a query over 200,000 files then splits no name). */
  terms?: Terms;
}

type Field = 'path' | 'defs' | 'summary';
const FIELDS: Field[] = ['path', 'defs', 'summary'];
/** A path word says most about what a file is; a defined name more than a summary word. */
export const FIELD_WEIGHT: Record<Field, number> = { path: 3, defs: 1.5, summary: 1 };
const K1 = 1.2;
const B = 0.75;

/**
 * A file's stemmed words, packed in one string (packedTerms.ts; one per file, 200,000 files): for each field in
 * FIELDS order its length (words counted), its number of distinct stems k, then k pairs stem, count in first-seen
 * order; then the defined names of two or more words: their number, and for each its word count and stems.
 */
export type Terms = string;

/**
 * A defined name made of several query words (`mergePath` for "merging paths", `get_environment_proxies` for
 * "proxy environment") is what the request describes: such a name adds the idf of each word it shares with the
 * query beyond the first, times this. Measured on the benchmark (`npm run bench:context`): the answer file moves
 * into the overview's first 3 for such queries without moving the others.
 */
export const NAME_PHRASE_WEIGHT = 1;

function addBag(out: TermsWriter, words: string[]): void {
  const counts = new Map<string, number>();
  for (const w of words) {
    if (w.length < 2) continue;
    const s = stemOf(w);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let length = 0;
  for (const n of counts.values()) length += n;
  out.num(length);
  out.num(counts.size);
  for (const [st, n] of counts) {
    out.stem(st);
    out.num(n);
  }
}

/** The terms of a file (see Terms). */
export function termsOf(doc: RankDoc): Terms {
  const defWords: string[] = [];
  const names: string[][] = [];
  for (const name of doc.tags?.defs ?? []) {
    const words = splitWords(name).filter((w) => w.length >= 2);
    defWords.push(...words);
    if (words.length >= 2) names.push(words.map(stemOf));
  }
  const out = new TermsWriter();
  addBag(out, pathWords(doc.rel));
  addBag(out, defWords);
  addBag(out, splitWords(doc.summary));
  out.num(names.length);
  for (const n of names) {
    out.num(n.length);
    for (const st of n) out.stem(st);
  }
  return out.done();
}

/** Terms as the flat list they encode: per field length, k, k × (stem, count); then names (tests, and to read them). */
export function unpackTerms(t: Terms): (string | number)[] {
  const r = new TermsReader().reset(t);
  const out: (string | number)[] = [];
  for (let f = 0; f < 3; f++) {
    const length = r.num();
    const k = r.num();
    out.push(length, k);
    for (let e = 0; e < k; e++) out.push(r.stem(), r.num());
  }
  const count = r.num();
  out.push(count);
  for (let k = 0; k < count; k++) {
    const len = r.num();
    out.push(len);
    for (let e = 0; e < len; e++) out.push(r.stem());
  }
  return out;
}

/**
 * rel → BM25F score of every file matching at least one query word (`words`: from queryWords). A query word
 * matches a file's word when their stems match (stemMatch: equal, or a long shared prefix at half weight).
 */
export function relevance(docs: readonly RankDoc[], words: readonly string[]): Map<string, number> {
  const scores = runSync(relevanceSteps(docs, words));
  const out = new Map<string, number>();
  for (const [j, doc] of docs.entries()) if (scores[j]! > 0) out.set(doc.rel, scores[j]!);
  return out;
}

/** The matches of a stem no query stem matches: one shared empty list (most of a vocabulary of 400,000 stems). */
const NO_MATCH: [number, number][] = Object.freeze([]) as unknown as [number, number][];

/**
 * relevance() as steps (util/slices.ts), by position: the score of docs[j] at j, 0 where no query word matched (a
 * Map of the matching paths held most of 200,000 files for a common word).
 */
/**
 * Arrays a caller keeps between queries for relevanceSteps to work in (the Ranking of a repository map): at 200,000
 * files a query's term frequencies took 4.8 MB, each waiting for a full collection once the query was done.
 */
export interface RelevanceScratch {
  tf?: Float64Array;
}

export function* relevanceSteps(docs: readonly RankDoc[], words: readonly string[], scratch?: RelevanceScratch): Steps<Float64Array> {
  const out = new Float64Array(docs.length);
  if (!words.length || !docs.length) return out;
  const queryStems = [...new Set(words.map(stemOf))];
  const q = queryStems.length;
  // each file's terms as its record keeps them; a copy of all (one more array of 200,000 per query, in the large-object
  // space until a full collection) only when some document has none
  const n = docs.length;
  let all: Terms[] | undefined;
  if (!docs.every((d) => d.terms !== undefined)) {
    all = new Array(n);
    for (let j = 0; j < n; j++) {
      all[j] = docs[j]!.terms ?? termsOf(docs[j]!);
      if (j % STEP_ITEMS === 0) yield;
    }
  }
  const termsAt = (j: number): Terms => (all ? all[j]! : docs[j]!.terms!);
  // Which stems of the vocabulary each query stem matches, and how strongly (computed once per stem).
  // The fields' mean lengths first (the norms need them), then one pass that meets each stem: which query stems
  // a stem of the vocabulary matches, and how strongly, is computed when first met (one Map look-up per word).
  const avg = [0, 0, 0];
  const r = new TermsReader();
  for (let j = 0; j < n; j++) {
    if (j % STEP_ITEMS === 0) yield;
    r.reset(termsAt(j));
    for (let f = 0; f < 3; f++) {
      avg[f]! += r.num();
      const k = r.num();
      for (let e = 0; e < k; e++) {
        r.skip(r.stemLength());
        r.num();
      }
    }
  }
  for (let f = 0; f < 3; f++) avg[f] = avg[f]! / n || 1;
  const weight = FIELDS.map((f) => FIELD_WEIGHT[f]);
  const matches = new Map<string, [number, number][]>(); // doc stem → [query index, strength]
  // Stems that match share their first letter (equal, or one a prefix of the other): the others are no match without
  // an entry (an entry for each of the vocabulary's 400,000 stems took ~20 MB a query at 200,000 files).
  const firsts = new Set(queryStems.map((qs) => qs.charCodeAt(0)));
  const matchesOf = (st: string): [number, number][] => {
    let m = matches.get(st);
    if (m) return m;
    m = NO_MATCH;
    for (const [i, qs] of queryStems.entries()) {
      const strength = stemMatch(qs, st);
      if (strength > 0) (m === NO_MATCH ? (m = []) : m).push([i, strength]);
    }
    matches.set(st, m);
    return m;
  };

  // Weighted, length-normalised term frequency of each query stem in each file (file j's at j * q).
  // the scratch's array is taken while this run uses it: a run in between (another folder's) makes its own
  const had = scratch?.tf;
  if (scratch) scratch.tf = undefined;
  const kept = had && had.length >= n * q ? had.fill(0) : new Float64Array(n * q);
  const tf = kept.subarray(0, n * q);
  const df = new Float64Array(q);
  for (let j = 0; j < n; j++) {
    if (j % STEP_ITEMS === 0) yield;
    r.reset(termsAt(j));
    for (let f = 0; f < 3; f++) {
      const norm = 1 - B + (B * r.num()) / avg[f]!;
      const k = r.num();
      for (let e = 0; e < k; e++) {
        const len = r.stemLength();
        // a stem is taken out of the string only when its first letter can match
        const m = firsts.has(r.firstCode(len)) ? matchesOf(r.text(len)) : (r.skip(len), NO_MATCH);
        const n = r.num();
        if (m === NO_MATCH) continue;
        for (const [i, strength] of m) tf[j * q + i]! += (weight[f]! * strength * n) / norm;
      }
    }
    for (let i = 0; i < q; i++) if (tf[j * q + i]! > 0) df[i]!++;
  }
  const idf = Array.from(df, (x) => Math.log(1 + (n - x + 0.5) / (x + 0.5)));
  for (let j = 0; j < n; j++) {
    if (j % STEP_ITEMS === 0) yield;
    let score = 0;
    for (let i = 0; i < q; i++) {
      const t = tf[j * q + i]!;
      if (t > 0) score += (idf[i]! * t * (K1 + 1)) / (t + K1);
    }
    if (score > 0) score += NAME_PHRASE_WEIGHT * namePhrase(r.reset(termsAt(j)), matches, firsts, idf);
    if (score > 0) out[j] = score;
  }
  if (scratch) scratch.tf = kept;
  return out;
}

/** Whether a name (a defined symbol) shares a word with the query: such names are shown first. */
export function nameMatches(name: string, words: readonly string[]): boolean {
  if (!words.length) return false;
  const qs = words.map(stemOf);
  return splitWords(name).some((w) => qs.some((q) => stemMatch(q, stemOf(w)) > 0));
}

/** The best defined name's phrase bonus: the idf of the query words it matches fully, the rarest one left out. */
function namePhrase(r: TermsReader, matches: ReadonlyMap<string, [number, number][]>, firsts: ReadonlySet<number>, idf: readonly number[]): number {
  for (let f = 0; f < 3; f++) {
    r.num();
    const k = r.num();
    for (let e = 0; e < k; e++) {
      r.skip(r.stemLength());
      r.num();
    }
  }
  const count = r.num();
  let best = 0;
  for (let k = 0; k < count; k++) {
    const len = r.num();
    // the query words the name matches fully, in first-seen order (a Set per name per file cost a query ~0.3 s)
    const hit: number[] = [];
    for (let e = 0; e < len; e++) {
      const sl = r.stemLength();
      const m = firsts.has(r.firstCode(sl)) ? (matches.get(r.text(sl)) ?? NO_MATCH) : (r.skip(sl), NO_MATCH);
      for (const [i, strength] of m) if (strength === 1 && !hit.includes(i)) hit.push(i);
    }
    if (hit.length < 2) continue;
    const weights = hit.map((i) => idf[i]!).sort((a, b) => b - a);
    best = Math.max(best, weights.slice(1).reduce((n, w) => n + w, 0));
  }
  return best;
}
