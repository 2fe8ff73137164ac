/**
 * Exact token counts for the o200k_base / cl100k_base encodings, on js-tiktoken's ranks.
 *
 * - Lazy: the ranks are read on the first count, never at activation, and cached per encoding. A bundle reads the
 *   table laid out at build time (rankTable.ts: one file read, views of it, ~4 ms); from source, js-tiktoken's
 *   ranks module is parsed into a Map. `ready()` (awaited by `countAsync` and the context modes) loads without blocking:
 *   the table's file asynchronously, the JSON in slices.
 * - Exact: the text is split with the encoding's own pre-token pattern and each pre-token is merged
 *   with the same byte-pair rule as js-tiktoken (lowest rank first, leftmost on ties); tests check the
 *   count against `Tiktoken.encode(text).length`. Special-token strings count as plain text.
 *   Pre-tokens over 8 KiB (no ordinary text has them) are counted in chunks: see bpeCount.ts for how
 *   far that can be from the exact count.
 * - Fast and linear: a bounded cache of pre-token counts (code and prose repeat their words), no token
 *   arrays, and a merge that is O(n log n) in the piece (bpeCount.ts), not quadratic.
 * - Non-blocking: `countAsync` walks the same pre-token sequence and yields to the event loop between
 *   slices of work (between the chunks of a long pre-token too). Pausing cannot change the result, so
 *   the async count always equals the one-shot count.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { TiktokenBPE } from 'js-tiktoken/lite';
import { CHUNK_BYTES, CHUNK_CACHE_MAX, chunkCount, chunkEnd, exactPartCount, pieceTokenCount } from '../bpeCount';
import { RankTable, type RankLookup } from '../rankTable';

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

/** What pagination needs beyond a count (the shared tokenizers have it; test doubles of Tokenizer need not). */
export interface PrefixFitter {
  /**
   * The longest prefix of `text` that costs at most `limit` tokens, found pre-token by pre-token and stopping
   * there: the work is proportional to the prefix, not to the text (a page of a 4 MiB line costs a page).
   * The prefix ends on a pre-token boundary, or at a character boundary inside a long pre-token. Counted on
   * its own, the prefix can differ by a token or so where it was cut (the pattern looks ahead): callers that
   * need a hard bound count the result.
   */
  fit(text: string, limit: number): TokenFit;
}

