/** be-insert (and be-insert-chip's insertion): the content goes after line N (`:0` is the top). */
import { ToolError } from '../../errors';
import { contentEol, contentToLines } from '../../text/content';
import { parseFileRange, type FileRange, type LineSpec } from '../../text/range';
import { planInsert } from '../../text/splice';
import type { EditContext } from '../editContext';
import { editLines, unchangedResult, type EditOptions, type Planned } from '../editPath';
import type { LoadedText } from '../../read/load';
import { affectedLines, editMessages } from '../messages';
import type { EditResult, InsertArgs } from '../types';

export async function insertLines(ctx: EditContext, args: InsertArgs): Promise<EditResult> {
  if (typeof args.content !== 'string') throw new ToolError('invalid_argument', editMessages.insertContentRequired);
  return insertAt(ctx, parseFileRange(args.file), args.content, args, 'be-insert');
}

/** Insert `content` after the line `target` names (`path:N`), as `tool`. */
export async function insertAt(ctx: EditContext, target: FileRange, content: string, options: EditOptions, tool: string): Promise<EditResult> {
  return editLines(ctx, target.path, options, (ld) => planInsertLines(ctx, ld, target.spec, content, tool));
}

function planInsertLines(ctx: EditContext, ld: LoadedText, spec: LineSpec, content: string, tool: string): Planned {
  const total = ld.doc.lineCount;
  if (spec.kind === 'none') throw new ToolError('invalid_argument', editMessages.insertNeedsLine(ld.display));
  if (spec.kind !== 'line') throw new ToolError('invalid_argument', editMessages.insertNeedsSingleLine(ld.display));
  const after = spec.line;
  if (after > total) {
    throw new ToolError('invalid_argument', editMessages.insertLineOutOfRange(after, total, ld.display), { total });
  }
  const newLines = contentToLines(content);
  if (newLines.length === 0) return { ...unchangedResult(ctx, ld, tool), after, added: 0 };
  return {
    tool,
    start: after + 1,
    end: after,
    newLines,
    splice: planInsert(ld.doc, after, newLines, contentEol(content)),
    affected: affectedLines(ctx.lang, after + 1, after + newLines.length, total + newLines.length),
    summary: editMessages.summaryAfter(tool, ld.display, after),
    counts: { after, added: newLines.length },
  };
}
