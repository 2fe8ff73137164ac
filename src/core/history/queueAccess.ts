/**
 * What review.ts sees of the snapshot queue while HistoryStore.withQueue holds its lock: the entries (oldest
 * first), their removed bytes on demand, and the two changes a review makes (record a revert, drop a snapshot).
 */
import type { Buffer } from 'node:buffer';
import type { FileStore } from '../files/fileStore';
import type { EditAuthor } from './author';
import type { RollbackTargets } from './targets';
import type { EditRecordInput, RecordResult } from './types';

/** The fields of a snapshot that its record on disk (store.ts SnapshotFile) and a queue entry share. */
export interface SnapshotFields {
  id: string;
  seq: number;
  tool: string;
  file: string;
  summary: string;
  created: boolean;
  offset: number;
  inserted_length: number;
  removed_length: number;
  after_hash: string;
  after_size: number;
  created_ms: number;
  /** the MCP session and client that made the edit (absent in older records) */
  session?: string;
  client?: string;
  /** the chip that holds the text this edit deleted */
  chip_id?: string;
}

export interface QueueEntry extends SnapshotFields {
  loadRemoved(): Promise<Buffer>;
}

export interface QueueAccess {
  /** this workspace's snapshots, oldest first */
  readonly entries: readonly QueueEntry[];
  readonly files: FileStore;
  /** checks a file at the moment it is read or written (and removes a confirmed one) */
  readonly targets: RollbackTargets;
  /** the session whose call is running, if any */
  readonly author?: EditAuthor;
  record(input: EditRecordInput): Promise<RecordResult>;
  /** forgets one snapshot (its files are deleted); false when it was not in the queue. `undone`: a revert undid it */
  drop(id: string, undone?: boolean): Promise<boolean>;
}
