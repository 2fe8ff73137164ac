/** be-read's `target`: the lines of a line number, a marker, a function or a tag, instead of a range. */
import { ToolError } from '../../errors';
import { analyzableText, checkLine, type EditContext } from '../editContext';
import type { LoadedText } from '../../read/load';
import { targetMessages } from '../messages';
import type { RangeResult, ReadArgs } from '../types';
import { enclosingFunction, namedFunction } from './funcRange';
import { enclosingTag } from './tagRange';

export async function resolveTarget(ctx: EditContext, ld: LoadedText, target: NonNullable<ReadArgs['target']>): Promise<RangeResult> {
  const { doc } = ld;
  const value = String(target.value ?? '').trim();
  const kind = target.kind;
  if (doc.lineCount === 0) throw new ToolError('invalid_argument', targetMessages.emptyFile(ld.display));
  const numeric = /^\d+$/.test(value);
  switch (kind) {
    case 'line': {
      if (!numeric) throw new ToolError('invalid_argument', targetMessages.lineNotNumber(value));
      const n = checkLine(ld, Number(value));
      return { start: n, end: n };
    }
    case 'marker': {
      if (value === '') throw new ToolError('invalid_argument', targetMessages.emptyMarker);
      const needle = value.split('\n')[0];
      const at = doc.bytes.indexOf(Buffer.from(needle, 'utf8'), doc.bodyStart);
      if (at === -1) throw new ToolError('invalid_argument', targetMessages.markerNotFound(ld.display, needle));
      const n = doc.lineAt(at);
      return { start: n, end: n };
    }
    case 'function': {
      if (value === '') throw new ToolError('invalid_argument', targetMessages.emptyFunction);
      const text = analyzableText(ctx, ld);
      const r = numeric
        ? await enclosingFunction(ctx, ld, text, checkLine(ld, Number(value)))
        : await namedFunction(ctx, ld, text, value);
      return { start: r.start, end: r.end };
    }
    case 'tag': {
      if (value === '') throw new ToolError('invalid_argument', targetMessages.emptyTag);
      const text = analyzableText(ctx, ld);
      const line = numeric ? checkLine(ld, Number(value)) : firstTagLine(text, value, ld.display);
      const r = enclosingTag(text, ld, line);
      return { start: r.start, end: r.end };
    }
    default:
      throw new ToolError('invalid_argument', targetMessages.unknownKind(String(kind)));
  }
}

/** The line of the first `<name` or `</name` (case-insensitive, the whole tag name: `div` is not `<divider>`). */
function firstTagLine(text: string, value: string, display: string): number {
  const name = value.replace(/^<\/?/, '').replace(/>$/, '');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`</?${escaped}(?![\\w:.-])`, 'i').exec(text);
  if (!m) throw new ToolError('invalid_argument', targetMessages.tagNotFound(display, value));
  return lineOfIndex(text, m.index);
}

function lineOfIndex(text: string, index: number): number {
  let line = 1;
  let pos = text.indexOf('\n');
  while (pos !== -1 && pos < index) {
    line++;
    pos = text.indexOf('\n', pos + 1);
  }
  return line;
}
