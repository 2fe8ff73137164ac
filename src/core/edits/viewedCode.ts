/**
 * viewed_code_id: a be-read hands out an id bound to what the agent saw — the file, the line range, the total,
 * and the hash of every byte from the top of the file to the end of the range. be-replace
 * with that id refuses to edit unless the prefix hash still matches, i.e. neither the range nor anything above
 * it changed (edits below the range are harmless). Upstream only warned, and only when the file got shorter.
 * The id carries its own short record (file tag, range, total, truncated hashes, hour), so it survives a server restart; the
 * bounded in-memory map only caches the lines as read, for a line diff in the conflict message. A read from line 1 (a
 * whole file, a first page) gets a shorter `w` id: one hash of the name and the bytes read, its end and its hour.
 */
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../clock';
import { prefixSha256, sha256Hex } from '../util/sha256';
import type { TextBuffer } from '../text/lines';

export interface ViewedRecord {
  id: string;
  /** The file as the sandbox displays it (root-relative); '' for an id decoded after a restart (see fileTag). */
  file: string;
  /** fileTag(file): what an id carries of the file's name. */
  fileTag: string;
  start: number; // 0 for an empty file
  end: number;
  total: number;
  /** sha256 of bytes [0, end of line `end`), first 4 bytes in hex. */
  prefixHash: string;
  /** sha256 of the range's own bytes, first 3 bytes in hex: tells "the range changed" from "lines above changed". */
  rangeHash: string;
  /** Bytes of the range (to find where the text went after lines were inserted above). */
  rangeBytes: number;
  /** The lines as read (kept when small, in this process only) so a conflict can show a line diff. */
  lines?: string[];
  created: number;
  /**
   * Set when the read started at line 1 (a whole file, a first page): the id is then this hash (of the name and the
   * bytes up to the end of line `end`), `end` and the hour, a `w` id of ~7 tokens. Nothing is above such a range,
   * so the prefix hash is the range hash and the file tag is folded into it.
   */
  topHash?: string;
}

export interface ViewedRegistryOptions {
  clock?: Clock;
  ttlMs?: number; // default 24 h, as upstream
  maxRecords?: number; // default 2000 (cache of issued records with their lines)
  maxKeptLineBytes?: number; // keep `lines` for ranges up to this many bytes (default 64 KiB)
}

/** 4 bytes of the prefix sha256: a changed file passes by chance once in 4e9 edits (and then only if its range hash also matches). */
const PREFIX_HEX = 8;
const RANGE_HEX = 6;
/** 2 bytes of the file name's sha256: another file is refused by this tag or, failing that, by its prefix hash. */
const FILE_TAG_HEX = 4;
const ID_VERSION = 'v2.';
/** A read from line 1: `w` + the decimal digits of [2, hour (2 bytes), end (varint), topHash (4 bytes)]. */
const TOP_PREFIX = 'w';
const TOP_HEX = 8;
/** `created` is kept in hours modulo 2^16 (7.4 years): enough to expire an id after the 24 h TTL. */
const HOUR_MS = 3600 * 1000;
const HOURS_MOD = 0x10000;

/** The bytes from the top of the file to the end of line `end` (the whole file when it is empty). */
export function prefixBytes(doc: TextBuffer, end: number): Buffer {
  if (doc.lineCount === 0 || end < 1) return doc.bytes.subarray(0, doc.bytes.length);
  return doc.bytes.subarray(0, doc.lineEnd(end));
}

/** The prefix hash as stored in an id (the first 4 bytes of the sha256). */
export async function prefixDigest(doc: TextBuffer, end: number): Promise<string> {
  return (await prefixSha256(doc, doc.bytes, prefixBytes(doc, end).length)).slice(0, PREFIX_HEX);
}

/** The range hash as stored in an id; '' for an empty file or range. */
export function rangeDigest(doc: TextBuffer, start: number, end: number): string {
  if (doc.lineCount === 0 || start < 1 || end < start || end > doc.lineCount) return '';
  return sha256Hex(doc.bytes.subarray(doc.lineStart(start), doc.lineEnd(end))).slice(0, RANGE_HEX);
}

/** The tag of a file's display name as stored in an id. */
export function fileTag(file: string): string {
  return createHash('sha256').update(file, 'utf8').digest('hex').slice(0, FILE_TAG_HEX);
}

