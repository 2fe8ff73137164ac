/**
 * The on-disk form of one snapshot: `snap-<seq>-<id>.json` (metadata, and the removed bytes in base64 when small)
 * plus `snap-<seq>-<id>.bin` when they are large. Parsing checks every field (a corrupt or foreign file is skipped,
 * never trusted). Reading a snapshot's removed bytes is node/snapshotBytes.ts.
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

/** A snapshot in the in-memory queue: its metadata (without the inline bytes) and where its files are. */
export interface Entry {
  meta: Omit<SnapshotFile, 'removed_b64'>;
  jsonName: string;
  binName?: string;
  /** storage cost: the JSON plus the sidecar */
  bytes: number;
}

export function labelOf(entry: Entry): string {
  return `snapshot ${entry.meta.id} (${entry.meta.summary})`;
}

/** The entry for `text`, the content of `name`, or a reason it is not a valid snapshot record. */
export function parseSnapshot(name: string, id: string, seq: number, text: string, present: ReadonlySet<string>): Entry | string {
  let raw: SnapshotFile;
  try {
    raw = JSON.parse(text) as SnapshotFile;
  } catch (err) {
    return `invalid JSON (${errorText(err)})`;
  }
  const ok =
    raw && (raw.v === 1 || (raw.v === 2 && typeof raw.workspace === 'string')) && raw.id === id && raw.seq === seq && typeof raw.file === 'string' && typeof raw.tool === 'string' &&
    typeof raw.summary === 'string' && typeof raw.created === 'boolean' && Number.isSafeInteger(raw.offset) &&
    Number.isSafeInteger(raw.inserted_length) && typeof raw.after_hash === 'string' && Number.isSafeInteger(raw.removed_length) &&
    (typeof raw.removed_b64 === 'string' || (typeof raw.removed_file === 'string' && present.has(raw.removed_file)));
  if (!ok) return 'not a valid snapshot record';
  const { removed_b64, ...meta } = raw;
  const binName = removed_b64 === undefined ? raw.removed_file : undefined;
  return {
    meta,
    jsonName: name,
    ...(binName ? { binName } : {}),
    bytes: Buffer.byteLength(text) + (binName ? raw.removed_length : 0),
  };
}
