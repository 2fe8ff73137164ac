/**
 * be-tag-range and `target: tag`: the innermost paired tag containing a line. Uses the markup scanner
 * (core/text/scan/markup.ts), so tags split across lines, multi-line comments, CDATA, `<!…>`, `<?…?>`,
 * `>` inside quoted attributes, void elements, self-closing tags and script/style contents are handled.
 */
import { languageById } from '../text/languages';
import { scanText } from '../text/scan';

export interface TagRange {
  start: number; // line of the opening tag's `<`
  end: number; // line of the closing tag's `>`
  tag: string; // lowercased
}

/**
 * Innermost paired tag whose lines contain `line` (1-based). `languageId` picks HTML rules (default;
 * also Vue/Svelte), XML rules (`xml`: no void elements, no raw-text elements) or JSX elements inside
 * JS/JSX/TSX code (where `a<b && c>d` is a comparison, not a tag; plain TypeScript has no elements).
 * Self-closing JSX elements count when they span lines. Other languages are scanned as HTML (templates).
 */
export function findTagRange(text: string, line: number, languageId = 'html'): TagRange | undefined {
  const id = hasOwnTagRules(languageId) ? languageId : 'html';
  const { tagPairs } = scanText(text, id);
  let best: TagRange | undefined;
  let bestOffset = -1;
  for (const p of tagPairs) {
    if (p.openLine <= line && line <= p.closeLine && p.openOffset > bestOffset) {
      best = { start: p.openLine, end: p.closeLine, tag: p.tag };
      bestOffset = p.openOffset;
    }
  }
  return best;
}

/** Markup languages (HTML, XML, Vue, Svelte, Astro, SVG) and the JS/TS family are scanned with their own rules. */
function hasOwnTagRules(languageId: string): boolean {
  const syntax = languageById(languageId.toLowerCase())?.syntax;
  return syntax !== undefined && (syntax.kind === 'markup' || syntax.template);
}
