/**
 * viewed_code_id: a be-read hands out an id bound to what the agent saw — the file, the line range, the total,
 * and the hash of every byte from the top of the file to the end of the range. be-replace
 * with that id refuses to edit unless the prefix hash still matches, i.e. neither the range nor anything above
 * it changed (edits below the range are harmless). Upstream only warned, and only when the file got shorter.
 * The id carries its own record (file, range, total, hashes, time), so it survives a server restart; the
 * bounded in-memory map only caches the lines as read, for a line diff in the conflict message.
 */
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../clock';
import { sha256Parts } from './hasher';
import type { TextBuffer } from '../text/lines';

export interface ViewedRecord {
  id: string;
  /** The file as the sandbox displays it (root-relative): stable across restarts, unlike a cache key. */
  file: string;
  start: number; // 0 for an empty file
  end: number;
  total: number;
  /** sha256 of bytes [0, end of line `end`), first 16 bytes in hex. */
  prefixHash: string;
  /** sha256 of the range's own bytes, first 8 bytes in hex: tells "the range changed" from "lines above changed". */
  rangeHash: string;
  /** Bytes of the range (to find where the text went after lines were inserted above). */
  rangeBytes: number;
  /** The lines as read (kept when small, in this process only) so a conflict can show a line diff. */
  lines?: string[];
  created: number;
}

export interface ViewedRegistryOptions {
  clock?: Clock;
  ttlMs?: number; // default 24 h, as upstream
  maxRecords?: number; // default 2000 (cache of issued records with their lines)
  maxKeptLineBytes?: number; // keep `lines` for ranges up to this many bytes (default 64 KiB)
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const PREFIX_HEX = 32;
const RANGE_HEX = 16;
const ID_VERSION = 'v1.';

/** The bytes from the top of the file to the end of line `end` (the whole file when it is empty). */
export function prefixBytes(doc: TextBuffer, end: number): Buffer {
  if (doc.lineCount === 0 || end < 1) return doc.bytes.subarray(0, doc.bytes.length);
  return doc.bytes.subarray(0, doc.lineEnd(end));
}

/** The prefix hash as stored in an id (the first 16 bytes of the sha256). */
export async function prefixDigest(doc: TextBuffer, end: number): Promise<string> {
  return (await sha256Parts(prefixBytes(doc, end))).slice(0, PREFIX_HEX);
}

/** The range hash as stored in an id; '' for an empty file or range. */
export function rangeDigest(doc: TextBuffer, start: number, end: number): string {
  if (doc.lineCount === 0 || start < 1 || end < start || end > doc.lineCount) return '';
  return sha256(doc.bytes.subarray(doc.lineStart(start), doc.lineEnd(end))).slice(0, RANGE_HEX);
}

interface IdPayload {
  f: string;
  s: number;
  e: number;
  t: number;
  p: string;
  r: string;
  b: number;
  c: number;
}

/**
 * A self-describing id: `v1.` + base64url(JSON) of the file, range, total, hashes and time. A server
 * started later accepts it without any state: the hashes are checked against the file as it is now, so
 * a forged or edited id can only claim contents that the file must really have.
 */
export function encodeViewedId(rec: Omit<ViewedRecord, 'id' | 'lines'>): string {
  const payload: IdPayload = { f: rec.file, s: rec.start, e: rec.end, t: rec.total, p: rec.prefixHash, r: rec.rangeHash, b: rec.rangeBytes, c: rec.created };
  return ID_VERSION + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

export function decodeViewedId(id: string): ViewedRecord | undefined {
  if (!id.startsWith(ID_VERSION) || id.length > 8192) return undefined;
  try {
    const p = JSON.parse(Buffer.from(id.slice(ID_VERSION.length), 'base64url').toString('utf8')) as Partial<IdPayload>;
    const int = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (typeof p.f !== 'string' || !int(p.s) || !int(p.e) || !int(p.t) || !int(p.b) || !int(p.c)) return undefined;
    if (typeof p.p !== 'string' || !/^[0-9a-f]{32}$/.test(p.p) || typeof p.r !== 'string' || !/^(|[0-9a-f]{16})$/.test(p.r)) return undefined;
    return { id, file: p.f, start: p.s, end: p.e, total: p.t, prefixHash: p.p, rangeHash: p.r, rangeBytes: p.b, created: p.c };
  } catch {
    return undefined;
  }
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
    const base = {
      file,
      start,
      end,
      total: doc.lineCount,
      prefixHash: await prefixDigest(doc, end),
      rangeHash: rangeDigest(doc, start, end),
      rangeBytes: rangeSize,
      created: this.clock.now(),
    };
    const rec: ViewedRecord = {
      id: encodeViewedId(base),
      ...base,
      lines: rangeSize <= this.maxKeptLineBytes && start >= 1 ? doc.lines(start, end) : undefined,
    };
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
    const rec = this.records.get(id) ?? decodeViewedId(id);
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
