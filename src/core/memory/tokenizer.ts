/**
 * Exact token counts for the o200k_base / cl100k_base encodings, on js-tiktoken's ranks.
 *
 * - Lazy: the ranks are several MB of JSON; they are parsed on the first count, never at activation,
 *   and cached per encoding. `ready()` (awaited by `countAsync` and the context modes) loads them in slices.
 * - Exact: the text is split with the encoding's own pre-token pattern and each pre-token is merged
 *   with the same byte-pair rule as js-tiktoken (lowest rank first, leftmost on ties); tests check the
 *   count against `Tiktoken.encode(text).length`. Special-token strings count as plain text.
 * - Fast: a bounded cache of pre-token counts (code and prose repeat their words), no token arrays.
 * - Non-blocking: `countAsync` walks the same pre-token sequence and yields to the event loop between
 *   slices of work. Pausing between two pre-tokens of the full text cannot change the result, so the
 *   async count always equals the one-shot count.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { TiktokenBPE } from 'js-tiktoken/lite';

export type TokenEncoding = 'o200k_base' | 'cl100k_base';

export interface Tokenizer {
  readonly encoding: TokenEncoding;
  /** Exact token count of `text`. */
  count(text: string): number;
  /** Same number as `count`, yielding to the event loop every ~`sliceMs` of work. */
  countAsync(text: string, options?: CountAsyncOptions): Promise<number>;
  /** Loads the ranks without blocking the event loop (see loadTokenizer); `count` is then never slow to start. */
  ready?(): Promise<void>;
}

export interface CountAsyncOptions {
  /** Work budget between two yields to the event loop (default 8 ms). */
  sliceMs?: number;
  signal?: AbortSignal;
}

/** Below this many characters `countAsync` just counts synchronously (well under a millisecond or two). */
const SYNC_LIMIT = 8 * 1024;
/** Pre-tokens longer than this are not cached (rare, and they would bloat the cache). */
const CACHE_PIECE_MAX = 48;
const CACHE_ENTRIES_MAX = 100_000;

interface Encoding {
  patStr: string;
  /**
   * Token bytes → rank, the key being the bytes as a latin1 string (one char per byte). js-tiktoken's
   * own Tiktoken keeps comma-joined byte strings plus a rank → Uint8Array map and builds both through a
   * 200k-key intermediate object: ~150 MB and ~1.5 s for o200k. This map holds the same pairs in ~15 MB
   * and lets the merge loop look up plain substrings instead of re-joining byte arrays.
   */
  ranks: Map<string, number>;
}

const encodings = new Map<TokenEncoding, Encoding>();
const loading = new Map<TokenEncoding, Promise<void>>();
const tokenizers = new Map<TokenEncoding, TiktokenTokenizer>();

function loadRanks(encoding: TokenEncoding): TiktokenBPE {
  // A bundle (the extension, the CLI) ships the tables as <bundle dir>/ranks/<encoding>.json (esbuild.mjs
  // leaves them out of the bundle, so loading it never parses them): read on the first count only.
  const bundled = path.join(__dirname, 'ranks', `${encoding}.json`);
  if (existsSync(bundled)) return JSON.parse(readFileSync(bundled, 'utf8')) as TiktokenBPE;
  // From source: js-tiktoken's modules. The CJS build exports the object itself, the ESM one as `default`.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const mod =
    encoding === 'cl100k_base'
      ? (require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE | { default: TiktokenBPE })
      : (require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE });
  /* eslint-enable @typescript-eslint/no-require-imports */
  return 'default' in mod ? mod.default : mod;
}

/**
 * Parses js-tiktoken's compressed rank format, as its Tiktoken constructor does: each line is
 * `<name> <first rank> <base64 token> <base64 token> …`, ranks counting up from the first.
 */
export function parseRanks(bpeRanks: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const line of bpeRanks.split('\n')) {
    if (!line) continue;
    const parts = line.split(' ');
    addRanks(ranks, parts, 2, () => false);
  }
  return ranks;
}

/** Adds the tokens of one rank line (`parts` = its space-separated fields) from `from` on; stops early when `pause()` says so. */
function addRanks(ranks: Map<string, number>, parts: string[], from: number, pause: () => boolean): number {
  const offset = Number.parseInt(parts[1]!, 10);
  for (let i = from; i < parts.length; i++) {
    // atob yields exactly the latin1 string of the decoded bytes, twice as fast as going through a Buffer
    ranks.set(atob(parts[i]!), offset + i - 2);
    if ((i & 1023) === 0 && pause()) return i + 1;
  }
  return parts.length;
}

/**
 * Loads `encoding`'s ranks without blocking the event loop for long: the file is read asynchronously and the 200k
 * entries go into the map in slices of ~`sliceMs`, with a yield between (built in one go, o200k blocked the first
 * context-mode read's server for 300-500 ms). What stays synchronous: JSON.parse of the file and one split
 * (~15 + ~20 ms for o200k on a loaded machine). A `count` meanwhile loads synchronously; this then stops.
 */
export function loadTokenizer(encoding: TokenEncoding = 'o200k_base', sliceMs = 8): Promise<void> {
  if (encodings.has(encoding)) return Promise.resolve();
  let pending = loading.get(encoding);
  if (!pending) {
    pending = loadInSlices(encoding, sliceMs).finally(() => loading.delete(encoding));
    loading.set(encoding, pending);
  }
  return pending;
}

