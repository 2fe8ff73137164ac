/** What changed between the text an agent expected and the text now in the file, said briefly. */
import { diffArrays } from 'diff';

const MAX_DIFF_LINES = 24;

/** A unified-style line diff of expected vs current, numbered from `startLine`, cut to a few lines. */
export function shortLineDiff(expected: string[], current: string[], startLine: number): string {
  const out: string[] = [];
  let oldLine = startLine;
  let newLine = startLine;
  for (const part of diffArrays(expected, current)) {
    for (const line of part.value) {
      if (part.removed) out.push(`-${oldLine++}\t${line}`);
      else if (part.added) out.push(`+${newLine++}\t${line}`);
      else {
        out.push(` ${newLine}\t${line}`);
        oldLine++;
        newLine++;
      }
    }
  }
  if (out.length > MAX_DIFF_LINES) {
    const more = out.length - MAX_DIFF_LINES;
    return [...out.slice(0, MAX_DIFF_LINES), `… ${more} more line(s)`].join('\n');
  }
  return out.join('\n');
}

/** 1-based start lines where `needle` occurs as consecutive lines of `hay` (at most `limit`). */
export function findLines(hay: string[], needle: string[], limit = 3): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let i = 0; i + needle.length <= hay.length && found.length < limit; i++) {
    if (hay[i] !== needle[0]) continue;
    let ok = true;
    for (let j = 1; j < needle.length; j++) {
      if (hay[i + j] !== needle[j]) {
        ok = false;
        break;
      }
    }
    if (ok) found.push(i + 1);
  }
  return found;
}
