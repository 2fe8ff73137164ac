/**
 * The on-disk form of one snapshot: `snap-<seq>-<id>.json` (metadata, and the removed bytes in base64 when small)
 * plus `snap-<seq>-<id>.bin` when they are large. A be-apply batch is one file (v 3, `parts`: one v 2 record per
 * file, named after its first part (or a part that left before it); a large part's bytes still in its own `.bin`): one write per batch, not one
 * per file. Parsing checks every field (a corrupt or foreign file is skipped, never trusted). Reading a snapshot's
 * removed bytes is node/snapshotBytes.ts.
 */
import { Buffer } from 'node:buffer';
import { errorText } from '../errors';
import type { SnapshotFields } from './queueAccess';

/** Removed bytes up to this size go inline (base64) in the JSON; larger ones in a sidecar .bin file. */
export const INLINE_REMOVED_MAX = 64 * 1024;

/** 12 digits zero-padded; more once the seq outgrows them (up to Number.MAX_SAFE_INTEGER, 16 digits). */
export const FILE_PATTERN = /^snap-(\d{12,16})-([0-9a-f]{6}|[0-9a-f]{12})\.(json|bin)$/;

/** The name both files of a snapshot start with; the zero-padded seq makes a readdir sort the queue. */
export function snapshotBase(seq: number, id: string): string {
  return `snap-${String(seq).padStart(12, '0')}-${id}`;
}

export interface SnapshotFile extends SnapshotFields {
  /** 2: carries `workspace`. 1 (older servers): no workspace, adopted when its file lies inside our roots. */
  v: 1 | 2;
  /** workspaceKey() of the roots of the server that recorded it */
  workspace?: string;
  removed_b64?: string;
  removed_file?: string;
  created_at: number;
  /** one be-apply batch: its snapshots are one history step (steps.ts) */
  group?: string;
}

/** A be-apply batch's snapshots in one file: each part a v 2 record of the same workspace and group. */
export interface GroupSnapshotFile {
  v: 3;
  workspace: string;
  group: string;
  parts: SnapshotFile[];
}

/** A snapshot in the in-memory queue: its metadata (without the inline bytes) and where its files are. */
export interface Entry {
  meta: Omit<SnapshotFile, 'removed_b64'>;
  jsonName: string;
  binName?: string;
  /** storage cost: the JSON (a batch file's share of it) plus the sidecar */
  bytes: number;
  /** one part of a batch's file (v 3): the file goes with its last part */
  shared?: true;
}

export function labelOf(entry: Entry): string {
  return `snapshot ${entry.meta.id} (${entry.meta.summary})`;
}

/** The entries of `name` (one, or a batch's parts), or a reason it is not a valid snapshot record. */
export function parseSnapshots(name: string, id: string, seq: number, text: string, present: ReadonlySet<string>): Entry[] | string {
  let raw: SnapshotFile | GroupSnapshotFile;
  try {
    raw = JSON.parse(text) as SnapshotFile | GroupSnapshotFile;
  } catch (err) {
    return `invalid JSON (${errorText(err)})`;
  }
  if (raw && raw.v === 3) {
    const { workspace, group, parts } = raw;
    // named after its first part (or after a part that left, when a crash came between the rewrite and the rename:
    // node/store.ts rewriteBatch); every part of the same workspace and group, in seq order
    const first = Array.isArray(parts) ? parts[0] : undefined;
    const named = first !== undefined && first !== null && (first.seq === seq ? first.id === id : Number.isSafeInteger(first.seq) && first.seq > seq);
    const ok =
      typeof workspace === 'string' && typeof group === 'string' && Array.isArray(parts) && named &&
      parts.every((p, i) => p && p.v === 2 && typeof p.id === 'string' && /^([0-9a-f]{6}|[0-9a-f]{12})$/.test(p.id) && Number.isSafeInteger(p.seq) && p.workspace === workspace && p.group === group && (i === 0 || p.seq > parts[i - 1]!.seq) && validRecord(p, p.id, p.seq, present));
    if (!ok) return 'not a valid batch snapshot record';
    const share = Math.ceil(Buffer.byteLength(text) / parts.length);
    return parts.map((p) => ({ ...entryOf(name, p, share), shared: true as const }));
  }
  if (!raw || !validRecord(raw, id, seq, present)) return 'not a valid snapshot record';
  return [entryOf(name, raw, Buffer.byteLength(text))];
}

function validRecord(raw: SnapshotFile, id: string, seq: number, present: ReadonlySet<string>): boolean {
  return (
    (raw.v === 1 || (raw.v === 2 && typeof raw.workspace === 'string')) && raw.id === id && raw.seq === seq && typeof raw.file === 'string' && typeof raw.tool === 'string' &&
    typeof raw.summary === 'string' && typeof raw.created === 'boolean' && Number.isSafeInteger(raw.offset) &&
    Number.isSafeInteger(raw.inserted_length) && typeof raw.after_hash === 'string' && Number.isSafeInteger(raw.removed_length) &&
    (typeof raw.removed_b64 === 'string' || (typeof raw.removed_file === 'string' && present.has(raw.removed_file)))
  );
}

function entryOf(name: string, raw: SnapshotFile, jsonBytes: number): Entry {
  const { removed_b64, ...meta } = raw;
  const binName = removed_b64 === undefined ? raw.removed_file : undefined;
  return { meta, jsonName: name, ...(binName ? { binName } : {}), bytes: jsonBytes + (binName ? raw.removed_length : 0) };
}
