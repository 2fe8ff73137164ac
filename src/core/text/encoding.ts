/**
 * Legacy encodings, edited losslessly. A file is decoded to UTF-8 for the line model (so byte offsets, viewed ids
 * and history all work on UTF-8) and the edited result is encoded back: the bytes of every untouched line are
 * copied from the original, only the changed middle is encoded (iconv-lite), and both halves are verified —
 * a file that does not round-trip, or new text the encoding cannot represent, is refused with nothing written.
 *
 * Detection, as VS Code: a BOM (UTF-8, UTF-16LE/BE), then the configured encoding, then valid UTF-8, then a guess
 * (jschardet, as files.autoGuessEncoding, run on a worker thread: node/guessWorker.ts) among the encodings below.
 */
import { isUtf8 } from 'node:buffer';
import { ToolError } from '../errors';
import { lineAtByte, lineAtIndex } from './lineCount';

/** One of jschardet's answers: an encoding name (its spelling) and how sure it is. */
export interface Guess {
  encoding: string | null;
  confidence: number;
}

/**
 * The port this module computes through, given by the store that decodes (text/node/codec.ts: iconv-lite's coders,
 * yielding between pieces, and jschardet on a worker thread), so the rules here start no thread and load nothing.
 */
export interface TextCodec {
  decode(bytes: Uint8Array, encoding: string): Promise<string>;
  encode(text: string, encoding: string): Promise<Buffer>;
  /** UTF-8 bytes → `encoding`, without one string of the whole. */
  encodeUtf8(utf8: Buffer, encoding: string): Promise<Buffer>;
  /** jschardet's detectAll of a sample of a few KiB, best first (off the main thread). */
  detectAll(sample: Uint8Array): Promise<Guess[]>;
}

/** Canonical names (iconv-lite's) of what we edit, keyed by the spellings VS Code settings and users write. */
const ALIASES: Record<string, string> = {
  utf8: 'utf8', 'utf-8': 'utf8', utf8bom: 'utf8',
  utf16le: 'utf16le', 'utf-16le': 'utf16le', utf16be: 'utf16be', 'utf-16be': 'utf16be',
  gb18030: 'gb18030', gbk: 'gbk', gb2312: 'gbk', cp936: 'gbk',
  big5: 'big5', big5hkscs: 'big5hkscs', cp950: 'cp950',
  shiftjis: 'shift_jis', shift_jis: 'shift_jis', sjis: 'shift_jis', cp932: 'cp932',
  euckr: 'euc-kr', 'euc-kr': 'euc-kr', cp949: 'cp949',
  windows1252: 'windows-1252', 'windows-1252': 'windows-1252', cp1252: 'windows-1252',
  iso88591: 'iso-8859-1', 'iso-8859-1': 'iso-8859-1', latin1: 'iso-8859-1',
  // other single-byte encodings without a BOM (guessed, or configured)
  windows1250: 'windows-1250', 'windows-1250': 'windows-1250', cp1250: 'windows-1250',
  windows1251: 'windows-1251', 'windows-1251': 'windows-1251', cp1251: 'windows-1251',
  windows1253: 'windows-1253', 'windows-1253': 'windows-1253', cp1253: 'windows-1253',
  koi8r: 'koi8-r', 'koi8-r': 'koi8-r',
  iso88592: 'iso-8859-2', 'iso-8859-2': 'iso-8859-2', latin2: 'iso-8859-2',
  iso88595: 'iso-8859-5', 'iso-8859-5': 'iso-8859-5',
  iso88597: 'iso-8859-7', 'iso-8859-7': 'iso-8859-7',
  iso885915: 'iso-8859-15', 'iso-8859-15': 'iso-8859-15', latin9: 'iso-8859-15',
};

/**
 * jschardet's answers → ours. It names GBK text GB18030 (the superset, which decodes all of it) and Shift_JIS /
 * EUC-KR text by Microsoft's supersets; a guess is only taken when the whole file round-trips in it.
 */
const GUESSES: Record<string, string> = {
  GB18030: 'gb18030', GB2312: 'gb18030', Big5: 'big5', SHIFT_JIS: 'shift_jis', CP932: 'cp932', 'EUC-KR': 'euc-kr',
  CP949: 'cp949', 'UTF-16LE': 'utf16le', 'UTF-16BE': 'utf16be',
};
/**
 * jschardet's single-byte answers → the encoding read. The Western ones are read as windows-1252 (a superset of
 * ISO-8859-1's printable range); the others as what was named, never as windows-1252 (Polish ISO-8859-2 read as
 * windows-1252 showed "Za¿ó³æ" as if right).
 */
