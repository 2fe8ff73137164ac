/** Short strings in results, in English by default and in upstream's Chinese with lang 'zh'. */
import type { Lang } from '../lang';

export type { Lang };

export function affectedLines(lang: Lang, start: number, end: number, total: number): string {
  return lang === 'zh'
    ? `行 ${start}-${end}（当前共 ${total} 行）`
    : `lines ${start}-${end} (file now has ${total} lines)`;
}

export function affectedDeleted(lang: Lang, start: number, end: number, total: number): string {
  return lang === 'zh'
    ? `行 ${start}-${end}（当前共 ${total} 行）`
    : `lines ${start}-${end} deleted (file now has ${total} lines)`;
}

export function affectedNothing(lang: Lang, total: number): string {
  return lang === 'zh' ? `无改动（当前共 ${total} 行）` : `no change (file has ${total} lines)`;
}

/**
 * Warnings about the content an agent gave (not the whole file, not a numbered listing): tabs when the file
 * around is indented with spaces, trailing whitespace.
 */
export function contentWarnings(newLines: string[], fileUsesTabs: boolean): string[] {
  const warnings: string[] = [];
  let tabs = 0;
  let trailing = false;
  for (const l of newLines) {
    for (let i = 0; i < l.length; i++) if (l.charCodeAt(i) === 9) tabs++;
    if (/[ \t]$/.test(l)) trailing = true;
  }
  if (tabs > 0 && !fileUsesTabs) {
    warnings.push(`content contains ${tabs} tab characters but the file is indented with spaces — verify indentation`);
  }
  if (trailing) warnings.push('content contains trailing whitespace on one or more lines');
  return warnings;
}

/** Does this sample of lines mostly start with a tab (tab-indented code)? */
export function usesTabIndent(lines: string[]): boolean {
  let indented = 0;
  let tabbed = 0;
  for (const l of lines) {
    if (l.length === 0 || (l[0] !== ' ' && l[0] !== '\t')) continue;
    indented++;
    if (l[0] === '\t') tabbed++;
  }
  return indented > 0 && tabbed * 2 > indented;
}
