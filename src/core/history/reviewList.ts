/**
 * The list a reviewer sees (VS Code's "Agent Edits" view): every recorded edit with its file, the lines it left
 * (in the file as it was right after it), how many lines it removed and added, its tool, session and time. Each
 * file is read once and walked back newest first (undoing in memory) so the inserted bytes of every edit are
 * known; a file changed outside these tools since is listed with what the snapshots alone say (`stale`).
 */
import { Buffer } from 'node:buffer';
import type { QueueAccess, QueueEntry } from './queueAccess';
import { applyInverse } from './splice';
import { sha256Hex } from '../util/sha256';
import { countLinesOfBytes, lineAtByte } from '../text/lineCount';

export interface ReviewItem {
  id: string;
  seq: number;
  file: string;
  tool: string;
  summary: string;
  session?: string;
  client?: string;
  created_ms: number;
  chip_id?: string;
  /** 1-based lines the edit left, right after it (endLine < startLine: it only removed lines) */
  startLine: number;
  endLine: number;
  added: number;
  removed: number;
  /** the file no longer holds what the newest recorded edit left: lines are estimates, revert will refuse */
  stale: boolean;
}

/** Newest first. */
export async function reviewList(q: QueueAccess): Promise<ReviewItem[]> {
  const byFile = new Map<string, QueueEntry[]>();
  for (const e of q.entries) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  const items: ReviewItem[] = [];
  for (const [file, edits] of byFile) {
    let bytes: Buffer | undefined = await q.files.read(file).then((c) => c.bytes, () => undefined);
    let stale = !bytes || sha256Hex(bytes) !== edits[edits.length - 1]!.after_hash;
    for (const e of [...edits].reverse()) {
      const removed = await e.loadRemoved().catch(() => Buffer.alloc(0));
      const inserted = !stale && bytes ? bytes.subarray(e.offset, e.offset + e.inserted_length) : undefined;
      const startLine = !stale && bytes ? lineAtByte(bytes, e.offset) : 1;
      const added = inserted ? countLinesOfBytes(inserted) : 0;
      items.push({
        id: e.id, seq: e.seq, file, tool: e.tool, summary: e.summary, created_ms: e.created_ms, startLine, endLine: startLine + added - 1,
        added, removed: e.created ? 0 : countLinesOfBytes(removed), stale,
        ...(e.session ? { session: e.session } : {}), ...(e.client ? { client: e.client } : {}), ...(e.chip_id ? { chip_id: e.chip_id } : {}),
      });
      if (!stale && bytes) {
        try {
          bytes = e.created ? undefined : applyInverse(bytes, { offset: e.offset, removed, insertedLength: e.inserted_length });
        } catch {
          stale = true;
        }
        if (bytes === undefined) stale = true;
      }
    }
  }
  return items.sort((a, b) => b.seq - a.seq);
}