const SINGLE: Record<string, string> = {
  'windows-1252': 'windows-1252', 'iso-8859-1': 'windows-1252', 'iso8859-15': 'windows-1252', macroman: 'windows-1252',
  'windows-1250': 'windows-1250', 'iso-8859-2': 'iso-8859-2',
  'windows-1251': 'windows-1251', 'koi8-r': 'koi8-r', 'iso-8859-5': 'iso-8859-5',
  'windows-1253': 'windows-1253', 'iso-8859-7': 'iso-8859-7',
};
/**
 * Single-byte detectors are weak: measured with jschardet on one-line texts, the right answer comes at 0.1-0.24
 * for Cyrillic and Greek, and wrong ones at up to 0.074 (Czech named Greek). Below this, a non-Western guess is not
 * taken: the file is refused with the option that names its encoding, rather than shown mis-decoded.
 */
const MIN_SINGLE_CONFIDENCE = 0.1;
/**
 * A non-Western single-byte guess needs this many bytes ≥ 0x80 (one word), and bytes that do not read as Western
 * text: `à ` alone scored 0.1+ as windows-1251 ("а").
 */
const MIN_SINGLE_EVIDENCE = 6;
/** Script families of jschardet's single-byte names; a name not listed is a family of its own. */
const FAMILY: Record<string, string> = {
  'windows-1251': 'cyrillic', 'koi8-r': 'cyrillic', 'iso-8859-5': 'cyrillic', maccyrillic: 'cyrillic', ibm866: 'cyrillic',
  ibm855: 'cyrillic', kz1048: 'cyrillic', ptcp154: 'cyrillic', 'koi8-t': 'cyrillic', cp1125: 'cyrillic',
  'windows-1253': 'greek', 'iso-8859-7': 'greek', macgreek: 'greek', cp869: 'greek', cp737: 'greek',
  'windows-1250': 'central', 'iso-8859-2': 'central', maclatin2: 'central',
};
const familyOf = (name: string | null) => (name ? FAMILY[name.toLowerCase()] ?? name.toLowerCase() : '');
/**
 * A non-Western guess must score at least twice any guess of another script: random Cyrillic words scored 0.102 as
 * Greek against 0.058 as Cyrillic, real Cyrillic 0.162 against 0.052, Greek 0.148 against 0.042.
 */
function leads(all: Guess[], g: Guess): boolean {
  const family = familyOf(g.encoding);
  return all.every((o) => familyOf(o.encoding) === family || g.confidence >= 2 * o.confidence);
}
/** A guess this close to the top one is as likely (the same text scores alike in sibling code pages). */
const TIE = 0.95;

/**
 * Multi-byte guesses below this confidence are not taken (measured on one-line CJK comments: 0.1-0.4 for the right
 * answer, < 0.04 for the others); the lossless round trip then decides.
 */
const MIN_GUESS_CONFIDENCE = 0.1;
/**
 * Bytes handed to jschardet. Measured with node -e on GBK text: detectAll takes 73 / 99 / 132 / 279 ms on a cold
 * 0.5 / 2 / 4 / 16 KiB sample (its first call) and ~5-15 ms warm; 4 KiB already gives the right answer at 0.32.
 */
const GUESS_SAMPLE_BYTES = 4 * 1024;

async function roundTrips(codec: TextCodec, bytes: Uint8Array, encoding: string): Promise<boolean> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (await codec.encode(await codec.decode(buf, encoding), encoding)).equals(buf);
}

/** A guess as VS Code's files.autoGuessEncoding makes it (jschardet), kept only when the file round-trips in it. */
async function guessEncoding(codec: TextCodec, bytes: Uint8Array): Promise<string | undefined> {
  const sample = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, GUESS_SAMPLE_BYTES));
  // on a worker thread: jschardet's first load and detection would hold the event loop for 150 ms and more
  const all = await codec.detectAll(sample);
  for (const g of all) {
    const mapped = g.encoding ? GUESSES[g.encoding] : undefined;
    if (!mapped || g.confidence < MIN_GUESS_CONFIDENCE) continue;
    // GBK text is valid GB18030, but GB18030 can encode any character in 4 bytes that GBK tools cannot read:
    // a file GBK holds whole stays GBK, so a character GBK lacks is refused rather than written in 4 bytes
    if (mapped === 'gb18030' && await roundTrips(codec, bytes, 'gbk')) return 'gbk';
    if (await roundTrips(codec, bytes, mapped)) return mapped;
  }
  const top = all[0];
  if (!top) return undefined;
  const western = looksWestern(bytes);
  let highBytes = 0;
  for (const b of bytes) if (b >= 0x80) highBytes++;
  // a single-byte answer: among the guesses tied with the top one, the first we read, if confident enough
  for (const g of all) {
    if (g.confidence < top.confidence * TIE) break;
    const mapped = g.encoding ? SINGLE[g.encoding.toLowerCase()] : undefined;
    if (!mapped) continue;
    if (mapped === 'windows-1252' ? !western : g.confidence < MIN_SINGLE_CONFIDENCE || western || highBytes < MIN_SINGLE_EVIDENCE || !leads(all, g)) continue;
    if (await roundTrips(codec, bytes, mapped)) return mapped;
  }
  // short Western text scores near zero for every code page (`x = "é"`: 0.003); it is taken as windows-1252 only
  // when jschardet ranks a Western code page at all and the bytes read as Western text
  const ranked = all.slice(0, 5).some((g) => g.encoding && SINGLE[g.encoding.toLowerCase()] === 'windows-1252');
  if (ranked && western && inWords(bytes) && (await roundTrips(codec, bytes, 'windows-1252'))) return 'windows-1252';
  return undefined;
}

