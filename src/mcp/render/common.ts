/** Pieces every renderer shares. */
import type { RenderContext } from './types';

/** Tool names in a core hint (`be-read {...}`) as the client lists them. */
export function listedNames(text: string, ctx: RenderContext): string {
  return text.replace(/\bbe-[a-z]+(?:-[a-z]+)*/g, (name) => ctx.listedName(name));
}

/** A row with no letter or digit (a closing brace, `);`, a comment's end): right after a numbered row it needs no number of its own. */
const SYMBOLS_ONLY = /^[^\p{L}\p{N}]*$/u;

/**
 * Numbered rows as the model sees them, from the core's `N<TAB>text` rows (an empty line `N<TAB>`, asked for by
 * be-read in text style): `N text` (one space), an empty line an empty row, and a symbols-only row right after a
 * numbered row bare (it is that row + 1). On bench:context's
 * answer files this costs 0.92-0.99x server-filesystem's JSON read of the same file, where a number on every
 * row cost up to 1.04x: o200k spends a token per three digits, and no escaping saves as much on tab-indented Go
 * or comment-heavy TypeScript. A row that starts a page is always numbered.
 */
export function compactRows(content: string): string {
  const out: string[] = [];
  let afterNumbered = false;
  for (const row of content.split('\n')) {
    const tab = row.indexOf('\t');
    const n = tab > 0 ? row.slice(0, tab) : '';
    if (!/^\d+$/.test(n)) {
      out.push(row); // not a numbered row (never produced by the core; kept as it is)
      afterNumbered = false;
      continue;
    }
    const text = row.slice(tab + 1);
    if (text === '') {
      out.push('');
      afterNumbered = false;
    } else if (afterNumbered && SYMBOLS_ONLY.test(text)) {
      out.push(text);
      afterNumbered = false;
    } else {
      out.push(`${n} ${text}`);
      afterNumbered = true;
    }
  }
  return out.join('\n');
}

/** `! warning` lines, one per warning (none when there are none). */
export function warningLines(result: Record<string, unknown>): string[] {
  const out: string[] = [];
  const w = result.warnings;
  if (Array.isArray(w)) for (const x of w) out.push(`! ${String(x)}`);
  if (typeof result.warning === 'string' && result.warning) out.push(`! ${result.warning}`);
  return out;
}

export const join = (lines: (string | undefined | false)[]): string => lines.filter((l): l is string => typeof l === 'string').join('\n');
