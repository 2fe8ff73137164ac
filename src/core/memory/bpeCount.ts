/**
 * Byte-pair merge, counting only: how many tokens one pre-token becomes. Pieces are latin1 strings (one char per
 * UTF-8 byte), so a candidate token is a plain substring looked up in the rank map.
 *
 * js-tiktoken's bytePairMerge rescans every pair after each merge: quadratic, so a single long pre-token (a run
 * of base64 letters in a data URI, a line of `=`, a long run of spaces or CJK without punctuation) blocked for
 * tens of seconds. Here:
 * - short pieces use the same rescan over a few typed-array slots (fastest below ~24 bytes);
 * - longer ones keep the pairs in a min-heap keyed by (rank, position): the same merges in the same order
 *   (lowest rank first, leftmost on ties), so the count is still exact, in O(n log n);
 * - pieces over `CHUNK_BYTES` are counted in chunks of that size, cut at character boundaries. A merge never
 *   crosses a cut, so the count can differ from the exact one by about a token per cut, never by more than the
 *   tokens that straddle it. Measured on single pre-tokens of 4 MiB (o200k; exact heap count vs chunked, and
 *   the same through the tokenizer's count(), which also cuts windows of 64 Ki characters): `A…`, `a…`, `=…`
 *   and spaces +0; lowercase base64 letters +130 of 2,176,947 (+0.006%); CJK +215 of 1,177,348 (+0.018%)
 *   (`node --import tsx bench/bpeChunks.ts`). Ordinary text has no pre-token that long and stays exact.
 */

import type { RankLookup } from './rankTable';

/** Pieces longer than this many bytes are counted in chunks of this size. */
export const CHUNK_BYTES = 4096;
/** Chunk counts remembered (a long run of one character repeats its chunk). */
export const CHUNK_CACHE_MAX = 64;
/** Up to this many bytes the quadratic rescan beats the heap (measured: 24 bytes ≈ equal). */
const RESCAN_MAX = 24;

/** Exact number of parts BPE merges `bytes` into (what js-tiktoken's encode(piece).length gives). */
export function exactPartCount(bytes: string, ranks: RankLookup): number {
  const n = bytes.length;
  if (n <= 1) return n;
  if (ranks.has(bytes)) return 1;
  return n <= RESCAN_MAX ? rescanCount(bytes, ranks) : heapCount(bytes, ranks);
}

/** Token count of one pre-token: exact up to CHUNK_BYTES, else the sum over its chunks. */
export function pieceTokenCount(bytes: string, ranks: RankLookup, chunkCache?: Map<string, number>): number {
  if (bytes.length <= CHUNK_BYTES) return exactPartCount(bytes, ranks);
  let total = 0;
  for (let at = 0; at < bytes.length; ) {
    const end = chunkEnd(bytes, at);
    total += chunkCount(bytes.slice(at, end), ranks, chunkCache);
    at = end;
  }
  return total;
}

/** End (exclusive) of the chunk that starts at `at`: CHUNK_BYTES on, moved back so no UTF-8 sequence is cut. */
export function chunkEnd(bytes: string, at: number): number {
  let end = Math.min(bytes.length, at + CHUNK_BYTES);
  // 0x80-0xBF are continuation bytes: step back to the first byte of the character.
  while (end < bytes.length && end > at + 1 && (bytes.charCodeAt(end) & 0xc0) === 0x80) end--;
  return end;
}

/** One chunk's exact count, remembered: a long run of one character repeats the same chunk. */
export function chunkCount(chunk: string, ranks: RankLookup, cache?: Map<string, number>): number {
  const cached = cache?.get(chunk);
  if (cached !== undefined) return cached;
  const n = exactPartCount(chunk, ranks);
  if (cache) {
    if (cache.size >= CHUNK_CACHE_MAX) cache.clear();
    cache.set(chunk, n);
  }
  return n;
}