/**
 * High bytes of Western text in windows-1252: letters from 0xC0 (À-ÿ, not × ÷), the punctuation such text uses
 * (NBSP ¡ £ § © « ® ° · » ¿), and of 0x80-0x9F only € … ‘ ’ “ ” • – — ™ Š š Œ œ Ž ž Ÿ. Not ƒ ‚ „ ˆ ‹ ›: those are
 * what Shift_JIS lead bytes read as (0x82 hiragana, 0x83 katakana: `"ア"` reads `"ƒA"`).
 */
const WESTERN_80 = new Set([0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x99, 0x8a, 0x9a, 0x8c, 0x9c, 0x8e, 0x9e, 0x9f]);
const WESTERN_A0 = new Set([0xa0, 0xa1, 0xa3, 0xa7, 0xa9, 0xab, 0xae, 0xb0, 0xb7, 0xbb, 0xbf]);
const westernLetter = (b: number) => b >= 0xc0 && b !== 0xd7 && b !== 0xf7;

/**
 * Do the bytes read as Western European text in windows-1252? Every byte ≥ 0x80 is one of the above, and at most
 * two stand together, both letters: accented letters sit between ASCII ones ("Grüße", "ção"), while Cyrillic, Greek
 * or Japanese put whole words in high bytes ("Привет" in windows-1251 reads "Ïðèâåò": a run of six; Shift_JIS "日"
 * reads "“ú").
 */
function looksWestern(bytes: Uint8Array): boolean {
  let run = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x80) {
      run = 0;
      continue;
    }
    if (++run > 2) return false;
    if (run === 2 && !(westernLetter(b) && westernLetter(bytes[i - 1]))) return false;
    if (!(westernLetter(b) || WESTERN_80.has(b) || WESTERN_A0.has(b))) return false;
  }
  return true;
}

/** Each byte ≥ 0x80 touches an ASCII letter (an accent inside a word): a lone `ñ` may as well be Cyrillic `с`. */
function inWords(bytes: Uint8Array): boolean {
  const letter = (b: number | undefined) => b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] < 0x80) continue;
    let j = i;
    while (j < bytes.length && bytes[j] >= 0x80) j++;
    if (!letter(bytes[i - 1]) && !letter(bytes[j])) return false;
    i = j - 1;
  }
  return true;
}

/** The canonical name of `name`, or undefined when it is not an encoding we edit. */
export function normalizeEncoding(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const key = name.trim().toLowerCase();
  return ALIASES[key] ?? ALIASES[key.replace(/[-_\s]/g, '')];
}

export const SUPPORTED_ENCODINGS = [...new Set(Object.values(ALIASES))];

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  return undefined;
}

/** The encoding to edit `bytes` in: BOM, configured, UTF-8, guess; undefined when nothing fits (not text?). */
export async function detectEncoding(codec: TextCodec, bytes: Uint8Array, configured?: string): Promise<string | undefined> {
  const bom = bomEncoding(bytes);
  if (bom) return bom;
  const conf = normalizeEncoding(configured);
  if (conf) return conf;
  if (isUtf8(bytes)) return 'utf8';
  // NUL bytes without a UTF-16 BOM: binary, not a legacy text (the text checks refuse it)
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0) !== -1) return undefined;
  return guessEncoding(codec, bytes);
}

/** Is this a store-level decode (anything but UTF-8)? */
export function isLegacy(encoding: string | undefined): encoding is string {
  return encoding !== undefined && encoding !== 'utf8';
}

