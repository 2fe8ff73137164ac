/**
 * A BPE rank table laid out at build time, so that loading it is reading one file and taking views of it: no JSON
 * parse, no base64, no 200,000 Map insertions (the JSON path cost a server ~215-256 ms of main-thread CPU, in
 * slices, before its first count). The lookups answer what the Map of parseRanks answers (tokenizer tests compare
 * both on every token and on random strings).
 *
 * Layout (little-endian u32 unless said): magic "BETR", version, token count N, slot count S (a power of two),
 * pattern length P, the longest token's length in bytes; the pattern (UTF-8, P bytes, padded to 4); offsets[N + 1] into the token bytes; slots[S];
 * the token bytes, in rank order (token r is bytes offsets[r]..offsets[r + 1]). Ranks are 0..N-1 (both tiktoken
 * encodings have no gaps; encodeRankTable refuses a table with one). A slot holds rank + 1, or 0 when empty: open
 * addressing with linear probing from FNV-1a of the token's bytes.
 */

/** The lookups bpeCount needs: what a Map<string, number> of latin1 keys answers too. */
export interface RankLookup {
  get(bytes: string): number | undefined;
  has(bytes: string): boolean;
}

const MAGIC = 0x52544542; // "BETR" read as little-endian u32
const VERSION = 2;
const HEADER_WORDS = 6;

/** FNV-1a over the char codes of a latin1 string (one char per byte). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const pad4 = (n: number) => (n + 3) & ~3;

/** The file's bytes for `ranks` (latin1 token → rank, ranks 0..size-1) and the encoding's pre-token pattern. */
export function encodeRankTable(ranks: ReadonlyMap<string, number>, patStr: string): Uint8Array {
  const n = ranks.size;
  const byRank: string[] = new Array<string>(n);
  for (const [token, rank] of ranks) {
    if (!Number.isInteger(rank) || rank < 0 || rank >= n || byRank[rank] !== undefined) throw new Error(`rank table: ranks must be 0..${n - 1}, each once (got ${rank})`);
    byRank[rank] = token;
  }
  let slots = 1;
  while (slots < n * 2) slots *= 2;
  const pattern = new TextEncoder().encode(patStr);
  const tokenBytes = byRank.reduce((sum, t) => sum + t.length, 0);
  const offsetsAt = HEADER_WORDS * 4 + pad4(pattern.length);
  const slotsAt = offsetsAt + (n + 1) * 4;
  const bytesAt = slotsAt + slots * 4;
  const out = new Uint8Array(bytesAt + tokenBytes);
  const words = new DataView(out.buffer);
  const longest = byRank.reduce((max, t) => Math.max(max, t.length), 0);
  [MAGIC, VERSION, n, slots, pattern.length, longest].forEach((w, i) => words.setUint32(i * 4, w, true));
  out.set(pattern, HEADER_WORDS * 4);
  const mask = slots - 1;
  let at = 0;
  for (let r = 0; r < n; r++) {
    const token = byRank[r]!;
    words.setUint32(offsetsAt + r * 4, at, true);
    for (let i = 0; i < token.length; i++) out[bytesAt + at + i] = token.charCodeAt(i);
    at += token.length;
    let slot = fnv1a(token) & mask;
    while (words.getUint32(slotsAt + slot * 4, true) !== 0) slot = (slot + 1) & mask;
    words.setUint32(slotsAt + slot * 4, r + 1, true);
  }
  words.setUint32(offsetsAt + n * 4, at, true);
  return out;
}

/** A table read from encodeRankTable's bytes: views of them, nothing copied but the pattern. */
export class RankTable implements RankLookup {
  readonly patStr: string;
  readonly size: number;
  /** The longest token, in bytes. */
  readonly maxTokenBytes: number;
  private readonly offsets: Uint32Array;
  private readonly slots: Uint32Array;
  private readonly bytes: Uint8Array;
  private readonly mask: number;

  constructor(file: Uint8Array) {
    // typed views need 4-byte alignment: a buffer from a pool may start anywhere
    const data = file.byteOffset % 4 === 0 ? file : file.slice();
    if (data.length < HEADER_WORDS * 4) throw new Error('rank table: not a rank table file of this version');
    const header = new DataView(data.buffer, data.byteOffset, HEADER_WORDS * 4);
    const word = (i: number) => header.getUint32(i * 4, true);
    if (word(0) !== MAGIC || word(1) !== VERSION) throw new Error('rank table: not a rank table file of this version');
    const n = word(2);
    const slots = word(3);
    const patternLength = word(4);
    const offsetsAt = HEADER_WORDS * 4 + pad4(patternLength);
    const slotsAt = offsetsAt + (n + 1) * 4;
    const bytesAt = slotsAt + slots * 4;
    if (slots & (slots - 1) || bytesAt > data.length) throw new Error('rank table: truncated or malformed');
    this.patStr = new TextDecoder().decode(data.subarray(HEADER_WORDS * 4, HEADER_WORDS * 4 + patternLength));
    this.size = n;
    this.offsets = new Uint32Array(data.buffer, data.byteOffset + offsetsAt, n + 1);
    this.slots = new Uint32Array(data.buffer, data.byteOffset + slotsAt, slots);
    this.bytes = data.subarray(bytesAt);
    if (this.offsets[n] !== this.bytes.length) throw new Error('rank table: truncated or malformed');
    this.mask = slots - 1;
    // in the header: a loop over the offsets here cost the first count ~3 ms (run once, so interpreted)
    this.maxTokenBytes = word(5);
  }

  get(s: string): number | undefined {
    const { offsets, slots, bytes, mask } = this;
    for (let slot = fnv1a(s) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!;
      if (entry === 0) return undefined;
      const rank = entry - 1;
      const start = offsets[rank]!;
      if (offsets[rank + 1]! - start !== s.length) continue;
      let i = 0;
      while (i < s.length && bytes[start + i] === s.charCodeAt(i)) i++;
      if (i === s.length) return rank;
    }
  }

  has(s: string): boolean {
    return this.get(s) !== undefined;
  }
}
