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
}

export interface RecordResult {
  id: string;
  /** upstream-compatible eviction warning, when an old snapshot was evicted */
  queue_full?: string;
}

export interface RollbackResult {
  status: 'ok' | 'partial';
  rolled_back: number;
  restored: { id: string; file: string; action: 'restored' | 'deleted' }[];
  errors?: string[];
  /** ours: set when rollback stopped because a file changed since its snapshot (retry with force: true) */
  conflict?: { id: string; file: string; expected_hash: string; actual_hash: string | null };
}

export interface EditHistory {
  record(input: EditRecordInput): Promise<RecordResult>;
  /** Undo the newest `step` snapshots, newest first; refuses a file changed since its snapshot unless `force`. */
  rollback(step: number, force: boolean): Promise<RollbackResult>;
  commit(): Promise<{ committed: number }>;
  status(): Promise<{
    queue: { used: number; max: number; bytes: number; max_bytes: number };
    snapshots: SnapshotSummary[]; // newest first
  }>;
}
