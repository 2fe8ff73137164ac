/**
 * The reference graph of the repository map and its personalised PageRank (as Aider's repo map ranks files).
 */
import { posix } from 'node:path';
import type { FileTags } from '../tags';
import { runSliced, runSync, STEP_ITEMS, type Steps } from '../../util/slices';
import { ShardedMap } from '../../util/shardedMap';

/** An identifier defined in more files than this tells nothing about who uses whom. */
const MAX_DEFINERS = 25;
/** Edges a step of the ranking walks at most before it yields (~1 ms of work). */
export const STEP_EDGES = 1 << 18;

/** What the graph reads of a file. */
export interface GraphFile {
  rel: string;
  tags?: FileTags;
}

/**
 * Reference graph: an edge G → F when G uses a name F defines. Weights follow Aider: √(uses), ×10 for
 * long distinctive names, ×0.1 for `_private` names, ×0.1 for names defined in more than 5 files;
 * names defined in more than MAX_DEFINERS files are left out. Relative imports add an edge of weight 2.
 */
export class Graph {
  private index = new Map<string, number>();
  private files: GraphFile[];
  /** identifier → the file (or files) defining it: a number for one file, an array for more (most have one). */
  private defIndex = new ShardedMap<Ids>();
  /**
   * identifier → files that use it (to find whose edges a definition change affects) and how often in all: one
   * file's number (its own count is the total), or the total and the files (usesOf). A separate Map of totals held
   * ~14 MB more at 200,000 files. Exact for every name some file defines; a name no file defines (a local, a
   * property, a library's function: most identifiers) is kept only once it was defined, and its users are found by
   * one pass over the files when a definition of it appears (trackUsers).
   */
  private refIndex = new ShardedMap<Users>();
  /**
   * Every file's edges in one flat layout (CSR: file i's edges are at start[i]..start[i+1]); `changed` holds the
   * edges of files updated since, until the next ranking folds them in. Two typed arrays per file took ~370 bytes
   * a file; a Map per file ~100 bytes an edge.
   */
  private flat: Flat = { start: new Int32Array(1), to: new Int32Array(0), w: new Float64Array(0), outW: new Float64Array(0) };
  private changed = new Map<number, Edges>();
  private version = 0;
  /** Ranks by query, valid for one graph version and one restart vector (the relevance reads summaries too). */
  private rankCache = new Map<string, { version: number; restart: string; ranks: Ranks }>();
  /** The arrays a PageRank run works in besides its result, kept for the next run. */
  private scratch: { pers: Float64Array; next: Float64Array } | undefined;

  /** `build` false: the caller runs buildSteps() (Graph.sliced does, in slices of the event loop). */
  constructor(files: GraphFile[], build = true) {
    this.files = files;
    if (build) runSync(this.buildSteps());
  }

  /** The graph of `files`, built in slices that yield to the event loop (200,000 files: seconds of work). */
  static async sliced(files: GraphFile[]): Promise<Graph> {
    const g = new Graph(files, false);
    await runSliced(g.buildSteps());
    return g;
  }

  private *buildSteps(): Steps<void> {
    const files = this.files;
    for (let i = 0; i < files.length; i++) {
      if (i % STEP_ITEMS === 0) yield;
      this.index.set(files[i]!.rel, i);
    }
    for (const [i, f] of files.entries()) {
      if (i % STEP_ITEMS === 0) yield;
      for (const d of f.tags?.defs ?? []) addId(this.defIndex, d, i);
    }
    for (const [i, f] of files.entries()) {
      if (i % STEP_ITEMS === 0) yield;
      for (const [id, n] of f.tags?.refs ?? []) if (this.defIndex.has(id)) this.addUser(id, i, n);
    }
    const out = new FlatBuilder(files.length);
    for (let i = 0; i < files.length; i++) {
      if (i % STEP_ITEMS === 0) yield;
      out.addMap(this.edgeMap(i));
    }
    this.flat = out.done();
  }

  has(rel: string): boolean {
    return this.index.has(rel);
  }

  /** The file's position in the graph (the index of its rank in a Ranks' values). */
  indexOf(rel: string): number | undefined {
    return this.index.get(rel);
  }

  get size(): number {
    return this.files.length;
  }

