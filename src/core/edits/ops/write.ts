/**
 * be-write: a whole file, created or replaced. An existing text file keeps its dominant line ending and its BOM;
 * the write is checked against the bytes read under the lock, and recorded for be-trx like any edit.
 */
import { ToolError } from '../../errors';
import type { FileStat } from '../../files/fileStore';
import { TextBuffer } from '../../text/lines';
import { assertText } from '../../text/validate';
import { withWriteLock, type EditContext } from '../editContext';
import { commitWrite, recordEdit } from '../editPath';
import { checkFileSize } from '../../read/load';
import { editMessages, writeMessages } from '../messages';
import { readBack } from '../readBack';
import type { WriteArgs, WriteResult } from '../types';

type WriteEntry = NonNullable<WriteResult['results']>[number];

export async function writeFile(ctx: EditContext, args: WriteArgs): Promise<WriteResult> {
  if (typeof args.content !== 'string') throw new ToolError('invalid_argument', writeMessages.contentRequired);
  const pathInput = args.file?.trim() ?? '';
  if (pathInput === '') throw new ToolError('invalid_argument', writeMessages.fileRequired);
  return withWriteLock(ctx, pathInput, async (abs) => {
    const display = ctx.sandbox.display(abs);
    const st = await ctx.files.stat(abs);
    const old = st ? await readOld(ctx, abs, display, st) : undefined;
    const bytes = newBytes(args.content, old?.doc);
    const warnings: string[] = [];
    const result: WriteResult = { status: 'ok', files: 1 };
    const entry: WriteEntry = { file: display, lines: new TextBuffer(bytes).lineCount, bytes: bytes.length, created: !st };
    if (args.preview) {
      result.preview = true;
    } else if (old && old.bytes.equals(bytes)) {
      warnings.push(writeMessages.sameContent);
    } else {
      const opts = { mkdirs: true, expectedMtimeMs: st?.mtimeMs, expectedContent: old ? old.bytes : null };
      const written = await commitWrite(ctx, abs, [bytes], bytes.length, opts);
      readBack(entry, written.stat);
      await recordEdit(ctx, result, {
        tool: 'be-write',
        file: abs,
        summary: editMessages.summaryWrite(display),
        created: !st,
        offset: 0,
        removed: Buffer.from(old?.bytes ?? EMPTY),
        insertedLength: bytes.length,
        afterHash: written.afterHash,
        afterSize: bytes.length,
      }, warnings);
    }
    if (warnings.length) entry.warnings = warnings;
    if (args.brief) result.brief = true;
    else result.results = [entry];
    return result;
  });
}

const EMPTY = Buffer.alloc(0);

/** The file being replaced; `doc` only when it is text (a binary file has no line ending or BOM to keep). */
async function readOld(ctx: EditContext, abs: string, display: string, st: FileStat): Promise<{ bytes: Buffer; doc?: TextBuffer }> {
  checkFileSize(display, st.size, ctx.limits.maxFileBytes);
  const { bytes } = await ctx.files.read(abs, { maxBytes: ctx.limits.maxFileBytes });
  try {
    assertText(bytes, display);
    return { bytes, doc: new TextBuffer(bytes) };
  } catch {
    return { bytes };
  }
}

/** The content as bytes, with the old file's CRLF endings and BOM kept. */
function newBytes(content: string, oldDoc: TextBuffer | undefined): Buffer {
  const text = oldDoc?.dominantEol === '\r\n' ? content.replace(/\r?\n/g, '\r\n') : content;
  const bytes = Buffer.from(text, 'utf8');
  return oldDoc?.hasBom && !text.startsWith('\uFEFF') ? Buffer.concat([oldDoc.bytes.subarray(0, 3), bytes]) : bytes;
}
