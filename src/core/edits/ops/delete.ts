/** be-delete: lines S-E (or :ALL) go; their text is kept as a chip (editPath.ts) so it can be put back. */
import { ToolError } from '../../errors';
import { parseFileRange, type LineSpec } from '../../text/range';
import { planReplace } from '../../text/splice';
import { quickBalance } from '../balance';
import type { EditContext } from '../editContext';
import { editLines, requireRange, unchangedResult, type Planned } from '../editPath';
import { editRange } from '../guards';
import type { LoadedText } from '../../read/load';
import { affectedDeleted, editMessages } from '../messages';
import type { DeleteArgs, EditResult } from '../types';

const TOOL = 'be-delete';

export async function deleteLines(ctx: EditContext, args: DeleteArgs): Promise<EditResult> {
  const fr = parseFileRange(args.file);
  requireRange('delete', fr.spec, fr.path);
  return editLines(ctx, fr.path, args, (ld) => planDelete(ctx, ld, fr.spec));
}

function planDelete(ctx: EditContext, ld: LoadedText, spec: LineSpec): Planned {
  const { doc } = ld;
  if (doc.lineCount === 0) {
    if (spec.kind === 'all') return { ...unchangedResult(ctx, ld, TOOL), removed: 0 };
    throw new ToolError('invalid_argument', editMessages.deleteEmptyFile(ld.display), { total: 0 });
  }
  const { start, end } = editRange(ld, spec, 'delete');
  const removedText = doc.bytes.toString('utf8', doc.lineStart(start), doc.lineEnd(end));
  const warnings: string[] = [];
  if (removedText.length <= ctx.limits.maxWholeBalanceBytes) {
    const quick = quickBalance(removedText, ld.languageId, ctx.lang);
    if (!/OK\s*$/.test(quick)) warnings.push(editMessages.deletedUnbalanced(start, end, quick));
  }
  return {
    tool: TOOL,
    start,
    end,
    newLines: [],
    splice: planReplace(doc, start, end, []),
    affected: affectedDeleted(ctx.lang, start, end, doc.lineCount - (end - start + 1)),
    summary: editMessages.summaryLines(TOOL, ld.display, start, end),
    counts: { removed: end - start + 1 },
    warnings,
    deleted: removedText.length > 0 ? { text: removedText, range: { start, end } } : undefined,
  };
}