/** `bytes` in `encoding` → UTF-8, refusing a file that would not be written back byte for byte. */
export async function decodeLossless(codec: TextCodec, bytes: Uint8Array, encoding: string, label: string): Promise<Buffer> {
  const text = await codec.decode(bytes, encoding);
  const back = await codec.encode(text, encoding);
  if (!back.equals(bytes)) {
    let at = 0;
    while (at < back.length && at < bytes.length && back[at] === bytes[at]) at++;
    throw new ToolError(
      'encoding',
      `${label} is not valid ${encoding}: the bytes at offset ${at} do not survive decoding and encoding again, so an edit ` +
        `would change lines it does not touch; nothing was changed. If the file is in another encoding, say which ` +
        '(VS Code: files.encoding; CLI: --encoding "GLOB=NAME").',
      { offset: at, encoding },
    );
  }
  return Buffer.from(text, 'utf8');
}

/** `firstLine`: the file line the text starts on, for the message. */
async function representable(codec: TextCodec, text: string, encoding: string, label: string, firstLine = 1): Promise<Buffer> {
  const bytes = await codec.encode(text, encoding);
  const back = await codec.decode(bytes, encoding);
  if (back === text) return bytes;
  // the first character that did not survive (iconv put a substitute in its place)
  let i = 0;
  while (i < text.length && text.charCodeAt(i) === back.charCodeAt(i)) i++;
  if (i > 0 && text.charCodeAt(i) >= 0xdc00 && text.charCodeAt(i) <= 0xdfff) i--;
  const ch = String.fromCodePoint(text.codePointAt(Math.min(i, text.length - 1)) ?? 0xfffd);
  const cp = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  throw new ToolError(
    'encoding',
    `${label}: "${ch}" (U+${cp}, line ${firstLine - 1 + lineAtIndex(text, i)}) cannot be written in ${encoding}, the file's encoding; ` +
      'nothing was written. Use characters the encoding has (or an escape such as \\u' + cp + ' where the language allows).',
    { encoding, codePoint: cp },
  );
}

/** Moves `i` back to the start of the UTF-8 character it falls in. */
function charStart(b: Buffer, i: number): number {
  while (i > 0 && i < b.length && (b[i] & 0xc0) === 0x80) i--;
  return i;
}

/**
 * The new bytes on disk: the old file's bytes for the unchanged head and tail (same characters, so the same
 * bytes in a stateless encoding — checked), the encoded changed middle between them.
 */
export async function encodeEdited(codec: TextCodec, oldRaw: Uint8Array | null, oldUtf8: Buffer | null, newUtf8: Buffer, encoding: string, label: string): Promise<Buffer> {
  if (!oldRaw || !oldUtf8) return await representable(codec, newUtf8.toString('utf8'), encoding, label);
  const raw = Buffer.from(oldRaw.buffer, oldRaw.byteOffset, oldRaw.byteLength);
  const max = Math.min(oldUtf8.length, newUtf8.length);
  const p = charStart(oldUtf8, commonPrefixLength(oldUtf8, newUtf8));
  let s = commonSuffixLength(oldUtf8, newUtf8, max - p);
  // the suffix starts on a character boundary of the old text
  while (s > 0 && (oldUtf8[oldUtf8.length - s] & 0xc0) === 0x80) s--;
  const head = await codec.encodeUtf8(oldUtf8.subarray(0, p), encoding);
  const tail = await codec.encodeUtf8(oldUtf8.subarray(oldUtf8.length - s), encoding);
  if (!raw.subarray(0, head.length).equals(head) || head.length + tail.length > raw.length || !raw.subarray(raw.length - tail.length).equals(tail)) {
    throw new ToolError('encoding', `${label}: the unchanged lines would not keep their bytes in ${encoding}; nothing was written.`, { encoding });
  }
  const firstLine = lineAtByte(oldUtf8, p);
  const middle = await representable(codec, newUtf8.toString('utf8', p, newUtf8.length - s), encoding, label, firstLine);
  return Buffer.concat([head, middle, tail]);
}

const CMP = 64 * 1024;

/** Length of the common prefix of a and b: memcmp per 64 KiB, then bytes (a JS byte loop over 8 MB took ~100 ms). */
function commonPrefixLength(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i + CMP <= limit && a.compare(b, i, i + CMP, i, i + CMP) === 0) i += CMP;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

/** Length of the common suffix of a and b, at most `limit`. */
function commonSuffixLength(a: Buffer, b: Buffer, limit: number): number {
  let n = 0;
  while (n + CMP <= limit && a.compare(b, b.length - n - CMP, b.length - n, a.length - n - CMP, a.length - n) === 0) n += CMP;
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}
