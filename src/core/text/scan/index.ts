/** The comment/string scanner: a text, in the syntax of its language, as bracket tokens, tag pairs and warnings. */
import { syntaxFor } from '../languages';
import { scanCode } from './codeScanner';
import { scanMarkdown, scanPlain } from './markdown';
import { scanMarkup } from './markup';
import { ScanState, type ScanResult } from './result';

export { Tok, TOKEN_CHARS, type KeywordHit, type ScanResult, type TagPair, type UnbalancedItem } from './result';
export type { Syntax } from './syntax';

/** Scans a whole text with the scanner of `languageId`; `keywords` are reported where they occur in code. */
export function scanText(text: string, languageId: string, keywords?: Set<string>): ScanResult {
  const syn = syntaxFor(languageId);
  const s = new ScanState(text);
  s.keywords = keywords;
  if (syn.kind === 'markup') scanMarkup(s, 0, text.length, syn);
  else if (syn.kind === 'markdown') scanMarkdown(s, 0, text.length);
  else if (syn.kind === 'plain') scanPlain(s, 0, text.length);
  else scanCode(s, 0, text.length, syn);
  return s.finish();
}
