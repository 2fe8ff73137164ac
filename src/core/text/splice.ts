/**
 * Edits as byte splices on a TextBuffer: [offset, removeEnd) is replaced by `insert`. Rules (documented in
 * docs and tested):
 * - Replacing lines S..E with k lines: new line i takes the terminator of old line S+i while there is one
 *   (so a mixed-EOL file keeps its endings where lines are replaced one for one); extra lines take the file's
 *   dominant EOL; the last new line takes the terminator of old line E (so a file without a final newline keeps
 *   having none). Lines outside S..E are never touched.
 * - Deleting lines S..E (k = 0) that reach the unterminated last line also removes the terminator of line S-1,
 *   so the file still has no final newline.
 * - Inserting after line N: every new line gets the dominant EOL. Appending after the last line of a file
 *   without a final newline puts the dominant EOL after the old last line and leaves the new last line
 *   unterminated ("a\nb" + insert "c" at :2 → "a\nb\nc"). Content inserted into an empty file is terminated.
 * - An empty last line exists only when terminated, so a new last line that is empty always gets a terminator,
 *   and a delete that leaves an empty line last keeps its terminator (the cases where a file without a final
 *   newline gains one).
 * - A file with no line endings at all (empty, or one unterminated line) has no dominant EOL of its own: new
 *   line endings then follow `fallbackEol` (the content's own, given by the caller), else LF.
 * - The BOM is never part of a line: offsets start after it, so it stays.
 */
import type { Eol, TextBuffer } from './lines';

export interface ByteSplice {
  offset: number;
  removeEnd: number;
  insert: Buffer;
}

export function applySplice(bytes: Buffer, s: ByteSplice): Buffer {
  return Buffer.concat([bytes.subarray(0, s.offset), s.insert, bytes.subarray(s.removeEnd)]);
}

/** Replace lines start..end (1 ≤ start ≤ end ≤ lineCount) by `lines` (k ≥ 0). */
function eolFor(doc: TextBuffer, fallbackEol?: Eol): Eol {
  return doc.crlfCount + doc.lfCount === 0 ? (fallbackEol ?? '\n') : doc.dominantEol;
}

export function planReplace(
  doc: TextBuffer,
  start: number,
  end: number,
  lines: string[],
  fallbackEol?: Eol,
): ByteSplice {
  const offset = doc.lineStart(start);
  const removeEnd = doc.lineEnd(end);
  const k = lines.length;
  if (k === 0) {
    // keep "no final newline": the new last line (start-1) loses its terminator
    // (not when line start-1 is empty: without its terminator it would vanish)
    if (doc.terminator(end) === '' && start > 1 && doc.contentEnd(start - 1) > doc.lineStart(start - 1)) {
      return { offset: doc.contentEnd(start - 1), removeEnd, insert: Buffer.alloc(0) };
    }
    return { offset, removeEnd, insert: Buffer.alloc(0) };
  }
  const dominant = eolFor(doc, fallbackEol);
  const replaced = end - start + 1;
  let text = '';
  for (let i = 0; i < k - 1; i++) text += lines[i] + (i < replaced - 1 ? doc.terminator(start + i) : dominant);
  const last = lines[k - 1];
  text += last + (doc.terminator(end) === '' && last === '' ? dominant : doc.terminator(end));
  return { offset, removeEnd, insert: Buffer.from(text, 'utf8') };
}

/** Insert `lines` (k ≥ 1) after line `after` (0 = top, lineCount = append). */
export function planInsert(doc: TextBuffer, after: number, lines: string[], fallbackEol?: Eol): ByteSplice {
  const eol = eolFor(doc, fallbackEol);
  const total = doc.lineCount;
  if (total === 0) {
    const at = doc.bodyStart;
    return { offset: at, removeEnd: at, insert: Buffer.from(lines.map((l) => l + eol).join(''), 'utf8') };
  }
  if (after === total && !doc.finalNewline) {
    const at = doc.bytes.length;
    const tail = lines[lines.length - 1] === '' ? eol : '';
    // a last line ending in a lone "\r" terminated by "\n" would turn into an empty CRLF line: keep its "\r"
    const first = eol === '\n' && doc.bytes[at - 1] === 13 ? '\r\n' : eol;
    return { offset: at, removeEnd: at, insert: Buffer.from(first + lines.join(eol) + tail, 'utf8') };
  }
  const at = after === total ? doc.bytes.length : doc.lineStart(after + 1);
  return { offset: at, removeEnd: at, insert: Buffer.from(lines.map((l) => l + eol).join(''), 'utf8') };
}