  /** A re-read file whose tags did not change: keep edges and ranks, point at the fresh record. */
  replaceRecord(rec: GraphFile): void {
    const i = this.index.get(rec.rel);
    if (i !== undefined) this.files[i] = rec;
  }

  updateFiles(recs: GraphFile[]): void {
    runSync(this.updateFilesSteps(recs));
  }

  /** updateFiles() as steps (util/slices.ts): a name defined for the first time is looked for in every file. */
  *updateFilesSteps(recs: GraphFile[]): Steps<void> {
    const affected = new Set<number>();
    for (const r of recs) {
      const i = this.index.get(r.rel);
      if (i === undefined) continue;
      const old = this.files[i]!;
      const oldDefs = new Set(old.tags?.defs ?? []);
      const newDefs = new Set(r.tags?.defs ?? []);
      for (const d of oldDefs) if (!newDefs.has(d)) this.changeDef(d, i, false, affected);
      for (const d of newDefs) {
        if (oldDefs.has(d)) continue;
        if (!this.defIndex.has(d) && !this.refIndex.has(d)) yield* this.trackUsers(d);
        this.changeDef(d, i, true, affected);
      }
      // the index reflects files[i] (the old record) until it is replaced: counts move by their difference
      for (const [id, n] of old.tags?.refs ?? []) {
        const now = r.tags?.refs.get(id);
        if (now === undefined) this.removeUser(id, i, n);
        else if (now !== n) this.addToTotal(id, now - n);
      }
      for (const [id, n] of r.tags?.refs ?? []) if (!old.tags?.refs.has(id) && (this.defIndex.has(id) || this.refIndex.has(id))) this.addUser(id, i, n);
      this.files[i] = r;
      affected.add(i);
    }
    for (const i of affected) this.changed.set(i, this.edgesFrom(i));
    this.version++;
  }

  /** A definition appeared or disappeared: every file using the name gets its edges recomputed. */
  private changeDef(name: string, i: number, added: boolean, affected: Set<number>): void {
    if (added) addId(this.defIndex, name, i);
    else removeId(this.defIndex, name, i);
    forUsers(this.refIndex.get(name), (j) => affected.add(j));
  }

  /** A name about to be defined for the first time: its users, from every file's counts (as files[] holds them). */
  private *trackUsers(name: string): Steps<void> {
    for (const [j, f] of this.files.entries()) {
      if (j % STEP_ITEMS === 0) yield;
      const n = f.tags?.refs.get(name);
      if (n !== undefined) this.addUser(name, j, n);
    }
  }

  /** How often all files use `name` (the sum of their counts); a name no file defines is counted file by file. */
  usesOf(name: string): number {
    const users = this.refIndex.get(name);
    if (users === undefined) {
      if (this.defIndex.has(name)) return 0;
      let n = 0;
      for (const f of this.files) n += f.tags?.refs.get(name) ?? 0;
      return n;
    }
    if (typeof users === 'number') return this.files[users]!.tags?.refs.get(name) ?? 0;
    return users[0]!;
  }

  private addUser(name: string, i: number, n: number): void {
    const users = this.refIndex.get(name);
    if (users === undefined) this.refIndex.set(name, i);
    else if (typeof users === 'number') this.refIndex.set(name, [(this.files[users]!.tags?.refs.get(name) ?? 0) + n, users, i]);
    else {
      users[0]! += n;
      users.push(i);
    }
  }

  private removeUser(name: string, i: number, n: number): void {
    const users = this.refIndex.get(name);
    if (users === undefined || typeof users === 'number') {
      if (users === i) this.refIndex.delete(name);
      return;
    }
    const at = users.indexOf(i, 1);
    if (at < 0) return;
    users.splice(at, 1);
    users[0]! -= n;
    if (users.length === 2) this.refIndex.set(name, users[1]!); // one user left: its own count is the total
  }

  private addToTotal(name: string, delta: number): void {
    const users = this.refIndex.get(name);
    if (typeof users === 'object') users[0]! += delta; // one user: its record holds the count
  }

