/**
 * The records worker's script (a worker thread of node/recordsPool.ts): it describes a batch of files' bytes as
 * the map's own thread would (fileRecords.ts described) and answers with the records as plain data
 * (recordData.ts). It reads nothing: the bytes come from the map's reader, which checked each file and knows the
 * editor's unsaved buffers. Bundled as `records-worker.js` beside the server bundle.
 */
import { Buffer } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { described, emptyRecord } from '../fileRecords';
import { toRecordData, type RecordData } from '../recordData';
import { resetNamePool } from '../nameCounts';

export interface RecordsJob {
  id: number;
  rels: string[];
  /** Every file's bytes one after the other; file i ends at ends[i]. */
  bytes: ArrayBuffer;
  ends: number[];
}

export type RecordsAnswer = { id: number; data: RecordData[] } | { id: number; error: string };

function answer(job: RecordsJob): RecordData[] {
  const all = Buffer.from(job.bytes);
  const out: RecordData[] = [];
  let start = 0;
  for (const [i, rel] of job.rels.entries()) {
    const end = job.ends[i]!;
    out.push(toRecordData(described(emptyRecord(rel), all.subarray(start, end))));
    start = end;
  }
  // the names go back to the map's thread, which shares them through its own pool: this one would only grow
  resetNamePool();
  return out;
}

parentPort!.on('message', (job: RecordsJob) => {
  let reply: RecordsAnswer;
  try {
    reply = { id: job.id, data: answer(job) };
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
