/**
 * The checks an edit passes before it is planned, shared by EditService and be-apply: the line range is inside
 * the file, a viewed_code_id still matches what the agent read (and if not, what changed), `old` equals the lines.
 */
import { ToolError } from '../errors';
import { contentToLines } from '../text/content';
import type { TextBuffer } from '../text/lines';
import type { LineSpec } from '../text/range';
import { findLines, shortLineDiff } from './conflict';
import type { LoadedText } from '../read/load';
import { rangeMessages, viewedMessages, type ViewedChange } from './messages';
import { prefixDigest, rangeDigest, viewedFileMatches, topDigest, type ViewedCodeRegistry, type ViewedRecord } from './viewedCode';

export interface GuardPorts {
  viewed: ViewedCodeRegistry;
  /** Above this size the whole file is not searched for where the text read went. */
  maxAnalyzeBytes: number;
}

export function editRange(ld: LoadedText, spec: LineSpec, op: string): { start: number; end: number } {
  const total = ld.doc.lineCount;
  let start: number;
  let end: number;
  switch (spec.kind) {
    case 'all':
      return { start: 1, end: total };
    case 'line':
      start = end = spec.line;
      break;
    case 'span':
      ({ start, end } = spec);
      break;
    default:
      throw new ToolError('invalid_argument', rangeMessages.required(op, ld.display));
  }
  if (start < 1 || start > total) {
    throw new ToolError('invalid_argument', rangeMessages.startOutOfRange(op, start, total, ld.display), { total });
  }
  if (end > total) {
    throw new ToolError('invalid_argument', rangeMessages.endOutOfRange(op, start, end, total, ld.display), { total });
  }
  return { start, end };
}

export async function checkViewed(g: GuardPorts, id: string, ld: LoadedText, start: number, end: number): Promise<void> {
  const rec = g.viewed.get(id);
  if (!rec) {
    throw new ToolError('conflict', viewedMessages.unknown(id, ld.display));
  }
  if (!viewedFileMatches(rec, ld.display)) {
    throw new ToolError('conflict', viewedMessages.otherFile(id, rec.file, ld.display));
  }
  const viewedStart = rec.start === 0 ? 1 : rec.start;
  if (rec.total > 0 && (start < viewedStart || end > rec.end)) {
    throw new ToolError('conflict', viewedMessages.outsideRange(id, rec, start, end, ld.display));
  }
  if (rec.topHash !== undefined) return checkTop(g, rec, ld);
  const { doc } = ld;
  const prefixEnd = rec.end >= 1 && rec.end <= doc.lineCount ? doc.lineEnd(rec.end) : -1;
  if (prefixEnd >= 0 && (await prefixDigest(doc, rec.end)) === rec.prefixHash) return;
  if (rec.total === 0 && doc.lineCount === 0) return;
  throw new ToolError('conflict', viewedMessages.changed(ld.display, rec, doc.lineCount, viewedChange(g, rec, ld)), {
    viewed: { start: rec.start, end: rec.end, total: rec.total },
    total: doc.lineCount,
  });
}

/** A `w` id (a read from line 1): the name and the bytes to the end of the range must be as read. */
async function checkTop(g: GuardPorts, rec: ViewedRecord, ld: LoadedText): Promise<void> {
  const { doc } = ld;
  // end 0 (an empty file): the hash is of the whole file now, so any content refuses it
  if (rec.end <= doc.lineCount && (await topDigest(ld.display, doc, rec.end)) === rec.topHash) return;
  if (!rec.file) {
    // decoded after a restart: the hash is all there is
    throw new ToolError('conflict', viewedMessages.topChanged(rec.id, ld.display, rec.end, doc.lineCount), {
      viewed: { start: rec.start, end: rec.end },
      total: doc.lineCount,
    });
  }
  throw new ToolError('conflict', viewedMessages.changed(ld.display, rec, doc.lineCount, viewedChange(g, rec, ld)), {
    viewed: { start: rec.start, end: rec.end, total: rec.total },
    total: doc.lineCount,
  });
}

/** What changed in the lines `rec` was issued for (the file no longer matches it). */
function viewedChange(g: GuardPorts, rec: ViewedRecord, ld: LoadedText): ViewedChange {
  const { doc } = ld;
  const searchable = doc.bytes.length <= g.maxAnalyzeBytes;
  if (rec.lines) {
    const current = doc.lines(rec.start, rec.end);
    if (current.length === rec.lines.length && current.every((l, i) => l === rec.lines![i])) return { kind: 'above' };
    const diff = shortLineDiff(rec.lines, current, rec.start);
    return { kind: 'lines', diff, movedTo: searchable ? findLines(doc.lines(1, doc.lineCount), rec.lines) : undefined };
  }
  if (rec.start >= 1 && rec.rangeHash) {
    // An id from an earlier server process: the lines as read are not known here, their hash is.
    if (rangeDigest(doc, rec.start, rec.end) === rec.rangeHash) return { kind: 'above' };
    const n = rec.end - rec.start + 1;
    const movedTo = searchable ? findRangeByHash(doc, n, rec) : [];
    // found elsewhere by its hash, the text as read is known again: a real diff against the range now
    if (movedTo.length > 0 && rec.end <= doc.lineCount) {
      return { kind: 'lines', diff: shortLineDiff(doc.lines(movedTo[0], movedTo[0] + n - 1), doc.lines(rec.start, rec.end), rec.start), movedTo };
    }
    const change: ViewedChange = { kind: 'hash', movedTo };
    if (rec.end <= doc.lineCount) change.now = { start: rec.start, lines: doc.lines(rec.start, Math.min(rec.end, rec.start + 19)) };
    return change;
  }
  return { kind: 'unknown' };
}

/** Start lines where `n` lines hash like the range read (ranges of equal byte size only; at most 5). */
function findRangeByHash(doc: TextBuffer, n: number, rec: ViewedRecord): number[] {
  const out: number[] = [];
  for (let s = 1; s + n - 1 <= doc.lineCount && out.length < 5; s++) {
    if (doc.lineEnd(s + n - 1) - doc.lineStart(s) !== rec.rangeBytes) continue;
    if (rangeDigest(doc, s, s + n - 1) === rec.rangeHash) out.push(s);
  }
  return out;
}

export function checkOld(ld: LoadedText, start: number, end: number, old: string): void {
  const current = ld.doc.lines(start, end);
  const joined = current.join('\n');
  const candidates = [old.replace(/\r\n/g, '\n')];
  // upstream heuristic: an `old` with no real newline but literal "\n" sequences meant newlines
  if (!old.includes('\n') && old.includes('\\n')) candidates.push(old.replace(/\\n/g, '\n'));
  for (const c of candidates) {
    if (c === joined || c === joined + '\n') return;
  }
  const expected = contentToLines(candidates[0]);
  throw new ToolError('conflict', viewedMessages.oldMismatch(start, end, ld.display, shortLineDiff(expected, current, start)), {
    start,
    end,
  });
}