  /** File i's edges: target file → weight, in the order they were found. */
  private edgeMap(i: number): Map<number, number> {
    const edges = new Map<number, number>();
    const f = this.files[i]!;
    if (!f.tags) return edges;
    for (const [id, count] of f.tags.refs) {
      const definers = this.defIndex.get(id);
      if (definers === undefined) continue;
      const many = typeof definers === 'number' ? 1 : definers.length;
      if (many > MAX_DEFINERS) continue;
      let mul = 1;
      if (id.length >= 8 && /[a-z][A-Z]|_/.test(id)) mul *= 10;
      if (id.startsWith('_')) mul *= 0.1;
      if (many > 5) mul *= 0.1;
      const w = mul * Math.sqrt(count);
      forIds(definers, (j) => {
        if (j !== i) edges.set(j, (edges.get(j) ?? 0) + w);
      });
    }
    for (const spec of f.tags.imports) {
      const j = this.resolveImport(f.rel, spec);
      if (j !== undefined && j !== i) edges.set(j, (edges.get(j) ?? 0) + 2);
    }
    return edges;
  }

  /** edgeMap(i) as two typed arrays (an updated file's, kept until the next ranking folds them in). */
  private edgesFrom(i: number): Edges {
    const edges = this.edgeMap(i);
    if (!edges.size) return NO_EDGES;
    const to = new Int32Array(edges.size);
    const w = new Float64Array(edges.size);
    let k = 0;
    for (const [j, wt] of edges) {
      to[k] = j;
      w[k++] = wt;
    }
    return { to, w };
  }

  private resolveImport(fromRel: string, spec: string): number | undefined {
    const base = posix.normalize(posix.join(posix.dirname(fromRel), spec)).replace(/\.(js|mjs|cjs)$/, '');
    for (const suffix of ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.py', '/index.ts', '/index.js', '/index.tsx', '/__init__.py']) {
      const j = this.index.get(base + suffix);
      if (j !== undefined) return j;
    }
    return undefined;
  }

  /** The flat edges with the updated files' edges folded in (as steps: 200,000 files). */
  private *foldSteps(): Steps<Flat> {
    if (!this.changed.size) return this.flat;
    const { start, to, w } = this.flat;
    // the exact size: the edges are copied once, into arrays that need no trimming copy after
    let m = to.length;
    for (const [i, c] of this.changed) m += c.to.length - (start[i + 1]! - start[i]!);
    const out = new FlatBuilder(this.files.length, m);
    let stepEnd = STEP_EDGES;
    for (let i = 0; i < this.files.length; i++) {
      if (i % STEP_ITEMS === 0 || start[i]! >= stepEnd) {
        yield;
        stepEnd = start[i]! + STEP_EDGES;
      }
      const c = this.changed.get(i);
      if (c) out.add(c);
      else out.addRange(to, w, start[i]!, start[i + 1]!);
    }
    this.changed.clear();
    return (this.flat = out.done());
  }

  /**
   * Personalised PageRank: `restart` (rel → 0..1) gives a file up to 101× the restart weight of others, so rank
   * flows from the files a query matched to what they use. `key` names the restart vector for the cache.
   * Returns rel → rank, 1 on average.
   */
  rank(restart: ReadonlyMap<string, number>, key: string): Ranks {
    let byPos: Float64Array | undefined;
    if (restart.size) {
      byPos = new Float64Array(this.files.length);
      for (const [rel, r] of restart) {
        const i = this.index.get(rel);
        if (i !== undefined) byPos[i] = r;
      }
    }
    return runSync(this.rankSteps(byPos, key));
  }

