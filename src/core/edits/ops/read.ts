/** be-read: numbered lines of a range (or of a `target`), with the viewed_code_id that later edits check. */
import { ToolError } from '../../errors';
import type { TextBuffer } from '../../text/lines';
import { parseFileRange } from '../../text/range';
import { loadFile, type EditContext } from '../editContext';
import { readMessages } from '../messages';
import { mixedEolWarning, readMetadata } from '../../read/metadata';
import { readRange } from '../../read/range';
import { numbered } from '../../read/rows';
import type { ReadArgs, ReadResult } from '../types';
import { resolveTarget } from './readTarget';

export async function readLines(ctx: EditContext, args: ReadArgs): Promise<ReadResult> {
  const fr = parseFileRange(args.file);
  const ld = await loadFile(ctx, fr.path);
  const { doc } = ld;
  const total = doc.lineCount;
  const warnings: string[] = [];
  let start: number;
  let end: number;
  let whole = false;
  if (args.target) {
    ({ start, end } = await resolveTarget(ctx, ld, args.target));
  } else {
    const r = readRange(fr.spec, total, ld.display);
    ({ start, end, whole } = r);
    warnings.push(...r.warnings);
  }
  if (!args.brief && total > 0) checkReadSize(doc, ld.display, start, end, whole, ctx.limits.maxReadBytes);
  const mixed = mixedEolWarning(doc);
  if (mixed) warnings.push(mixed);
  // the same fields, from the same code, as a context mode's full page (the id of exactly these lines of these bytes)
  const result: ReadResult = { ...(await readMetadata(ctx.viewed, ld, start, end)) };
  if (args.brief) result.brief = true;
  else result.content = total === 0 ? '' : numbered(doc, start, end, args.blank ?? '<blank>');
  if (warnings.length) result.warnings = warnings;
  return result;
}

/** Refuses a listing over the read limit, naming a range that fits. */
function checkReadSize(doc: TextBuffer, display: string, start: number, end: number, whole: boolean, limit: number): void {
  const total = doc.lineCount;
  const bytes = doc.lineEnd(end) - doc.lineStart(start);
  if (bytes <= limit) return;
  const firstLineBytes = doc.lineEnd(start) - doc.lineStart(start);
  if (firstLineBytes > limit) {
    throw new ToolError('too_large', readMessages.lineTooLarge(start, display, firstLineBytes, limit), {
      total,
      bytes: firstLineBytes,
      limit,
    });
  }
  const fit = Math.max(start, Math.min(total, doc.lineAt(doc.lineStart(start) + limit) - 1));
  const message = readMessages.rangeTooLarge({
    display,
    range: whole ? '' : `:${start}-${end}`,
    bytes,
    lines: end - start + 1,
    limit,
    total,
    suggest: `${display}:${start}-${fit}`,
  });
  throw new ToolError('too_large', message, { total, bytes, limit, suggested: { start, end: fit } });
}
