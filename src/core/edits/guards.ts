/**
 * The checks an edit passes before it is planned, shared by EditService and be-apply: the line range is inside
 * the file, a viewed_code_id still matches what the agent read (and if not, what changed), `old` equals the lines.
 */
import { ToolError } from '../errors';
import { contentToLines } from '../text/content';
import type { TextBuffer } from '../text/lines';
import type { LineSpec } from '../text/range';
import { findLines, shortLineDiff } from './conflict';
import type { LoadedText } from './loadText';
import { prefixDigest, rangeDigest, viewedFileMatches, type ViewedCodeRegistry, type ViewedRecord } from './viewedCode';

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
      throw new ToolError('invalid_argument', `${op}: file must include a line range, e.g. ${ld.display}:5-15`);
  }
  if (start < 1 || start > total) {
    throw new ToolError(
      'invalid_argument',
      `${op}: start line ${start} is out of range (1..${total}) for ${ld.display}`,
      { total },
    );
  }
  if (end > total) {
    throw new ToolError(
      'invalid_argument',
      `${op}: end line ${end} is out of range (${start}..${total}) for ${ld.display}; the file has ${total} lines`,
      { total },
    );
  }
  return { start, end };
}

export async function checkViewed(g: GuardPorts, id: string, ld: LoadedText, start: number, end: number): Promise<void> {
  const rec = g.viewed.get(id);
  if (!rec) {
    throw new ToolError(
      'conflict',
      `viewed_code_id ${id} is unknown or expired; nothing was changed. Re-read ${ld.display} with be-read and use the new viewed_code_id.`,
    );
  }
  if (!viewedFileMatches(rec, ld.display)) {
    throw new ToolError(
      'conflict',
      `viewed_code_id ${id} belongs to ${rec.file || 'another file'}, not ${ld.display}; nothing was changed. Re-read ${ld.display}.`,
    );
  }
  const viewedStart = rec.start === 0 ? 1 : rec.start;
  if (rec.total > 0 && (start < viewedStart || end > rec.end)) {
    throw new ToolError(
      'conflict',
      `lines ${start}-${end} are outside the lines ${rec.start}-${rec.end} read with viewed_code_id ${id}; nothing was changed. ` +
        `Read ${ld.display}:${start}-${end} first.`,
    );
  }
  const { doc } = ld;
  const prefixEnd = rec.end >= 1 && rec.end <= doc.lineCount ? doc.lineEnd(rec.end) : -1;
  if (prefixEnd >= 0 && (await prefixDigest(doc, rec.end)) === rec.prefixHash) return;
  if (rec.total === 0 && doc.lineCount === 0) return;
  throw new ToolError('conflict', describeViewedChange(g, rec, ld), {
    viewed: { start: rec.start, end: rec.end, total: rec.total },
    total: doc.lineCount,
  });
}

function describeViewedChange(g: GuardPorts, rec: ViewedRecord, ld: LoadedText): string {
  const { doc } = ld;
  const head =
    `${ld.display} changed since it was read (viewed_code_id ${rec.id}, lines ${rec.start}-${rec.end} of ${rec.total}; ` +
    `the file now has ${doc.lineCount} lines); nothing was changed.`;
  const parts = [head];
  if (rec.lines) {
    const current = doc.lines(rec.start, rec.end);
    if (current.length === rec.lines.length && current.every((l, i) => l === rec.lines![i])) {
      parts.push(`Lines ${rec.start}-${rec.end} are the same, but lines above them changed.`);
    } else {
      parts.push(`Lines ${rec.start}-${rec.end} then (-) and now (+):\n${shortLineDiff(rec.lines, current, rec.start)}`);
      if (doc.bytes.length <= g.maxAnalyzeBytes) {
        const all = doc.lines(1, doc.lineCount);
        const moved = findLines(all, rec.lines);
        if (moved.length > 0) {
          const n = rec.lines.length;
          parts.push(
            `The text you read is now at ${moved.map((s) => `lines ${s}-${s + n - 1}`).join(', ')}.`,
          );
        } else {
          parts.push('The text you read is no longer in the file as it was.');
        }
      }
    }
  } else if (rec.start >= 1 && rec.rangeHash) {
    // An id from an earlier server process: the lines as read are not known here, their hash is.
    if (rangeDigest(doc, rec.start, rec.end) === rec.rangeHash) {
      parts.push(`Lines ${rec.start}-${rec.end} are the same, but lines above them changed.`);
    } else {
      const n = rec.end - rec.start + 1;
      const moved = doc.bytes.length <= g.maxAnalyzeBytes ? findRangeByHash(doc, n, rec) : [];
      parts.push(
        moved.length > 0
          ? `Lines ${rec.start}-${rec.end} changed; the text you read is now at ${moved.map((s) => `lines ${s}-${s + n - 1}`).join(', ')}.`
          : `Lines ${rec.start}-${rec.end} changed; the text you read is no longer in the file as it was.`,
      );
      if (rec.end <= doc.lineCount) {
        const now = doc.lines(rec.start, Math.min(rec.end, rec.start + 19));
        parts.push(`Lines ${rec.start}-${rec.start + now.length - 1} now:\n${now.map((l) => `+ ${l}`).join('\n')}`);
      }
    }
  }
  parts.push(`Re-read ${ld.display} and retry with the new viewed_code_id.`);
  return parts.join('\n');
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
  throw new ToolError(
    'conflict',
    `replace: old content does not match lines ${start}-${end} of ${ld.display}; nothing was changed. ` +
      `Expected (-) vs current (+):\n${shortLineDiff(expected, current, start)}\n` +
      'Re-read the range and pass its current text as old (the final line ending is optional).',
    { start, end },
  );
}

