/**
 * A described record as plain data, for the cold index's second describer on a worker thread
 * (node/recordsPool.ts): structured clone keeps strings, numbers and arrays, not a NameCounts or the shared lists
 * and names of this thread's pool. fromRecordData makes the record the thread itself would have made of the same
 * bytes (test/core/context/recordData.property.test.ts holds them equal).
 */
import { NO_NAMES, NO_TERMS, type FileRecord } from './fileRecords';
import { internName, NameCounts, NO_COUNTS, sharedList, type NameCountsParts } from './nameCounts';
import type { Terms } from './rank/bm25';

export interface RecordData {
  lines: number;
  binary: boolean;
  summary: string;
  terms: Terms;
  /** A code file's tags: its defined names, its identifiers' counts (NameCounts.toParts) and its imports. */
  tags?: { defs: string[]; refs: NameCountsParts; imports: string[] };
}

/**
 * The port of the cold index's second describer (node/recordsPool.ts): the records of files' bytes described on
 * another thread, in order; it rejects when it cannot, and the map then describes them itself.
 */
export interface RecordDescriber {
  describe(files: readonly { rel: string; bytes: Uint8Array }[]): Promise<RecordData[]>;
}

/** What a described record (fileRecords.ts described) holds beyond its path and language. */
export function toRecordData(rec: FileRecord): RecordData {
  const data: RecordData = { lines: rec.lines, binary: rec.binary, summary: rec.summary, terms: rec.terms ?? NO_TERMS };
  if (rec.tags) data.tags = { defs: rec.tags.defs, refs: rec.tags.refs.toParts(), imports: rec.tags.imports };
  return data;
}

/**
 * `rec` (an empty record, fileRecords.ts emptyRecord) described by `data`, which it takes over (a structured clone's:
 * its lists become the record's): its names shared through this thread's pool.
 */
export function fromRecordData(rec: FileRecord, data: RecordData): FileRecord {
  rec.lines = data.lines;
  rec.binary = data.binary;
  rec.summary = data.summary;
  rec.terms = data.binary ? NO_TERMS : data.terms;
  if (data.tags) {
    const { defs, refs, imports } = data.tags;
    rec.tags = {
      defs: defs.map(internName),
      refs: refs.flat.length ? NameCounts.fromParts(refs) : NO_COUNTS,
      imports: imports.length ? sharedList(imports) : NO_NAMES,
      summary: data.summary,
      exported: NO_NAMES,
    };
  }
  return rec;
}