/** js-tiktoken's loop on typed arrays: starts[k] is where part k begins; pairRank[k] ranks parts k and k+1. */
const rescanStarts = new Int32Array(RESCAN_MAX + 1);
const rescanRanks = new Float64Array(RESCAN_MAX);
// No closures on this path: it runs once per uncached pre-token (shared scratch arrays for the same reason).
function rescanCount(bytes: string, ranks: RankLookup): number {
  const starts = rescanStarts;
  const pairRank = rescanRanks;
  let parts = bytes.length;
  for (let i = 0; i <= parts; i++) starts[i] = i;
  for (let k = 0; k + 1 < parts; k++) pairRank[k] = ranks.get(bytes.slice(k, k + 2)) ?? Infinity;
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let k = 0; k + 1 < parts; k++) {
      if (pairRank[k]! < bestRank) {
        bestRank = pairRank[k]!;
        best = k;
      }
    }
    if (best < 0) return parts;
    // drop the boundary between parts best and best+1
    starts.copyWithin(best + 1, best + 2, parts + 1);
    pairRank.copyWithin(best + 1, best + 2, parts);
    parts--;
    pairRank[best] = best + 1 < parts ? ranks.get(bytes.slice(starts[best]!, starts[best + 2]!)) ?? Infinity : Infinity;
    if (best > 0) pairRank[best - 1] = ranks.get(bytes.slice(starts[best - 1]!, starts[best + 1]!)) ?? Infinity;
  }
}

/**
 * The same merges with the parts in a linked list and the candidate pairs in a binary min-heap. A heap entry is
 * stale once its left part died or its pair changed (a pair only grows, so its rank never comes back):
 * `pairRank[pos]` holds the live rank and stale entries are skipped when popped.
 */
function heapCount(bytes: string, ranks: RankLookup): number {
  const n = bytes.length;
  // part starting at byte i: next[i] = start of the following part (n at the end), prev[i] the previous one
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const alive = new Uint8Array(n);
  const pairRank = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    alive[i] = 1;
  }
  // key = rank * n + position: smallest rank first, leftmost on ties, as one exact double
  const heap = new MinHeap(n);
  for (let i = 0; i + 1 < n; i++) {
    const r = ranks.get(bytes.slice(i, i + 2)) ?? Infinity;
    pairRank[i] = r;
    if (r !== Infinity) heap.push(r * n + i);
  }
  let parts = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const i = key % n;
    const r = (key - i) / n;
    if (!alive[i] || pairRank[i] !== r) continue;
    // merge part i with its right neighbour j
    const j = next[i]!;
    alive[j] = 0;
    next[i] = next[j]!;
    if (next[i]! < n) prev[next[i]!] = i;
    parts--;
    const ri = pairRankAt(bytes, i, next, ranks);
    pairRank[i] = ri;
    if (ri !== Infinity) heap.push(ri * n + i);
    const p = prev[i]!;
    if (p >= 0) {
      const rp = pairRankAt(bytes, p, next, ranks);
      pairRank[p] = rp;
      if (rp !== Infinity) heap.push(rp * n + p);
    }
  }
  return parts;
}

/** Rank of the part starting at `i` joined with the next one (Infinity when that is not a token or `i` is last). */
function pairRankAt(bytes: string, i: number, next: Int32Array, ranks: RankLookup): number {
  const j = next[i]!;
  if (j >= bytes.length) return Infinity;
  return ranks.get(bytes.slice(i, next[j]!)) ?? Infinity;
}

/** A binary min-heap of numbers in a growable Float64Array. */
class MinHeap {
  private items: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.items = new Float64Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.size === this.items.length) {
      const grown = new Float64Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    const a = this.items;
    let k = this.size++;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (a[parent]! <= value) break;
      a[k] = a[parent]!;
      k = parent;
    }
    a[k] = value;
  }

  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a[--this.size]!;
    let k = 0;
    for (;;) {
      let child = 2 * k + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && a[child + 1]! < a[child]!) child++;
      if (a[child]! >= last) break;
      a[k] = a[child]!;
      k = child;
    }
    a[k] = last;
    return top;
  }
}