export interface TokenFit {
  /** Length of the prefix, in UTF-16 code units (as `String.prototype.slice` takes it). */
  chars: number;
  /** Its tokens, the sum over its pre-tokens. */
  tokens: number;
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
/** A piece this long may be over CHUNK_BYTES (a char is 1-3 bytes): countAsync yields between its chunks. */
const LONG_PIECE_CHARS = CHUNK_BYTES / 3;
/** `fit` cuts inside a pre-token longer than this that does not fit whole (else a page could hold one character). */
const CUT_PIECE_CHARS = 16;
/** `fit` finds the cut inside a long pre-token to within this many bytes (fewer probes; the page is that much shorter). */
const CUT_GRAIN_BYTES = 16;

interface Encoding {
  patStr: string;
  /**
   * Token bytes → rank, the key being the bytes as a latin1 string (one char per byte). A bundle reads the table
   * laid out at build time (rankTable.ts: views of one file, ~4 ms); from source, a Map built from js-tiktoken's
   * ranks. js-tiktoken's own Tiktoken keeps comma-joined byte strings plus a rank → Uint8Array map and builds both
   * through a 200k-key intermediate object: ~150 MB and ~1.5 s for o200k. Either form here holds the same pairs
   * and lets the merge loop look up plain substrings instead of re-joining byte arrays.
   */
  ranks: RankLookup;
  /** The longest token, in bytes. */
  maxTokenBytes: number;
}

const encodings = new Map<TokenEncoding, Encoding>();
const loading = new Map<TokenEncoding, Promise<void>>();
const tokenizers = new Map<TokenEncoding, TiktokenTokenizer>();

/** The bundle's prebuilt table of `encoding` (esbuild.mjs writes <bundle dir>/ranks/<encoding>.bin), if there is one. */
function bundledTable(encoding: TokenEncoding): string | undefined {
  const file = path.join(__dirname, 'ranks', `${encoding}.bin`);
  return existsSync(file) ? file : undefined;
}

function fromTable(table: RankTable): Encoding {
  return { patStr: table.patStr, ranks: table, maxTokenBytes: table.maxTokenBytes };
}

function fromMap(patStr: string, ranks: Map<string, number>): Encoding {
  let longest = 0;
  for (const token of ranks.keys()) longest = Math.max(longest, token.length);
  return { patStr, ranks, maxTokenBytes: longest };
}

function loadRanks(encoding: TokenEncoding): TiktokenBPE {
  // From source (a bundle reads its prebuilt table, bundledTable): js-tiktoken's modules. The CJS build exports the
  // object itself, the ESM one as `default`.
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
  // a caller needs the ranks now: a load started in the background stops waiting for idle moments
  const gate = gates.get(encoding);
  if (gate) {
    gate.whenIdle = undefined;
    gate.wake?.();
  }
  let pending = loading.get(encoding);
  if (!pending) {
    pending = loadInSlices(encoding, sliceMs, {}).finally(() => loading.delete(encoding));
    loading.set(encoding, pending);
  }
  return pending;
}

interface Gate {
  whenIdle?: () => Promise<void>;
  /** Ends the current wait for idle (a caller needs the ranks now). */
  wake?: () => void;
}

/** Waits for the gate's idle moment, or until a caller needing the ranks now opens it. */
function idleOrWoken(gate: Gate): Promise<void> | undefined {
  if (!gate.whenIdle) return undefined;
  return Promise.race([gate.whenIdle(), new Promise<void>((resolve) => (gate.wake = resolve))]);
}
const gates = new Map<TokenEncoding, Gate>();

/**
 * Starts loading `encoding`'s ranks in the background: each slice waits for `whenIdle` (the server has no call in
 * flight), so a call arriving meanwhile is not slowed down by slices between its own steps. A `loadTokenizer` call
 * (a count is needed now) turns it into an ordinary sliced load.
 */
export function preloadTokenizer(whenIdle: () => Promise<void>, encoding: TokenEncoding = 'o200k_base'): Promise<void> {
  if (encodings.has(encoding)) return Promise.resolve();
  let pending = loading.get(encoding);
  if (!pending) {
    const gate: Gate = { whenIdle };
    gates.set(encoding, gate);
    pending = loadInSlices(encoding, 8, gate).finally(() => {
      loading.delete(encoding);
      gates.delete(encoding);
    });
    loading.set(encoding, pending);
  }
  return pending;
}

async function loadInSlices(encoding: TokenEncoding, sliceMs: number, gate: Gate): Promise<void> {
  await idleOrWoken(gate);
  const table = bundledTable(encoding);
  if (table) {
    // read without blocking; taking views of it is ~4 ms: no slices needed
    const bytes = await readFile(table);
    if (!encodings.has(encoding)) encodings.set(encoding, fromTable(new RankTable(bytes)));
    return;
  }
  // from source: a call may have come in meanwhile; the module's load (the longest synchronous step) waits for idle
  await idleOrWoken(gate);
  if (encodings.has(encoding)) return;
  const bpe = loadRanks(encoding);
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
        await idleOrWoken(gate);
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }
  if (!encodings.has(encoding)) encodings.set(encoding, fromMap(bpe.pat_str, ranks));
}

function load(encoding: TokenEncoding): Encoding {
  let entry = encodings.get(encoding);
  if (!entry) {
    const table = bundledTable(encoding);
    if (table) {
      entry = fromTable(new RankTable(readFileSync(table)));
    } else {
      const bpe = loadRanks(encoding);
      entry = fromMap(bpe.pat_str, parseRanks(bpe.bpe_ranks));
    }
    encodings.set(encoding, entry);
  }
  return entry;
}

/** True once the encoding's ranks were parsed (tests use it to prove laziness). */
export function isTokenizerLoaded(encoding: TokenEncoding = 'o200k_base'): boolean {
  return encodings.has(encoding);
}