  /**
   * rank() as steps (util/slices.ts): one yield per iteration and every few hundred files. `restart` by graph
   * position (indexOf), undefined for none.
   */
  *rankSteps(restart: Float64Array | undefined, key: string): Steps<Ranks> {
    const cached = this.rankCache.get(key);
    // A summary-only edit keeps the graph but may move a file's relevance, so the restart vector is compared too.
    const restartKey = yield* fingerprintSteps(restart);
    if (cached && cached.version === this.version && cached.restart === restartKey) return cached.ranks;
    const version = this.version; // the ranks are of the graph as it is now (a sliced run may see it change)
    const n = this.files.length;
    if (n === 0) return new Ranks(this.index, new Float64Array(0));
    // the restart weights and the spare iteration array are kept for the next run (taken: a run meanwhile makes its
    // own): two fresh arrays a run were 3.2 MB of garbage outside the heap at 200,000 files
    const scratch = this.scratch?.pers.length === n ? this.scratch : { pers: new Float64Array(n), next: new Float64Array(n) };
    this.scratch = undefined;
    const pers = scratch.pers;
    let ps = 0;
    for (let i = 0; i < n; i++) {
      if (i % STEP_ITEMS === 0) yield;
      pers[i] = 1 + 100 * (restart?.[i] ?? 0);
      ps += pers[i]!;
    }
    for (let i = 0; i < n; i++) pers[i]! /= ps;
    yield;
    const { start, to, w, outW } = yield* this.foldSteps();
    let rank: Float64Array = Float64Array.from(pers);
    // two arrays in turn: a fresh one per iteration was 30 × 1.6 MB of garbage outside the heap at 200,000 files
    let next: Float64Array = scratch.next;
    const d = 0.85;
    for (let iter = 0; iter < 30; iter++) {
      yield;
      next.fill(0);
      let dangling = 0;
      for (let i = 0; i < n; i++) if (outW[i] === 0) dangling += rank[i]!;
      yield* spreadSteps({ start, to, w, outW }, rank, next, d);
      let delta = 0;
      for (let i = 0; i < n; i++) {
        next[i]! += (1 - d + d * dangling) * pers[i]!;
        delta += Math.abs(next[i]! - rank[i]!);
      }
      [rank, next] = [next, rank];
      if (delta < 1e-9) break;
    }
    for (let i = 0; i < n; i++) rank[i]! *= n;
    // `rank` is the result; the other array of the two goes back
    this.scratch = { pers, next };
    const result = new Ranks(this.index, rank);
    if (this.rankCache.size >= 4) this.rankCache.clear();
    this.rankCache.set(key, { version, restart: restartKey, ranks: result });
    return result;
  }
}

/**
 * One PageRank iteration's spread: each file's rank, damped by `d`, flows along its edges into `next`. A yield
 * every STEP_EDGES edges: one iteration over a dense graph (names each defined in up to MAX_DEFINERS files, every
 * user an edge to each of them) took 120 ms as one step of a 1M-line tree's cold overview.
 */
export function* spreadSteps(edges: Flat, rank: Float64Array, next: Float64Array, d: number): Steps<void> {
  const { start, to, w, outW } = edges;
  let stepEnd = STEP_EDGES;
  for (let i = 0; i < rank.length; i++) {
    if (start[i]! >= stepEnd) {
      yield;
      stepEnd = start[i]! + STEP_EDGES;
    }
    const ri = rank[i]!;
    const oi = outW[i]!;
    for (let e = start[i]!; e < start[i + 1]!; e++) next[to[e]!]! += (d * ri * w[e]!) / oi;
  }
}

/**
 * The ranks of one PageRank run: a number per graph file in one typed array, looked up by path (a Map of 200,000
 * paths to numbers took ~60 bytes a file, and the cache keeps up to four).
 */
export class Ranks implements Iterable<[string, number]> {
  constructor(
    private readonly index: ReadonlyMap<string, number>,
    readonly values: Float64Array,
  ) {}

  get(rel: string): number | undefined {
    const i = this.index.get(rel);
    return i === undefined ? undefined : this.values[i];
  }

  *[Symbol.iterator](): IterableIterator<[string, number]> {
    for (const [rel, i] of this.index) yield [rel, this.values[i]!];
  }
}

/**
 * A restart vector's fingerprint, as steps: its number of non-zero entries and two independent 32-bit hashes of
 * their positions and values (positions hold within one graph version, which the cache compares too). All entries
 * joined into one string held the loop ~100 ms at 200,000 files and took megabytes per cached query.
 */
function* fingerprintSteps(restart: Float64Array | undefined): Steps<string> {
  if (!restart) return '';
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  let k = 0;
  for (let i = 0; i < restart.length; i++) {
    if (i % (STEP_ITEMS * 16) === 0) yield;
    const r = restart[i]!;
    if (r === 0) continue;
    k++;
    a = Math.imul(a ^ i, 0x01000193);
    b = Math.imul(b ^ i, 0x5bd1e995) ^ (b >>> 15);
    bits[0] = r;
    a = Math.imul(a ^ words[0]!, 0x01000193) ^ Math.imul(a ^ words[1]!, 0x01000193);
    b = Math.imul(b ^ words[1]!, 0x5bd1e995) ^ (b >>> 13) ^ words[0]!;
    a = Math.imul(a ^ 0xff, 0x01000193); // the end of an entry
  }
  return k ? `${k}:${a >>> 0}:${b >>> 0}` : '';
}

