/** be-replace: lines S-E (or :ALL) become the content, checked against viewed_code_id and `old` when given. */
import { ToolError } from '../../errors';
import { contentEol, contentToLines } from '../../text/content';
import { parseFileRange, type LineSpec } from '../../text/range';
import { planInsert, planReplace } from '../../text/splice';
import { explainStaleRead } from '../../history/review';
import type { EditContext } from '../editContext';
import { editLines, requireRange, unchangedResult, type Planned } from '../editPath';
import { checkOld, checkViewed, editRange } from '../guards';
import type { LoadedText } from '../../read/load';
import { affectedDeleted, affectedLines, editMessages } from '../messages';
import type { EditResult, ReplaceArgs } from '../types';

const TOOL = 'be-replace';

export async function replaceLines(ctx: EditContext, args: ReplaceArgs): Promise<EditResult> {
  const fr = parseFileRange(args.file);
  requireRange('replace', fr.spec, fr.path);
  return editLines(ctx, fr.path, args, (ld) => planReplaceLines(ctx, ld, fr.spec, args));
}

async function planReplaceLines(ctx: EditContext, ld: LoadedText, spec: LineSpec, args: ReplaceArgs): Promise<Planned> {
  const { doc } = ld;
  const total = doc.lineCount;
  const newLines = args.content === undefined ? [] : contentToLines(args.content);
  const eol = contentEol(args.content ?? '');
  const guards = { viewed: ctx.viewed, maxAnalyzeBytes: ctx.limits.maxAnalyzeBytes };
  // a stale id refused because another session changed the file names that session (and what it did)
  const viewed = (id: string, s: number, e: number) =>
    checkViewed(guards, id, ld, s, e).catch(async (err: unknown) => {
      throw await explainStaleRead(ctx.history, err, ld.abs);
    });
  if (total === 0) {
    // an empty file: any of :ALL, :0, :1 replaces its (empty) content
    if (!(spec.kind === 'all' || (spec.kind === 'line' && spec.line <= 1))) {
      throw new ToolError('invalid_argument', editMessages.replaceEmptyFile(ld.display), { total });
    }
    if (args.viewed_code_id) await viewed(args.viewed_code_id, 1, 0);
    if (args.old !== undefined && args.old.replace(/\r?\n/g, '') !== '') {
      throw new ToolError('conflict', editMessages.replaceOldOnEmptyFile(ld.display));
    }
    if (newLines.length === 0) return unchangedResult(ctx, ld, TOOL);
    return {
      tool: TOOL,
      start: 1,
      end: 0,
      newLines,
      splice: planInsert(doc, 0, newLines, eol),
      affected: affectedLines(ctx.lang, 1, newLines.length, newLines.length),
      summary: editMessages.summaryLines(TOOL, ld.display, 1, newLines.length),
      counts: { removed: 0, added: newLines.length },
    };
  }
  const { start, end } = editRange(ld, spec, 'replace');
  if (args.viewed_code_id) await viewed(args.viewed_code_id, start, end);
  if (args.old !== undefined) checkOld(ld, start, end, args.old);
  const newTotal = total - (end - start + 1) + newLines.length;
  return {
    tool: TOOL,
    start,
    end,
    newLines,
    splice: planReplace(doc, start, end, newLines, eol),
    affected:
      newLines.length > 0
        ? affectedLines(ctx.lang, start, start + newLines.length - 1, newTotal)
        : affectedDeleted(ctx.lang, start, end, newTotal),
    summary: editMessages.summaryLines(TOOL, ld.display, start, end),
    counts: { removed: end - start + 1, added: newLines.length },
  };
}
