/** be-tag-range and be-read's `target: tag`: the innermost paired tag around a line (tagRange.ts). */
import { ToolError } from '../../errors';
import { analyzableText, checkLine, loadFile, type EditContext } from '../editContext';
import type { LoadedText } from '../../read/load';
import { targetMessages } from '../messages';
import { findTagRange, type TagRange } from '../tagRange';
import type { LineArgs, TagRangeResult } from '../types';

export async function tagRange(ctx: EditContext, args: LineArgs): Promise<TagRangeResult> {
  const ld = await loadFile(ctx, args.file);
  const line = checkLine(ld, args.line);
  const r = enclosingTag(analyzableText(ctx, ld), ld, line);
  return { start: r.start, end: r.end, kind: r.tag, tag: r.tag };
}

/** The innermost paired tag around `line` of `text` (the file's analyzable text); throws when there is none. */
export function enclosingTag(text: string, ld: LoadedText, line: number): TagRange {
  const r = findTagRange(text, line, ld.languageId);
  if (!r) throw new ToolError('invalid_argument', targetMessages.notInTag(line, ld.display));
  return r;
}
