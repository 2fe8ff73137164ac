/**
 * The `diff` and `balance` lines of an edit result, computed from the old buffer and the planned change
 * (lines start..end become newLines; end = start - 1 for an insert) before anything is written.
 */
import type { TextBuffer } from '../text/lines';
import { quickBalance } from './balance';
import { renderDiff } from './diff';
import { largeFileBalance, type Lang } from './messages';
import type { DiffFormat } from './types';

export interface LineChange {
  start: number;
  end: number;
  newLines: string[];
}

/** Lines of context shown around the edited lines. */
const CONTEXT_LINES = 5;

export function editDiff(doc: TextBuffer, change: LineChange, format: DiffFormat, lang: Lang): string {
  const ws = Math.max(1, change.start - CONTEXT_LINES);
  const we = Math.min(doc.lineCount, change.end + CONTEXT_LINES);
  const before = { startLine: ws, lines: doc.lines(ws, we) };
  const after = {
    startLine: ws,
    lines: [...doc.lines(ws, change.start - 1), ...change.newLines, ...doc.lines(change.end + 1, we)],
  };
  return renderDiff(before, after, format, lang);
}

/**
 * The whole new file's quick balance up to `maxWholeBytes` (as upstream); above it, the replaced lines against
 * the new ones, so the edit of a large file does not pay for a whole-file scan.
 */
export function editBalance(
  doc: TextBuffer,
  languageId: string,
  change: LineChange,
  newFile: { parts: Buffer[]; size: number },
  maxWholeBytes: number,
  lang: Lang,
): string {
  if (newFile.size <= maxWholeBytes) {
    return quickBalance(Buffer.concat(newFile.parts, newFile.size).toString('utf8', doc.bomLength), languageId, lang);
  }
  const oldText = change.end >= change.start ? doc.bytes.toString('utf8', doc.lineStart(change.start), doc.lineEnd(change.end)) : '';
  const newText = change.newLines.join('\n');
  if (oldText.length + newText.length > maxWholeBytes) return largeFileBalance.skipped(lang, maxWholeBytes);
  const before = quickBalance(oldText, languageId, 'en');
  const after = quickBalance(newText, languageId, 'en');
  return before === after
    ? largeFileBalance.unchanged(lang, maxWholeBytes)
    : largeFileBalance.changed(lang, maxWholeBytes, before, after);
}
