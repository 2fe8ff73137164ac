/**
 * Compact per-file name data for the repository map, which holds one record per file (200,000 of them): the
 * identifiers a file uses with their counts as one flat array, not a Map (a small Map took ~1 KB), and every name
 * shared through one pool, so that `value` used in 10,000 files is one string, not 10,000.
 */
import { ShardedMap } from '../util/shardedMap';

/** Up to this many names a look-up scans; above, a sorted index answers it (binary search). */
const SCAN = 12;

/** A file's identifiers and how often it uses each, in first-seen order (the order a Map kept). */
export class NameCounts implements Iterable<[string, number]> {
  /** name, count, name, count, … */
  private readonly flat: (string | number)[];
  /** Positions of the names in name order (only above SCAN names). */
  private readonly sorted: number[] | undefined;

  /** `packed`: the lists of a NameCounts as they are (fromParts), `counts` then unused. */
  constructor(counts: ReadonlyMap<string, number> | Iterable<[string, number]>, packed?: NameCountsParts) {
    if (packed) {
      this.flat = packed.flat as (string | number)[];
      this.sorted = packed.sorted as number[] | undefined;
      return;
    }
    const flat: (string | number)[] = [];
    for (const [name, n] of counts) flat.push(internName(name), n);
    this.flat = flat.slice(); // exactly its length (a pushed array keeps spare room)
    const size = flat.length / 2;
    if (size > SCAN) {
      this.sorted = Array.from({ length: size }, (_, i) => i);
      this.sorted.sort((a, b) => (this.name(a) < this.name(b) ? -1 : 1));
    }
  }

  get size(): number {
    return this.flat.length / 2;
  }

  private name(i: number): string {
    return this.flat[2 * i] as string;
  }

  private indexOf(name: string): number {
    const sorted = this.sorted;
    if (!sorted) {
      for (let i = 0; i < this.flat.length; i += 2) if (this.flat[i] === name) return i / 2;
      return -1;
    }
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.name(sorted[mid]!);
      if (at === name) return sorted[mid]!;
      if (at < name) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  get(name: string): number | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : (this.flat[2 * i + 1] as number);
  }

  has(name: string): boolean {
    return this.indexOf(name) >= 0;
  }

  /** The lists behind the counts, as they are: what crosses a message port (NameCounts.fromParts). */
  toParts(): NameCountsParts {
    return { flat: this.flat, sorted: this.sorted };
  }

  /**
   * The counts of toParts() lists made on another thread (a structured clone: the lists are the caller's to give
   * away): its names interned here in place, its name order kept (names sort the same on any thread).
   */
  static fromParts(parts: NameCountsParts): NameCounts {
    const flat = parts.flat as (string | number)[];
    for (let i = 0; i < flat.length; i += 2) flat[i] = internName(flat[i] as string);
    return new NameCounts([], parts);
  }

  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.flat.length; i += 2) yield this.flat[i] as string;
  }

  *[Symbol.iterator](): IterableIterator<[string, number]> {
    for (let i = 0; i < this.flat.length; i += 2) yield [this.flat[i] as string, this.flat[i + 1] as number];
  }
}

export const NO_COUNTS = new NameCounts([]);

/** A NameCounts' lists: name, count, name, count, … in first-seen order, and the names' positions in name order. */
export interface NameCountsParts {
  flat: readonly (string | number)[];
  sorted: readonly number[] | undefined;
}

/**
 * Starts the pool over: the names given out stay shared, later ones share among themselves (the map calls it after
 * each refresh, so that the pool's table of 600,000 names at 200,000 files is not kept between overviews).
 */
export function resetNamePool(): void {
  pool = new ShardedMap();
  singles = new ShardedMap();
}

/** The shared one-name lists (sharedList). */
let singles = new ShardedMap<readonly string[]>();

/**
 * `names` as a list to keep: of one name, one frozen list shared by every file with the same one name (most files
 * import one module or none: an array each took ~56 bytes a file); else a copy of exactly its length.
 */
export function sharedList(names: readonly string[]): string[] {
  if (names.length !== 1) return names.slice();
  const name = internName(names[0]!);
  let list = singles.get(name);
  if (!list) {
    if (singles.size >= POOL_MAX) singles = new ShardedMap();
    singles.set(name, (list = Object.freeze([name])));
  }
  return list as string[];
}

/** The pool's size at which it starts over (a cap for a long-lived server; a new pool only shares less). */
const POOL_MAX = 1_000_000;
/** Sharded: a Map of 600,000-1,000,000 names copies its table in one 50-130 ms step when it grows. */
let pool = new ShardedMap<string>();

/**
 * The pool's copy of `name`. A first-seen name is copied flat: V8 cuts a substring of 13+ characters as a view
 * of the whole string, so a name matched in a file's text would keep all of that text alive.
 */
export function internName(name: string): string {
  let s = pool.get(name);
  if (s === undefined) {
    if (pool.size >= POOL_MAX) pool = new ShardedMap();
    s = flatCopy(name);
    pool.set(s, s);
  }
  return s;
}

/** A copy of `s` that shares no memory with the string it was cut from. */
export function flatCopy(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}
