/**
 * The repository map's per-file records: what each listed file holds (lines, language, summary, the names it
 * defines and uses). A file is read only when the file list says so; a record whose content came back the same
 * (a touch, a save without changes) is kept as it was, so nothing downstream sees a change. The version moves
 * when a record is added, removed or changed.
 */
import { languageIdFromPath } from '../text/languages';
import { extractTags, isCodeLanguage, type FileTags } from './tags';
import { looksBinary } from '../text/binary';
import type { MapFileReader, WalkedFile } from './mapPorts';
import { termsOf, type Terms } from './rank/bm25';
import { sharedList } from './nameCounts';

/** Files larger than this are counted but not tagged (generated code, data dumps). */
const MAX_TAG_BYTES = 1024 * 1024;
/** Files larger than this are not read at all; their line count is estimated from the size. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

export interface FileRecord {
  rel: string;
  lines: number;
  linesEstimated: boolean;
  languageId: string;
  binary: boolean;
  summary: string;
  tags?: FileTags;
  /** The words a query is matched against (rank/bm25.ts), made once with the record. */
  terms: Terms | undefined;
}

/** A record that changed: `old` is undefined for a file new to the map. */
export interface RecordChange {
  old: FileRecord | undefined;
  rec: FileRecord;
}

export class FileRecords {
  /** Bumped whenever a record is added, removed or changed. */
  version = 0;
  private readonly records = new Map<string, FileRecord>();

  constructor(
    private readonly root: string,
    private readonly reader: MapFileReader,
  ) {}

  get size(): number {
    return this.records.size;
  }

  /** The reader can read synchronously (readSync answers). */
  get syncReads(): boolean {
    return typeof this.reader.readSync === 'function';
  }

  get(rel: string): FileRecord | undefined {
    return this.records.get(rel);
  }

  values(): IterableIterator<FileRecord> {
    return this.records.values();
  }

  /** Removes a record; returns it (undefined when there was none). */
  remove(rel: string): FileRecord | undefined {
    const rec = this.records.get(rel);
    if (!rec) return undefined;
    this.records.delete(rel);
    this.version++;
    return rec;
  }

  /** Stores a freshly read record; undefined when it equals the stored one (which then stays). */
  store(rec: FileRecord): RecordChange | undefined {
    const old = this.records.get(rec.rel);
    if (old && sameContent(old, rec)) return undefined;
    this.records.set(rec.rel, rec);
    this.version++;
    return { old, rec };
  }

  /** Reads and tags one file; undefined when it is not a regular file inside the root (any more). */
  async read(f: WalkedFile): Promise<FileRecord | undefined> {
    const rec = emptyRecord(f.rel);
    if (f.size > MAX_READ_BYTES) return estimated(rec, f);
    let bytes: Buffer | undefined;
    try {
      bytes = await this.reader.read(this.root, f.abs);
    } catch {
      return unreadable(rec); // unreadable (permissions): counted, not described
    }
    return bytes && described(rec, bytes);
  }

  /** read(), synchronously, when the reader can (the cold index reads in time slices); undefined: it cannot. */
  readSync(f: WalkedFile): { rec: FileRecord | undefined } | undefined {
    const loaded = this.loadSync(f);
    if (!loaded) return undefined;
    return { rec: loaded.bytes ? described(loaded.rec!, loaded.bytes) : loaded.rec };
  }

  /**
   * The first half of readSync: the bytes to describe with the record they go in, or the record when there is
   * nothing to describe (too large to read, unreadable), or `rec` undefined when the file is out of the map. The
   * second half is `described`, on this thread or on a worker thread (recordData.ts, sharedReads.ts).
   */
  loadSync(f: WalkedFile): { rec: FileRecord | undefined; bytes?: Buffer } | undefined {
    const readSync = this.reader.readSync;
    if (!readSync) return undefined;
    const rec = emptyRecord(f.rel);
    if (f.size > MAX_READ_BYTES) return { rec: estimated(rec, f) };
    let bytes: Buffer | undefined;
    try {
      bytes = readSync.call(this.reader, this.root, f.abs);
    } catch {
      return { rec: unreadable(rec) }; // unreadable (permissions): counted, not described
    }
    return bytes ? { rec, bytes } : { rec: undefined };
  }
}

/** The empty list every record without names shares. */
export const NO_NAMES = Object.freeze([]) as unknown as string[];

/** The record of `rel` before it is described. */
export function emptyRecord(rel: string): FileRecord {
  // every field in the literal: `tags` added later moved each record's fields to a second object (~38 bytes a file)
  return { rel, lines: 0, linesEstimated: false, languageId: languageIdFromPath(rel), binary: false, summary: '', tags: undefined, terms: undefined };
}

/** The terms of a binary file: never ranked (the overview leaves binary files out), so one shared empty list. */
export const NO_TERMS: Terms = termsOf({ rel: '', summary: '' });

function unreadable(rec: FileRecord): FileRecord {
  rec.terms = termsOf(rec); // its path still matches a query: made once here, not at each query
  return rec;
}

function estimated(rec: FileRecord, f: WalkedFile): FileRecord {
  rec.lines = Math.round(f.size / 40);
  rec.linesEstimated = true;
  rec.terms = termsOf(rec);
  return rec;
}

/** The record of a file's bytes: binary or not, its lines, and (up to MAX_TAG_BYTES) its summary and tags. */
export function described(rec: FileRecord, bytes: Buffer): FileRecord {
  if (looksBinary(bytes)) {
    rec.binary = true;
    rec.terms = NO_TERMS;
    return rec;
  }
  rec.lines = countNewlines(bytes);
  if (bytes.length > MAX_TAG_BYTES) {
    rec.terms = termsOf(rec);
    return rec;
  }
  const tags = extractTags(bytes.toString('utf8'), rec.languageId);
  rec.summary = tags.summary;
  if (isCodeLanguage(rec.languageId)) {
    // the exported names only made the summary: not kept (one array less per file of the map)
    tags.exported = NO_NAMES;
    // a pushed array keeps room for 16 (145 bytes for one import): cut to its length, a single import shared
    tags.imports = tags.imports.length ? sharedList(tags.imports) : NO_NAMES;
    rec.tags = tags;
  }
  rec.terms = termsOf(rec);
  return rec;
}

/**
 * Same names defined (in the same order: ties among a file's symbols keep it), same identifiers used as often,
 * same imports: the file's edges in the graph and its symbols stay.
 */
export function sameTags(a: FileRecord, b: FileRecord): boolean {
  if (a.binary !== b.binary) return false;
  const ta = a.tags;
  const tb = b.tags;
  if (!ta || !tb) return !ta && !tb;
  if (ta.refs.size !== tb.refs.size || ta.imports.length !== tb.imports.length) return false;
  for (const [id, n] of ta.refs) if (tb.refs.get(id) !== n) return false;
  if (ta.defs.length !== tb.defs.length || ta.defs.some((d, i) => tb.defs[i] !== d)) return false;
  return ta.imports.every((x, i) => tb.imports[i] === x);
}

/** Everything the overview shows or ranks by is equal. */
function sameContent(a: FileRecord, b: FileRecord): boolean {
  return (
    a.lines === b.lines &&
    a.linesEstimated === b.linesEstimated &&
    a.languageId === b.languageId &&
    a.summary === b.summary &&
    sameTags(a, b)
  );
}

function countNewlines(b: Buffer): number {
  if (b.length === 0) return 0;
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return b[b.length - 1] === 10 ? n : n + 1;
}
