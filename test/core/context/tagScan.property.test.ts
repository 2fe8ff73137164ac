/**
 * The tag scan's hand-written loops (tags.ts identifier counting, comments.ts blanking) find exactly what the
 * regular expressions they replaced found, on text made of the characters that matter to them: identifier
 * characters, digits, quotes, comment openers, newlines and non-ASCII letters.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { countIdentifiers, extractTags, isTagKeyword, methodNames } from '../../../src/core/context/tags';
import { blankComments, commentScanner } from '../../../src/core/context/comments';

/** The comment blanking as it was written first: one replace() over the same comments and strings. */
function blankByReplace(text: string, languageId: string): string {
  const s = commentScanner(languageId);
  if (!s) return text;
  return text.replace(s.blank, (tok) => (s.comment.test(tok) ? tok.replace(/[^\n]/g, ' ') : tok));
}

/** The identifier counts as the regular expression finds them. */
function countsByRegex(text: string, keywords: (id: string) => boolean): Map<string, number> {
  const refs = new Map<string, number>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const id = m[0];
    if (id.length < 3 || keywords(id)) continue;
    refs.set(id, (refs.get(id) ?? 0) + 1);
  }
  return refs;
}

const pieces = ['a', 'b', 'Z', '_', '$', '0', '9', 'x1F', 'abc', 'const', 'return', 'café', 'ß', ' ', '\n', '\t', '"', "'", '`', '\\', '/', '*', '//', '/*', '*/', '#', '"""', "'''", '--', '--[[', ']]', '(', '{', ';'];
const source = fc.array(fc.constantFrom(...pieces), { maxLength: 80 }).map((xs) => xs.join(''));
const LANGUAGES = ['typescript', 'c', 'python', 'shellscript', 'php', 'lua', 'go', 'markdown'];

describe('context: the tag scan loops', () => {
  it('blank the same comments as one replace() over comments and strings (property)', () => {
    fc.assert(
      fc.property(source, fc.constantFrom(...LANGUAGES), (text, languageId) => {
        assert.equal(blankComments(text, languageId), blankByReplace(text, languageId));
      }),
      { numRuns: 3000 },
    );
  });

  it('count the identifiers the regular expression finds, in the same order (property)', () => {
    fc.assert(
      fc.property(source, (text) => {
        const refs = new Map<string, number>();
        countIdentifiers(text, refs);
        assert.deepEqual([...refs], [...countsByRegex(text, isTagKeyword)]);
      }),
      { numRuns: 3000 },
    );
  });

  it('find the methods the expression finds at every position, in the same order (property)', () => {
    const METHOD_RE =
      /^[ \t]+(?:(?:public|private|protected|static|async|readonly|override|abstract|final|virtual|get|set|function)\s+)*(?:[\w<>[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^;{}]*\)\s*(?::\s*[^{;=]+)?(?:throws [\w., ]+)?\s*\{\s*$/gm;
    // lines shaped like method heads, each part of which may be missing or wrong, joined by every kind of line break
    const pick = (...xs: string[]) => fc.constantFrom(...xs);
    const head = fc
      .tuple(pick(' ', '  ', '\t', ''), pick('', '', 'static ', 'async ', 'get ', 'if '), pick('', '', 'Map<K> ', 'int[] '), pick('run', 'x', 'get', '1a'), pick('', '', ' ', '\n'), pick('(', '(', ''), pick('', 'a, b', '', 'a;', 'a {', '\n  b'), pick(')', ')', ''), pick('', '', ': T', ': {', ' = 1', ': T;', ' throws E'), pick('', ' '), pick('{', '{', '{', '', ';', '{ x;', '{}'), pick('', '', ' ', '\u00a0', 'x'))
      .map((xs) => xs.join(''));
    const code = fc.array(fc.tuple(head, pick('\n', '\r\n', '\r', '\u2028', '', '\n\n')), { maxLength: 12 }).map((xs) => xs.map(([l, eol]) => l + eol).join(''));
    const found = { some: 0 };
    fc.assert(
      fc.property(code, (text) => {
        const want = [...text.matchAll(METHOD_RE)].map((m) => m[1]);
        if (want.length) found.some++;
        assert.deepEqual(methodNames(text), want);
      }),
      { numRuns: 5000 },
    );
    assert.ok(found.some > 300, `only ${found.some} texts held a method`);
  });

  it('takes letters after a digit as an identifier and stops at a non-ASCII letter', () => {
    const refs = extractTags('x = 0x1Fab + café_rate + 9lives;\n', 'go').refs;
    assert.deepEqual([...refs], [['x1Fab', 1], ['caf', 1], ['_rate', 1], ['lives', 1]]);
  });
});
