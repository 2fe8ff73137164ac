/** Turning a chip back into text for be-insert-chip, in the target file's comment syntax (from the language registry). */
import { commentSyntax, type CommentSyntax } from '../text/languages';
import { originalTextOf } from './content';
import type { ChipFormat, ChipRecord } from './types';

export type { CommentSyntax } from '../text/languages';
export { commentSyntax };

function comment(syntax: CommentSyntax, text: string): string {
  // A closing marker inside the text would end the comment early.
  const safe = syntax.close ? text.split(syntax.close.trim()).join(syntax.close.trim().split('').join(' ')) : text;
  return `${syntax.open}${safe}${syntax.close}`;
}

/**
 * - `raw`: the original text byte for byte (args JSON pretty-printed when the chip has no text);
 * - `annotated`: one header comment line naming the chip, then the raw text;
 * - `json`: upstream's header + JSON dump of the arguments, in the target's comment syntax.
 */
export function renderChip(chip: ChipRecord, format: ChipFormat, languageId: string): string {
  const syntax = commentSyntax(languageId);
  const text = originalTextOf(chip);
  const argsJson = JSON.stringify(chip.args, null, 2);
  switch (format) {
    case 'raw':
      return text ?? argsJson;
    case 'annotated': {
      const when = new Date(chip.created_ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const where = chip.file ? ` (${chip.file}${chip.range ? `:${chip.range.start}-${chip.range.end}` : ''})` : '';
      const header = comment(syntax, `Chip ${chip.id} from tool "${chip.tool}" at ${when}${where}`);
      const body = text ?? argsJson;
      return `${header}\n${body}`;
    }
    case 'json':
      return (
        `${comment(syntax, `Chip ${chip.id} from tool ${JSON.stringify(chip.tool)}`)}\n` +
        `${comment(syntax, 'Original arguments:')}\n` +
        argsJson
      );
  }
}