/** The flat edges (CSR) and each file's total out-weight. */
export interface Flat {
  start: Int32Array;
  to: Int32Array;
  w: Float64Array;
  outW: Float64Array;
}

/** Appends files' edges in file order into growing typed arrays. */
class FlatBuilder {
  private readonly start: Int32Array;
  private readonly outW: Float64Array;
  private to: Int32Array;
  private w: Float64Array;
  private m = 0;
  private i = 0;

  /** `edges`: how many edges will be added, when known (else the arrays grow and are trimmed at the end). */
  constructor(n: number, edges = 1024) {
    this.start = new Int32Array(n + 1);
    this.outW = new Float64Array(n);
    this.to = new Int32Array(edges);
    this.w = new Float64Array(edges);
  }

  add(e: Edges): void {
    this.addRange(e.to, e.w, 0, e.to.length);
  }

  /** A file's edges straight from its map (the build makes no typed arrays per file). */
  addMap(edges: Map<number, number>): void {
    this.grow(this.m + edges.size);
    let sum = 0;
    for (const [j, wt] of edges) {
      this.to[this.m] = j;
      this.w[this.m++] = wt;
      sum += wt;
    }
    this.outW[this.i] = sum;
    this.start[++this.i] = this.m;
  }

  private grow(need: number): void {
    if (need <= this.to.length) return;
    const cap = Math.max(need, this.to.length * 2);
    const t = new Int32Array(cap);
    t.set(this.to.subarray(0, this.m));
    const ww = new Float64Array(cap);
    ww.set(this.w.subarray(0, this.m));
    this.to = t;
    this.w = ww;
  }

  addRange(to: Int32Array, w: Float64Array, from: number, end: number): void {
    this.grow(this.m + end - from);
    let sum = 0;
    for (let k = from; k < end; k++) {
      this.to[this.m] = to[k]!;
      this.w[this.m++] = w[k]!;
      sum += w[k]!;
    }
    this.outW[this.i] = sum;
    this.start[++this.i] = this.m;
  }

  done(): Flat {
    const exact = this.m === this.to.length;
    return { start: this.start, to: exact ? this.to : this.to.slice(0, this.m), w: exact ? this.w : this.w.slice(0, this.m), outW: this.outW };
  }
}

/** A file's edges: the files it points to and the weights, in insertion order (the order a Map kept). */
interface Edges {
  to: Int32Array;
  w: Float64Array;
}

const NO_EDGES: Edges = { to: new Int32Array(0), w: new Float64Array(0) };

/** The files of an identifier: one number, or an array when two or more (an array per name cost 56 bytes). */
type Ids = number | number[];

function addId(map: ShardedMap<Ids>, key: string, i: number): void {
  const ids = map.get(key);
  if (ids === undefined) map.set(key, i);
  else if (typeof ids === 'number') map.set(key, [ids, i]);
  else ids.push(i);
}

function removeId(map: ShardedMap<Ids>, key: string, i: number): void {
  const ids = map.get(key);
  if (ids === undefined) return;
  if (typeof ids === 'number') {
    if (ids === i) map.delete(key);
    return;
  }
  const at = ids.indexOf(i);
  if (at >= 0) ids.splice(at, 1);
  if (ids.length === 1) map.set(key, ids[0]!);
  else if (!ids.length) map.delete(key);
}

/** The users of an identifier: one file's number, or [total uses, file, file, …] for two or more. */
type Users = number | number[];

function forUsers(users: Users | undefined, fn: (i: number) => void): void {
  if (users === undefined) return;
  if (typeof users === 'number') fn(users);
  else for (let k = 1; k < users.length; k++) fn(users[k]!);
}

function forIds(ids: Ids | undefined, fn: (i: number) => void): void {
  if (ids === undefined) return;
  if (typeof ids === 'number') fn(ids);
  else for (const i of ids) fn(i);
}