/** The shared tokenizer for `encoding`; cheap to call, loads nothing until the first count. */
export function getTokenizer(encoding: TokenEncoding = 'o200k_base'): Tokenizer & PrefixFitter {
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    tokenizer = new TiktokenTokenizer(encoding);
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

class TiktokenTokenizer implements Tokenizer, PrefixFitter {
  private readonly cache = new Map<string, number>();
  /** Counts of recent chunks of long pieces (a long run of one character repeats its chunk). */
  private readonly chunkCache = new Map<string, number>();

  constructor(readonly encoding: TokenEncoding) {}

  ready(): Promise<void> {
    return loadTokenizer(this.encoding);
  }

  /** One compiled pre-token pattern for synchronous counts (compiling the Unicode pattern costs more than a short count). */
  private syncPattern: RegExp | undefined;

  count(text: string): number {
    let total = 0;
    for (let at = 0; at < text.length; ) {
      const end = windowEnd(text, at);
      const re = this.pattern();
      const window = at === 0 && end === text.length ? text : text.slice(at, end);
      let match: RegExpExecArray | null;
      while ((match = re.exec(window)) !== null) total += this.countPiece(match[0]);
      at = end;
    }
    return total;
  }

  fit(text: string, limit: number): TokenFit {
    if (text.length === 0 || limit <= 0) return { chars: 0, tokens: 0 };
    // No token is longer than the longest in the table, so what fits lies in the first (limit + 1) × that many
    // characters. Most text needs far less: try windows growing from ~4 characters a token, until the fit ends
    // inside one (a page of a 4 MiB run never scans the whole run; the geometric retries cost under 4/3 of the last).
    const widest = (limit + 1) * this.longestTokenBytes();
    for (let window = (limit + 1) * 4; ; window *= 4) {
      if (window >= widest || window >= text.length) return this.fitWithin(text.length > widest ? text.slice(0, widest) : text, limit);
      const r = this.fitWithin(text.slice(0, window), limit);
      if (r.chars < window) return r;
    }
  }

  private fitWithin(text: string, limit: number): TokenFit {
    let tokens = 0;
    const re = this.pattern();
    let match: RegExpExecArray | null;
    while ((match = re.exec(text)) !== null) {
      const piece = match[0];
      const room = limit - tokens;
      if (piece.length > LONG_PIECE_CHARS) {
        // never count a long run whole: chunk by chunk, stopping in the chunk that overflows
        const part = this.fitPiece(piece, room);
        tokens += part.tokens;
        if (part.chars < piece.length) return { chars: match.index + part.chars, tokens };
        continue;
      }
      const n = this.countPiece(piece);
      if (n <= room) {
        tokens += n;
        continue;
      }
      if (piece.length <= CUT_PIECE_CHARS) return { chars: match.index, tokens };
      const part = this.fitPiece(piece, room);
      return { chars: match.index + part.chars, tokens: tokens + part.tokens };
    }
    return { chars: text.length, tokens };
  }

  private longestTokenBytes(): number {
    return load(this.encoding).maxTokenBytes;
  }

  /** The pre-token pattern for synchronous walks, reset to the start. */
  private pattern(): RegExp {
    const re = (this.syncPattern ??= new RegExp(load(this.encoding).patStr, 'gu'));
    re.lastIndex = 0;
    return re;
  }

  /**
   * `fit` inside one pre-token: its chunks (as countPiece cuts them) while they fit, then a binary search for
   * the longest prefix of the chunk that overflows, to within CUT_GRAIN_BYTES, on a character boundary.
   */
  private fitPiece(piece: string, room: number): TokenFit {
    const bytes = latin1Bytes(piece);
    const { ranks } = load(this.encoding);
    let tokens = 0;
    for (let at = 0; at < bytes.length; ) {
      const end = chunkEnd(bytes, at);
      const chunk = bytes.length <= CHUNK_BYTES ? bytes : bytes.slice(at, end);
      const n = chunkCount(chunk, ranks, this.chunkCache);
      if (tokens + n <= room) {
        tokens += n;
        at = end;
        continue;
      }
      // Counts grow about linearly along a chunk: aim where the rest of the room runs out (interpolation), and
      // halve the interval when that did not at least halve it; ~3 probes instead of ~8 for a 4 KiB chunk.
      const target = room - tokens;
      let lo = 0; // bytes known to fit
      let loTokens = 0;
      let hi = chunk.length; // bytes known not to fit
      let hiTokens = n;
      let bisect = false;
      while (hi - lo > CUT_GRAIN_BYTES) {
        const guess = lo + Math.round(((hi - lo) * (target - loTokens + 0.5)) / Math.max(1, hiTokens - loTokens));
        let mid: number = bisect ? (lo + hi) >> 1 : Math.min(hi - 1, Math.max(lo + 1, guess));
        while (mid > lo && (chunk.charCodeAt(mid) & 0xc0) === 0x80) mid--; // not inside a UTF-8 sequence
        if (mid === lo) break;
        const before = hi - lo;
        const c = exactPartCount(chunk.slice(0, mid), ranks);
        if (c <= target) {
          lo = mid;
          loTokens = c;
        } else {
          hi = mid;
          hiTokens = c;
        }
        bisect = !bisect && hi - lo > before / 2;
      }
      // the page is counted again by its caller: this prefix of the chunk is what that count will meet last
      if (this.chunkCache.size >= CHUNK_CACHE_MAX) this.chunkCache.clear();
      this.chunkCache.set(chunk.slice(0, lo), loTokens);
      const cutBytes = at + lo;
      const chars = bytes === piece ? cutBytes : Buffer.from(bytes.slice(0, cutBytes), 'latin1').toString('utf8').length;
      return { chars, tokens: tokens + loTokens };
    }
    return { chars: piece.length, tokens };
  }

  async countAsync(text: string, options: CountAsyncOptions = {}): Promise<number> {
    await this.ready();
    if (text.length <= SYNC_LIMIT) return this.count(text);
    const slice = new YieldSlice(options.sliceMs ?? 8, options.signal);
    const re = new RegExp(load(this.encoding).patStr, 'gu');
    let total = 0;
    for (let at = 0; at < text.length; ) {
      // the same windows as count(): the regex never runs over more than one window in a go
      const end = windowEnd(text, at);
      const window = at === 0 && end === text.length ? text : text.slice(at, end);
      at = end;
      re.lastIndex = 0;
      let sinceCheck = 0;
      let match: RegExpExecArray | null;
      while ((match = re.exec(window)) !== null) {
        const piece = match[0];
        if (piece.length > LONG_PIECE_CHARS) {
          total += await this.countLongPieceAsync(piece, slice);
          continue;
        }
        total += this.countPiece(piece);
        if (++sinceCheck < 256) continue;
        sinceCheck = 0;
        // The regex keeps its lastIndex: resuming continues the same pre-token sequence.
        await slice.maybeYield();
      }
      await slice.maybeYield();
    }
    return total;
  }

  /** Tokens in one pre-token (see bpeCount.ts: exact up to CHUNK_BYTES, chunked beyond). */
  private countPiece(piece: string): number {
    const cached = this.cache.get(piece);
    if (cached !== undefined) return cached;
    const n = pieceTokenCount(latin1Bytes(piece), load(this.encoding).ranks, this.chunkCache);
    if (piece.length <= CACHE_PIECE_MAX) {
      if (this.cache.size >= CACHE_ENTRIES_MAX) this.cache.clear();
      this.cache.set(piece, n);
    }
    return n;
  }

  /** countPiece for a piece over CHUNK_BYTES, yielding between chunks when the slice is spent. */
  private async countLongPieceAsync(piece: string, slice: YieldSlice): Promise<number> {
    const bytes = latin1Bytes(piece);
    const { ranks } = load(this.encoding);
    let total = 0;
    for (let at = 0; at < bytes.length; ) {
      const end = chunkEnd(bytes, at);
      total += chunkCount(bytes.slice(at, end), ranks, this.chunkCache);
      at = end;
      await slice.maybeYield();
    }
    return total;
  }
}

/** Texts longer than this are split into windows, each pre-tokenized alone (see windowEnd). */
const WINDOW_CHARS = 65_536;

/**
 * Where the window that starts at `at` ends. The pre-token patterns never match across these two kinds of place,
 * nor look past them, so cutting there leaves the count exact:
 * - before a space that follows a non-space (no pattern has a space after a non-space inside one match);
 * - after a line break followed by neither whitespace nor `/` (the only things a match ending in `\n` can take on).
 * The cut is looked for in the second half of the window. Only text without either for 32 Ki characters (one
 * pre-token that long: base64, a run of one character, CJK without spaces) is cut hard, which, like the chunks of
 * bpeCount.ts, can move the count by about a token. Why windows at all: the pattern scans a whole pre-token in one
 * regex call, and that call cannot yield: 4 MiB of one run took 72 ms in one piece.
 */
function windowEnd(text: string, at: number): number {
  const hard = at + WINDOW_CHARS;
  if (hard >= text.length) return text.length;
  for (let p = hard; p > at + WINDOW_CHARS / 2; p--) {
    const c = text.charCodeAt(p);
    const before = text.charCodeAt(p - 1);
    if (c === 0x20 && !isWhitespace(before)) return p;
    if (before === 0x0a && c !== 0x2f && !isWhitespace(c)) return p;
  }
  const c = text.charCodeAt(hard);
  return c >= 0xdc00 && c <= 0xdfff ? hard - 1 : hard; // not between the halves of a surrogate pair
}

/** `\s` of a Unicode regular expression. */
function isWhitespace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The UTF-8 bytes of `text` as a latin1 string; ASCII is its own encoding (most pieces, no Buffer round trip). */
function latin1Bytes(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1');
  }
  return text;
}

/** Work budget between two yields to the event loop. */
class YieldSlice {
  private started = performance.now();

  constructor(
    private readonly sliceMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.signal?.aborted) throw this.signal.reason ?? new Error('token count aborted');
    this.started = performance.now();
  }
}
