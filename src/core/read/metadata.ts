/**
 * The fields a be-read reply gives besides the lines: the viewed_code_id of exactly the lines shown, and the
 * file's line endings, BOM, final newline and encoding on disk, all from the one buffer the lines came from.
 * Context modes' full pages build their reply with it, so a page and its id can never come from two reads.
 */
import type { EolKind, TextBuffer } from '../text/lines';
import type { LoadedText } from './load';
import { readMessages } from './messages';

/** Issues viewed_code_ids (the EditService's ViewedCodeRegistry, shared so that edits find the lines as read). */
export interface ViewedIssuer {
  issue(file: string, doc: TextBuffer, start: number, end: number): Promise<{ id: string }>;
}

export interface ReadMetadata {
  status: 'ok';
  file: string;
  start: number;
  end: number;
  total: number;
  viewed_code_id: string;
  eol: EolKind;
  bom: boolean;
  final_newline: boolean;
  /** The encoding on disk when it is not UTF-8. */
  encoding?: string;
}

/** The metadata of lines start..end of `loaded` (0-0 for an empty file), with the id issued for those bytes. */
export async function readMetadata(viewed: ViewedIssuer, loaded: LoadedText, start: number, end: number): Promise<ReadMetadata> {
  const { doc } = loaded;
  const rec = await viewed.issue(loaded.display, doc, start, end);
  const meta: ReadMetadata = {
    status: 'ok',
    file: loaded.display,
    start,
    end,
    total: doc.lineCount,
    viewed_code_id: rec.id,
    eol: doc.eolKind,
    bom: doc.hasBom,
    final_newline: doc.finalNewline,
  };
  if (loaded.encoding) meta.encoding = loaded.encoding;
  return meta;
}

/** The warning a read of a file with both CRLF and LF endings carries; undefined for any other file. */
export function mixedEolWarning(doc: TextBuffer): string | undefined {
  if (doc.eolKind !== 'mixed') return undefined;
  return readMessages.mixedEol(doc.crlfCount, doc.lfCount);
}