async function loadInSlices(encoding: TokenEncoding, sliceMs: number): Promise<void> {
  const bundled = path.join(__dirname, 'ranks', `${encoding}.json`);
  const bpe = existsSync(bundled) ? (JSON.parse(await readFile(bundled, 'utf8')) as TiktokenBPE) : loadRanks(encoding);
  const ranks = new Map<string, number>();
  let sliceStart = performance.now();
  const pause = () => performance.now() - sliceStart >= sliceMs;
  for (const line of bpe.bpe_ranks.split('\n')) {
    if (!line) continue;
    const parts = line.split(' ');
    for (let i = 2; i < parts.length; ) {
      i = addRanks(ranks, parts, i, pause);
      if (encodings.has(encoding)) return; // a synchronous count loaded it meanwhile
      if (i < parts.length) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }
  if (!encodings.has(encoding)) encodings.set(encoding, { patStr: bpe.pat_str, ranks });
}

function load(encoding: TokenEncoding): Encoding {
  let entry = encodings.get(encoding);
  if (!entry) {
    const bpe = loadRanks(encoding);
    entry = { patStr: bpe.pat_str, ranks: parseRanks(bpe.bpe_ranks) };
    encodings.set(encoding, entry);
  }
  return entry;
}

/** True once the encoding's ranks were parsed (tests use it to prove laziness). */
export function isTokenizerLoaded(encoding: TokenEncoding = 'o200k_base'): boolean {
  return encodings.has(encoding);
}

/** The shared tokenizer for `encoding`; cheap to call, loads nothing until the first count. */
export function getTokenizer(encoding: TokenEncoding = 'o200k_base'): Tokenizer {
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    tokenizer = new TiktokenTokenizer(encoding);
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

class TiktokenTokenizer implements Tokenizer {
  private readonly cache = new Map<string, number>();

  constructor(readonly encoding: TokenEncoding) {}

  ready(): Promise<void> {
    return loadTokenizer(this.encoding);
  }

  /** One compiled pre-token pattern for synchronous counts (compiling the Unicode pattern costs more than a short count). */
  private syncPattern: RegExp | undefined;

  count(text: string): number {
    if (text.length === 0) return 0;
    const re = (this.syncPattern ??= new RegExp(load(this.encoding).patStr, 'gu'));
    re.lastIndex = 0;
    let total = 0;
    let match: RegExpExecArray | null;
    while ((match = re.exec(text)) !== null) total += this.countPiece(match[0]);
    return total;
  }

  async countAsync(text: string, options: CountAsyncOptions = {}): Promise<number> {
    await this.ready();
    if (text.length <= SYNC_LIMIT) return this.count(text);
    const sliceMs = options.sliceMs ?? 8;
    const re = new RegExp(load(this.encoding).patStr, 'gu');
    let total = 0;
    let sliceStart = performance.now();
    let sinceCheck = 0;
    let match: RegExpExecArray | null;
    while ((match = re.exec(text)) !== null) {
      total += this.countPiece(match[0]);
      if (++sinceCheck < 256) continue;
      sinceCheck = 0;
      if (performance.now() - sliceStart < sliceMs) continue;
      // The regex keeps its lastIndex: resuming continues the same pre-token sequence.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) throw options.signal.reason ?? new Error('token count aborted');
      sliceStart = performance.now();
    }
    return total;
  }

  /** Tokens in one pre-token: 1 if its bytes are a token, else the number of parts after BPE merges. */
  private countPiece(piece: string): number {
    const cached = this.cache.get(piece);
    if (cached !== undefined) return cached;
    const { ranks } = load(this.encoding);
    const bytes = Buffer.from(piece, 'utf8').toString('latin1');
    const n = bytes.length <= 1 || ranks.has(bytes) ? 1 : mergedPartCount(bytes, ranks);
    if (piece.length <= CACHE_PIECE_MAX) {
      if (this.cache.size >= CACHE_ENTRIES_MAX) this.cache.clear();
      this.cache.set(piece, n);
    }
    return n;
  }
}

/**
 * js-tiktoken's bytePairMerge, counting only: repeatedly merge the adjacent pair whose joined bytes
 * have the lowest rank (leftmost on ties) until no pair is a token. Pair ranks are recomputed only
 * next to the merge instead of for every pair on every round; the merge order is the same.
 */
function mergedPartCount(bytes: string, ranks: Map<string, number>): number {
  const starts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) starts.push(i); // part k = bytes[starts[k], starts[k+1])
  const rankOf = (k: number): number => {
    if (k < 0 || k + 2 >= starts.length) return Infinity;
    return ranks.get(bytes.slice(starts[k]!, starts[k + 2]!)) ?? Infinity;
  };
  const pairRanks: number[] = [];
  for (let k = 0; k + 1 < starts.length - 1; k++) pairRanks.push(rankOf(k));
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let k = 0; k < pairRanks.length; k++) {
      if (pairRanks[k]! < bestRank) {
        bestRank = pairRanks[k]!;
        best = k;
      }
    }
    if (best < 0) break;
    starts.splice(best + 1, 1);
    pairRanks.splice(best, 1);
    if (best < pairRanks.length) pairRanks[best] = rankOf(best);
    if (best > 0) pairRanks[best - 1] = rankOf(best - 1);
  }
  return starts.length - 1;
}