/** The hash a `w` id stores: sha256 of the display name, a NUL and the bytes to the end of line `end`, first 4 bytes. */
export async function topDigest(file: string, doc: TextBuffer, end: number): Promise<string> {
  return (await prefixSha256(doc, doc.bytes, prefixBytes(doc, end).length, file + '\0')).slice(0, TOP_HEX);
}

/**
 * Whether an id's record names this file: by name when it was issued in this process, else by its tag; a decoded
 * `w` id carries no tag (its hash covers the name, and is checked against the file).
 */
export function viewedFileMatches(rec: ViewedRecord, display: string): boolean {
  if (rec.file) return rec.file === display;
  return rec.topHash !== undefined || rec.fileTag === fileTag(display);
}

function writeVarint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

function readVarint(buf: Buffer, at: { i: number }): number | undefined {
  let n = 0;
  let scale = 1;
  for (let k = 0; k < 8 && at.i < buf.length; k++) {
    const b = buf[at.i++]!;
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 0x80;
  }
  return undefined;
}

/**
 * A short self-describing id (about 17 tokens; v1 was ~120): `v2.` + the decimal digits (3 per token, cheaper than base64) of varints (start, end - start,
 * total - end, range bytes, created hour) and truncated hashes (file tag, prefix, range). A server started later
 * accepts it without any state: the hashes are checked against the file as it is now, so a forged or edited id
 * can only claim contents that the file must really have.
 */
export function encodeViewedId(rec: Omit<ViewedRecord, 'id' | 'lines' | 'fileTag'>): string {
  const out: number[] = [];
  writeVarint(out, rec.start);
  writeVarint(out, rec.end - rec.start);
  writeVarint(out, rec.total - rec.end);
  writeVarint(out, rec.rangeBytes);
  const hour = hourOf(rec.created);
  out.push(hour >> 8, hour & 0xff);
  const hex = fileTag(rec.file) + rec.prefixHash + (rec.rangeHash || '000000');
  const bytes = Buffer.concat([Buffer.from([1]), Buffer.from(out), Buffer.from(hex, 'hex')]); // leading 1: keeps leading zeros
  return ID_VERSION + BigInt('0x' + bytes.toString('hex')).toString(10);
}

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) % HOURS_MOD;

/** The latest time consistent with an id's hour (at most `now`). */
function createdFromHour(hour: number, now: number): number {
  const nowHour = Math.floor(now / HOUR_MS);
  const ageHours = (((nowHour - hour) % HOURS_MOD) + HOURS_MOD) % HOURS_MOD;
  return Math.min(now, (nowHour - ageHours + 1) * HOUR_MS - 1);
}

/** The `w` id of a read of lines 1..end (0 for an empty file). */
export function encodeTopId(end: number, topHash: string, created: number): string {
  const hour = hourOf(created);
  const out = [2, hour >> 8, hour & 0xff];
  writeVarint(out, end);
  const bytes = Buffer.concat([Buffer.from(out), Buffer.from(topHash, 'hex')]);
  return TOP_PREFIX + BigInt('0x' + bytes.toString('hex')).toString(10);
}

/** A `w` id's record; `total` is not in it, so it is taken as `end` (the messages of a decoded id say no more). */
function decodeTopId(id: string, now: number): ViewedRecord | undefined {
  const body = id.slice(TOP_PREFIX.length);
  if (!/^[1-9][0-9]{0,40}$/.test(body)) return undefined;
  let hex = BigInt(body).toString(16);
  if (hex.length % 2) hex = '0' + hex;
  const buf = Buffer.from(hex, 'hex');
  if (buf[0] !== 2 || buf.length < 3) return undefined;
  const at = { i: 3 };
  const end = readVarint(buf, at);
  if (end === undefined || buf.length - at.i !== TOP_HEX / 2) return undefined;
  const hour = (buf[1]! << 8) | buf[2]!;
  return {
    id,
    file: '',
    fileTag: '',
    start: end === 0 ? 0 : 1,
    end,
    total: end,
    prefixHash: '',
    rangeHash: '',
    rangeBytes: 0,
    created: createdFromHour(hour, now),
    topHash: buf.subarray(at.i).toString('hex'),
  };
}

