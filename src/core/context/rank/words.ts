/**
 * Words of identifiers, paths and queries: `getEnvConfig` → get env config, `_status_codes.py` → status codes,
 * `HTTPException` → http exception, `body-limit/index.ts` → body limit index. Then stemmed, so that a query
 * and a file meet on the word, not on the spelling.
 */
import { stem } from './stem';

/** Words a query (or a name) is made of, lower case, in order, duplicates kept. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2') // camelCase
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2') // HTTPException
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const STOP = new Set([
  'the', 'and', 'for', 'where', 'what', 'how', 'find', 'with', 'from', 'that', 'this', 'into', 'file', 'files', 'code',
  'are', 'was', 'when', 'which', 'who', 'not', 'but', 'its', 'can', 'all', 'any', 'then', 'than', 'there', 'their',
]);

/** The distinct query words worth matching: 3+ letters (or a number), not a stop word. */
export function queryWords(query: string | undefined): string[] {
  if (!query) return [];
  return [...new Set(splitWords(query).filter((w) => (w.length >= 3 || /^\d+$/.test(w)) && !STOP.has(w)))];
}

const stems = new Map<string, string>();
const DIGITS = /^[0-9]+$/;

/** The stem of a lower-case word, memoised (names repeat across files and queries). */
export function stemOf(word: string): string {
  // a number is its own stem, and not memoised: generated and numbered names (`part4242`) would churn the memo, each
  // clear leaving megabytes of long-lived garbage
  if (DIGITS.test(word)) return word;
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size > 100_000) stems.clear();
    stems.set(word, (s = stem(word)));
  }
  return s;
}

/** Words of a path without its extension: `src/middleware/body-limit/index.ts` → src middleware body limit index. */
export function pathWords(rel: string): string[] {
  return splitWords(rel.replace(/\.[A-Za-z0-9]+$/, ''));
}

/**
 * How strongly two stems match: 1 when equal; 0.5 when one is a prefix of the other and covers most of it
 * (`config` ~ `configur`, `recov` ~ `recoveri`: the stemmer leaves such pairs apart); else 0.
 */
export function stemMatch(a: string, b: string): number {
  if (a === b) return 1;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && short.length >= 0.6 * long.length && long.startsWith(short) ? 0.5 : 0;
}
