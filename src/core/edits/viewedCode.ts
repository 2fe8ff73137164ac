/**
 * viewed_code_id: a be-read hands out an id bound to what the agent saw — the file, the line range, the total,
 * and the hash of every byte from the top of the file to the end of the range. be-replace
 * with that id refuses to edit unless the prefix hash still matches, i.e. neither the range nor anything above
 * it changed (edits below the range are harmless). Upstream only warned, and only when the file got shorter.
 * Records live in a bounded map with a TTL.
 */
import { createHash, randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock';
import { sha256Parts } from './hasher';
import type { TextBuffer } from '../text/lines';

export interface ViewedRecord {
  id: string;
  file: string; // absolute, sandbox-resolved
  start: number; // 0 for an empty file
  end: number;
  total: number;
  prefixHash: string; // sha256 of bytes [0, end of line `end`)
  /** The lines as read (kept when small) so a conflict can say what changed and where the text went. */
  lines?: string[];
  created: number;
}

export interface ViewedRegistryOptions {
  clock?: Clock;
  ttlMs?: number; // default 24 h, as upstream
  maxRecords?: number; // default 2000
  maxKeptLineBytes?: number; // keep `lines` for ranges up to this many bytes (default 64 KiB)
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The bytes from the top of the file to the end of line `end` (the whole file when it is empty). */
export function prefixBytes(doc: TextBuffer, end: number): Buffer {
  if (doc.lineCount === 0 || end < 1) return doc.bytes.subarray(0, doc.bytes.length);
  return doc.bytes.subarray(0, doc.lineEnd(end));
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

  async issue(file: string, doc: TextBuffer, start: number, end: number): Promise<ViewedRecord> {
    const prefix = prefixBytes(doc, end);
    const rangeSize = start >= 1 && doc.lineCount > 0 ? prefix.length - doc.lineStart(start) : 0;
    const rec: ViewedRecord = {
      id: randomUUID(),
      file,
      start,
      end,
      total: doc.lineCount,
      prefixHash: await sha256Parts(prefix),
      lines: rangeSize <= this.maxKeptLineBytes && start >= 1 ? doc.lines(start, end) : undefined,
      created: this.clock.now(),
    };
    this.records.set(rec.id, rec);
    while (this.records.size > this.maxRecords) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
    return rec;
  }

  /** The record, or undefined when unknown or expired (expired records are dropped). */
  get(id: string): ViewedRecord | undefined {
    const rec = this.records.get(id);
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
