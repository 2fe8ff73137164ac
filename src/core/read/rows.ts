/**
 * Rows of the one line model (TextBuffer): the text of each line without its ending, exactly as the edit tools
 * match and splice it. Every read path numbers lines from here, so a page never shows a line an edit cannot find.
 */
import type { TextBuffer } from '../text/lines';

/** All lines of `doc`, without their endings (a lone `\r` at the end of the file stays part of the last line). */
export function docLines(doc: TextBuffer): string[] {
  const out: string[] = new Array<string>(doc.lineCount);
  for (let i = 1; i <= doc.lineCount; i++) out[i - 1] = doc.lineText(i);
  return out;
}

/** Lines start..end as upstream numbers them: `N<TAB>text`, an empty line shown as `blank`. */
export function numbered(doc: TextBuffer, start: number, end: number, blank: string): string {
  const out: string[] = [];
  for (let i = start; i <= end; i++) {
    const t = doc.lineText(i);
    out.push(`${i}\t${t === '' ? blank : t}`);
  }
  return out.join('\n');
}
