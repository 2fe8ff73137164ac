/**
 * Which lines the Agent Edits gutter marks in a file: the lines each recorded edit left, where they stand in the
 * file now (core/history/review.ts currentSpans). Reverts and rollbacks (be-trx) put earlier text back rather than
 * change it, so their lines are not marked; an edit that only deleted lines leaves no line to mark.
 */
import type { LineSpan } from '../../core/history/review';
import type { ReviewItem } from '../../core/history/reviewList';

/** 0-based, inclusive line numbers (as vscode.Range takes them). */
export interface MarkedLines {
  start: number;
  end: number;
}

export function gutterLines(spans: readonly LineSpan[], items: readonly Pick<ReviewItem, 'id' | 'tool'>[]): MarkedLines[] {
  const restoring = new Set(items.filter((i) => i.tool === 'be-trx').map((i) => i.id));
  return spans
    .filter((s) => s.endLine >= s.startLine && !restoring.has(s.id))
    .map((s) => ({ start: s.startLine - 1, end: s.endLine - 1 }));
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The recorded edits' spans in an open document, found by the bytes its text stands for on disk. An editor shows a
 * UTF-8 file's text without its BOM while the history hashed the file with it, so a text that matches no recorded
 * state is tried once more with the BOM in front (offsets then count it, as the history's do).
 */
export async function documentSpans(spansOf: (bytes: Uint8Array) => Promise<LineSpan[]>, text: string): Promise<LineSpan[]> {
  const utf8 = Buffer.from(text, 'utf8');
  const spans = await spansOf(utf8);
  return spans.length ? spans : spansOf(Buffer.concat([UTF8_BOM, utf8]));
}