/** The record of an id; `created` is the latest time consistent with its hour (at most `now`). */
export function decodeViewedId(id: string, now: number = Date.now()): ViewedRecord | undefined {
  if (id.startsWith(TOP_PREFIX)) return decodeTopId(id, now);
  if (!id.startsWith(ID_VERSION) || id.length > 80) return undefined;
  const body = id.slice(ID_VERSION.length);
  if (!/^[1-9][0-9]*$/.test(body)) return undefined;
  let hexBody = BigInt(body).toString(16);
  if (hexBody.length % 2) hexBody = '0' + hexBody;
  const buf = Buffer.from(hexBody, 'hex');
  if (buf[0] !== 1) return undefined;
  const at = { i: 1 };
  const start = readVarint(buf, at);
  const span = readVarint(buf, at);
  const rest = readVarint(buf, at);
  const rangeBytes = readVarint(buf, at);
  if (start === undefined || span === undefined || rest === undefined || rangeBytes === undefined) return undefined;
  const hashBytes = (FILE_TAG_HEX + PREFIX_HEX + RANGE_HEX) / 2;
  if (buf.length - at.i !== 2 + hashBytes) return undefined;
  const hour = (buf[at.i]! << 8) | buf[at.i + 1]!;
  const hex = buf.subarray(at.i + 2).toString('hex');
  const end = start + span;
  const rangeHash = start >= 1 && end >= start && rangeBytes > 0 ? hex.slice(FILE_TAG_HEX + PREFIX_HEX) : '';
  return {
    id,
    file: '',
    fileTag: hex.slice(0, FILE_TAG_HEX),
    start,
    end,
    total: end + rest,
    prefixHash: hex.slice(FILE_TAG_HEX, FILE_TAG_HEX + PREFIX_HEX),
    rangeHash,
    rangeBytes,
    created: createdFromHour(hour, now),
  };
}

export class ViewedCodeRegistry {
  private readonly records = new Map<string, ViewedRecord>();
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly maxRecords: number;
  private readonly maxKeptLineBytes: number;

  constructor(opts: ViewedRegistryOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.ttlMs = opts.ttlMs ?? 24 * 3600 * 1000;
    this.maxRecords = opts.maxRecords ?? 2000;
    this.maxKeptLineBytes = opts.maxKeptLineBytes ?? 64 * 1024;
  }

  /** `file` is the sandbox's display name of the file (root-relative). */
  async issue(file: string, doc: TextBuffer, start: number, end: number): Promise<ViewedRecord> {
    const prefix = prefixBytes(doc, end);
    const rangeSize = start >= 1 && doc.lineCount > 0 ? prefix.length - doc.lineStart(start) : 0;
    const created = this.clock.now();
    const lines = rangeSize <= this.maxKeptLineBytes && start >= 1 && doc.lineCount > 0 ? doc.lines(start, end) : undefined;
    let rec: ViewedRecord;
    if (start <= 1) {
      const topHash = await topDigest(file, doc, end);
      rec = { id: encodeTopId(end, topHash, created), file, fileTag: fileTag(file), start, end, total: doc.lineCount, prefixHash: '', rangeHash: '', rangeBytes: rangeSize, created, topHash, lines };
    } else {
      const base = { file, start, end, total: doc.lineCount, prefixHash: await prefixDigest(doc, end), rangeHash: rangeDigest(doc, start, end), rangeBytes: rangeSize, created };
      rec = { id: encodeViewedId(base), ...base, fileTag: fileTag(file), lines };
    }
    this.records.delete(rec.id);
    this.records.set(rec.id, rec);
    while (this.records.size > this.maxRecords) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
    return rec;
  }

  /**
   * The record: from the cache (with the lines as read) or decoded from the id itself (an id from an
   * earlier process); undefined when malformed or expired.
   */
  get(id: string): ViewedRecord | undefined {
    const rec = this.records.get(id) ?? decodeViewedId(id, this.clock.now());
    if (!rec) return undefined;
    if (this.clock.now() - rec.created > this.ttlMs) {
      this.records.delete(id);
      return undefined;
    }
    return rec;
  }

  get size(): number {
    return this.records.size;
  }
}
