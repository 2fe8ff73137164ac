/**
 * Edit history for be-trx. A snapshot is an inverse byte splice, not a full copy of the file:
 * undoing an edit means putting `removed` back at `offset` in place of `insertedLength` bytes,
 * after checking the file still hashes to `afterHash` (otherwise it changed since: a conflict).
 */
export interface EditRecordInput {
  tool: string;
  file: string; // absolute, sandbox-resolved
  summary: string; // e.g. "be-replace on src/a.ts lines 4-6"
  /** true when the edit created the file (rollback deletes it) */
  created: boolean;
  /** byte offset of the change in the old file */
  offset: number;
  /** the old bytes at offset that the edit removed */
  removed: Buffer;
  /** how many bytes the edit put at offset */
  insertedLength: number;
  /** hash (hex) of the whole file after the edit */
  afterHash: string;
  afterSize: number;
  /**
   * Snapshots recorded with the same group (one be-apply batch, one snapshot per file) are one step of
   * be-trx rollback: `step: 1` undoes them all.
   */
  group?: string;
  /** who made it (default: the session whose tool call is running, see author.ts) */
  author?: { session: string; client?: string };
  /** the chip that keeps the text this edit deleted */
  chipId?: string;
}

export interface SnapshotSummary {
  id: string; // 6 hex, as upstream's event_id
  seq: number;
  tool: string;
  file: string;
  summary: string;
  created_at: number; // Unix seconds
  created_ms: number;
  bytes: number; // storage cost of this snapshot
  /** the client and session that made the edit, when recorded */
  by?: string;
  /** the chip holding the text this edit deleted */
  chip_id?: string;
}

export interface RecordResult {
  id: string;
  /** upstream-compatible eviction warning, when an old snapshot was evicted */
  queue_full?: string;
}

/** recordGroup(): the snapshots of one batch, recorded as one history step. */
export interface GroupRecordResult {
  ids: string[];
  queue_full?: string;
}

export interface RollbackResult {
  status: 'ok' | 'partial';
  rolled_back: number;
  /** chip_id: the undone edit was a deletion whose text that chip holds (the chip is kept) */
  restored: { id: string; file: string; action: 'restored' | 'deleted'; chip_id?: string }[];
  errors?: string[];
  /** ours: set when rollback stopped because a file changed since its snapshot (retry with force: true) */
  conflict?: { id: string; file: string; expected_hash: string; actual_hash: string | null };
}

export interface EditHistory {
  record(input: EditRecordInput): Promise<RecordResult>;
  /** Records one batch's snapshots (all with the same `group`) together, as one step that is evicted whole. */
  recordGroup?(inputs: readonly EditRecordInput[]): Promise<GroupRecordResult>;
  /** Undo the newest `step` snapshots, newest first; refuses a file changed since its snapshot unless `force`. */
  rollback(step: number, force: boolean): Promise<RollbackResult>;
  commit(): Promise<{ committed: number }>;
  /** A write's conflict error with the session that changed the file named (review.ts); other errors as they are. */
  explainConflict?(err: unknown, file: string): Promise<unknown>;
  /** be-trx keep / revert of one edit (`id`) or revert of a whole `session` (review.ts). */
  review?(args: { action: 'keep' | 'revert'; id?: string; session?: string }): Promise<object>;
  status(): Promise<{
    /** used and max count history steps (a be-apply batch is one), not snapshots */
    queue: { used: number; max: number; bytes: number; max_bytes: number };
    snapshots: SnapshotSummary[]; // newest first
    /** edits other sessions made to files this session edited too (see review.ts otherSessions) */
    other_sessions?: OtherSessionEdit[];
  }>;
}

/** An edit of another MCP session on a file the calling session edited too (be-trx status). */
export interface OtherSessionEdit {
  id: string;
  file: string;
  summary: string;
  by: string;
  created_ms: number;
}
