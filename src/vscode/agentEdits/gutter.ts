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
